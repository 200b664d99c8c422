/// A name inside a sealed network for a stub its command starts (`--host NAME=ADDRESS`): a
/// service that hard-codes its upstream API (a sports feed it polls) reaches the stub, listening
/// inside on a loopback address, at the name it dials.
public struct StubHost: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    /// A loopback address inside (host byte order): the inside has no other interface.
    public let address: UInt32

    /// Reads `NAME=ADDRESS`, ADDRESS an IPv4 address in 127.0.0.0/8 that no Apple name has.
    /// - Throws: `SealError.badHost` saying what is wrong with it.
    public init(_ text: String) throws(SealError) {
        guard let equals = text.firstIndex(of: "="), equals > text.startIndex else {
            throw .badHost(text, "give NAME=ADDRESS, such as feed.example.com=127.0.0.1")
        }
        let name = String(text[..<equals]).lowercased()
        let addressText = String(text[text.index(after: equals)...])
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }), name != "localhost" else {
            throw .badHost(text, "\(name) is not a host name")
        }
        if AppleHost.all.contains(where: { $0.name == name }) {
            throw .badHost(text, "\(name) is one of Apple's names, which the mock answers already")
        }
        guard let address = IPv4.parse(addressText), address >> 24 == 127 else {
            throw .badHost(
                text,
                "\(addressText) is not a loopback address (127.x.x.x): a stub listens inside, where only loopback is; "
                    + "an address outside is --reach HOST:PORT"
            )
        }
        if let taken = AppleHost.all.first(where: { $0.address == address }) {
            throw .badHost(text, "\(addressText) is \(taken.name)'s inside; choose another, such as 127.0.0.1")
        }
        self.name = name
        self.address = address
    }

    public var description: String { "\(name)=\(IPv4.text(address))" }
}
