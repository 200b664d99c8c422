/// Where `JSONWriter` writes: a growable `[UInt8]`, or `CappedBytes`, a fixed buffer that a
/// payload is written into without an array's bookkeeping for every piece.
public protocol JSONOutput {
    /// Appends one byte.
    mutating func append(_ byte: UInt8)
    /// Appends `bytes`.
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension JSONOutput {
    /// Appends `text`'s UTF-8 bytes, which the compiler laid down once: no string to transcode
    /// and no array's reference count to touch, as a key written into every payload would pay.
    public mutating func append(constant text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}

extension Array: JSONOutput where Element == UInt8 {}
