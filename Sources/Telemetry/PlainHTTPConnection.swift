import CSockets
import EventLoops

#if canImport(Glibc)
import Glibc
#endif

/// A client of a plain-HTTP port on an event loop: HTTP/1.1 with keep-alive, each request
/// answered from the routes (the mock's `/stats` and `/metrics`, a run's `/metrics`) as it
/// arrives (`PlainHTTPExchange`), so such a port needs no thread of its own.
package final class PlainHTTPConnection: LoopClient {
    private unowned let loop: EventLoop
    private let descriptor: Int32
    private let routes: [String: PlainHTTPExchange.Route]
    private var tag: UInt64 = 0
    private var input: [UInt8] = []
    private var output: [UInt8] = []
    private var written = 0
    /// Whether the connection closes once its answers are out (`Connection: close`, or the
    /// client's end of the stream).
    private var closesAfterWrite = false
    private var isClosed = false

    /// Serves `descriptor`, a client just accepted, on `loop`.
    package init(descriptor: Int32, loop: EventLoop, routes: [String: PlainHTTPExchange.Route]) {
        self.descriptor = descriptor
        self.loop = loop
        self.routes = routes
        tag = loop.watch(self, descriptor: descriptor, events: EPOLLIN.rawValue)
    }

    /// Has `loop` accept every client of `listener` as a connection answering `routes`.
    package static func serve(_ listener: Int32, on loop: EventLoop, routes: [String: PlainHTTPExchange.Route]) {
        loop.listen(on: listener) { loop, descriptor in
            while let client = ListeningSocket.accept(on: descriptor) {
                _ = PlainHTTPConnection(descriptor: client.descriptor, loop: loop, routes: routes)
            }
        }
    }

    package func handle(events: UInt32) {
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { readRequests() }
        guard !isClosed else { return }
        writeAnswers()
    }

    package func close() {
        guard !isClosed else { return }
        isClosed = true
        loop.forget(tag, descriptor: descriptor)
        Glibc.close(descriptor)
    }

    /// Reads what the client sent and answers every whole request in it.
    private func readRequests() {
        while !closesAfterWrite {
            let count = loop.readBuffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
            guard count > 0 else {
                closesAfterWrite = true
                break
            }
            input += loop.readBuffer[0..<count]
        }
        while true {
            switch PlainHTTPExchange.parse(input[...]) {
            case .incomplete: return
            case .malformed: return close()
            case .request(let request, let length):
                output += PlainHTTPExchange.response(to: request, routes: routes)
                input.removeFirst(length)
                if !request.keepAlive {
                    closesAfterWrite = true
                    return
                }
            }
        }
    }

    /// Writes what the socket takes of the answers; waits to write the rest, reading nothing
    /// more meanwhile.
    private func writeAnswers() {
        while written < output.count {
            let count = output.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else {
                guard errno == EAGAIN || errno == EWOULDBLOCK else { return close() }
                loop.rewatch(tag, descriptor: descriptor, events: EPOLLOUT.rawValue)
                return
            }
            written += count
        }
        output.removeAll(keepingCapacity: true)
        written = 0
        if closesAfterWrite { return close() }
        loop.rewatch(tag, descriptor: descriptor, events: EPOLLIN.rawValue)
    }
}
