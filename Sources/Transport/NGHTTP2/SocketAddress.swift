#if canImport(Glibc)
import Glibc
#endif

/// A resolved TCP address of the target, kept so that reconnecting costs no name lookup.
package struct SocketAddress {
    private var storage = sockaddr_storage()
    private(set) var length: socklen_t = 0

    /// The first address `host` resolves to on `port`.
    ///
    /// The lookup blocks (getaddrinfo has no non-blocking form); the client does it once, before
    /// its first connection, and again only after a lookup failed.
    /// - Throws: `ConnectionFailure` of class `nameUnresolved`.
    static func resolve(host: String, port: Int) throws(ConnectionFailure) -> SocketAddress {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found else {
            throw ConnectionFailure(.nameUnresolved, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        var address = SocketAddress()
        address.length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &address.storage) {
            $0.copyMemory(
                from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen))
            )
        }
        return address
    }

    /// The address family (AF_INET or AF_INET6).
    var family: Int32 { Int32(storage.ss_family) }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>) -> Result) -> Result {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self)) }
    }
}

/// Why a connection could not be opened or ended: the class every request on it fails with,
/// and the words for it.
struct ConnectionFailure: Error {
    let kind: FailureClass
    let detail: String

    init(_ kind: FailureClass, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The class of a failed `connect(2)`'s `errno`.
    static func connect(errno code: Int32, to target: String) -> ConnectionFailure {
        let kind: FailureClass = code == ETIMEDOUT ? .connectTimeout : .connectRefused
        return ConnectionFailure(kind, "cannot connect to \(target): \(String(cString: strerror(code)))")
    }
}
