extension Array where Element == UInt8 {
    /// Appends `text`'s UTF-8 bytes, which the compiler laid down once: no string to transcode
    /// and no array's reference count to touch, as a key written into every payload would pay.
    public mutating func append(constant text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}
