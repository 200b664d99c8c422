import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Carries connections across a sealed network's edge, where no route does: each connection
/// accepted on a route's listener is joined to one the route dials, and bytes are copied both
/// ways until either side closes. Two kinds of route:
/// - out (`--reach`): a listener inside, at the address to reach, dialling that address outside;
/// - in (a service's API): a listener on the host's loopback, at the port the service listens on
///   inside, dialling it through a socket the doorman made inside. It opens only once the
///   service listens inside, so a caller outside that waits for the port waits for the service.
///
/// A thread a listener and a thread a connection: a service's database pool, the API calls and
/// the devices' reports are a few dozen connections, and their bytes are not what a profile
/// measures.
public final class ConnectionRelay: Sendable {
    /// One way across: connections accepted on `listener` are joined to what `dial` connects.
    public struct Route: Sendable {
        /// How reports name it: `HOST:PORT`.
        public let label: String
        let listener: Int32
        let dial: @Sendable () -> Int32?
    }

    private struct State {
        var stopping = false
        var listeners: [Int32] = []
        var open: Set<Int32> = []
        var carried: [String: Int] = [:]
        var refused: [String: Int] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Routes out of the network for the `--reach` listeners among `listeners`.
    public func reach(_ listeners: [SealedNetwork.Listener]) {
        for listener in listeners {
            guard case .reach(let address) = listener.role else { continue }
            serve(Route(label: address.description, listener: listener.descriptor) { Self.connect(to: address) })
        }
    }

    /// A route in, to `port` on the inside's 127.0.0.1, from the same port on the host's
    /// 127.0.0.1: bound now, listening once the service listens inside (checked every 100 ms
    /// until `stop`).
    /// - Throws: `SealError.setupFailed` when the host's port is taken.
    public func inbound(port: Int, through network: SealedNetwork) throws(SealError) {
        let inside = ReachAddress(name: nil, address: 0x7F00_0001, port: port)
        let listener = try Self.bound(to: inside)
        let dial: @Sendable () -> Int32? = {
            guard let socket = try? network.socketInside() else { return nil }
            return Self.connect(socket, to: inside)
        }
        state.withLock { $0.listeners.append(listener) }
        Thread.detachNewThread { [self] in
            while !state.withLock({ $0.stopping }) {
                if let probe = dial() {
                    close(probe)
                    guard Glibc.listen(listener, 1024) == 0 else { return }
                    return serve(Route(label: inside.description, listener: listener, dial: dial))
                }
                usleep(100_000)
            }
        }
    }

    /// Connections carried on the route `label`, and those its far side refused.
    public func counts(of label: String) -> (carried: Int, refused: Int) {
        state.withLock { ($0.carried[label, default: 0], $0.refused[label, default: 0]) }
    }

    /// Stops accepting and closes every carried connection.
    public func stop() {
        let (open, listeners) = state.withLock {
            $0.stopping = true
            return ($0.open, $0.listeners)
        }
        for descriptor in open + listeners { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private func serve(_ route: Route) {
        state.withLock { if !$0.listeners.contains(route.listener) { $0.listeners.append(route.listener) } }
        Thread.detachNewThread { [self] in accept(on: route) }
    }

    private func accept(on route: Route) {
        defer { close(route.listener) }
        while !state.withLock({ $0.stopping }) {
            var ready = pollfd(fd: route.listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 200) == 1 else { continue }
            let near = Glibc.accept(route.listener, nil, nil)
            guard near >= 0 else { continue }
            _ = fcntl(near, F_SETFD, FD_CLOEXEC)
            guard let far = route.dial() else {
                state.withLock { $0.refused[route.label, default: 0] += 1 }
                close(near)
                continue
            }
            state.withLock {
                $0.carried[route.label, default: 0] += 1
                $0.open.formUnion([near, far])
            }
            Thread.detachNewThread { [self] in carry(near, far) }
        }
    }

    /// Copies bytes both ways until either side has closed.
    private func carry(_ near: Int32, _ far: Int32) {
        defer {
            state.withLock { $0.open.subtract([near, far]) }
            close(near)
            close(far)
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var ends = [
            pollfd(fd: near, events: Int16(POLLIN), revents: 0), pollfd(fd: far, events: Int16(POLLIN), revents: 0),
        ]
        while poll(&ends, 2, -1) > 0 {
            for (index, end) in ends.enumerated() where end.revents != 0 {
                let read = Glibc.read(end.fd, &buffer, buffer.count)
                guard read > 0, Self.writeAll(buffer[..<read], to: ends[1 - index].fd) else { return }
            }
        }
    }

    private static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    /// A connection to `address` from here, or `nil` when it refuses.
    private static func connect(to address: ReachAddress) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        return connect(descriptor, to: address)
    }

    /// `descriptor` connected to `address` (with Nagle off), or `nil` (and closed) when refused.
    private static func connect(_ descriptor: Int32, to address: ReachAddress) -> Int32? {
        var target = address.socketAddress
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }

    /// A socket bound to `address` here, not listening yet.
    private static func bound(to address: ReachAddress) throws(SealError) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .setupFailed(step: "make a socket", errorNumber: errno) }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var local = address.socketAddress
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard bound else {
            let failure = errno
            close(descriptor)
            throw .setupFailed(step: "carry the service's port \(address.port) in from 127.0.0.1", errorNumber: failure)
        }
        return descriptor
    }
}

extension ReachAddress {
    /// The address as the kernel takes it.
    var socketAddress: sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = self.address.bigEndian
        return address
    }
}
