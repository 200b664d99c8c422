import Basics
import CCurl
import Foundation
import Transport

/// Calls a sender service's own API (`profile --api`): plain HTTP/1.1 with keep-alive, or
/// HTTP/2 where the service offers it by ALPN, many requests in flight on one thread.
///
/// Not the push path: a service's answers are small and its requests few next to the pushes
/// they cause, so each request gets its own easy handle from a pool and libcurl copies its body.
/// The caller submits a request when it is due and reads answers from `perform`. At most
/// `connections` requests are handed to libcurl at once, one a connection over HTTP/1.1, so
/// libcurl never queues one itself: a request past that waits in the client's own queue, and
/// that wait is PushBench's, measured apart (`Answer.queuedNanos`) and never in the service's
/// latency. Each answer's latency counts from the request's intended time with that wait taken
/// out, so a request held behind the service's slow answers (a feed's previous call) is charged
/// its wait, and one held behind PushBench's own limit is not. A request still queued when its
/// deadline passes was never sent: it fails as `pushbenchQueueTimeout`, PushBench's, not the
/// service's `timeout`.
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
        /// How long it waited in the client's own queue for a free connection, nanoseconds.
        public var queuedNanos: UInt64 = 0
        /// Whether it was handed to libcurl at all: `false` for a request that timed out in the
        /// client's queue or that libcurl refused, which the service never saw.
        public var sent = true
    }

    /// A request submitted and not yet handed to libcurl.
    private struct Queued {
        var request: Request
        var submittedNanos: UInt64
    }

    fileprivate final class Transfer {
        let easy: UnsafeMutableRawPointer
        var headers: UnsafeMutablePointer<curl_slist>?
        var tag = 0
        var intendedNanos: UInt64 = 0
        var queuedNanos: UInt64 = 0
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
    private let httpVersion: Int
    private var idle: [Transfer] = []
    private var inFlightTransfers: [Int: Transfer] = [:]
    private var queue: [Queued] = []
    private var queueHead = 0
    /// Answers decided without libcurl (queue timeouts, refusals), for the next `perform`.
    private var decided: [Answer] = []
    private var nextKey = 1
    /// The most requests handed to libcurl at once, and connections to a host.
    public let connections: Int
    /// The most requests that were in libcurl at once.
    public private(set) var peakInFlight = 0
    /// Called with a request's tag and the moment it left the client's queue for libcurl:
    /// when the service may first see it.
    public var onHandOver: ((_ tag: Int, _ nanos: UInt64) -> Void)?

    /// Creates a client that keeps at most `connections` connections to a host, and as many
    /// requests in flight.
    ///
    /// - Parameters:
    ///   - timeout: how long a request may wait in the client's queue, and then how long the
    ///     service has to answer it once handed over: the service is given its whole deadline,
    ///     however long PushBench held the request.
    ///   - http2PriorKnowledge: speak HTTP/2 to a plain `http` service without asking (h2c); an
    ///     `https` service is offered HTTP/2 by ALPN either way.
    ///   - caFile: a PEM file to trust for an `https` service; `insecure` skips the check.
    /// - Throws: `TransportError.setup` when libcurl cannot start.
    public init(
        timeout: Duration,
        connectTimeout: Duration,
        connections: Int,
        http2PriorKnowledge: Bool = false,
        caFile: String? = nil,
        insecure: Bool = false
    ) throws(TransportError) {
        try CurlLibrary.ensureInitialised()
        guard let multi = curl_multi_init() else { throw TransportError.setup("curl_multi_init failed") }
        self.multi = multi
        self.connections = max(1, connections)
        timeoutMs = max(1, timeout.inMilliseconds)
        connectTimeoutMs = max(1, connectTimeout.inMilliseconds)
        httpVersion = Int(http2PriorKnowledge ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2TLS)
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

    /// Wakes a `perform` waiting on another thread (`curl_multi_wakeup`, which libcurl allows
    /// from any thread), so that a thread waiting for its next due moment wakes sooner when an
    /// earlier one comes. Valid only while its client lives.
    public struct Waker: @unchecked Sendable {
        fileprivate let multi: UnsafeMutableRawPointer

        /// Ends the wait now, or the next one at once.
        public func wake() { _ = curl_multi_wakeup(multi) }
    }

    /// This client's waker.
    public var waker: Waker { Waker(multi: multi) }

    /// When the oldest request still in the client's queue reaches its deadline (monotonic
    /// nanoseconds), if one waits: a caller sleeping till its next moment wakes by then.
    public var nextQueueDeadlineNanos: UInt64? {
        queueHead < queue.count ? queue[queueHead].submittedNanos + UInt64(timeoutMs) * 1_000_000 : nil
    }

    /// Milliseconds from now until `dueNanos` (monotonic), at most `cap` and at least 0: how long
    /// a caller may wait, with the queue's next deadline taken into account.
    public func waitMs(until dueNanos: UInt64?, cap: Int) -> Int {
        let now = monotonicNanos()
        let due = [dueNanos, nextQueueDeadlineNanos].compactMap { $0 }.min()
        guard let due else { return cap }
        return due <= now ? 0 : min(cap, Int((due - now + 999_999) / 1_000_000))
    }

    /// Requests submitted and not yet answered: queued or in flight.
    public var unanswered: Int { inFlightTransfers.count + queue.count - queueHead + decided.count }

    /// Queues `request` and sends it as soon as a connection is free; its answer comes from a
    /// later `perform`.
    public func submit(_ request: Request) {
        queue.append(Queued(request: request, submittedNanos: monotonicNanos()))
        handOver(nowNanos: monotonicNanos())
    }

    /// Hands queued requests to libcurl while it has room, and fails those whose deadline
    /// passed in the queue.
    private func handOver(nowNanos: UInt64) {
        let deadlineNanos = UInt64(timeoutMs) * 1_000_000
        while queueHead < queue.count {
            let queued = queue[queueHead]
            let waited = nowNanos &- queued.submittedNanos
            if waited >= deadlineNanos {
                var answer = unsent(
                    queued.request,
                    failure: .pushbenchQueueTimeout,
                    "PushBench's client had no free connection for \(timeoutMs) ms"
                )
                answer.queuedNanos = waited
                decided.append(answer)
            } else if inFlightTransfers.count < connections {
                start(queued.request, queuedNanos: waited)
            } else {
                break
            }
            queueHead += 1
        }
        peakInFlight = max(peakInFlight, inFlightTransfers.count)
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
    }

    /// Hands `request` to libcurl.
    private func start(_ request: Request, queuedNanos: UInt64) {
        let transfer: Transfer
        if let reused = idle.popLast() {
            transfer = reused
        } else {
            guard let easy = curl_easy_init() else {
                decided.append(unsent(request, failure: .clientError, "curl_easy_init failed"))
                return
            }
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
        transfer.queuedNanos = queuedNanos
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
            decided.append(unsent(request, failure: .clientError, "curl_multi_add_handle failed"))
            return
        }
        inFlightTransfers[key] = transfer
        onHandOver?(request.tag, monotonicNanos())
    }

    /// Sets the options every request of a new handle shares, once: the client's deadlines and
    /// TLS, and the callbacks that follow the answer.
    private func configure(_ transfer: Transfer) {
        let easy = transfer.easy
        _ = pb_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, httpVersion)
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

    /// Moves every transfer on, waiting at most `waitMs` for something to happen (or for the
    /// waker), and returns the answers that came.
    public func perform(waitMs: Int) -> [Answer] {
        var running: Int32 = 0
        handOver(nowNanos: monotonicNanos())
        _ = curl_multi_perform(multi, &running)
        var answers = collect()
        if answers.isEmpty, decided.isEmpty, waitMs > 0 {
            // With nothing in flight, libcurl waits the whole time unless woken.
            _ = curl_multi_poll(multi, nil, 0, Int32(waitMs), nil)
            if !inFlightTransfers.isEmpty {
                _ = curl_multi_perform(multi, &running)
                answers = collect()
            }
        }
        // Connections freed: the queue's next requests go now, not a step later.
        handOver(nowNanos: monotonicNanos())
        answers += decided
        decided.removeAll(keepingCapacity: true)
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
        let latency = monotonicNanos() &- transfer.intendedNanos &- transfer.queuedNanos
        var answer = Answer(
            tag: transfer.tag,
            status: 0,
            timedOut: false,
            failure: nil,
            message: nil,
            latencyNanos: latency,
            httpVersion: 0,
            queuedNanos: transfer.queuedNanos
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

    /// The answer of a request the service never saw.
    private func unsent(_ request: Request, failure: FailureClass, _ message: String) -> Answer {
        Answer(
            tag: request.tag,
            status: 0,
            timedOut: false,
            failure: failure,
            message: message,
            latencyNanos: 0,
            httpVersion: 0,
            sent: false
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
