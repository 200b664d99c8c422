import CCurl
import Foundation

/// Calls a sender service's own API (`profile --api`): plain HTTP/1.1 with keep-alive, or
/// HTTP/2 where the service offers it by ALPN, many requests in flight on one thread.
///
/// Not the push path: a service's answers are small and its requests few next to the pushes
/// they cause, so each request gets its own easy handle from a pool and libcurl copies its body.
/// The caller submits a request when it is due and reads answers from `perform`; each answer's
/// latency counts from the request's intended time, so a request queued behind slow ones (for
/// a connection, or for the service) is charged its wait.
///
/// Each transfer follows its answer as it arrives (final status, end of headers, body against
/// `content-length`), as `TransferSlot` does and for the same reason: a server behind nginx
/// answers before it has read the body and resets the stream with NO_ERROR (RFC 9113 §8.1),
/// which libcurl 7.88 reports as `CURLE_HTTP2_STREAM` or leaves running until its deadline. An
/// answer that is whole counts as the answer it is.
public final class ServiceClient {
    /// One request to the service.
    public struct Request: Sendable {
        public var method: String
        public var url: String
        /// `Name: value` lines.
        public var headers: [String]
        public var body: [UInt8]
        /// The caller's number for it, handed back with its answer.
        public var tag: Int
        /// When it was meant to be sent (`monotonicNanos`).
        public var intendedNanos: UInt64

