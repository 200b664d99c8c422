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
final class ConnectionState {
    /// The connection's provider-token history (team pinning, update throttling).
    var tokens = ProviderTokenHistory()
    private let streamsAfterToken: Int
    private var raised: Bool

    /// - Parameters:
    ///   - streamsAfterToken: the limit to advertise after the first valid token.
    ///   - raised: whether the limit is already at `streamsAfterToken` (no one-stream start).
    init(streamsAfterToken: Int, raised: Bool) {
        self.streamsAfterToken = streamsAfterToken
        self.raised = raised
    }

    /// Notes a request with a valid token; the first one raises the stream limit on `connection`.
    func tokenVerified(on connection: Channel?) {
        guard !raised, let connection else { return }
        raised = true
        let settings = HTTP2Frame.FramePayload.settings(
            .settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: streamsAfterToken)])
        )
        connection.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: settings), promise: nil)
    }
}
