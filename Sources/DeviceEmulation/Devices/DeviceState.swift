/// One device as iOS holds it: where its activity is in its life, whether its app has re-issued
/// its push-to-start token, and how many activities it shows.
///
/// It is read and changed through `life`, in which a moment exists only in the case where it has
/// happened, so nothing can be read (or subtracted) before it means something. It is stored in
/// 32 bytes, because a million-device fleet keeps one for every device: three moments and two
/// bytes of flags, a moment that has not happened kept as `Int64.min` behind the accessors.
package struct DeviceState: Equatable {
    /// Where the device's activity is in its life.
    enum Life: Equatable {
        /// No activity yet: a push-to-start device waiting for a start push, or a local one for
        /// its app's own start.
        case waiting
        /// Showing since it started; its updates are shown.
        case running(Activity)
        /// Gone from the screen at `atNs`: an end update arrived, or (`dismissed`) its user
        /// closed it. What it went through before stays, for the report.
        case ended(Activity, atNs: Int64, dismissed: Bool)
    }

    /// What a started activity went through: its start, its first token report's answer, its
    /// token's rotation, whether an update was shown.
    package struct Activity: Equatable {
        var startedNs: Int64
        package var report: Report = .due
        /// When its update token rotated: the old one keeps working for the grace after it.
        package var rotatedNs: Int64?
        /// Whether it has shown an update (the time to it is booked as it happens).
        package var updated = false
    }

    /// What became of the first report of an activity's update token.
    package enum Report: UInt8, Equatable {
        /// Not sent yet: its moment had not come, it waited in PushBench's queue, or its app
        /// never reports, or the activity ended first.
        case due
        /// The service answered it with success: from then on it knew the token.
        case answered
        /// The service refused it, or did not answer it in time.
        case failed
        /// Handed to the service, not answered yet.
        case sent
    }

    private static let never = Int64.min
    private var startedNs = never
    private var rotatedNs = never
    private var endedNs_ = never
    /// Bits 0-1: 0 waiting, 1 running, 2 ended; bit 2: dismissed; bits 3-4: `Report`; bit 5:
    /// updated; bit 6: push-to-start token stale.
    private var flags: UInt8 = 0
    /// Activities the device shows now, against its limit.
    var liveActivities: UInt8 = 0

    /// Where the activity is in its life.
    var life: Life {
        get {
            switch flags & 3 {
            case 0: return .waiting
            case 1: return .running(storedActivity)
            default: return .ended(storedActivity, atNs: endedNs_, dismissed: flags & 4 != 0)
            }
        }
        set {
            let stale = flags & 0x40
            switch newValue {
            case .waiting:
                self = DeviceState(liveActivities: liveActivities)
            case .running(let activity):
                store(activity)
                flags = flags & ~0x07 | 1
                endedNs_ = Self.never
            case .ended(let activity, let atNs, let dismissed):
                store(activity)
                flags = flags & ~0x07 | 2 | (dismissed ? 4 : 0)
                endedNs_ = atNs
            }
            flags |= stale
        }
    }

    /// The app re-issued its push-to-start token: a start to the first one starts nothing.
    var startTokenStale: Bool {
        get { flags & 0x40 != 0 }
        set { flags = newValue ? flags | 0x40 : flags & ~0x40 }
    }

    private init(liveActivities: UInt8) { self.liveActivities = liveActivities }

    init() {}

    private var storedActivity: Activity {
        Activity(
            startedNs: startedNs,
            report: Report(rawValue: (flags >> 3) & 3) ?? .due,
            rotatedNs: rotatedNs == Self.never ? nil : rotatedNs,
            updated: flags & 0x20 != 0
        )
    }

    private mutating func store(_ activity: Activity) {
        startedNs = activity.startedNs
        rotatedNs = activity.rotatedNs ?? Self.never
        flags = flags & ~0x38 | activity.report.rawValue << 3 | (activity.updated ? 0x20 : 0)
    }

    /// The activity, once started, whether or not it still runs.
    package var activity: Activity? { flags & 3 == 0 ? nil : storedActivity }

    /// When the activity ended or was dismissed, if it has.
    package var endedNs: Int64? { flags & 3 == 2 ? endedNs_ : nil }

    /// Whether its user closed the activity.
    package var dismissed: Bool { flags & 7 == 6 }

    /// Changes the started activity with `change`; nothing before its start.
    mutating func updateActivity(_ change: (inout Activity) -> Void) {
        guard var activity else { return }
        change(&activity)
        store(activity)
    }

    /// Ends the running activity at `atNs`; an ended one stays as it ended.
    mutating func end(atNs: Int64, dismissed: Bool) {
        guard case .running(let activity) = life else { return }
        life = .ended(activity, atNs: atNs, dismissed: dismissed)
        liveActivities -= 1
    }
}
