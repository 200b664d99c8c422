import Basics
import CCurl

/// Sends APNs pushes as HTTP/2 POSTs over TLS through one libcurl multi handle.
///
/// The client owns `connections × streamsPerConnection` transfer slots; libcurl multiplexes them
/// over at most `connections` connections and opens a new connection only when the ones it has
/// carry `streamsPerConnection` streams (or the server's lower SETTINGS limit). It is driven by
/// one thread: `submit` while `idleSlots > 0`, then `perform` to move bytes and collect completions
/// and `wait` for the sockets.
/// Nothing here is per-request allocation on our side except what libcurl does internally.
public final class CurlPushClient: PushTransport {
    /// The most requests one client keeps in flight (connections × streams), each a libcurl
    /// easy handle; APNs itself allows 1000 streams per connection.
    public static let maxInFlight = 100_000

    /// Whether `connections × streams` requests in flight are within `maxInFlight` (checked
    /// without overflowing, whatever a user typed).
    public static func allowsInFlight(connections: Int, streams: Int) -> Bool {
        connections <= maxInFlight && streams <= maxInFlight && connections * streams <= maxInFlight
    }

    private let multi: UnsafeMutableRawPointer
    private let originBytes: [UInt8]
    private var slots: [TransferSlot] = []
    private var idle: [TransferSlot] = []
    private var urlScratch: [UInt8] = []
    private let completeAnswers = CompleteAnswers()
    private let resends = LibcurlResends()

    /// Requests submitted and not yet completed.
    public var inFlight: Int { slots.count - idle.count }
    /// How many more requests can be submitted now.
    public var idleSlots: Int { idle.count }
    /// libcurl reconnects and retries refused streams inside, without telling.
    public var recoveries: TransportRecoveries? { nil }
    public private(set) var connectionAttempts = 0
    /// libcurl opens and closes connections inside its pool, without telling.
    public var connectionsOpen: Int? { nil }
    /// Requests ended by `abandonInFlight`, handed back (and their slots made idle) at the next
    /// `perform`: until then they are still in flight, so no request is lost from the books.
    private var abandoned: [(slot: TransferSlot, completion: PushCompletion)] = []

    /// Creates the client and its transfer slots; connections open lazily with the first requests.
    public init(configuration: TransportConfiguration) throws(TransportError) {
        try CurlLibrary.ensureInitialised()
        guard CurlLibrary.supportsHTTP2 else {
            throw TransportError.setup("the linked libcurl \(LinkedLibraries.curlVersion) has no HTTP/2 support")
        }
        try configuration.checkShape()
        guard let multi = curl_multi_init() else { throw TransportError.setup("curl_multi_init failed") }
        self.multi = multi
        self.originBytes = Array(configuration.origin.utf8)
        _ = pb_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = pb_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.connections)
        _ = pb_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.connections)
        _ = pb_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.streamsPerConnection)
        let count = configuration.connections * configuration.streamsPerConnection
        for _ in 0..<count {
            let slot = try TransferSlot(
                configuration: configuration,
                completeAnswers: completeAnswers,
                resends: resends
            )
            slots.append(slot)
        }
        idle = slots
    }

    deinit {
        for slot in slots where slot.isInFlight {
            curl_multi_remove_handle(multi, slot.easy)
        }
        completeAnswers.slots.removeAll()
        slots.removeAll()
        idle.removeAll()
        curl_multi_cleanup(multi)
    }

    /// Starts one POST of `body` to `origin + path` with `headers` and an `apns-id` made from
    /// `apnsID`. Requires `idleSlots > 0`.
    ///
    /// - Parameters:
    ///   - tag: the caller's identifier, returned with the completion.
    ///   - intendedAt: the caller's latency reference (nanoseconds), returned with the completion.
    public func submit(
        tag: Int,
        intendedAt: UInt64,
        path: [UInt8],
        apnsID: (high: UInt64, low: UInt64),
        headers: HeaderBlock,
        body: [UInt8]
    ) throws(TransportError) {
        guard let slot = idle.popLast() else { throw TransportError.setup("submit called with no idle slot") }
        urlScratch.removeAll(keepingCapacity: true)
        urlScratch.append(contentsOf: originBytes)
        urlScratch.append(contentsOf: path)
        urlScratch.append(0)
        slot.prepare(tag: tag, intendedAt: intendedAt, apnsID: apnsID, headers: headers, body: body)
        let code = urlScratch.withUnsafeBytes { pb_easy_setopt_ptr(slot.easy, CURLOPT_URL, $0.baseAddress) }
        guard code == CURLE_OK, curl_multi_add_handle(multi, slot.easy) == CURLM_OK else {
            idle.append(slot)
            throw TransportError.setup("could not start a transfer: \(curlMessage(code))")
        }
        slot.isInFlight = true
    }

    public func abandonInFlight(_ kind: FailureClass, message: String) {
        for slot in slots where slot.isInFlight {
            curl_multi_remove_handle(multi, slot.easy)
            abandoned.append((slot, slot.abandon(kind, message: message)))
        }
    }

    /// Moves bytes and hands every finished request to `onCompletion`; never blocks.
    public func perform(onCompletion: (PushCompletion) -> Void) {
        if !abandoned.isEmpty {
            let ended = abandoned
            abandoned.removeAll()
            for (slot, completion) in ended {
                idle.append(slot)
                onCompletion(completion)
            }
        }
        var running: Int32 = 0
        _ = curl_multi_perform(multi, &running)
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var slotPointer: UnsafeMutablePointer<CChar>? = nil
            _ = pb_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &slotPointer)
            guard let slotPointer else { continue }
            let slot = Unmanaged<TransferSlot>.fromOpaque(UnsafeRawPointer(slotPointer)).takeUnretainedValue()
            end(slot, result: result, onCompletion: onCompletion)
        }
        endWholeAnswers(onCompletion: onCompletion)
    }

    /// Ends the transfers whose answers are whole but which libcurl has not ended: libcurl 7.88
    /// can leave such a transfer running until its deadline after the server resets the stream
    /// with NO_ERROR (see `TransferSlot`). A slot ended above, or already reused, is left alone.
    private func endWholeAnswers(onCompletion: (PushCompletion) -> Void) {
        guard !completeAnswers.slots.isEmpty else { return }
        // Nothing below runs libcurl's callbacks, so the list stays as it is while it is read.
        for slot in completeAnswers.slots where slot.isInFlight && slot.answerIsWhole(lengthRequired: true) {
            end(slot, result: CURLE_OK, onCompletion: onCompletion)
        }
        completeAnswers.slots.removeAll(keepingCapacity: true)
    }

    private func end(_ slot: TransferSlot, result: CURLcode, onCompletion: (PushCompletion) -> Void) {
        curl_multi_remove_handle(multi, slot.easy)
        connectionAttempts += slot.connectsMade
        let completion = slot.finish(result: result)
        resends.note(completion.outcome)
        idle.append(slot)
        onCompletion(completion)
    }

    public func wait(timeoutNanos: UInt64) {
        guard abandoned.isEmpty else { return }
        guard inFlight > 0 else { return pause(nanos: timeoutNanos) }
        // libcurl waits in whole milliseconds: a shorter wait polls once.
        _ = curl_multi_poll(multi, nil, 0, Int32(timeoutNanos / 1_000_000), nil)
    }
}
