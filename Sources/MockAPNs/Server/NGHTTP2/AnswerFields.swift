import CNGHTTP2

/// An answer's header fields as nghttp2 takes them, in buffers one loop reuses for every answer it
/// writes: a push's answer then allocates nothing for its headers (nghttp2 copies the fields).
final class AnswerFields {
    private var text: [UInt8] = []
    private var spans: [(name: Range<Int>, value: Range<Int>, indexed: Bool)] = []
    private var fields: [nghttp2_nv] = []

    /// Takes `answer`'s fields (`PushResponder.Answer.forEachHeader`) in place of the last ones.
    func gather(_ answer: PushResponder.Answer) {
        text.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        answer.forEachHeader { name, value, indexed in
            let nameStart = text.count
            text += name.utf8
            let valueStart = text.count
            text += value.utf8
            spans.append((nameStart..<valueStart, valueStart..<text.count, indexed))
        }
    }

    /// Calls `body` with the gathered fields, which point into this object's text for the call.
    func withFields(_ body: (UnsafeBufferPointer<nghttp2_nv>) -> Void) {
        fields.removeAll(keepingCapacity: true)
        text.withUnsafeMutableBufferPointer { bytes in
            for span in spans {
                fields.append(
                    nghttp2_nv(
                        name: bytes.baseAddress! + span.name.lowerBound,
                        value: bytes.baseAddress! + span.value.lowerBound,
                        namelen: span.name.count,
                        valuelen: span.value.count,
                        flags: span.indexed
                            ? UInt8(NGHTTP2_NV_FLAG_NONE.rawValue) : UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
                    )
                )
            }
            fields.withUnsafeBufferPointer(body)
        }
    }
}
