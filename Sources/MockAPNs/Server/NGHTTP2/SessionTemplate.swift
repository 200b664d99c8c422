import CNGHTTP2

/// What every connection's nghttp2 server session is made from: the callbacks into
/// `ServerConnection`, the options, and APNs' SETTINGS. Made once for the engine; nghttp2 copies
/// the callbacks and options into each session.
final class SessionTemplate: @unchecked Sendable {
    let callbacks: OpaquePointer
    let options: OpaquePointer
    /// APNs' SETTINGS as last observed (`docs/apns.md` §1.8): header table 4096, a stream limit
    /// (the limit after the first valid token, which `AdvertisedStreamLimits` turns into the one
    /// advertised on the way out), initial window 65535, max frame 16384, max header list 8000.
    let settings: [nghttp2_settings_entry]
    /// The stream limit a new connection advertises, until its first valid provider token.
    let initialStreamLimit: Int
    /// The limit after it, which nghttp2 is always told.
    let sessionStreamLimit: Int

    init(_ configuration: MockAPNsConfiguration) throws {
        var callbacks: OpaquePointer?
        var options: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks,
            nghttp2_option_new(&options) == 0, let options
        else { throw MockAPNsStartError.unusableListener("nghttp2 could not make its callbacks") }
        self.callbacks = callbacks
        self.options = options
        ServerConnection.install(in: callbacks)
        // libcurl 7.88 resets every stream after its response: allow a reset per stream at any
        // rate a loopback client can reach.
        nghttp2_option_set_stream_reset_rate_limit(options, 10_000_000, 10_000_000)
        func entry(_ id: nghttp2_settings_id, _ value: Int) -> nghttp2_settings_entry {
            nghttp2_settings_entry(settings_id: Int32(id.rawValue), value: UInt32(value))
        }
        initialStreamLimit = min(configuration.streamsBeforeToken, configuration.maxConcurrentStreams)
        sessionStreamLimit = configuration.maxConcurrentStreams
        settings = [
            entry(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, 4096),
            entry(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams),
            entry(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 65535),
            entry(NGHTTP2_SETTINGS_MAX_FRAME_SIZE, 16384),
            entry(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, ConnectionLimits.maxHeaderListBytes),
        ]
    }

    deinit {
        nghttp2_session_callbacks_del(callbacks)
        nghttp2_option_del(options)
    }
}
