import NIOCore
import NIOHTTP2
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// `ConnectionControl` on a SwiftNIO channel: HTTP/2 frames written into the channel's pipeline.
final class ChannelControl: ConnectionControl, Sendable {
    private let channel: Channel

    init(_ channel: Channel) {
        self.channel = channel
    }

    func advertise(maxConcurrentStreams limit: Int) {
        let settings = HTTP2Frame.FramePayload.settings(
            .settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: limit)])
        )
        channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: settings), promise: nil)
    }

    func sendGoAway(lastStream: Int32) {
        let reason = channel.allocator.buffer(bytes: ConnectionControlWords.goAwayReason)
        let goAway = HTTP2Frame.FramePayload.goAway(
            lastStreamID: HTTP2StreamID(lastStream),
            errorCode: .noError,
            opaqueData: reason
        )
        channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: goAway), promise: nil)
        channel.eventLoop.scheduleTask(in: .seconds(1)) { [channel] in channel.close(promise: nil) }
    }

    /// HTTP/2 holds frames written during a read until the read completes, so the close waits for
    /// the event loop's next turn. It starts below the TLS handler, which would otherwise say
    /// close_notify first.
    func reset() {
        let channel = channel
        channel.eventLoop.assumeIsolated().execute {
            channel.flush()
            _ = (channel as? SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            let belowTLS = try? channel.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self)
            if let belowTLS { belowTLS.close(promise: nil) } else { channel.close(promise: nil) }
        }
    }
}
