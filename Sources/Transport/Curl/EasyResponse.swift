import CCurl

/// What one blocking libcurl request beside the load received (the mock's `/stats`, a channel
/// management call): its body, up to a limit, and its header lines.
final class EasyResponse {
    private(set) var body: [UInt8] = []
    private(set) var headerLines: [String] = []
    private let bodyLimit: Int

    /// Keeps at most `bodyLimit` body bytes; a longer body fails the transfer.
    init(bodyLimit: Int) {
        self.bodyLimit = bodyLimit
    }

    /// Points `easy`'s body and header callbacks at this response, which must outlive the
    /// transfer.
    func receive(from easy: UnsafeMutableRawPointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = pb_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context)
        _ = pb_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, appendEasyBody)
        _ = pb_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, context)
        _ = pb_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, appendEasyHeader)
    }

    /// The value of header `name` (lower case), if the answer carried it.
    func header(_ name: String) -> String? {
        let prefix = name + ":"
        return headerLines.first { $0.lowercased().hasPrefix(prefix) }.map {
            String($0.dropFirst(prefix.count).filter { !$0.isWhitespace })
        }
    }

    fileprivate func append(body bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= bodyLimit else { return false }
        body.append(contentsOf: bytes)
        return true
    }

    fileprivate func append(header bytes: UnsafeRawBufferPointer) {
        headerLines.append(String(decoding: bytes, as: UTF8.self))
    }
}

private func appendEasyBody(
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ size: Int,
    _ count: Int,
    _ userdata: UnsafeMutableRawPointer?
) -> Int {
    receive(buffer, size * count, userdata) { $0.append(body: $1) }
}

private func appendEasyHeader(
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ size: Int,
    _ count: Int,
    _ userdata: UnsafeMutableRawPointer?
) -> Int {
    receive(buffer, size * count, userdata) {
        $0.append(header: $1)
        return true
    }
}

/// What both callbacks do: hand `length` bytes to the response behind `userdata`, and tell
/// libcurl they were taken (or, with 0, that the transfer must stop).
private func receive(
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ length: Int,
    _ userdata: UnsafeMutableRawPointer?,
    _ take: (EasyResponse, UnsafeRawBufferPointer) -> Bool
) -> Int {
    guard let buffer, let userdata else { return 0 }
    let response = Unmanaged<EasyResponse>.fromOpaque(userdata).takeUnretainedValue()
    return take(response, UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}
