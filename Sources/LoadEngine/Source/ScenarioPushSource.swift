import Wire
import Workload

/// Turns a scenario's events into requests: the `/3/device/<token>` path (or a broadcast's
/// `/4/broadcasts/apps/<bundle>`) and the encoded `aps` payload, written into buffers the worker
/// reuses.
///
/// A `start` goes to the device's push-to-start token with `attributes-type`, `attributes` and
/// an alert (all three required by ActivityKit); an `update` or `end` goes to the activity's
/// update token with its `content-state`, a `stale-date`, and for `end` a `dismissal-date`.
/// Token `i` of a kind is a pure function of the scenario's seed, so the same scenario sends the
/// same bytes to the same tokens on every run and every shard.
public struct ScenarioPushSource {
    /// Push-to-start tokens, one per activity (each activity on its own device).
    public let startTokens: TokenSet
    /// Activity update tokens, two per activity (the second after a rotation).
    public let updateTokens: TokenSet
    /// Real tokens (hex) addressed instead of synthetic ones (`--tokens`): activity `i`'s pushes
    /// go to token `i` modulo their count, and starts are not sent, since a real activity was
    /// started by its app.
    public let realTokens: [[UInt8]]?
    /// The broadcast channel of each broadcast group, by group id.
    public let channelIDs: [Int: String]
    /// Each cohort's content-state, its members named by the cohort's activity kind.
    private let stateByCohort: [ContentStateTemplate]
    private let attributesTypeByCohort: [String]
    private let broadcastPath: [UInt8]
    private var encoder = PayloadEncoder(limit: PushType.liveactivity.payloadLimit)
    /// An alert's body, kept between pushes so that its storage is reused: `prepare` clears the
    /// payload's alert, which shares it, before writing a new one, so it finds it unshared and
    /// writes over it without allocating.
    private var alertBody = ""
    /// The payload being prepared, kept between pushes: each push sets the members it sends and
    /// clears the rest, so no payload is built and destroyed for every push. Its content-state
    /// stays `.null`, since the cohort's template writes it.
    private var payload = LiveActivityPayload(event: .update, timestamp: 0, contentState: .null)
    private static var pathPrefix: StaticString { "/3/device/" }

    /// How long a shown state stays fresh on the device before it is marked stale, seconds.
    public static let staleAfterSeconds: Int64 = 15 * 60
    /// How long an ended activity stays on the Lock Screen, seconds.
    public static let dismissAfterSeconds: Int64 = 15 * 60

    /// Creates the source for `scenario`'s activities, addressed to `realTokens` when given;
    /// broadcasts go to `/4/broadcasts/apps/<bundleID>`, on the channels of `channelIDs`.
    public init(
        scenario: Scenario,
        realTokens: [[UInt8]]? = nil,
        bundleID: String = "com.example.pushbench",
        channelIDs: [Int: String] = [:]
    ) {
        self.realTokens = realTokens
        self.channelIDs = channelIDs
        broadcastPath = Array("/4/broadcasts/apps/\(bundleID)".utf8)
        startTokens = TokenSet(seed: scenario.seed, kind: .pushToStart, count: scenario.activities)
        updateTokens = TokenSet(seed: scenario.seed, kind: .activityUpdate, count: 2 * scenario.activities)
        stateByCohort = scenario.cohorts.map { ContentStateTemplate(names: $0.kind.stateFields) }
        attributesTypeByCohort = scenario.cohorts.map { $0.kind.attributesType }
    }

    /// Whether `event` is sent at all: with real tokens, starts are not.
    public func sends(_ event: WorkloadEvent) -> Bool {
        realTokens == nil || event.phase != .start
    }

    /// The token set `event` is addressed through.
    public func tokens(for event: WorkloadEvent) -> TokenSet {
        event.tokenKind == .pushToStart ? startTokens : updateTokens
    }

    /// Writes `event`'s path into `path` and returns its payload bytes, timestamped `now` (UNIX
    /// seconds).
    /// - Throws: `PayloadTooLargeError` if the payload outgrows APNs' limit.
    public mutating func prepare(_ event: WorkloadEvent, now: Int64, path: inout [UInt8]) throws -> [UInt8] {
        path.removeAll(keepingCapacity: true)
        if event.isBroadcast {
            path.append(contentsOf: broadcastPath)
        } else if let realTokens {
            path.append(constant: Self.pathPrefix)
            path.append(contentsOf: realTokens[event.activity % realTokens.count])
        } else {
            path.append(constant: Self.pathPrefix)
            tokens(for: event).appendHex(at: event.tokenIndex, to: &path)
        }
        payload.timestamp = now
        payload.clearOptionalMembers()
        switch event.phase {
        case .start:
            payload.event = .start
            payload.attributesType = attributesTypeByCohort[event.cohort]
            payload.attributes = .object([
                JSONMember("activityID", .integer(Int64(event.activity))),
                JSONMember("groupID", .integer(Int64(event.group))),
            ])
            payload.inputPushToken = event.inputPushToken
            if event.delivery == .broadcast { payload.inputPushChannel = channelIDs[event.group] }
            payload.alert = alert(for: event)
            payload.staleDate = now + Self.staleAfterSeconds
        case .update:
            payload.event = .update
            payload.staleDate = now + Self.staleAfterSeconds
            if event.alert { payload.alert = alert(for: event) }
        case .end:
            payload.event = .end
            payload.dismissalDate = now + Self.dismissAfterSeconds
            if event.alert { payload.alert = alert(for: event) }
        }
        try encoder.encode(payload, contentState: stateByCohort[event.cohort]) { Int64(event.state[$0]) }
        return encoder.bytes
    }

    /// An alert naming the event and the state it leaves; only alerting pushes pay for it.
    private mutating func alert(for event: WorkloadEvent) -> LiveActivityPayload.Alert {
        alertBody.removeAll(keepingCapacity: true)
        for (index, name) in stateByCohort[event.cohort].names.enumerated() {
            if index > 0 { alertBody.append(", ") }
            alertBody.append(name)
            alertBody.append(" ")
            alertBody.append(String(event.state[index]))  // a small string: no allocation
        }
        return LiveActivityPayload.Alert(title: event.kind.rawValue, body: alertBody, sound: "default")
    }
}
