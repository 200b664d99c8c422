/// One plain HTTP/1.1 request and its answer from a table of paths, with no server around it: the
/// words `PlainHTTPConnection` speaks, kept apart from its socket so they can be tested alone.
public enum PlainHTTPExchange {
    /// What one path answers: a content type and a body, made when the request arrives.
    public typealias Route = @Sendable () -> (contentType: String, body: [UInt8])

    /// What a request asks, as far as the answer depends on it.
    public struct Request: Equatable, Sendable {
        public var method: String
        public var uri: String
        /// Whether the connection stays open after the answer (HTTP/1.1 unless `Connection:
        /// close`; HTTP/1.0 only with `Connection: keep-alive`).
        public var keepAlive: Bool

        public init(method: String, uri: String, keepAlive: Bool) {
            self.method = method
            self.uri = uri
            self.keepAlive = keepAlive
        }
    }

    /// What the bytes at the start of a connection's input hold.
    public enum Parsed: Equatable {
        /// Not a whole request head yet.
        case incomplete
        /// A request, whose head (and any body it declares) took `length` bytes.
        case request(Request, length: Int)
        /// Not HTTP/1.x: the connection is closed.
        case malformed
    }

    /// The largest request head read; a longer one is malformed.
    public static let maximumHeadBytes = 16 * 1024

    /// Reads the request at the start of `bytes`.
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Parsed {
        let end = Array("\r\n\r\n".utf8)
        guard let headEnd = bytes.indices.first(where: { bytes[$0...].starts(with: end) }) else {
            return bytes.count > maximumHeadBytes ? .malformed : .incomplete
        }
        let lines = String(decoding: bytes[bytes.startIndex..<headEnd], as: UTF8.self).split(separator: "\r\n")
        let words = lines.first?.split(separator: " ") ?? []
        guard words.count == 3, words[2].hasPrefix("HTTP/1.") else { return .malformed }
        var keepAlive = words[2] == "HTTP/1.1"
        var bodyLength = 0
        for line in lines.dropFirst() {
            let field = line.split(separator: ":", maxSplits: 1).map { $0.trimmingPrefix(" ") }
            guard field.count == 2 else { continue }
            switch field[0].lowercased() {
            case "connection":
                keepAlive = field[1].lowercased() != "close" && (keepAlive || field[1].lowercased() == "keep-alive")
            case "content-length": bodyLength = Int(field[1]) ?? 0
            default: break
            }
        }
        let length = headEnd - bytes.startIndex + end.count + max(0, bodyLength)
        guard bytes.count >= length else { return .incomplete }
        return .request(Request(method: String(words[0]), uri: String(words[1]), keepAlive: keepAlive), length: length)
    }

    /// The answer to `request` from `routes`: its status and reason phrase, content type and body.
    /// An unknown path is 404 naming the known ones; a method other than GET or HEAD is 405.
    public static func answer(
        to request: Request,
        routes: [String: Route]
    ) -> (status: Int, reason: String, contentType: String, body: [UInt8]) {
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        guard let route = routes[path] else {
            let known = routes.keys.sorted().joined(separator: " or ")
            return (404, "Not Found", "text/plain; charset=utf-8", Array("not found: try \(known)\n".utf8))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return (405, "Method Not Allowed", "text/plain; charset=utf-8", Array("only GET\n".utf8))
        }
        let (contentType, body) = route()
        return (200, "OK", contentType, body)
    }

    /// The whole HTTP/1.1 response to `request`, head and (but for HEAD) body.
    public static func response(to request: Request, routes: [String: Route]) -> [UInt8] {
        let (status, reason, contentType, body) = answer(to: request, routes: routes)
        var head = "HTTP/1.1 \(status) \(reason)\r\ncontent-type: \(contentType)\r\ncontent-length: \(body.count)\r\n"
        if !request.keepAlive { head += "connection: close\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (request.method == "HEAD" ? [] : body)
    }
}
