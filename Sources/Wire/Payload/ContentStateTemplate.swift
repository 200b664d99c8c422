/// A `content-state` object whose members are integers with names fixed in advance (an activity
/// kind's, in the load engine), encoded once up to its values: `{"homeScore":`, `,"awayScore":`,
/// ..., `}`.
///
/// A push then writes only its numbers between those pieces. Building the same object as a
/// `JSONValue` tree costs each push the names' escaping checks and copies, and the tree's
/// reference counting, which were most of a payload's encoding. A class, since it never changes
/// once made: handing it to the encoder for every push counts one reference, not its three
/// arrays'.
public final class ContentStateTemplate: Sendable {
    /// The members' names, in the order they are written.
    public let names: [String]
    /// The object's JSON without its values: each value's preceding piece (the opening brace or
    /// a comma, then the quoted name and a colon), then the closing brace.
    private let text: [UInt8]
    /// Where each value goes in `text`: the end of the piece before it.
    private let valueOffsets: [Int]

    /// Creates the template of an object with members `names`, in that order.
    public init(names: [String]) {
        self.names = names
        var text: [UInt8] = []
        var valueOffsets: [Int] = []
        for name in names {
            text.append(text.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
            JSONWriter.writeString(name, to: &text)
            text.append(UInt8(ascii: ":"))
            valueOffsets.append(text.count)
        }
        if text.isEmpty { text.append(UInt8(ascii: "{")) }
        text.append(UInt8(ascii: "}"))
        self.text = text
        self.valueOffsets = valueOffsets
    }

    /// Appends the object with member `i` set to `value(i)`, exactly as `JSONWriter` writes the
    /// same object of `.integer` members.
    public func write(to output: inout some JSONOutput, value: (Int) -> Int64) {
        text.withUnsafeBufferPointer { text in
            var start = 0
            for index in valueOffsets.indices {
                let end = valueOffsets[index]
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<end]))
                JSONWriter.writeInteger(value(index), to: &output)
                start = end
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
        }
    }
}
