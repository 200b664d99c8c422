import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension SealedNetwork {
    /// A listening socket made inside, now PushBench's to accept on.
    public struct Listener: Sendable {
        /// What answers it: an Apple host (the mock) or an address to reach (carried outside).
        public enum Role: Sendable {
            case apple(AppleHost, port: Int)
            case reach(ReachAddress)
        }

        public let role: Role
        /// The socket's descriptor, which the receiver closes.
        public let descriptor: Int32
    }

    /// The listening sockets the command's child made inside, in `listeners`' order, and the
    /// doorman's pid: call it once the child has been started (they were sent before its exec).
    /// - Throws: `SealError.noListeners` when none arrive within `timeoutMs`.
    public func receiveListeners(timeoutMs: Int32 = 5000) throws(SealError) -> (listeners: [Listener], doorman: pid_t) {
        let expected = listeners.count
        let (descriptors, doorman) = dialing.withLock { arrived in
            arrived = true
            return receive(most: expected, timeoutMs: timeoutMs)
        }
        guard descriptors.count == expected, doorman > 0 else {
            for descriptor in descriptors { close(descriptor) }
            throw .noListeners("\(descriptors.count) of \(expected) arrived")
        }
        return (zip(roles, descriptors).map { Listener(role: $0, descriptor: $1) }, doorman)
    }

    /// A new TCP socket made inside by the doorman, unconnected: connect it to reach what
    /// listens inside (the service's API). One request at a time, once the listeners have arrived.
    /// - Throws: `SealError.setupFailed` when the doorman has gone or could not make one,
    ///   `.noListeners` before the command has started.
    public func socketInside(ipv6: Bool = false) throws(SealError) -> Int32 {
        try dialing.withLock { arrived throws(SealError) -> Int32 in
            guard arrived else { throw .noListeners("the command has not started yet") }
            var family: UInt8 = ipv6 ? 6 : 4
            guard send(outside, &family, 1, Int32(MSG_NOSIGNAL)) == 1 else {
                throw .setupFailed(step: "ask for a socket inside", errorNumber: errno)
            }
            let (descriptors, failure) = receive(most: 1, timeoutMs: 5000)
            guard let descriptor = descriptors.first else {
                throw .setupFailed(step: "make a socket inside", errorNumber: failure > 0 ? failure : ETIMEDOUT)
            }
            return descriptor
        }
    }

    /// One message from inside: the descriptors it carried (at most `most`) and its number.
    private func receive(most: Int, timeoutMs: Int32) -> (descriptors: [Int32], number: Int32) {
        var ready = pollfd(fd: outside, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, timeoutMs) == 1 else { return ([], 0) }
        let space = MemoryLayout<cmsghdr>.stride + MemoryLayout<Int32>.stride * (most + 4) + 16
        var control = [UInt8](repeating: 0, count: space)
        var number: Int32 = 0
        let descriptors: [Int32] = withUnsafeMutablePointer(to: &number) { numberPointer in
            control.withUnsafeMutableBytes { controlBytes in
                var data = iovec(iov_base: numberPointer, iov_len: MemoryLayout<Int32>.size)
                return withUnsafeMutablePointer(to: &data) { dataPointer in
                    var message = msghdr()
                    message.msg_iov = dataPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    guard recvmsg(outside, &message, Int32(MSG_CMSG_CLOEXEC)) == MemoryLayout<Int32>.size else {
                        return []
                    }
                    return Self.descriptors(in: &message)
                }
            }
        }
        return (descriptors, number)
    }

    /// The descriptors an `SCM_RIGHTS` message carried.
    private static func descriptors(in message: inout msghdr) -> [Int32] {
        guard message.msg_controllen >= MemoryLayout<cmsghdr>.size, let control = message.msg_control else {
            return []
        }
        let header = control.assumingMemoryBound(to: cmsghdr.self).pointee
        guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS) else { return [] }
        let dataOffset = (MemoryLayout<cmsghdr>.size + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1)
        let count = (Int(header.cmsg_len) - dataOffset) / MemoryLayout<Int32>.stride
        let data = control.advanced(by: dataOffset).assumingMemoryBound(to: Int32.self)
        return (0..<count).map { data[$0] }
    }
}
