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

    /// The listening sockets the command's child made inside, in `listeners`' order: call it once
    /// the child has been started (they were sent before its exec).
    /// - Throws: `SealError.noListeners` when none arrive within `timeoutMs`.
    public func receiveListeners(timeoutMs: Int32 = 5000) throws(SealError) -> [Listener] {
        var ready = pollfd(fd: outside, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, timeoutMs) == 1 else { throw .noListeners("none within \(timeoutMs) ms") }
        let expected = listeners.count
        let space = MemoryLayout<cmsghdr>.stride + MemoryLayout<Int32>.stride * (expected + 4) + 16
        var control = [UInt8](repeating: 0, count: space)
        var byte: UInt8 = 0
        let descriptors: [Int32] = withUnsafeMutablePointer(to: &byte) { bytePointer in
            control.withUnsafeMutableBytes { controlBytes in
                var data = iovec(iov_base: bytePointer, iov_len: 1)
                return withUnsafeMutablePointer(to: &data) { dataPointer in
                    var message = msghdr()
                    message.msg_iov = dataPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    guard recvmsg(outside, &message, Int32(MSG_CMSG_CLOEXEC)) == 1 else { return [] }
                    return Self.descriptors(in: &message)
                }
            }
        }
        guard descriptors.count == expected else {
            for descriptor in descriptors { close(descriptor) }
            throw .noListeners("\(descriptors.count) of \(expected) arrived")
        }
        let roles =
            hosts.flatMap { host in host.ports.map { Listener.Role.apple(host, port: $0) } }
            + reach.map { Listener.Role.reach($0) }
        return zip(roles, descriptors).map { Listener(role: $0, descriptor: $1) }
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
