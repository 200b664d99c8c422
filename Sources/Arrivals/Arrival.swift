import Encodings
import Wire
import Workload

/// One push the mock answered, decoded once, on the thread that answered it, for everything
/// that measures pushes live: the devices that receive it and the book that matches it to what
/// the sender was told. Each reads the fields it needs from here; none parses the body, hashes
/// it or reads its headers again.
public struct Arrival: Sendable {
    /// When it reached the mock, on the monotonic clock (`CLOCK_MONOTONIC` nanoseconds): the one
    /// clock the profile's schedule is on.
    public var receivedNs: Int64
    /// The device token of its path (`/3/device/TOKEN`); empty for any other path.
    public var deviceToken: String
    /// The mock's answer: 200, or the refusal's status and reason.
    public var status: Int
    public var reason: APNsReason?
    /// Its `aps.event`, when that is one of the three Live Activity events.
    public var event: LifecyclePhase?
    /// Its `apns-priority` (10 when it has none, as APNs reads it).
    public var priority: Int
    /// `pushbench_event` in its content state, when the sender passed the payload through.
    public var tag: Int?
    /// The body's FNV-1a digest: a retry of a refused push is the same body again.
    public var payloadDigest: UInt64
    /// The body itself, for the one reader that decodes it: a device given a start.
    public var body: [UInt8]

    /// An arrival of `body` to `deviceToken`, its tag and digest read from `body` here.
    public init(
        receivedNs: Int64,
        deviceToken: String,
        status: Int,
        reason: APNsReason? = nil,
        event: LifecyclePhase?,
        priority: Int = 10,
        body: [UInt8]
    ) {
        self.receivedNs = receivedNs
        self.deviceToken = deviceToken
        self.status = status
        self.reason = reason
        self.event = event
        self.priority = priority
        tag = EventTag.read(body)
        payloadDigest = FNV1a.hash(body)
        self.body = body
    }

    /// Whether APNs accepted it: only an accepted push reaches a device.
    public var accepted: Bool { status == 200 }
}
