import Foundation

/// Text with `{{placeholder}}` and `${VARIABLE}` in it, as an API request file writes a URL, a
/// header or a string of a body.
///
/// Variables are read once, when the file is loaded (an API key stays in memory and is never
/// written out); placeholders are filled per request.
struct TextTemplate: Sendable, Equatable {
    enum Piece: Sendable, Equatable {
        case literal(String)
        case placeholder(Placeholder)
    }

    /// The pieces, in order.
    let pieces: [Piece]

    /// The placeholder, when the text is exactly one and nothing else (a whole value in JSON).
    var wholePlaceholder: Placeholder? {
        if pieces.count == 1, case .placeholder(let name) = pieces[0] { name } else { nil }
    }

    /// The placeholders used.
    var placeholders: [Placeholder] {
        pieces.compactMap { if case .placeholder(let name) = $0 { name } else { nil } }
    }

    /// Reads `text`, replacing each `${NAME}` from `environment`.
    /// - Throws: `TemplateSyntaxError` for an unknown placeholder, an unset variable, or an
    ///   unclosed `{{` or `${`.
    init(parsing text: String, environment: [String: String]) throws(TemplateSyntaxError) {
        var pieces: [Piece] = []
        var literal = ""
        var rest = Substring(text)
        while let (range, isPlaceholder) = Self.nextOpener(in: rest) {
            literal += rest[..<range.lowerBound]
            let closer = isPlaceholder ? "}}" : "}"
            guard let close = rest[range.upperBound...].firstRange(of: closer) else {
                throw TemplateSyntaxError("\(isPlaceholder ? "{{" : "${") is not closed in \"\(text)\"")
            }
            let name = rest[range.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if isPlaceholder {
                guard let known = Placeholder(rawValue: name) else {
                    throw TemplateSyntaxError(
                        "unknown placeholder {{\(name)}}; the known ones are "
                            + Placeholder.allCases.map { "{{\($0.rawValue)}}" }.joined(separator: ", ")
                    )
                }
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = ""
                pieces.append(.placeholder(known))
            } else {
                guard let value = environment[name] else {
                    throw TemplateSyntaxError("${\(name)} is not set in the environment")
                }
                literal += value
            }
            rest = rest[close.upperBound...]
        }
        literal += rest
        if !literal.isEmpty || pieces.isEmpty { pieces.append(.literal(literal)) }
        self.pieces = pieces
    }

    /// Where the first `{{` or `${` of `text` is, and whether it opens a placeholder.
    private static func nextOpener(in text: Substring) -> (Range<Substring.Index>, Bool)? {
        switch (text.firstRange(of: "{{"), text.firstRange(of: "${")) {
        case (let placeholder?, let variable?):
            placeholder.lowerBound < variable.lowerBound ? (placeholder, true) : (variable, false)
        case (let placeholder?, nil): (placeholder, true)
        case (nil, let variable?): (variable, false)
        case (nil, nil): nil
        }
    }

    /// The text with every placeholder filled from `values`.
    func render(_ values: (Placeholder) -> PlaceholderValue) -> String {
        var text = ""
        for piece in pieces {
            switch piece {
            case .literal(let literal): text += literal
            case .placeholder(let name):
                switch values(name) {
                case .integer(let number): text += String(number)
                case .text(let value): text += value
                case .json(let bytes): text += String(decoding: bytes, as: UTF8.self)
                case .none: break
                }
            }
        }
        return text
    }
}

/// A template's text is malformed; the file's reader adds where.
struct TemplateSyntaxError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
