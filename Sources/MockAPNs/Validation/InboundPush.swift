/// A request as the mock received it, before any judgement: what `PushRequestValidator` reads.
public struct InboundPush: Sendable {
    /// `:method`.
    public var method: String
    /// `:path`.
    public var path: String
    /// Regular headers in arrival order, names lowercase (HTTP/2 requires it).
    public var headers: [(name: String, value: String)]
    /// Body length in bytes.
    public var bodyLength: Int
    /// The body, kept only when the mock records traffic (judging needs just its length).
    public var body: [UInt8] = []
    /// The connection it came on (the client's port), for recordings.
    public var connection = 0

    /// Creates a request description.
    public init(method: String, path: String, headers: [(name: String, value: String)], bodyLength: Int) {
        self.method = method
        self.path = path
        self.headers = headers
        self.bodyLength = bodyLength
    }

    /// The first value of header `name`.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}
