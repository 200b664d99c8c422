import CCurl
import CNGHTTP2

/// The request headers that every push of a run shares (authorization, push type, topic,
/// priority, expiration), as one libcurl header list and as name/value byte pairs for nghttp2.
///
/// Each in-flight request links its own `apns-id` line in front of this list instead of copying
/// it, and keeps the block alive until it completes; a new block (after a token refresh) simply
/// replaces the old one for later requests.
public final class HeaderBlock {
    let list: UnsafeMutablePointer<curl_slist>?
    /// The same fields for nghttp2: lower-case names, values, at addresses that live as long as
    /// the block, so nghttp2 reads them in place.
    let fields: UnsafeMutableBufferPointer<nghttp2_nv>
    /// The `name: value` lines it was made from.
    public let lines: [String]

    /// Creates a block from `name: value` lines.
    public init(lines: [String]) {
        self.lines = lines
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            list = curl_slist_append(list, line)
        }
        self.list = list
        fields = .allocate(capacity: lines.count)
        for (index, line) in lines.enumerated() {
            let bytes = Array(line.utf8)
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            let name = bytes[..<colon].map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
            let value = Array(bytes[min(colon + 1, bytes.endIndex)...].drop { $0 == UInt8(ascii: " ") })
            fields[index] = nghttp2_nv(
                name: Self.copy(name),
                value: Self.copy(value),
                namelen: name.count,
                valuelen: value.count,
                flags: StaticName.noCopy
            )
        }
    }

    deinit {
        curl_slist_free_all(list)
        for field in fields {
            field.name.deallocate()
            field.value.deallocate()
        }
        fields.deallocate()
    }

    private static func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8> {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        pointer.initialize(from: bytes, count: bytes.count)
        return pointer
    }
}
