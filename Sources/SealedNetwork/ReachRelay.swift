import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Carries the connections a sealed network's command makes to a `--reach` address out to that
/// address: each accepted inside is joined to a connection made here, and bytes are copied both
/// ways until either side closes. A thread a listener and a thread a connection: a service's
/// database and cache pools are a few dozen connections, and their bytes are not what a profile
/// measures.
public final class ReachRelay: Sendable {
    private struct State {
        var stopping = false
        var open: Set<Int32> = []
        var carried: [ReachAddress: Int] = [:]
        var refused: [ReachAddress: Int] = [:]
    }

    private let state = Mutex(State())
    private let listeners: [(address: ReachAddress, descriptor: Int32)]

    /// Starts accepting on `listeners` (the reach listeners `SealedNetwork.receiveListeners`
    /// returned), which it closes when stopped.
    public init(_ listeners: [SealedNetwork.Listener]) {
        self.listeners = listeners.compactMap {
            guard case .reach(let address) = $0.role else { return nil }
            return (address, $0.descriptor)
        }
        for listener in self.listeners {
            Thread.detachNewThread { [self] in accept(on: listener.descriptor, to: listener.address) }
        }
    }

    /// The addresses it carries connections to, in the order given.
    public var addresses: [ReachAddress] { listeners.map(\.address) }

    /// Connections carried to `address`, and those it refused (each closed inside at once).
    public func counts(of address: ReachAddress) -> (carried: Int, refused: Int) {
        state.withLock { ($0.carried[address, default: 0], $0.refused[address, default: 0]) }
    }

    /// Stops accepting and closes every carried connection.
    public func stop() {
        let open = state.withLock {
            $0.stopping = true
            return $0.open
        }
        for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        for listener in listeners { shutdown(listener.descriptor, Int32(SHUT_RDWR)) }
    }

    private func accept(on listener: Int32, to address: ReachAddress) {
        defer { close(listener) }
        while !state.withLock({ $0.stopping }) {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 200) == 1 else { continue }
            let inside = Glibc.accept(listener, nil, nil)
            guard inside >= 0 else { continue }
            _ = fcntl(inside, F_SETFD, FD_CLOEXEC)
            guard let outside = Self.connect(to: address) else {
                state.withLock { $0.refused[address, default: 0] += 1 }
                close(inside)
                continue
            }
            state.withLock {
                $0.carried[address, default: 0] += 1
                $0.open.formUnion([inside, outside])
            }
            Thread.detachNewThread { [self] in carry(inside, outside) }
        }
    }

    /// Copies bytes both ways until either side has closed and what it sent is delivered.
    private func carry(_ inside: Int32, _ outside: Int32) {
        defer {
            state.withLock { $0.open.subtract([inside, outside]) }
            close(inside)
            close(outside)
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var ends = [
            pollfd(fd: inside, events: Int16(POLLIN), revents: 0),
            pollfd(fd: outside, events: Int16(POLLIN), revents: 0),
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

    /// A connection to `address` outside, or `nil` when it refuses.
    private static func connect(to address: ReachAddress) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = UInt16(address.port).bigEndian
        target.sin_addr.s_addr = address.address.bigEndian
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
}
