#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on a port of 127.0.0.1 the system chose: a port in use for a test
/// that needs one, or, once closed, a port free for a program that cannot be told port 0.
public final class LoopbackListener {
    /// The port it listens on.
    public let port: Int
    private var descriptor: Int32

    /// Listens on a free port.
    public init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = self.descriptor
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 1) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard descriptor >= 0, listening else {
            if descriptor >= 0 { Glibc.close(descriptor) }
            throw LoopbackListenerError(errno: errno)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close() }

    /// Accepts every connection waiting, without waiting for one, and closes them: how many
    /// reached the port since it opened (the kernel queues a connection before any accept).
    public func acceptWaiting() -> Int {
        var count = 0
        while descriptor >= 0 {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 0) == 1 else { break }
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { break }
            Glibc.close(connection)
            count += 1
        }
        return count
    }

    /// Stops listening, leaving the port free.
    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}

/// The system refused a listening socket.
public struct LoopbackListenerError: Error {
    public let errno: Int32
}
