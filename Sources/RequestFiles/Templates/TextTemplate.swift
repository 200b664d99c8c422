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
        /// A time with an offset or a format: `{{timestamp+30s}}`, `{{activity_end|iso8601}}`.
        case time(Placeholder, TimeShape)
        /// One member of the content state, `{{content_state.NAME}}`: its value alone, as a
        /// service that takes a score, not the whole state, is sent it.
        case contentStateField(String)
        /// One member of the start push the device accepted: `{{start.attributes.NAME}}`
        /// (`aps.attributes`), `{{start.content_state.NAME}}` (`aps.content-state`) or
        /// `{{start.aps.NAME}}`, kept as the path into the push's JSON.
        case startMember(path: [String])
    }

    /// The sections of a start push a device's report can name, and where each is in its JSON.
    static let startSections = [
        "attributes": ["aps", "attributes"], "content_state": ["aps", "content-state"], "aps": ["aps"],
    ]

    /// What `{{content_state.NAME}}` starts with.
    static let fieldPrefix = Placeholder.contentState.rawValue + "."

    /// The pieces, in order.
    let pieces: [Piece]

    /// The value of the one placeholder (or content-state member) the text is, nothing else
    /// around it (a whole value in JSON); `nil` for other text.
    func wholeValue(_ values: (Placeholder) -> PlaceholderValue) -> PlaceholderValue? {
        guard pieces.count == 1 else { return nil }
        switch pieces[0] {
        case .literal: return nil
        case .placeholder(let name): return TimeShape().apply(values(name))
        case .time(let name, let shape): return shape.apply(values(name))
        case .contentStateField(let name): return Self.member(name, of: values(.contentState))
        case .startMember(let path): return Self.member(path, of: values(.startPush))
        }
    }

    /// The placeholders used (a content-state member uses `content_state`).
    var placeholders: [Placeholder] {
        pieces.compactMap {
            switch $0 {
            case .literal: nil
            case .placeholder(let name), .time(let name, _): name
            case .contentStateField: .contentState
            case .startMember: .startPush
            }
        }
    }

    /// The content-state members named (`{{content_state.NAME}}`).
    var contentStateFields: [String] {
        pieces.compactMap { if case .contentStateField(let name) = $0 { name } else { nil } }
    }

    /// Member `name` of `state`, a JSON object: a number or a text; `.none` when it has none.
    static func member(_ name: String, of state: PlaceholderValue) -> PlaceholderValue {
        member([name], of: state)
    }

    /// The member at `path` of `json`, a JSON object: a number or a text as itself, an object or
    /// an array as its JSON; `.none` when it has none.
    static func member(_ path: [String], of json: PlaceholderValue) -> PlaceholderValue {
        guard case .json(let bytes) = json, var value = try? JSONSerialization.jsonObject(with: Data(bytes)) else {
            return .none
        }
        for key in path {
            guard let next = (value as? [String: Any])?[key] else { return .none }
            value = next
        }
        switch value {
        case let text as String: return .text(text)
        case let number as NSNumber:
            return Double(number.int64Value) == number.doubleValue ? .integer(number.int64Value) : .text("\(number)")
        case is [String: Any], is [Any]:
            return (try? JSONSerialization.data(withJSONObject: value)).map { .json(Array($0)) } ?? .none
        default: return .none
        }
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
            if isPlaceholder, name.hasPrefix("start.") {
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = ""
                pieces.append(try Self.startMember(name))
            } else if isPlaceholder, name.hasPrefix(Self.fieldPrefix), name.count > Self.fieldPrefix.count {
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = ""
                pieces.append(.contentStateField(String(name.dropFirst(Self.fieldPrefix.count))))
            } else if isPlaceholder {
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = ""
                pieces.append(try Self.placeholder(name))
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

    /// `{{start.SECTION.NAME}}`: a member of the start push the device accepted.
    private static func startMember(_ name: String) throws(TemplateSyntaxError) -> Piece {
        let parts = name.split(separator: ".", maxSplits: 2).map(String.init)
        guard parts.count == 3, let path = startSections[parts[1]], !parts[2].isEmpty else {
            throw TemplateSyntaxError(
                "{{\(name)}}: a member of the start push is {{start.attributes.NAME}}, {{start.content_state.NAME}} or {{start.aps.NAME}}"
            )
        }
        return .startMember(path: path + [parts[2]])
    }

    /// The piece `{{name}}` is: a placeholder, or a time with its offset and format.
    private static func placeholder(_ name: String) throws(TemplateSyntaxError) -> Piece {
        let base = name.prefix { $0.isLetter || $0 == "_" }
        guard let known = Placeholder(rawValue: String(base)) else {
            throw TemplateSyntaxError(
                "unknown placeholder {{\(name)}}; the known ones are "
                    + Placeholder.allCases.map { "{{\($0.rawValue)}}" }.joined(separator: ", ")
                    + ", and {{content_state.NAME}} for one member of the content state"
            )
        }
        let rest = name.dropFirst(base.count)
        if rest.isEmpty { return .placeholder(known) }
        guard known.isTime else {
            throw TemplateSyntaxError(
                "{{\(name)}}: an offset or a format is for a time ("
                    + Placeholder.allCases.filter(\.isTime).map { "{{\($0.rawValue)}}" }.joined(separator: ", ")
                    + "), and {{\(known.rawValue)}} is not one"
            )
        }
        return try TimeShape.parse(rest, of: known.rawValue).map { .time(known, $0) } ?? .placeholder(known)
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
            case .placeholder(let name): text += Self.text(of: TimeShape().apply(values(name)))
            case .time(let name, let shape): text += Self.text(of: shape.apply(values(name)))
            case .contentStateField(let name): text += Self.text(of: Self.member(name, of: values(.contentState)))
            case .startMember(let path): text += Self.text(of: Self.member(path, of: values(.startPush)))
            }
        }
        return text
    }
}

extension TextTemplate {
    /// A value as text inside longer text.
    fileprivate static func text(of value: PlaceholderValue) -> String {
        switch value {
        case .integer(let number): String(number)
        case .text(let value): value
        case .json(let bytes): String(decoding: bytes, as: UTF8.self)
        case .time(let unix): String(Int64(unix.rounded(.down)))
        case .none: ""
        }
    }
}

/// A template's text is malformed; the file's reader adds where.
struct TemplateSyntaxError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
