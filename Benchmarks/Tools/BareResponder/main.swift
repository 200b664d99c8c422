// The floor under `pushbench mock`: a SwiftNIO HTTP/2 server over TLS (ALPN h2) on the same
// stack and settings as the mock, answering every request `200` with nothing checked, counted
// or echoed. `mock-vs-bare.sh` runs h2load against both; their ratio is what the mock's APNs
// fidelity (validation, ES256 token checks, apns-id, counters) costs.
//
// It answers in one of two ways. `streams` (the default) is SwiftNIO's usual server: a stream
// multiplexer gives every request a child channel and pipeline of its own. `frames` reads the
// connection's frames in one handler, as the mock does, so the two are compared on one design.
//
// Usage: BareResponder CERT_OUT [THREADS] [streams|frames]   (event-loop threads, default 1;
// prints "listening on https://127.0.0.1:PORT"; Ctrl-C stops)

import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import Wire

/// Answers each stream `200` with END_STREAM once its request has ended.
final class StreamOKResponder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ended: Bool
        switch unwrapInboundIn(data) {
        case .headers(let headers): ended = headers.endStream
        case .data(let data): ended = data.endStream
        default: ended = false
        }
        guard ended else { return }
        let headers = HPACKHeaders([(":status", "200")])
        context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
    }
}

/// Answers each stream `200` with END_STREAM once its request has ended, reading the whole
/// connection's frames, and returns the flow-control window a stream multiplexer would.
final class FrameOKResponder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private var flushPending = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let ended: Bool
        switch frame.payload {
        case .headers(let headers): ended = headers.endStream
        case .data(let data): ended = data.endStream
        default: ended = false
        }
        guard ended else { return }
        let headers = HPACKHeaders([(":status", "200")])
        let answer = HTTP2Frame(streamID: frame.streamID, payload: .headers(.init(headers: headers, endStream: true)))
        context.write(wrapOutboundOut(answer), promise: nil)
        flushPending = true
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if flushPending {
            flushPending = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let window = event as? NIOHTTP2WindowUpdatedEvent, let size = window.inboundWindowSize, size <= 32767 {
            let update = HTTP2Frame(
                streamID: window.streamID,
                payload: .windowUpdate(windowSizeIncrement: 65535 - size)
            )
            context.writeAndFlush(wrapOutboundOut(update), promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }
}

let arguments = CommandLine.arguments
guard (2...4).contains(arguments.count),
    let threads = arguments.count >= 3 ? Int(arguments[2]) : 1, threads > 0,
    arguments.count < 4 || ["streams", "frames"].contains(arguments[3])
else {
    FileHandle.standardError.write(Data("usage: BareResponder CERT_OUT [THREADS] [streams|frames]\n".utf8))
    exit(2)
}
let readsFrames = arguments.count == 4 && arguments[3] == "frames"
let identity = try TLSIdentity.makeSelfSigned()
try Data(identity.certificatePEM).write(to: URL(fileURLWithPath: arguments[1]))
var tls = TLSConfiguration.makeServerConfiguration(
    certificateChain: try NIOSSLCertificate.fromPEMBytes(identity.certificatePEM).map { .certificate($0) },
    privateKey: .privateKey(try NIOSSLPrivateKey(bytes: identity.privateKeyPEM, format: .pem))
)
tls.applicationProtocols = ["h2"]
tls.minimumTLSVersion = .tlsv12
let sslContext = try NIOSSLContext(configuration: tls)

// The mock's SETTINGS once a token is verified, and its allowance for clients that reset every
// finished stream.
var connection = NIOHTTP2Handler.ConnectionConfiguration()
connection.initialSettings = [
    HTTP2Setting(parameter: .headerTableSize, value: 4096),
    HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000),
    HTTP2Setting(parameter: .initialWindowSize, value: 65535),
    HTTP2Setting(parameter: .maxFrameSize, value: 16384),
    HTTP2Setting(parameter: .maxHeaderListSize, value: 8000),
]
var stream = NIOHTTP2Handler.StreamConfiguration()
stream.streamResetFrameRateLimit.maximumCount = 10_000_000
stream.streamResetFrameRateLimit.windowLength = .seconds(1)

let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
let server = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { [connection, stream] channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
            try channel.pipeline.syncOperations.addHandler(
                ApplicationProtocolNegotiationHandler { result, channel in
                    guard case .negotiated("h2") = result else { return channel.close() }
                    if readsFrames {
                        return channel.eventLoop.makeCompletedFuture {
                            let http2 = NIOHTTP2Handler(
                                mode: .server,
                                connectionConfiguration: connection,
                                streamConfiguration: stream
                            )
                            try channel.pipeline.syncOperations.addHandlers([http2, FrameOKResponder()])
                        }
                    }
                    return channel.configureHTTP2Pipeline(
                        mode: .server,
                        connectionConfiguration: connection,
                        streamConfiguration: stream
                    ) { streamChannel in
                        streamChannel.eventLoop.makeCompletedFuture {
                            try streamChannel.pipeline.syncOperations.addHandler(StreamOKResponder())
                        }
                    }.map { _ in }
                }
            )
        }
    }
    .bind(host: "127.0.0.1", port: 0).wait()
FileHandle.standardOutput.write(Data("listening on https://127.0.0.1:\(server.localAddress?.port ?? 0)\n".utf8))
signal(SIGINT, SIG_IGN)
let interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
interrupt.setEventHandler { server.close(promise: nil) }
interrupt.resume()
try server.closeFuture.wait()
try group.syncShutdownGracefully()