        /// Creates a request.
        public init(method: String, url: String, headers: [String], body: [UInt8], tag: Int, intendedNanos: UInt64) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.tag = tag
            self.intendedNanos = intendedNanos
        }
    }

    /// What became of a request.
    public struct Answer: Sendable {
        public var tag: Int
        /// The HTTP status, or 0 when no answer came.
        public var status: Int
        /// Why no answer came: the request's deadline passed (`timedOut`), or a failure below HTTP.
        public var timedOut: Bool
        public var failure: FailureClass?
        /// libcurl's words for the failure.
        public var message: String?
        /// From the intended time to the answer (or the failure), nanoseconds.
        public var latencyNanos: UInt64
        /// The HTTP version the answer came over: 1 or 2 (0 with no answer).
        public var httpVersion: Int
    }

    fileprivate final class Transfer {
        let easy: UnsafeMutableRawPointer
        var headers: UnsafeMutablePointer<curl_slist>?
        var tag = 0
        var intendedNanos: UInt64 = 0
        let errorBuffer: UnsafeMutablePointer<CChar>
        /// The answer so far: the last status line's status, whether a final one's headers
        /// ended, its `content-length`, and the body bytes that came.
        var status = 0
        var headersEnded = false
        var length: Int?
        var bodyBytes = 0

        /// Whether the answer is whole: a final status, its headers ended and, where `length`
        /// is required, a body of its `content-length`.
        func answerIsWhole(lengthRequired: Bool) -> Bool {
            guard headersEnded else { return false }
            guard let length else { return !lengthRequired }
            return bodyBytes == length
        }

        func inspectHeader(_ line: UnsafeRawBufferPointer) {
            if line.first == 0x0D || line.first == 0x0A {
                headersEnded = status >= 200
            } else if line.starts(with: TransferSlot.statusLinePrefix) {
                status = TransferSlot.status(in: line)
                length = nil
                headersEnded = false
            } else if let value = TransferSlot.value(of: TransferSlot.contentLengthName, in: line) {
                length = Int(String(decoding: value, as: UTF8.self))
            }
        }

        init(easy: UnsafeMutableRawPointer) {
            self.easy = easy
            errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        }

        deinit {
            curl_slist_free_all(headers)
            curl_easy_cleanup(easy)
            errorBuffer.deallocate()
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let timeoutMs: Int
    private let connectTimeoutMs: Int
    private let caFile: String?
    private let insecure: Bool
    private var idle: [Transfer] = []
    private var inFlightTransfers: [Int: Transfer] = [:]
    private var nextKey = 1

    /// Creates a client that keeps at most `connections` connections to a host.
    ///
    /// - Parameters:
    ///   - timeout: each request's deadline from its submission.
    ///   - caFile: a PEM file to trust for an `https` service; `insecure` skips the check.
    /// - Throws: `TransportError.setup` when libcurl cannot start.
    public init(
        timeout: Duration,
        connectTimeout: Duration,
        connections: Int,
        caFile: String? = nil,
        insecure: Bool = false
    ) throws(TransportError) {
        try CurlLibrary.ensureInitialised()
        guard let multi = curl_multi_init() else { throw TransportError.setup("curl_multi_init failed") }
        self.multi = multi
        timeoutMs = max(1, timeout.inMilliseconds)
        connectTimeoutMs = max(1, connectTimeout.inMilliseconds)
        self.caFile = caFile
        self.insecure = insecure
        _ = pb_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = pb_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections)
        _ = pb_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, connections)
    }

    deinit {
        for transfer in inFlightTransfers.values { curl_multi_remove_handle(multi, transfer.easy) }
        inFlightTransfers.removeAll()
        idle.removeAll()
        curl_multi_cleanup(multi)
    }

    /// Requests submitted and not yet answered.
    public var inFlight: Int { inFlightTransfers.count }

    /// Starts `request`; its answer comes from a later `perform`.
    /// - Returns: the answer at once when libcurl refused the request (out of memory).
    public func submit(_ request: Request) -> Answer? {
        let transfer: Transfer
        if let reused = idle.popLast() {
            transfer = reused
        } else {
            guard let easy = curl_easy_init() else { return refused(request, "curl_easy_init failed") }
            transfer = Transfer(easy: easy)
            configure(transfer)
        }
        let easy = transfer.easy
        curl_slist_free_all(transfer.headers)
        transfer.headers = nil
        for line in request.headers { transfer.headers = curl_slist_append(transfer.headers, line) }
        // An empty Expect: keeps libcurl from waiting for 100-continue before a larger body.
        transfer.headers = curl_slist_append(transfer.headers, "Expect:")
        transfer.tag = request.tag
        transfer.intendedNanos = request.intendedNanos
        transfer.errorBuffer.pointee = 0
        (transfer.status, transfer.headersEnded, transfer.length, transfer.bodyBytes) = (0, false, nil, 0)
        let key = nextKey
        nextKey += 1
        // Everything a request sets is set again by the next on the same handle: a reused handle
        // keeps the options `configure` set once, and no earlier request's body or method.
        _ = pb_easy_setopt_ptr(easy, CURLOPT_URL, request.url)
        if request.method == "GET" {
            _ = pb_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        } else if request.body.isEmpty {
            _ = pb_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, 0)
            _ = pb_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, "")
        } else {
            _ = pb_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, request.body.count)
            _ = request.body.withUnsafeBytes { pb_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
        }
        _ = pb_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, request.method)
        _ = pb_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, transfer.headers)
        _ = pb_easy_setopt_ptr(easy, CURLOPT_PRIVATE, UnsafeRawPointer(bitPattern: key))
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
            idle.append(transfer)
            return refused(request, "curl_multi_add_handle failed")
        }
        inFlightTransfers[key] = transfer
        return nil
    }

    /// Sets the options every request of a new handle shares, once: the client's deadlines and
    /// TLS, and the callbacks that follow the answer.
    private func configure(_ transfer: Transfer) {
        let easy = transfer.easy
        _ = pb_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = pb_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        _ = pb_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = pb_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMs)
        _ = pb_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, min(connectTimeoutMs, timeoutMs))
        _ = pb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, insecure ? 0 : 1)
        _ = pb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, insecure ? 0 : 2)
        if let caFile { _ = pb_easy_setopt_ptr(easy, CURLOPT_CAINFO, caFile) }
        _ = pb_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = pb_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context)
        _ = pb_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, countBody)
        _ = pb_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, context)
        _ = pb_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, followHeader)
    }

    /// Moves every transfer on, waiting at most `waitMs` for something to happen, and returns the
    /// answers that came.
    public func perform(waitMs: Int) -> [Answer] {
        var running: Int32 = 0
        _ = curl_multi_perform(multi, &running)
        var answers = collect()
        if answers.isEmpty, waitMs > 0 {
            if inFlightTransfers.isEmpty {
                usleep(useconds_t(waitMs * 1000))
            } else {
                _ = curl_multi_poll(multi, nil, 0, Int32(waitMs), nil)
                _ = curl_multi_perform(multi, &running)
                answers = collect()
            }
        }
        return answers
    }

    private func collect() -> [Answer] {
        var answers: [Answer] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var pointer: UnsafeMutablePointer<CChar>? = nil
            _ = pb_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &pointer)
            let key = Int(bitPattern: pointer)
            guard let transfer = inFlightTransfers.removeValue(forKey: key) else { continue }
            curl_multi_remove_handle(multi, easy)
            answers.append(answer(of: transfer, result: result))
            idle.append(transfer)
        }
        // Answers that are whole but that libcurl has not ended (see the type's comment).
        for (key, transfer) in inFlightTransfers where transfer.answerIsWhole(lengthRequired: true) {
            inFlightTransfers[key] = nil
            curl_multi_remove_handle(multi, transfer.easy)
            answers.append(answer(of: transfer, result: CURLE_OK))
            idle.append(transfer)
        }
        return answers
    }

    private func answer(of transfer: Transfer, result: CURLcode) -> Answer {
        let latency = monotonicNanos() &- transfer.intendedNanos
        var answer = Answer(
            tag: transfer.tag,
            status: 0,
            timedOut: false,
            failure: nil,
            message: nil,
            latencyNanos: latency,
            httpVersion: 0
        )
        let whole = result == CURLE_HTTP2_STREAM && transfer.answerIsWhole(lengthRequired: false)
        guard result == CURLE_OK || whole else {
            let detail =
                transfer.errorBuffer.pointee == 0 ? curlMessage(result) : String(cString: transfer.errorBuffer)
            // libcurl says "Connection timed out" when the connect was what ran out of time; a
            // request that waited for a free connection and then for its answer ran out of its own.
            if result == CURLE_OPERATION_TIMEDOUT && !detail.hasPrefix("Connection timed out") {
                answer.timedOut = true
            } else {
                answer.failure = TransferSlot.failureClass(of: result, detail: detail)
            }
            answer.message = "curl \(result.rawValue): \(detail)"
            return answer
        }
        var version = 0
        _ = pb_easy_getinfo_long(transfer.easy, CURLINFO_HTTP_VERSION, &version)
        answer.status = transfer.status
        answer.httpVersion = version == Int(CURL_HTTP_VERSION_2_0) ? 2 : 1
        return answer
    }

    private func refused(_ request: Request, _ message: String) -> Answer {
        Answer(
            tag: request.tag,
            status: 0,
            timedOut: false,
            failure: .clientError,
            message: message,
            latencyNanos: monotonicNanos() &- request.intendedNanos,
            httpVersion: 0
        )
    }
}

/// Counts an answer's body bytes, which are not kept: only the status counts, and whether the
/// body is whole.
private func countBody(
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ size: Int,
    _ count: Int,
    _ userdata: UnsafeMutableRawPointer?
) -> Int {
    guard let userdata else { return 0 }
    Unmanaged<ServiceClient.Transfer>.fromOpaque(userdata).takeUnretainedValue().bodyBytes += size * count
    return size * count
}

/// Follows an answer's status line, `content-length` and the end of its headers.
private func followHeader(
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ size: Int,
    _ count: Int,
    _ userdata: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let userdata else { return 0 }
    Unmanaged<ServiceClient.Transfer>.fromOpaque(userdata).takeUnretainedValue()
        .inspectHeader(UnsafeRawBufferPointer(start: buffer, count: size * count))
    return size * count
}
