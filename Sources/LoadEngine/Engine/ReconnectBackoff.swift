import Basics
import Transport
import Workload

/// How long a sender waits before it connects again to a target whose connections keep failing,
/// as production APNs senders do instead of reconnecting in a storm.
///
/// A connection-level failure (`FailureClass.isConnectionLevel`: refused, timed out, TLS,
/// GOAWAY, lost, refused streams) with no answer since the last one starts a hold of
/// `base · 2^(n-1)` seconds for the n-th such failure in a row, at most `cap`, with equal jitter
/// (between half and all of it). After a hold, one push goes out alone as a probe; any HTTP
/// answer, whatever its status, ends the backoff. A failure that follows answers (a connection
/// that completed pushes and then closed, or was told to go away) reconnects at once.
///
/// A closed-loop run with no `--duration` gives up once the holds reach the cap, leaving the
/// rest of its pushes unsent, since it would otherwise send one probe per hold for as long as
/// the target stays down; a run with a duration, or in open loop, keeps its own clock.
public struct ReconnectBackoff: Sendable, Equatable {
    /// The first hold's length.
    public var base: Duration
    /// No hold is longer.
    public var cap: Duration

    /// The defaults of `pushbench run`: 100 ms, doubling up to 5 s.
    public static let standard = ReconnectBackoff(base: .milliseconds(100), cap: .seconds(5))

    /// Creates a policy.
    public init(base: Duration, cap: Duration) {
        self.base = base
        self.cap = cap
    }
}

/// One worker's state of backing off from its target.
struct BackoffGate {
    let policy: ReconnectBackoff
    /// No push leaves before this (monotonic nanoseconds).
    private(set) var holdUntil: UInt64 = 0
    /// Connection failures in a row with no answer between them.
    private(set) var failedRounds = 0
    /// The failure that started the current hold, which the pushes it keeps from being sent, and
    /// those it takes back from the client, fail with: later failures within the hold (a GOAWAY's
    /// connection then closing, say) are its consequences, not its cause.
    private(set) var holdCause: (kind: FailureClass, message: String)?
    private var answeredSinceFailure = false

    init(policy: ReconnectBackoff) {
        self.policy = policy
    }

    /// Whether no push may leave at `now`: within a hold, or while a probe is out (`inFlight`
    /// pushes in flight) after one.
    func blocks(now: UInt64, inFlight: Int) -> Bool {
        now < holdUntil || (failedRounds > 0 && inFlight > 0)
    }

    /// Whether the holds have grown to the cap: the target has answered nothing through every
    /// doubling (about 6 s of failures with the standard policy).
    var reachedCap: Bool {
        failedRounds > 0 && policy.base.inSeconds * Double(1 << min(failedRounds - 1, 30)) >= policy.cap.inSeconds
    }

    /// Notes an HTTP answer: the target is reachable, so the backoff ends.
    mutating func answered() {
        answeredSinceFailure = true
        failedRounds = 0
        holdUntil = 0
    }

    /// Notes a request that failed with `kind` at `now`; a connection-level failure with no
    /// answer since the last one starts (or lengthens) a hold. Failures within a hold belong to
    /// the round that started it. Returns whether a new hold began.
    @discardableResult
    mutating func failed(_ kind: FailureClass, message: String, now: UInt64, random: inout SplitMix64) -> Bool {
        guard kind.isConnectionLevel else { return false }
        if answeredSinceFailure {
            answeredSinceFailure = false
            return false
        }
        guard now >= holdUntil else { return false }
        failedRounds += 1
        let bound = min(policy.cap.inSeconds, policy.base.inSeconds * Double(1 << min(failedRounds - 1, 30)))
        holdUntil = now + UInt64((bound / 2 + random.nextUnit() * bound / 2) * 1e9)
        holdCause = (kind, message)
        return true
    }
}
