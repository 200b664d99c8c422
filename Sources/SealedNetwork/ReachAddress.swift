#if canImport(Glibc)
import Glibc
#endif

/// An address outside a sealed network that its command may still reach (`--reach HOST:PORT`),
/// such as its database: inside, the same address and port (and `HOST`, when it is a name)
/// answer, and every connection made there is carried to the address outside.
public struct ReachAddress: Sendable, Hashable, CustomStringConvertible {
    /// The name given, when `HOST` was a name rather than an address.
    public let name: String?
    /// The IPv4 address outside, and inside (host byte order).
    public let address: UInt32
    public let port: Int

    /// Reads `HOST:PORT`: an IPv4 address, or a name this machine resolves to one now.
    /// - Throws: `SealError.badReach` saying what is wrong with it.
    public init(_ text: String) throws(SealError) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port), colon > text.startIndex
        else { throw .badReach(text, "give HOST:PORT, such as 127.0.0.1:5432") }
        let host = String(text[..<colon])
        if let address = IPv4.parse(host) {
            self.init(name: nil, address: address, port: port)
            return
        }
        guard let address = Self.resolve(host) else {
            throw .badReach(text, "\(host) is neither an IPv4 address nor a name this machine resolves to one")
        }
        self.init(name: host, address: address, port: port)
    }

    init(name: String?, address: UInt32, port: Int) {
        self.name = name
        self.address = address
        self.port = port
    }

    public var description: String { "\(name ?? IPv4.text(address)):\(port)" }

    /// The first IPv4 address `name` resolves to here.
    private static func resolve(_ name: String) -> UInt32? {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        return first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
            UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
        }
    }
}
