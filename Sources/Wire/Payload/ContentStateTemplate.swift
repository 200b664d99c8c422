/// A `content-state` object whose members are integers with names fixed in advance (an activity
/// kind's, in the load engine), encoded once up to its values: `{"homeScore":`, `,"awayScore":`,
/// ..., `}`.
///
/// A push then writes only its numbers between those pieces. Building the same object as a
/// `JSONValue` tree costs each push the names' escaping checks and copies, and the tree's
/// reference counting, which were most of a payload's encoding.
public struct ContentStateTemplate: Sendable, Equatable {
    /// The members' names, in the order they are written.
    public let names: [String]
    /// What precedes each value (the opening brace or a comma, then the quoted name and a
    /// colon); the object's `}` follows the last.
    private let pieces: [[UInt8]]

    /// Creates the template of an object with members `names`, in that order.
    public init(names: [String]) {
        self.names = names
        pieces = names.enumerated().map { position, name in
            var piece: [UInt8] = [position == 0 ? UInt8(ascii: "{") : UInt8(ascii: ",")]
            JSONWriter.writeString(name, to: &piece)
            piece.append(UInt8(ascii: ":"))
            return piece
        }
    }

    /// Appends the object with member `i` set to `value(i)`, exactly as `JSONWriter` writes the
    /// same object of `.integer` members.
    public func write(to output: inout [UInt8], value: (Int) -> Int64) {
        if pieces.isEmpty {
            output.append(UInt8(ascii: "{"))
        }
        for index in pieces.indices {
            pieces[index].withUnsafeBufferPointer { output.append(contentsOf: $0) }
            JSONWriter.writeInteger(value(index), to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}
