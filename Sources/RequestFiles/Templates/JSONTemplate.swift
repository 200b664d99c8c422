import Foundation
import Wire
import Yams

/// A request body as an API request file writes it: YAML that becomes JSON, with placeholders
/// in its strings. A string that is one placeholder becomes that value's JSON (so `priority:
/// "{{priority}}"` sends a number and `contentState: "{{content_state}}"` an object).
indirect enum JSONTemplate: Sendable, Equatable {
    case object([(key: String, value: JSONTemplate)])
    case array([JSONTemplate])
    case text(TextTemplate)
    /// A number, `true`, `false` or `null`, written as the file has it.
    case literal(String)

    static func == (lhs: JSONTemplate, rhs: JSONTemplate) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        case (.array(let a), .array(let b)): a == b
        case (.text(let a), .text(let b)): a == b
        case (.literal(let a), .literal(let b)): a == b
        default: false
        }
    }

    /// Reads `node`, naming its line in any error.
    /// - Throws: `APIFileError`.
    init(_ node: Node, file: String, environment: [String: String]) throws(APIFileError) {
        switch node {
        case .mapping(let mapping):
            var members: [(key: String, value: JSONTemplate)] = []
            for (key, value) in mapping {
                guard let name = key.scalar?.string else {
                    throw APIFileError(file: file, node: key, "a key of a body must be text")
                }
                members.append((name, try JSONTemplate(value, file: file, environment: environment)))
            }
            self = .object(members)
        case .sequence(let sequence):
            var items: [JSONTemplate] = []
            for item in sequence { items.append(try JSONTemplate(item, file: file, environment: environment)) }
            self = .array(items)
        case .scalar(let scalar):
            if scalar.style == .plain, let literal = Self.literal(scalar.string) {
                self = .literal(literal)
            } else {
                do {
                    self = .text(try TextTemplate(parsing: scalar.string, environment: environment))
                } catch {
                    throw APIFileError(file: file, node: node, error.message)
                }
            }
        case .alias:
            throw APIFileError(file: file, node: node, "YAML aliases are not read in an API file")
        }
    }

    /// The placeholders used anywhere in the body.
    var placeholders: [Placeholder] {
        switch self {
        case .object(let members): members.flatMap(\.value.placeholders)
        case .array(let items): items.flatMap(\.placeholders)
        case .text(let text): text.placeholders
        case .literal: []
        }
    }

    /// The content-state members named anywhere in the body (`{{content_state.NAME}}`).
    var contentStateFields: [String] {
        switch self {
        case .object(let members): members.flatMap(\.value.contentStateFields)
        case .array(let items): items.flatMap(\.contentStateFields)
        case .text(let text): text.contentStateFields
        case .literal: []
        }
    }

    /// Appends the body's JSON to `output`, every placeholder filled from `values`.
    func render(into output: inout [UInt8], _ values: (Placeholder) -> PlaceholderValue) {
        switch self {
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.render(into: &output, values)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.render(into: &output, values)
            }
            output.append(UInt8(ascii: "]"))
        case .text(let text):
            guard let whole = text.wholeValue(values) else {
                JSONWriter.writeString(text.render(values), to: &output)
                return
            }
            switch whole {
            case .integer(let number): output.append(contentsOf: String(number).utf8)
            case .text(let value): JSONWriter.writeString(value, to: &output)
            case .json(let bytes): output.append(contentsOf: bytes)
            case .time(let unix): output.append(contentsOf: String(Int64(unix.rounded(.down))).utf8)
            case .none: output.append(contentsOf: "null".utf8)
            }
        case .literal(let literal):
            output.append(contentsOf: literal.utf8)
        }
    }

    /// A plain scalar's JSON, when it is a number, a boolean or null (YAML 1.2's core schema).
    private static func literal(_ text: String) -> String? {
        switch text {
        case "true", "false", "null": return text
        case "~", "": return "null"
        default:
            guard let number = Double(text), number.isFinite, text.first != "+", !text.hasPrefix("0x") else {
                return nil
            }
            return text
        }
    }
}
