import ArrivalMatching
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether a service listens yet: a TCP connect to its URL's host and port, nothing sent.
public enum PortProbe {
    /// Whether a TCP connection to `host`:`port` opens within `timeoutMs`.
    static func accepts(host: String, port: Int, timeoutMs: Int32) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return false }
        defer { freeaddrinfo(found) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            defer { entry = address.pointee.ai_next }
            let socket = Glibc.socket(
                address.pointee.ai_family,
                address.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                address.pointee.ai_protocol
            )
            guard socket >= 0 else { continue }
            defer { close(socket) }
            if connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else { continue }
            var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            guard poll(&descriptor, 1, timeoutMs) == 1 else { continue }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length)
            if failure == 0 { return true }
        }
        return false
    }

    /// A TCP port free on 127.0.0.1 now, for a service to listen on (`PUSHBENCH_SERVICE_PORT`):
    /// one below the kernel's ephemeral range where it can, so that neither the mock (bound to
    /// port 0 after the service's port is chosen) nor a client connection's own end is handed it
    /// before the service binds it.
    /// - Throws: `ProfileError.systemCall` when no socket can be bound.
    public static func freePort() throws -> Int {
        let ephemeralLow =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32768
        if ephemeralLow > 11_000 {
            for _ in 0..<64 {
                let candidate = Int.random(in: 10_000..<ephemeralLow)
                if let port = try bound(port: candidate) { return port }
            }
        }
        guard let port = try bound(port: 0) else { throw ProfileError.failure("binding a port for the service") }
        return port
    }

    /// Binds a socket to `port` on 127.0.0.1 (0: any) and closes it: the port it had, or `nil`
    /// when that port is taken.
    private static func bound(port: Int) throws -> Int? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw ProfileError.failure("socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
