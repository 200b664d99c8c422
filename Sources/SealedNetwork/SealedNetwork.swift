import CProcess
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A network of its own for the command `profile --as-apple` runs, and for everything it starts:
/// inside, Apple's APNs names resolve to the mock and nothing else answers but the addresses
/// given to `--reach`.
///
/// The kernel does the sealing (`pb_seal_network`, between the command's fork and its exec):
/// network and mount namespaces of its own, and a user namespace when PushBench is not root. The
/// inside has only a loopback, so a name a sender mistakes, or a fallback to the other
/// environment's host, reaches the mock or nothing, never Apple. What it sees in `/etc` is bound
/// over the host's files in its own mount namespace: a hosts file naming Apple's hosts, a
/// resolver that answers nothing, and the system CA bundle with the mock's CA added, for
/// clients that read only that.
///
/// The mock's listening sockets are made inside, at each name's own address, and handed out
/// (`receiveListeners`), so the mock serves them from PushBench's own threads: no proxy between a
/// sender and the mock, and the listener a connection arrives at says which name it dialled.
public final class SealedNetwork: Sendable {
    /// The names the inside answers, the mock behind each.
    public let hosts: [AppleHost]
    /// The addresses outside the inside may reach.
    public let reach: [ReachAddress]
    /// Names inside for stubs the command starts (`--host`).
    public let stubs: [StubHost]
    /// The mock's CA (its self-signed certificate), PEM, and the system bundle with it added.
    public let caFile: String
    public let bundleFile: String
    /// The mock's CA as a PKCS#12 truststore, for the JVM.
    public let javaTruststore: String
    /// Which of the host's files the inside sees replaced, and by what.
    public let binds: [Bind]
    /// A file seen inside in place of the host's.
    public struct Bind: Sendable {
        public var source: String
        public var target: String
    }
    /// Whether a user namespace is made too: PushBench is not root.
    public let usesUserNamespace: Bool
    /// The socket pair the listeners come out on: the inside's end is the child's until its exec.
    private let inside: Int32
    let outside: Int32
    /// Held while a message from inside is awaited: the listeners first, then each socket the
    /// doorman makes, in order. Whether the listeners have arrived: until then, no socket is asked for.
    let dialing = Mutex(false)

    /// Where the system's CA bundle is on Debian and Ubuntu: OpenSSL's default, and so what curl,
    /// Python, Go and Node read when nothing points them elsewhere.
    public static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    /// Writes what the inside sees to `folder`: the hosts file, a resolver configuration that
    /// names a server nobody runs inside, the name service order (files first), and the CA
    /// bundle, with `certificatePEM` added.
    /// - Throws: `SealError.files` when the folder cannot be written.
    public init(
        folder: String,
        certificatePEM: [UInt8],
        reach: [ReachAddress] = [],
        stubs: [StubHost] = []
    ) throws(SealError) {
        hosts = AppleHost.all
        self.reach = reach
        self.stubs = stubs
        usesUserNamespace = geteuid() != 0
        let files = SealFiles(folder: folder)
        do {
            caFile = try files.write("mock-ca.pem", certificatePEM)
            bundleFile = try files.write("ca-certificates.crt", Self.systemCertificates() + certificatePEM)
            javaTruststore = try files.write("truststore.p12", try JavaTruststore.store(trusting: certificatePEM))
            binds = try files.binds(hosts: hosts, reach: reach, stubs: stubs, bundle: bundleFile).map {
                Bind(source: $0.source, target: $0.target)
            }
        } catch let error as SealError {
            throw error
        } catch {
            throw .files("cannot write the sealed network's files in \(folder): \(error)")
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .setupFailed(step: "make its control socket", errorNumber: errno)
        }
        (inside, outside) = (pair[0], pair[1])
    }

    deinit {
        close(inside)
        close(outside)
    }

    /// The variables each stack reads its trusted CAs from, all naming the mock's: OpenSSL,
    /// Python's `ssl`, httpx and Go read `SSL_CERT_FILE`; requests `REQUESTS_CA_BUNDLE`; curl
    /// `CURL_CA_BUNDLE`; Node adds `NODE_EXTRA_CA_CERTS` to its own roots; every JVM reads
    /// `JAVA_TOOL_OPTIONS`, which names the truststore after any options `inherited` already has.
    /// (Clients that read none of them find the mock's CA in the system bundle inside.)
    public func trustEnvironment(inherited: [String: String]) -> [String: String] {
        [
            "SSL_CERT_FILE": bundleFile,
            "REQUESTS_CA_BUNDLE": bundleFile,
            "CURL_CA_BUNDLE": bundleFile,
            "NODE_EXTRA_CA_CERTS": caFile,
            "JAVA_TOOL_OPTIONS": JavaTruststore.toolOptions(
                path: javaTruststore,
                existing: inherited["JAVA_TOOL_OPTIONS"]
            ),
        ]
    }

    /// The listening sockets to make inside: each Apple host on each of its ports, then each
    /// address to reach, in the order `receiveListeners` returns them.
    var listeners: [pb_seal_listener] {
        roles.map { role in
            switch role {
            case .apple(let host, let port): pb_seal_listener(address: host.address, port: UInt16(port))
            case .reach(let address): pb_seal_listener(address: address.address, port: UInt16(address.port))
            }
        }
    }

    /// What each listening socket made inside answers, in the order they are made and sent.
    var roles: [Listener.Role] {
        hosts.flatMap { host in host.ports.map { Listener.Role.apple(host, port: $0) } } + reach.map { .reach($0) }
    }

    /// The system's CA certificates, when it has a bundle: the inside trusts them and the mock.
    private static func systemCertificates() -> [UInt8] {
        guard var bundle = FileManager.default.contents(atPath: systemBundle).map({ [UInt8]($0) }) else { return [] }
        if let last = bundle.last, last != UInt8(ascii: "\n") { bundle.append(UInt8(ascii: "\n")) }
        return bundle
    }
}

extension SealedNetwork {
    /// Calls `body` with the C description of this network, valid only during the call: hand it
    /// to `ChildLaunch.start(seal:)`.
    public func withSeal<Result>(_ body: (UnsafePointer<pb_seal>) throws -> Result) rethrows -> Result {
        let sources = binds.map { strdup($0.source) }
        let targets = binds.map { strdup($0.target) }
        defer { for pointer in sources + targets { free(pointer) } }
        let addresses = Array(Set(reach.map(\.address).filter { !IPv4.isLoopback($0) })).sorted()
        let listeners = self.listeners
        return try sources.map { UnsafePointer($0) }.withUnsafeBufferPointer { sources in
            try targets.map { UnsafePointer($0) }.withUnsafeBufferPointer { targets in
                try addresses.withUnsafeBufferPointer { addresses in
                    try listeners.withUnsafeBufferPointer { listeners in
                        var seal = pb_seal(
                            user_namespace: usesUserNamespace ? 1 : 0,
                            uid: geteuid(),
                            gid: getegid(),
                            bind_sources: sources.baseAddress,
                            bind_targets: targets.baseAddress,
                            binds: Int32(binds.count),
                            addresses: addresses.baseAddress,
                            address_count: Int32(addresses.count),
                            listeners: listeners.baseAddress,
                            listener_count: Int32(listeners.count),
                            control: inside
                        )
                        return try body(&seal)
                    }
                }
            }
        }
    }

    /// The reason a launch in this network failed, from `ChildLaunch.Failure`'s step and errno.
    public func failure(step: pb_seal_step, errorNumber: Int32) -> SealError {
        SealError.failed(step: step, errorNumber: errorNumber, asRoot: !usesUserNamespace)
    }
}
