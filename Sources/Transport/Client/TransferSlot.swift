import Basics
import CCurl
import CNGHTTP2
import Wire

/// One reusable libcurl easy handle with the memory its request needs while in flight.
///
/// libcurl does not copy `POSTFIELDS` or header lists, so the body bytes and the `apns-id`
/// header node live here, at fixed addresses, from `prepare` until `finish`.
///
/// The slot also follows its answer as it arrives (final status, end of the header block, body
/// against `content-length`), because libcurl 7.88 does not always end a transfer whose answer
/// is complete: when a server answers before it has read the body and then resets the stream
/// with NO_ERROR, as RFC 9113 §8.1 allows and nginx does, libcurl either reports
/// `CURLE_HTTP2_STREAM` or leaves the transfer running until its deadline (fixed in libcurl 8.1,
/// curl/curl#11165).
///
/// Before libcurl writes the request (`CURLOPT_PREREQFUNCTION`), the slot checks that the
/// connection speaks HTTP/2 and that libcurl is not sending the request anew on its own while
/// `LibcurlResends` forbids it; either stops the transfer with the cause as its failure class.
package final class TransferSlot {
    let easy: UnsafeMutableRawPointer
    /// Whether the handle is in the multi handle (between a successful add and `finish`).
    var isInFlight = false
    /// Where the slot reports itself once its answer is whole, for the client to end it.
    private let completeAnswers: CompleteAnswers
    private let resends: LibcurlResends
    /// How many times libcurl has set out to write the current request (more than once when it
    /// sends it anew itself).
    private var attempts = 0
    /// Why the slot stopped the current transfer before its request was written, if it did.
    private var refusal: (kind: FailureClass, message: String)?
    private var bodyStorage: UnsafeMutableRawBufferPointer
    private let idLine: UnsafeMutablePointer<CChar>
    private let idNode: UnsafeMutablePointer<curl_slist>
    /// libcurl's own words for a failure, more precise than its code's (CURLOPT_ERRORBUFFER).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headers: HeaderBlock?
    private let requestTimeoutNanos: UInt64
    private let connectTimeoutMs: Int
    /// The deadline the current request was given, milliseconds from its submission.
    private var timeoutMs = 0
    private var tag = 0
    private var intendedAt: UInt64 = 0
    fileprivate var responseBody: [UInt8] = []
    fileprivate var echoedID = false
    fileprivate var retryAfterSeconds: Int?
    /// The status of the last status line (0 before one), and whether a final one's header
    /// block has ended.
    private var answerStatus = 0
    private var answerHeadersEnded = false
    /// The answer's `content-length`, if it gave one.
    private var answerLength: Int?

    private static let idPrefix: [UInt8] = Array("apns-id: ".utf8)

    init(
        configuration: TransportConfiguration,
        completeAnswers: CompleteAnswers,
        resends: LibcurlResends
    ) throws(TransportError) {
        guard let easy = curl_easy_init() else { throw TransportError.setup("curl_easy_init failed") }
        self.easy = easy
        self.completeAnswers = completeAnswers
        self.resends = resends
        bodyStorage = .allocate(byteCount: 0, alignment: 1)
        let lineLength = Self.idPrefix.count + APNsID.length + 1
        idLine = .allocate(capacity: lineLength)
        idLine.initialize(repeating: 0, count: lineLength)
        for (index, byte) in Self.idPrefix.enumerated() { idLine[index] = CChar(bitPattern: byte) }
        idNode = .allocate(capacity: 1)
        idNode.initialize(to: curl_slist(data: idLine, next: nil))
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))

        requestTimeoutNanos = configuration.requestTimeout.inNanoseconds
        connectTimeoutMs = configuration.connectTimeout.inMilliseconds
        let me = Unmanaged.passUnretained(self).toOpaque()
        let verify = configuration.verifyPeer
        try check(pb_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)), "HTTP_VERSION 2TLS")
        try check(pb_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1), "PIPEWAIT")
        try check(pb_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        try check(pb_easy_setopt_long(easy, CURLOPT_POST, 1), "POST")
        try check(
            pb_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.inMilliseconds),
            "CONNECTTIMEOUT_MS"
        )
        try check(pb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, verify ? 1 : 0), "SSL_VERIFYPEER")
        try check(pb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, verify ? 2 : 0), "SSL_VERIFYHOST")
        try check(pb_easy_setopt_ptr(easy, CURLOPT_PRIVATE, me), "PRIVATE")
        try check(pb_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer), "ERRORBUFFER")
        try check(pb_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me), "WRITEDATA")
        try check(pb_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, transferSlotWrite), "WRITEFUNCTION")
        try check(pb_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me), "HEADERDATA")
        try check(pb_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, transferSlotHeader), "HEADERFUNCTION")
        try check(pb_easy_setopt_ptr(easy, CURLOPT_PREREQDATA, me), "PREREQDATA")
        try check(pb_easy_setopt_prereq_callback(easy, transferSlotBeforeRequest), "PREREQFUNCTION")
        if let pem = configuration.trustedCertificatesPEM {
            let code = pem.withUnsafeBytes { pb_easy_setopt_blob(easy, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }
            try check(code, "CAINFO_BLOB")
        }
    }

    deinit {
        curl_easy_cleanup(easy)
        bodyStorage.deallocate()
        idNode.deallocate()
        idLine.deallocate()
        errorBuffer.deallocate()
    }

    func prepare(tag: Int, intendedAt: UInt64, apnsID: (high: UInt64, low: UInt64), headers: HeaderBlock, body: [UInt8])
    {
        self.tag = tag
        self.intendedAt = intendedAt
        self.headers = headers
        responseBody.removeAll(keepingCapacity: true)
        echoedID = false
        retryAfterSeconds = nil
        answerStatus = 0
        answerHeadersEnded = false
        answerLength = nil
        attempts = 0
        refusal = nil
        if body.count > bodyStorage.count {  // grows to the largest body this slot has carried
            bodyStorage.deallocate()
            bodyStorage = .allocate(byteCount: max(body.count, 512), alignment: 1)
        }
        body.withUnsafeBytes { bodyStorage.copyMemory(from: $0) }
        let idStart = UnsafeMutableRawBufferPointer(start: idLine + Self.idPrefix.count, count: APNsID.length)
        APNsID.write(high: apnsID.high, low: apnsID.low, into: idStart)
        idNode.pointee.next = headers.list
        _ = pb_easy_setopt_ptr(easy, CURLOPT_POSTFIELDS, bodyStorage.baseAddress)
        _ = pb_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        _ = pb_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, idNode)
        // The deadline runs from the intended send time, which in open loop may have passed.
        let late = monotonicNanos() &- min(monotonicNanos(), intendedAt)
        let left = requestTimeoutNanos > late ? (requestTimeoutNanos - late) / 1_000_000 : 0
        timeoutMs = max(1, Int(left))
        _ = pb_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMs)
    }

    /// Ends the request without an answer, as failed with `kind`.
    func abandon(_ kind: FailureClass, message: String) -> PushCompletion {
        isInFlight = false
        headers = nil
        return PushCompletion(
            tag: tag,
            intendedAt: intendedAt,
            outcome: .failed(kind, message: message),
            apnsIDEchoed: false,
            localPort: 0
        )
    }

    /// New connections this transfer opened (or tried to), as libcurl counts them.
    var connectsMade: Int {
        var count = 0
        _ = pb_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &count)
        return count
    }

    func finish(result: CURLcode) -> PushCompletion {
        isInFlight = false
        var port = 0
        _ = pb_easy_getinfo_long(easy, CURLINFO_LOCAL_PORT, &port)
        let outcome: TransferOutcome
        switch result {
        case CURLE_ABORTED_BY_CALLBACK where refusal != nil:
            outcome = .failed(refusal!.kind, message: refusal!.message)
        case CURLE_OK:
            outcome = answer
        case CURLE_HTTP2_STREAM where answerIsWhole(lengthRequired: false):
            // RFC 9113 §8.1: a reset after a complete answer does not undo the answer.
            outcome = answer
        case CURLE_OPERATION_TIMEDOUT where requestStarted:
            outcome = .timedOut
        case CURLE_WRITE_ERROR:
            outcome = .failed(
                .responseTooLarge,
                message:
                    "the answer's body passed \(FailureClass.maxResponseBodyBytes) bytes, more than APNs ever sends; it was cut"
            )
        default:
            let detail = errorBuffer.pointee == 0 ? curlMessage(result) : String(cString: errorBuffer)
            outcome = .failed(
                Self.failureClass(of: result, detail: detail),
                message: "curl \(result.rawValue): \(detail)"
            )
        }
        errorBuffer.pointee = 0
        headers = nil
        var completion = PushCompletion(
            tag: tag,
            intendedAt: intendedAt,
            outcome: outcome,
            apnsIDEchoed: echoedID,
            localPort: port
        )
        completion.retryAfterSeconds = retryAfterSeconds
        return completion
    }

    /// What the server answered, which must have come over HTTP/2.
    private var answer: TransferOutcome {
        var status = 0
        var version = 0
        _ = pb_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = pb_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        guard version == Int(CURL_HTTP_VERSION_2_0) else {
            return .failed(.tlsHandshake, message: "the server answered without HTTP/2 (no ALPN h2)")
        }
        return .response(status: status, body: responseBody)
    }

    /// Decides, as libcurl is about to write the request on its connection, whether it may: the
    /// connection must have agreed to HTTP/2 (an HTTP/1.1 server would otherwise be sent the push
    /// and leave it to time out), and a request libcurl sends anew must be allowed a resend.
    fileprivate func beforeRequest() -> Int32 {
        attempts += 1
        if !connectionSpeaksHTTP2 {
            refusal = (.tlsHandshake, "the server did not agree to HTTP/2 (ALPN h2); nothing was sent over HTTP/1.1")
            return CURL_PREREQFUNC_ABORT
        }
        guard attempts > 1, !resends.allowed else { return CURL_PREREQFUNC_OK }
        // libcurl's one silent path to a resend is a refused stream: every other failure it
        // resends after has left its words in the error buffer.
        refusal =
            errorBuffer.pointee == 0
            ? (.refusedStream, "the server refused the stream unprocessed (REFUSED_STREAM)")
            : (.connectionLost, "curl: \(String(cString: errorBuffer)), before any answer")
        return CURL_PREREQFUNC_ABORT
    }

    /// Whether the transfer's connection chose `h2` by ALPN; `true` where the TLS backend is not
    /// OpenSSL, which the slot cannot ask.
    private var connectionSpeaksHTTP2: Bool {
        var info: UnsafeMutablePointer<CChar>? = nil
        _ = pb_easy_getinfo_ptr(easy, CURLINFO_TLS_SSL_PTR, &info)
        guard let session = UnsafeRawPointer(info)?.load(as: curl_tlssessioninfo.self),
            session.backend == CURLSSLBACKEND_OPENSSL, let ssl = session.internals
        else { return true }
        var name: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(OpaquePointer(ssl), &name, &length)
        guard let name else { return false }
        return UnsafeBufferPointer(start: name, count: Int(length)).elementsEqual("h2".utf8)
    }

    /// Whether a timeout was the request's own: it began (its connection was up), or its own
    /// deadline came before the connect deadline could. Otherwise the connection timed out.
    private var requestStarted: Bool {
        var pretransfer: curl_off_t = 0
        _ = pb_easy_getinfo_off_t(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
        return pretransfer > 0 || timeoutMs <= connectTimeoutMs
    }

    /// The class both transports share for a libcurl error; `detail` (libcurl's error buffer)
    /// tells a GOAWAY or a refused stream from other lost connections. libcurl keeps the first
    /// error of a transfer there and records none for a refused stream, so its giving up on
    /// resends ("Connection died, tried 5 times before giving up") is the first words only
    /// when every attempt was refused: its count of resends spans the handle's transfers, so it
    /// can give up at a transfer's first refusal.
    package static func failureClass(of code: CURLcode, detail: String) -> FailureClass {
        if detail.contains("REFUSED_STREAM") || detail.hasPrefix("Connection died, tried") { return .refusedStream }
        if detail.contains("GOAWAY") { return .goaway }
        return switch code {
        case CURLE_COULDNT_RESOLVE_HOST: .nameUnresolved
        case CURLE_COULDNT_CONNECT: .connectRefused
        case CURLE_OPERATION_TIMEDOUT: .connectTimeout
        case CURLE_SSL_CONNECT_ERROR: .tlsHandshake
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE: .certificateUntrusted
        case CURLE_HTTP2, CURLE_WEIRD_SERVER_REPLY: .protocolError
        case CURLE_HTTP2_STREAM: .streamReset
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE: .connectionLost
        default: .clientError
        }
    }

    /// Whether the answer has arrived whole: a final status, the end of its header block, and a
    /// body as long as its `content-length`. Without a `content-length` only the stream's end
    /// says the body is over, which libcurl does not show: `lengthRequired` then says no.
    func answerIsWhole(lengthRequired: Bool) -> Bool {
        guard answerHeadersEnded else { return false }
        guard let answerLength else { return !lengthRequired }
        return responseBody.count == answerLength
    }

    /// Reports the slot to `completeAnswers` when the bytes just taken made its answer whole.
    private func noteProgress() {
        if answerIsWhole(lengthRequired: true) { completeAnswers.slots.append(self) }
    }

    /// Follows the answer's status lines and header block, compares its `apns-id` with the one
    /// this request sent, and reads `Retry-After` and `content-length`.
    fileprivate func inspectHeader(_ line: UnsafeRawBufferPointer) {
        if line.first == 0x0D || line.first == 0x0A {
            answerHeadersEnded = answerStatus >= 200
            noteProgress()
            return
        }
        if line.starts(with: Self.statusLinePrefix) {
            answerStatus = Self.status(in: line)
            answerLength = nil
            return
        }
        if let value = Self.value(of: Self.contentLengthName, in: line) {
            answerLength = Int(String(decoding: value, as: UTF8.self))
            return
        }
        if let value = Self.value(of: Self.retryAfterName, in: line) {
            retryAfterSeconds = Int(String(decoding: value, as: UTF8.self))
            return
        }
        guard let value = Self.value(of: Self.idName, in: line) else { return }
        let sent = UnsafeRawBufferPointer(start: idLine + Self.idPrefix.count, count: APNsID.length)
        echoedID = value.elementsEqual(sent)
    }

    private static let retryAfterName: [UInt8] = Array("retry-after:".utf8)
    private static let idName: [UInt8] = Array("apns-id:".utf8)
    package static let contentLengthName: [UInt8] = Array("content-length:".utf8)
    package static let statusLinePrefix: [UInt8] = Array("HTTP/".utf8)

    /// The three-digit status of a status line (`HTTP/2 200 `), or 0 if it has none.
    package static func status(in line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return 0 }
        let digits = line[(space + 1)...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        return digits.count == 3 ? digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } : 0
    }

    /// The value of header `name` (lower case, with its colon) if `line` is that header.
    ///
    /// Not generic: called from another module (the service driver's client), a generic one ran
    /// unspecialised there, through witness tables and metadata lookups, on every header line.
    package static func value(of name: [UInt8], in line: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer>? {
        guard line.count >= name.count else { return nil }
        for index in name.indices where asciiLower(line[index]) != name[index] { return nil }
        var value = line[name.count...].drop { $0 == UInt8(ascii: " ") }
        while let last = value.last, last == 0x0A || last == 0x0D || last == UInt8(ascii: " ") {
            value = value.dropLast()
        }
        return value
    }

    /// Keeps the answer's body; `false` (which makes libcurl end the transfer) once it is larger
    /// than APNs ever sends.
    fileprivate func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard responseBody.count + bytes.count <= FailureClass.maxResponseBodyBytes else { return false }
        responseBody.append(contentsOf: bytes)
        noteProgress()
        return true
    }
}

