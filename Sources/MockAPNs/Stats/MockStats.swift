import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the mock has seen, counted the way a client counts it, so a run can be checked against
/// the server's side (`/stats`, or in-process).
public final class MockStats: Sendable {
    /// A consistent copy of the counters.
    public struct Snapshot: Sendable, Equatable {
        /// Drawn at random when the mock started, so that a reader of two snapshots (a sender
        /// comparing its books, before and after a run) can tell a restarted mock from one that
        /// counted on.
        public var instance = ""
        /// TLS connections accepted (before ALPN).
        public var connectionsAccepted = 0
        /// Connections closed because the client neither negotiated `h2` with ALPN nor opened
        /// with the HTTP/2 preface.
        public var connectionsRefusedWithoutH2 = 0
        /// Connections that negotiated no protocol with ALPN and spoke HTTP/2 by prior knowledge,
        /// which APNs accepts (`docs/mock-conformance.md`).
        public var connectionsWithoutALPN = 0
        /// Connections closed as soon as accepted, because `ConnectionLimits.maxConnections` were
        /// open.
        public var connectionsRefusedOverLimit = 0
        /// Connections closed for not finishing TLS and ALPN within the handshake timeout.
        public var handshakesTimedOut = 0
        /// Errors that reached a connection, by kind (`tls.<type>`, `http2.<type>`, `io`,
        /// `other.<type>`): handshakes that failed, protocol violations, peers that vanished.
        public var connectionErrors: [String: Int] = [:]
        /// HTTP/2 connections currently open.
        public var connectionsOpen = 0
        /// Device pushes answered (every status): answers written to their stream.
        public var pushes = 0
        /// Pushes answered 200.
        public var accepted = 0
        /// Pushes answered with an error, by reason.
        public var rejectedByReason: [String: Int] = [:]
        /// Pushes answered, by `apns-push-type` (`absent`, or `invalid` for an unknown one).
        public var pushesByPushType: [String: Int] = [:]
        /// Pushes answered, by `apns-priority` (`absent`, or `invalid` for one APNs refuses).
        public var pushesByPriority: [String: Int] = [:]
        /// Pushes answered, by connection (the client's port). Memory stays bounded under
        /// connection churn: past `connectionLimit` connections, the rest count under port 0.
        public var pushesByConnection: [Int: Int] = [:]
        /// Connections `pushesByConnection` names one by one.
        public static let connectionLimit = 10_000
        /// Answered pushes by the sending host's address: in a fleet run (one mock, many sender
        /// hosts or pods), what each host sent, so a host lost mid-run is still accounted for.
        /// Past `clientLimit` addresses, the rest count under `otherClients`.
        public var pushesByClient: [String: Int] = [:]
        /// Addresses `pushesByClient` names one by one.
        public static let clientLimit = 1_000
        /// The label of the addresses past `clientLimit`.
        public static let otherClients = "other"
        /// Live Activity pushes APNs accepts (or, in strict mode, the mock refused) whose content
        /// a device would drop, by problem (`LiveActivityContent`).
        public var liveActivityWouldDrop: [String: Int] = [:]
        /// Pushes accepted although they differ from Apple's documentation, as APNs accepts
        /// them, by kind (`iat_string`, `iat_fraction`): accepted is not approved.
        public var acceptedIrregular: [String: Int] = [:]
        /// Provider tokens a connection adopted in place of the one it had (not its first).
        public var providerTokenUpdates = 0
        /// Streams the client reset before the mock answered.
        public var streamsResetByClient = 0
        /// Answers the fault plan turned into errors, by reason (also in `rejectedByReason`).
        public var faultsInjected: [String: Int] = [:]
        /// Answers held by a stall.
        public var answersStalled = 0
        /// Answers never sent, by a `hang` incident (the client sees a timeout).
        public var answersWithheld = 0
        /// Connections whose TLS handshake a `slow_tls_accept` incident held back.
        public var handshakesDelayed = 0
        /// Connections sent GOAWAY by the fault plan.
        public var goAwaysSent = 0
        /// Connections reset by the fault plan.
        public var connectionResets = 0
        /// Answers decided but never written, because their stream or connection had closed
        /// first (a client's timeout, a reset); not in `pushes`.
        public var answersUnsent = 0
        /// The device pushes among `answersUnsent`: what a profile's books count as answers
        /// unsent, beside the pushes answered.
        public var pushAnswersUnsent = 0
        /// The acceptances among `pushAnswersUnsent`: pushes a device has (APNs took them) whose
        /// sender never heard so.
        public var acceptedUnsent = 0
        /// Broadcasts answered (every status), written to their stream.
        public var broadcasts = 0
        /// Broadcasts answered 200.
        public var broadcastsAccepted = 0
        /// Devices the accepted broadcasts reached: each channel's simulated subscribers.
        public var broadcastDeliveries = 0
        /// From each accepted broadcast to the moment its last subscriber had it, under the
        /// fan-out model (`ChannelStore.fanout`), microseconds: in total, and the longest.
        public var broadcastLastDeliveryMicros = 0
        public var broadcastLastDeliveryMicrosMax = 0
        /// Channel management requests answered, by operation (`create`, `read`, `delete`,
        /// `list`, or `invalid`).
        public var channelRequests: [String: Int] = [:]
        /// Broadcasts refused, by reason.
        public var broadcastRejectedByReason: [String: Int] = [:]
        /// Channel management requests refused, by reason.
        public var channelRequestsRejectedByReason: [String: Int] = [:]
        /// Channels created and deleted.
        public var channelsCreated = 0
        public var channelsDeleted = 0
        /// Delay the fault plan added to answers, microseconds in total.
        public var injectedDelayMicros = 0
    }

