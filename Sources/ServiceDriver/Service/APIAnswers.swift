import Histogram
import LoadEngine
import RequestFiles
import Transport

/// What a service's API answered in one phase (registration, or the events): every request
/// accounted for as succeeded, refused (an answer whose status is not a success), timed out or
/// failed below HTTP, with its latency from its intended time.
public struct APIAnswers: Sendable {
    /// Requests sent, and how each ended: `sent = succeeded + refused + timedOut + failed`.
    public var sent = 0
    public var succeeded = 0
    public var refused = 0
    public var timedOut = 0
    public var failed = 0
    /// Answers by HTTP status.
    public var byStatus: [Int: Int] = [:]
    /// Failures below HTTP, by class (as `run` counts its transport's).
    public var failedByClass: [FailureClass: Int] = [:]
    /// The first failure's words, for the console.
    public var firstFailure: String?
    /// From each request's intended time to its answer or failure, microseconds.
    public var latency = Histogram<UInt64>.latency(digits: .three)
    /// Seconds from the phase's first request to its last answer.
    public var seconds = 0.0
    /// HTTP versions the answers came over (1, 2).
    public var httpVersions: Set<Int> = []
    /// How long each request waited in PushBench's own queue for a free connection,
    /// microseconds: PushBench's limit, kept out of `latency`.
    public var queued = Histogram<UInt64>.latency(digits: .two)
    /// Requests that waited a millisecond or more there.
    public var waited = 0
    /// The client's connections (and requests in flight at most), and the most it had in
    /// flight at once; `nil` before a client was used.
    public var connections: Int?
    public var peakInFlight: Int?

    /// An empty book.
    public init() {}

    /// Books `answer` to a request of `request`.
    mutating func add(_ answer: ServiceClient.Answer, request: APIFile.Request) {
        sent += 1
        _ = queued.record(answer.queuedNanos / 1000)
        if answer.queuedNanos >= 1_000_000 { waited += 1 }
        // A request that never left PushBench's queue has no latency of the service's.
        if answer.sent { _ = latency.record(answer.latencyNanos / 1000) }
        if answer.timedOut {
            timedOut += 1
        } else if let failure = answer.failure {
            failed += 1
            failedByClass[failure, default: 0] += 1
        } else {
            byStatus[answer.status, default: 0] += 1
            httpVersions.insert(answer.httpVersion)
            if request.succeeded(answer.status) { succeeded += 1 } else { refused += 1 }
        }
        if firstFailure == nil, let message = answer.message { firstFailure = message }
    }

    /// Keeps `client`'s connections and the most it had in flight.
    mutating func recordLimits(of client: ServiceClient) {
        connections = client.connections
        peakInFlight = max(peakInFlight ?? 0, client.peakInFlight)
    }

    /// Whether PushBench's own client set the pace: a request waited for a connection.
    public var saturated: Bool { waited > 0 || failedByClass[.pushbenchQueueTimeout, default: 0] > 0 }

    /// Requests a second over the phase.
    public var perSecond: Double { seconds > 0 ? Double(sent) / seconds : 0 }
}
