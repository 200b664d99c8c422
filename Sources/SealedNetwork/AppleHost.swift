/// One of Apple's APNs host names, as a sealed network answers it: the mock, on an address of
/// the inside's loopback that is this name's alone, so the listener a connection arrives at says
/// which name the sender dialled (whatever its TLS or HTTP/2 claim).
public struct AppleHost: Sendable, Hashable {
    /// Which APNs the name plays: the sandbox and development names play development, whose
    /// answers carry `apns-unique-id`.
    public enum Environment: String, Sendable {
        case production
        case development
    }

    /// Which API the name serves.
    public enum API: String, Sendable {
        /// Device pushes and broadcasts.
        case push
        /// Broadcast channel management.
        case channels
    }

    /// The name, such as `api.push.apple.com`.
    public let name: String
    /// Its address inside (IPv4, host byte order), in 127.0.0.0/8.
    public let address: UInt32
    /// The ports it answers on.
    public let ports: [Int]
    public let environment: Environment
    public let api: API

    /// Apple's hosts as Apple's documentation gives them: the push API on 443 and 2197 (for
    /// networks that block 443), and broadcast channel management on 2195 (sandbox) and 2196
    /// (production); and the broadcast send names Apple's own sample uses.
    public static let all: [AppleHost] = [
        AppleHost(
            name: "api.push.apple.com",
            address: 0x7F00_000B,
            ports: [443, 2197],
            environment: .production,
            api: .push
        ),
        AppleHost(
            name: "api.sandbox.push.apple.com",
            address: 0x7F00_000C,
            ports: [443, 2197],
            environment: .development,
            api: .push
        ),
        AppleHost(
            name: "api.development.push.apple.com",
            address: 0x7F00_000D,
            ports: [443, 2197],
            environment: .development,
            api: .push
        ),
        // Not Apple's documented names: its own broadcast sample and some services (sockudo's
        // default configuration) send broadcasts here, so they answer as the push hosts do.
        AppleHost(
            name: "api-broadcast.push.apple.com",
            address: 0x7F00_0010,
            ports: [443, 2197],
            environment: .production,
            api: .push
        ),
        AppleHost(
            name: "api-broadcast.sandbox.push.apple.com",
            address: 0x7F00_0011,
            ports: [443, 2197],
            environment: .development,
            api: .push
        ),
        AppleHost(
            name: "api-manage-broadcast.sandbox.push.apple.com",
            address: 0x7F00_000E,
            ports: [2195],
            environment: .development,
            api: .channels
        ),
        AppleHost(
            name: "api-manage-broadcast.push.apple.com",
            address: 0x7F00_000F,
            ports: [2196],
            environment: .production,
            api: .channels
        ),
    ]

    /// Every port the mock holds inside: a command cannot listen on them there.
    public static var ports: Set<Int> { Set(all.flatMap(\.ports)) }

    /// The address as text (`127.0.0.11`).
    public var addressText: String { IPv4.text(address) }
}

/// IPv4 addresses as the kernel's structures hold them (host byte order here).
enum IPv4 {
    /// `a.b.c.d`.
    static func text(_ address: UInt32) -> String {
        [24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xFF) }.joined(separator: ".")
    }

    /// The address `text` spells (`a.b.c.d`), or `nil`.
    static func parse(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var address: UInt32 = 0
        for part in parts {
            guard part.count <= 3, let byte = UInt32(part), byte <= 255 else { return nil }
            address = address << 8 | byte
        }
        return address
    }

    /// Whether `address` is in 127.0.0.0/8, which every loopback answers already.
    static func isLoopback(_ address: UInt32) -> Bool { address >> 24 == 127 }
}