    /// One event loop's counters: only its own thread writes them, so their lock is never
    /// contended but by a reader. The pushes' counts, which every answer moves, sit apart in
    /// arrays; the rest, which a few events move, in a `Snapshot`.
    private final class Lane: Sendable {
        struct Counters {
            var others = Snapshot()
            var pushes = PushCounts()
        }
        let counters = Mutex(Counters())
    }

    private let lanes: [Lane]
    private let instance: String
    /// The sending hosts `pushesByClient` names, each given its slot as its connection starts.
    let clients = ClientAddresses()

    /// Creates empty counters for a newly started mock whose event loops are `lanes` threads,
    /// each of which says which it is with `claimLane` before it serves.
    public init(lanes: Int = 1) {
        self.lanes = (0..<max(1, lanes)).map { _ in Lane() }
        instance = String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }

    /// A copy of the counters now: every lane's added up, each read under its own lock, and the
    /// pushes' counts named.
    public func snapshot() -> Snapshot {
        var total = Snapshot()
        total.instance = instance
        let counted = lanes.map { lane in lane.counters.withLock { $0 } }
        // Read after the lanes, so that every slot they counted has its name.
        let clientNames = clients.names
        for lane in counted {
            total.add(lane.others)
            lane.pushes.add(to: &total, clients: clientNames)
        }
        return total
    }

    /// Counts on the calling thread's lane, as wrk and h2load keep their counts per thread: more
    /// event loops then add capacity instead of queueing on one lock.
    func update(_ body: (inout Snapshot) -> Void) {
        lanes[Self.currentLane % lanes.count].counters.withLock { body(&$0.others) }
    }

    /// Counts a device push's answer written to its stream, from the host in `client`, on the
    /// calling thread's lane.
    func countWritten(_ answer: PushResponder.Answer, from client: ClientAddresses.Slot) {
        lanes[Self.currentLane % lanes.count].counters.withLock { $0.pushes.count(answer, from: client) }
    }

    /// The lane of the calling thread: what it claimed, or 0 for a thread that claimed none.
    private static var currentLane: Int {
        max(0, Int(bitPattern: pthread_getspecific(laneKey)) - 1)
    }

    /// Makes the calling thread (an event loop's) count on lane `index`.
    static func claimLane(_ index: Int) {
        pthread_setspecific(laneKey, UnsafeRawPointer(bitPattern: index + 1))
    }

    /// One key for every mock in the process: a thread serves one mock's event loop, and a lane
    /// beyond a mock's count wraps around.
    private static let laneKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
