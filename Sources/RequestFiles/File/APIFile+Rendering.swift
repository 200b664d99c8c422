extension APIFile.Request {
    /// A request with every placeholder filled: what an HTTP client sends, with nothing of the
    /// template language left in it.
    public struct Rendered: Sendable, Equatable {
        public var method: String
        public var url: String
        /// `Name: value` lines.
        public var headers: [String]
        public var body: [UInt8]
    }

    /// The request with its placeholders filled from `values`, which a caller answers from what
    /// it knows of the one activity, call or device the request is for.
    package func rendered(_ values: (Placeholder) -> PlaceholderValue) -> Rendered {
        var body: [UInt8] = []
        self.body?.render(into: &body, values)
        return Rendered(
            method: method,
            url: url.render(values),
            headers: headers.map { "\($0.name): \($0.value.render(values))" },
            body: body
        )
    }
}
