import Foundation
import Harness
import MockAPNs
import MockFaults
import Wire
import Workload

/// `pushbench mock`'s server: the configuration its flags describe, what it announces when it
/// starts, and what it reports when it stops.
extension MockCommand {
    /// Where answered pushes are recorded: `--record`, or the traffic file of `--report`.
    var recording: String? {
        record ?? report.map { ($0 as NSString).appendingPathComponent("traffic.csv") }
    }

    /// What the generated certificate names besides loopback: `--host` when it is one address
    /// (a wildcard names none), and every `--cert-name`.
    var certificateNames: [String] {
        let wildcards: Set<String> = ["0.0.0.0", "::", "[::]", ""]
        return (wildcards.contains(host) ? [] : [host]) + certNames
    }

    /// The server the flags describe, with its keys, certificate, recorder and faults read.
    func serverConfiguration() throws -> MockAPNsConfiguration {
        let identity: TLSIdentity
        if let tlsCert, let tlsKey {
            identity = try KeyFile.serverIdentity(certificate: tlsCert, key: tlsKey)
        } else {
            do {
                identity = try TLSIdentity.makeSelfSigned(alsoNaming: certificateNames)
            } catch let error as CertificateError where error.isInput {
                throw CommandLineError("--cert-name: \(error)")
            }
        }
        // The recording path was checked above; one that still fails to open is bad input.
        let recorder = try recording.map { path in
            do {
                return try PushRecorder(path: path)
            } catch {
                throw CommandLineError("\(error)")
            }
        }
        var configuration = try server.configuration(
            host: host,
            port: port,
            key: try key.verification(),
            identity: identity,
            recorder: recorder
        )
        configuration.adminPort = adminPort
        configuration.channelPort = channelPort
        configuration.channelLimit = channelLimit
        configuration.subscribersPerChannel = subscribersPerChannel
        configuration.channelBroadcastsPerSecond = channelRate
        if let fanoutLatency {
            do {
                configuration.broadcastFanout = try InjectedLatency(parsing: fanoutLatency)
            } catch {
                throw CommandLineError("--fanout-latency \(fanoutLatency): \(error)")
            }
        }
        return configuration
    }

    /// Prints where the server listens and how it is set up: keys, certificate, recording,
    /// faults and limits.
    func announce(_ server: MockAPNsServer, _ configuration: MockAPNsConfiguration) {
        Console.out(
            "mock APNs listening on https://\(host):\(server.port) (HTTP/2 over TLS 1.2+: ALPN h2, or prior knowledge without ALPN)"
        )
        if let channels = server.channelPort {
            Console.out(
                "broadcast channels: https://\(host):\(channels)/1/apps/<bundle>/channels; broadcasts: POST /4/broadcasts/apps/<bundle> on the push port"
            )
        }
        if let admin = server.adminPort {
            Console.out("admin: http://\(host):\(admin)/stats (JSON) and http://\(host):\(admin)/metrics (Prometheus)")
        }
        if configuration.keys.isEmpty {
            Console.out(
                "provider tokens: NOT verified (no --auth-key or --keys); any well-formed ES256 token is accepted"
            )
        }
        for key in configuration.keys {
            Console.out(
                "provider tokens: verifying ES256 signatures of key \(key.keyID) for team \(key.teamID), \(key.scope)"
            )
        }
        if tlsCert == nil {
            let names = TLSIdentity.loopbackNames + certificateNames.filter { !TLSIdentity.loopbackNames.contains($0) }
            Console.out(
                "certificate: self-signed for \(names.joined(separator: ", ")) (a client must dial one of these)"
            )
        }
        if let certOut { Console.out("certificate written to \(certOut) (use curl --cacert \(certOut))") }
        if let recording { Console.out("recording answered pushes to \(recording)") }
        let faults = configuration.faults
        if !faults.isEmpty {
            Console.out("injecting faults" + (faults.name.map { " '\($0)'" } ?? "") + " (seed \(faults.seed)):")
            for line in faults.summary { Console.out("  " + line) }
        }
        let limits = configuration.limits
        Console.out(
            "limits: \(limits.maxConnections) connections, TLS and ALPN within \(self.server.handshakeTimeout), \(self.server.streams) streams a connection, \(ConnectionLimits.maxHeaderListBytes)-byte header lists, \(ConnectionLimits.keptBodyBytes) body bytes kept a stream"
        )
        Console.out("counters: GET /stats · stop with Ctrl-C")
    }

    /// Prints the stop report, closes the recording, and writes the traffic report of `--report`.
    func reportStop(_ stats: MockStats.Snapshot, recorder: PushRecorder?) throws {
        for line in MockStopReport.lines(stats) { Console.out(line) }
        guard let recorder, let recording else { return }
        Console.out("recorded \(try recorder.close()) answered pushes to \(recording)")
        guard let report else { return }
        do {
            let written = try MockStopReport.writeTraffic(
                of: recording,
                stats: stats,
                streamsAdvertised: server.streams,
                to: report
            )
            Console.out("traffic report: \(written.page)")
            Console.out("sender doctor: \(written.practices.verdict) (practices.json)")
        } catch {
            throw CommandLineError.runtime("the traffic report could not be written: \(error)")
        }
    }
}
