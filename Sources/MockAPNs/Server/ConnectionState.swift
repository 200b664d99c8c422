import NIOCore
import NIOHTTP2

/// What the mock remembers about one HTTP/2 connection; touched only on its event loop.
///
/// Its provider-token history pins the team and throttles token changes (`ProviderTokenHistory`).
///
/// With token authentication APNs allows one stream on a new connection until a request with a
/// valid provider token arrives, then raises `SETTINGS_MAX_CONCURRENT_STREAMS` (to 1000 when
/// last observed; `../shared/reference/APNS.md` §1.8). A client that never reads the new
/// SETTINGS stays at one stream, as it would against APNs.
///
/// APNs was also seen (2016, and 2020 per Pushy #732) dropping the limit to 1 after a rejected
/// push and restoring it after an accepted one; `dropsAfterRejection` plays that.
final class ConnectionState {
    /// The connection's provider-token history (team pinning, update throttling).
    var tokens = ProviderTokenHistory()
    private let streamsAfterToken: Int
    private let dropsAfterRejection: Bool
    private var raised: Bool
    private var dropped = false
    private let goAwayAfter: Int?
    private var answers = 0
    private var highestStream = HTTP2StreamID(0)
    /// Whether GOAWAY has been sent.
    private(set) var wentAway = false

    /// - Parameters:
    ///   - streamsAfterToken: the limit to advertise after the first valid token.
    ///   - raised: whether the limit is already at `streamsAfterToken` (no one-stream start).
    ///   - dropsAfterRejection: whether a rejection drops the limit to 1 until an acceptance.
    ///   - goAwayAfter: send GOAWAY after this many answers (`FaultPlan.goAwayAfter`).
    init(streamsAfterToken: Int, raised: Bool, dropsAfterRejection: Bool = false, goAwayAfter: Int? = nil) {
        self.goAwayAfter = goAwayAfter
        self.streamsAfterToken = streamsAfterToken
        self.raised = raised
        self.dropsAfterRejection = dropsAfterRejection
    }

    /// Notes a request with a valid token; the first one raises the stream limit on `connection`.
    func tokenVerified(on connection: Channel?) {
        guard !raised else { return }
        raised = true
        advertise(streamsAfterToken, on: connection)
    }

    /// Notes an answer sent: with `dropsAfterRejection`, a rejection drops the limit to 1 and
    /// the next acceptance restores it.
    func answered(accepted: Bool, on connection: Channel?) {
        guard dropsAfterRejection, raised, accepted == dropped else { return }
        dropped = !accepted
        advertise(accepted ? streamsAfterToken : 1, on: connection)
    }

    /// Notes a stream the client opened.
    func opened(_ stream: HTTP2StreamID) {
        highestStream = max(highestStream, stream)
    }

    /// Notes an answer written; after `goAwayAfter` of them, says GOAWAY with the last stream
    /// opened (all of them are answered) and closes the connection a second later.
    /// - Returns: whether GOAWAY went out now.
    func afterAnswer(on connection: Channel?) -> Bool {
        answers += 1
        guard let goAwayAfter, answers >= goAwayAfter, !wentAway, let connection else { return false }
        wentAway = true
        let reason = connection.allocator.buffer(string: #"{"reason":"Shutdown"}"#)
        let goAway = HTTP2Frame.FramePayload.goAway(
            lastStreamID: highestStream,
            errorCode: .noError,
            opaqueData: reason
        )
        connection.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: goAway), promise: nil)
        connection.eventLoop.scheduleTask(in: .seconds(1)) { connection.close(promise: nil) }
        return true
    }

    private func advertise(_ limit: Int, on connection: Channel?) {
        guard let connection else { return }
        let settings = HTTP2Frame.FramePayload.settings(
            .settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: limit)])
        )
        connection.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: settings), promise: nil)
    }
}
