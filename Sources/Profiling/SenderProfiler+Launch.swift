import ArrivalMatching
import Foundation
import MockAPNs
import Reports
import Sampling
import SealedNetwork
import Wire

#if canImport(Glibc)
import Glibc
#endif

extension SenderProfiler {
    /// The mock and the sender, started: in PushBench's own network, the mock first and the
    /// sender handed its port; sealed (`--as-apple`), the sender first, in its network, whose
    /// listeners at Apple's names the mock then serves.
    struct Launch {
        var server: MockAPNsServer
        var sender: SenderProcess?
        /// The provider key made for the run, outside the report folder, when no `--auth-key`
        /// was given: removed when the profile ends.
        var throwawayKey: ThrowawayKeyFile?
        var sampling: Result<PerfRecording, PerfUnavailable>?
        var sampler: PerfRecording?
        /// The connections carried across a sealed network's edge: out to `--reach` addresses,
        /// in to the service's API.
        var relay: ConnectionRelay?
        var reachAddresses: [ReachAddress] = []
        /// The service's API ports, carried in.
        var apiPorts: [Int] = []

        /// What arrived at each of Apple's names and each `--reach` address, when sealed.
        var sealedNetworkSummary: RunSummary.SealedNetwork? {
            guard let relay else { return nil }
            let hosts = server.adopted.map { tally in
                let counts = tally.snapshot
                return RunSummary.SealedNetwork.Host(
                    name: tally.name,
                    port: tally.port,
                    environment: tally.environment.rawValue,
                    connections: counts.connections,
                    handshakesUnfinished: counts.handshakesUnfinished,
                    requests: counts.requests,
                    accepted: counts.accepted
                )
            }
            let carried = { (label: String) in
                let counts = relay.counts(of: label)
                return RunSummary.SealedNetwork.Reach(
                    address: label,
                    connections: counts.carried,
                    refused: counts.refused
                )
            }
            let reach = reachAddresses.map { carried($0.description) }
            let carriedIn = apiPorts.map { carried("127.0.0.1:\($0)") }
            return RunSummary.SealedNetwork(hosts: hosts, reach: reach, carriedIn: carriedIn)
        }
    }

    /// Starts the mock and the sender, in that order or sealed as `sealing` says, after the
    /// lead and with the perf sampler when asked for; a `stop` during the lead starts no sender.
    func launch(
        recorder: PushRecorder,
        prepared: Preparation,
        clock: ProfileClock,
        stop: () -> Bool,
        notice: (String) -> Void
    ) throws -> Launch {
        if let sealing {
            return try launchSealed(
                sealing,
                recorder: recorder,
                prepared: prepared,
                clock: clock,
                stop: stop,
                notice: notice
            )
        }
        let server = try startMock(recorder: recorder, devices: prepared.work?.fleet)
        do {
            let (contract, throwawayKey) = try contract(
                port: server.port,
                certificate: server.certificatePEM,
                startAt: prepared.startAtUnix
            )
            notice("mock APNs on https://127.0.0.1:\(server.port) for the sender, verifying key \(contract.keyID)")
            if let startAt = prepared.startAtUnix {
                try waitForLead(startAt: startAt, clock: clock, stop: stop, notice: notice)
            }
            let sampling = samplesStacks ? PerfRecording.start(notice: notice) : nil
            let sampler = try? sampling?.get()
            let sender = try startSender(contract: contract, apart: sampler?.pid)
            return Launch(
                server: server,
                sender: sender,
                throwawayKey: throwawayKey,
                sampling: sampling,
                sampler: sampler
            )
        } catch {
            server.shutdown()
            throw error
        }
    }

    /// The sealed launch: the sender starts in a network of its own, whose listening sockets at
    /// Apple's names come out to the mock, which names those hosts in its certificate.
    private func launchSealed(
        _ sealing: Sealing,
        recorder: PushRecorder,
        prepared: Preparation,
        clock: ProfileClock,
        stop: () -> Bool,
        notice: (String) -> Void
    ) throws -> Launch {
        let identity = try TLSIdentity.makeSelfSigned(alsoNaming: AppleHost.all.map(\.name))
        let network = try sealedNetwork(sealing, trusting: identity)
        var (contract, throwawayKey) = try contract(
            host: AppleHost.all[0].name,
            port: 443,
            certificate: identity.certificatePEM,
            startAt: prepared.startAtUnix
        )
        contract.trust = network.trustEnvironment(inherited: ProcessInfo.processInfo.environment)
        notice(Self.sealedNotice(network, keyID: contract.keyID))
        if let startAt = prepared.startAtUnix {
            try waitForLead(startAt: startAt, clock: clock, stop: stop, notice: notice)
        }
        let sampling = samplesStacks ? PerfRecording.start(notice: notice) : nil
        let sampler = try? sampling?.get()
        let relay = ConnectionRelay()
        // The service's API, carried in from the host's loopback: bound before the service starts.
        let apiPorts = subject.api?.file.loopbackPorts.ports ?? []
        do {
            for port in apiPorts { try relay.inbound(port: port, through: network) }
        } catch { throw ProfileError.systemCall("\(error)") }
        let sender = try startSender(contract: contract, apart: sampler?.pid, sealedIn: network)
        do {
            let listeners = sender?.sealedListeners ?? []
            let server = try startMock(
                recorder: recorder,
                devices: prepared.work?.fleet,
                identity: identity,
                adopted: listeners.compactMap(\.adopted)
            )
            relay.reach(listeners)
            return Launch(
                server: server,
                sender: sender,
                throwawayKey: throwawayKey,
                sampling: sampling,
                sampler: sampler,
                relay: relay,
                reachAddresses: sealing.reach,
                apiPorts: apiPorts
            )
        } catch {
            if let sender { kill(-sender.pid, SIGKILL) }
            throw ProfileError.systemCall("\(error)")
        }
    }

    /// The network the sender is sealed in, trusting the mock's certificate.
    private func sealedNetwork(_ sealing: Sealing, trusting identity: TLSIdentity) throws -> SealedNetwork {
        do {
            return try SealedNetwork(
                folder: path("sealed-network"),
                certificatePEM: identity.certificatePEM,
                reach: sealing.reach,
                stubs: sealing.stubs
            )
        } catch { throw ProfileError.systemCall("\(error)") }
    }

    /// What the user is told of the sealed network before the sender starts.
    private static func sealedNotice(_ network: SealedNetwork, keyID: String) -> String {
        let reach =
            (network.reach.isEmpty ? "" : " and \(network.reach.map(\.description).joined(separator: ", "))")
            + (network.stubs.isEmpty
                ? "" : "; stubs inside at \(network.stubs.map(\.description).joined(separator: ", "))")
        return "sealed network (\(network.usesUserNamespace ? "a user namespace" : "as root")): "
            + AppleHost.all.map(\.name).joined(separator: ", ")
            + " are the mock, verifying key \(keyID); nothing else is reachable from inside"
            + (reach.isEmpty ? "" : " but" + reach)
            + "; the sender trusts the mock through SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, "
            + "NODE_EXTRA_CA_CERTS, JAVA_TOOL_OPTIONS' truststore and the system bundle"
    }
}

extension SealedNetwork.Listener {
    /// The listener as the mock adopts it, for one of Apple's names; `nil` for a `--reach` one.
    var adopted: AdoptedListener? {
        guard case .apple(let host, let port) = role else { return nil }
        return AdoptedListener(
            descriptor: descriptor,
            name: host.name,
            port: port,
            environment: host.environment == .production ? .production : .development,
            api: host.api == .push ? .push : .channels
        )
    }
}