/// The transfers whose answers became whole during one `curl_multi_perform`, gathered by their
/// slots' callbacks so that the client looks at those, not at every slot.
final class CompleteAnswers {
    var slots: [TransferSlot] = []
}

/// Turns a refused libcurl option into an error that names it.
private func check(_ code: CURLcode, _ option: String) throws(TransportError) {
    guard code == CURLE_OK else {
        throw TransportError.setup("libcurl refused CURLOPT_\(option): \(curlMessage(code))")
    }
}

private func asciiLower(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
}

private func transferSlotBeforeRequest(
    _ userdata: UnsafeMutableRawPointer?,
    _ primaryIP: UnsafeMutablePointer<CChar>?,
    _ localIP: UnsafeMutablePointer<CChar>?,
    _ primaryPort: Int32,
    _ localPort: Int32
) -> Int32 {
    guard let userdata else { return CURL_PREREQFUNC_OK }
    return Unmanaged<TransferSlot>.fromOpaque(userdata).takeUnretainedValue().beforeRequest()
}

private func transferSlotWrite(
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ size: Int,
    _ count: Int,
    _ userdata: UnsafeMutableRawPointer?
) -> Int {
    withSlot(userdata, buffer, size * count) { $0.appendBody($1) }
}

private func transferSlotHeader(
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ size: Int,
    _ count: Int,
    _ userdata: UnsafeMutableRawPointer?
) -> Int {
    withSlot(userdata, buffer, size * count) {
        $0.inspectHeader($1)
        return true
    }
}

/// Hands a libcurl data callback's bytes to the slot its userdata names; returns the byte count
/// libcurl expects back, or 0 to end the transfer when `body` refuses them.
private func withSlot(
    _ userdata: UnsafeMutableRawPointer?,
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ length: Int,
    _ body: (TransferSlot, UnsafeRawBufferPointer) -> Bool
) -> Int {
    guard let buffer, let userdata else { return 0 }
    let kept = body(
        Unmanaged<TransferSlot>.fromOpaque(userdata).takeUnretainedValue(),
        UnsafeRawBufferPointer(start: buffer, count: length)
    )
    return kept ? length : 0
}
