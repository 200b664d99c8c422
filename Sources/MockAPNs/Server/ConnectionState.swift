import MockFaults
import Workload

/// What the mock remembers about one HTTP/2 connection; touched only on its event loop.
///
/// Its provider-token history pins the team and throttles token changes (`ProviderTokenHistory`).
///
/// With token authentication APNs allows one stream on a new connection until a request with a
/// valid provider token arrives, then raises `SETTINGS_MAX_CONCURRENT_STREAMS` (to 1000 when
/// last observed; `docs/apns.md` §1.8). A client that never reads the new
/// SETTINGS stays at one stream, as it would against APNs.
///
/// APNs was also seen (2016, and 2020 per Pushy #732) dropping the limit to 1 after a rejected
/// push and restoring it after an accepted one; `dropsAfterRejection` plays that.
final class ConnectionState {
    /// The connection's provider-token history (team pinning, update throttling).
    var tokens = ProviderTokenHistory()
    /// The client's port, by which counters and recordings name the connection.
    let port: Int
    /// The client's address, as `/stats` counts each sending host's pushes by it.
    let client: ClientAddresses.Slot
    /// Which listener accepted it: APNs' push API, or the broadcast channel management API.
    let listener: Listener
    /// What the adopted listener that accepted it counts, when one did.
    let tally: ListenerTally?

    /// The mock's listeners, which answer different APIs.
    enum Listener {
        /// Device pushes and broadcasts (`api.push.apple.com`).
        case apns
        /// Broadcast channel management (`api-manage-broadcast.push.apple.com`).
        case channels
    }
    /// Where the `apns-id`s of answers to requests without one come from.
    var apnsIDs = SplitMix64(seed: UInt64.random(in: .min ... .max))
    private let streamsAfterToken: Int
    private let dropsAfterRejection: Bool
    private var raised: Bool
    private var dropped = false
    private let goAwayAfter: Int?
    private let resetAfter: Int?
    private var answers = 0
    private var highestStream: Int32 = 0
    /// Streams the client has open: requests begun and not yet ended.
    private(set) var openStreams = 0
    /// Whether GOAWAY has been sent.
    private(set) var wentAway = false
    private var wasReset = false

    /// What the fault plan did to a connection after an answer.
    enum Incident {
        /// GOAWAY went out; the connection closes a second later.
        case goAway
        /// The connection was reset.
        case reset
    }

    /// - Parameters:
    ///   - port: the client's port.
    ///   - client: the client's address's slot among the hosts `/stats` names.
    ///   - listener: the listener that accepted it.
    ///   - tally: what that listener counts, when it is an adopted one.
    ///   - streamsAfterToken: the limit to advertise after the first valid token.
    ///   - raised: whether the limit is already at `streamsAfterToken` (no one-stream start).
    ///   - dropsAfterRejection: whether a rejection drops the limit to 1 until an acceptance.
    ///   - goAwayAfter: send GOAWAY after this many answers (`FaultPlan.goAwayAfter`).
    ///   - resetAfter: reset the connection after this many answers (`FaultPlan.resetAfter`).
    init(
        port: Int = 0,
        client: ClientAddresses.Slot = .other,
        listener: Listener = .apns,
        tally: ListenerTally? = nil,
        streamsAfterToken: Int,
        raised: Bool,
        dropsAfterRejection: Bool = false,
        goAwayAfter: Int? = nil,
        resetAfter: Int? = nil
    ) {
        self.port = port
        self.client = client
        self.listener = listener
        self.tally = tally
        self.goAwayAfter = goAwayAfter
        self.resetAfter = resetAfter
        self.streamsAfterToken = streamsAfterToken
        self.raised = raised
        self.dropsAfterRejection = dropsAfterRejection
    }

    /// Notes a request with a valid token; the first one raises the stream limit on `connection`.
    func tokenVerified(on connection: (any ConnectionControl)?) {
        guard !raised else { return }
        raised = true
        advertise(streamsAfterToken, on: connection)
    }

    /// Notes an answer sent: with `dropsAfterRejection`, a rejection drops the limit to 1 and
    /// the next acceptance restores it.
    func answered(accepted: Bool, on connection: (any ConnectionControl)?) {
        guard dropsAfterRejection, raised, accepted == dropped else { return }
        dropped = !accepted
        advertise(accepted ? streamsAfterToken : 1, on: connection)
    }

    /// Notes a stream the client opened.
    func opened(_ stream: Int32) {
        highestStream = max(highestStream, stream)
        openStreams += 1
    }

    /// Notes that `count` streams `opened` counted have ended.
    func closed(_ count: Int) {
        openStreams -= count
    }

    /// Notes an answer written; after `resetAfter` of them, resets the connection; after
    /// `goAwayAfter` of them, says GOAWAY with the last stream opened (all of them are answered)
    /// and closes the connection a second later.
    /// - Returns: what happened to the connection now, if anything.
    func afterAnswer(on connection: (any ConnectionControl)?) -> Incident? {
        answers += 1
        guard let connection else { return nil }
        if let resetAfter, answers >= resetAfter, reset(connection) { return .reset }
        guard let goAwayAfter, answers >= goAwayAfter, goAway(connection) else { return nil }
        return .goAway
    }

    /// Says GOAWAY with the last stream opened (all of them are answered) and closes the
    /// connection a second later.
    /// - Returns: whether it did, the first time only.
    @discardableResult
    func goAway(_ connection: any ConnectionControl) -> Bool {
        guard !wentAway, !wasReset else { return false }
        wentAway = true
        connection.sendGoAway(lastStream: highestStream)
        return true
    }

    /// Resets the connection (`ConnectionControl.reset`).
    /// - Returns: whether it did, the first time only.
    @discardableResult
    func reset(_ connection: any ConnectionControl) -> Bool {
        guard !wasReset else { return false }
        wasReset = true
        connection.reset()
        return true
    }

    private func advertise(_ limit: Int, on connection: (any ConnectionControl)?) {
        connection?.advertise(maxConcurrentStreams: limit)
    }
}
