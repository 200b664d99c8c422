/// JSON written into a fixed buffer: a store and a count for each piece, where appending to a
/// `[UInt8]` checks the array's uniqueness and capacity every time (about 90 instructions a
/// piece, some seventeen pieces a payload).
///
/// What goes past the buffer's end is counted, not kept, so a writer that overflows still learns
/// the size its output would have had: the payload encoder reports it with its refusal.
struct CappedBytes: JSONOutput {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// The bytes appended so far, kept or not.
    private(set) var count = 0

    /// Writes into `buffer`, from its start.
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// Whether everything appended was kept.
    var fits: Bool { count <= buffer.count }

    mutating func append(_ byte: UInt8) {
        if count < buffer.count { buffer[count] = byte }
        count &+= 1
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        if let source = bytes.baseAddress, let base = buffer.baseAddress, bytes.count <= buffer.count &- count {
            (base + count).update(from: source, count: bytes.count)
        }
        count &+= bytes.count
    }
}
