import CSockets

#if canImport(Glibc)
import Glibc
#endif

/// Why a socket could not be listened on, or a loop made to serve it.
package enum ListenerError: Error, Equatable {
    /// Something else listens on `host`:`port`.
    case addressInUse(host: String, port: Int)
    /// Any other reason, in the system's words.
    case unusable(String)
}

/// The event loops' sockets: listening ones a server binds, and the clients it accepts on them.
package enum ListeningSocket {
    /// A non-blocking socket listening on `host`:`port` (0 picks a free port).
    /// - Throws: `ListenerError.addressInUse` when the port is taken, `unusable` otherwise.
    package static func bind(host: String, port: Int) throws(ListenerError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let address = found else {
            throw ListenerError.unusable(
                "cannot resolve \(host): \(String(cString: gai_strerror(status)))"
            )
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(
            address.pointee.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0
        )
        guard descriptor >= 0 else { throw ListenerError.unusable("socket: \(errnoWords())") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard Glibc.bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            if code == EADDRINUSE { throw ListenerError.addressInUse(host: host, port: port) }
            throw ListenerError.unusable("bind \(host):\(port): \(String(cString: strerror(code)))")
        }
        guard Glibc.listen(descriptor, 1024) == 0 else {
            let words = errnoWords()
            Glibc.close(descriptor)
            throw ListenerError.unusable("listen \(host):\(port): \(words)")
        }
        return descriptor
    }

    /// Makes a socket handed over already listening non-blocking, as the loops accept from it.
    package static func adopt(_ descriptor: Int32) throws(ListenerError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw ListenerError.unusable("descriptor \(descriptor): \(errnoWords())")
        }
    }

    /// A client accepted on `listener`, non-blocking with Nagle off, and its address and port;
    /// nil when none waits.
    package static func accept(on listener: Int32) -> (descriptor: Int32, address: String, port: Int)? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let descriptor = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                pb_accept_nonblocking(listener, $0, &length)
            }
        }
        guard descriptor >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let (text, port) = describe(address)
        return (descriptor, text, port)
    }

    /// The local port `socket` is bound to, listening or connected: the port a listener asked
    /// for 0 got, and what identifies a client's connection in reports.
    package static func localPort(of socket: Int32) -> Int {
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(socket, $0, &length) }
        }
        let family = local.ss_family
        return withUnsafeBytes(of: &local) { bytes in
            family == sa_family_t(AF_INET6)
                ? Int(UInt16(bigEndian: bytes.load(as: sockaddr_in6.self).sin6_port))
                : Int(UInt16(bigEndian: bytes.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// An address as text and its port.
    private static func describe(_ address: sockaddr_storage) -> (address: String, port: Int) {
        let family = address.ss_family
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        func words() -> String {
            String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return withUnsafeBytes(of: &address) { bytes in
            if family == sa_family_t(AF_INET6) {
                var inet6 = bytes.load(as: sockaddr_in6.self)
                inet_ntop(AF_INET6, &inet6.sin6_addr, &text, socklen_t(text.count))
                return (words(), Int(UInt16(bigEndian: inet6.sin6_port)))
            }
            var inet = bytes.load(as: sockaddr_in.self)
            inet_ntop(AF_INET, &inet.sin_addr, &text, socklen_t(text.count))
            return (words(), Int(UInt16(bigEndian: inet.sin_port)))
        }
    }
}
