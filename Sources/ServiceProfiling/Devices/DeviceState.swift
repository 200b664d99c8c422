/// One device as iOS holds it: where its activity is in its life, whether its app has re-issued
/// its push-to-start token, and how many activities it shows. A moment exists only in the case
/// where it has happened, so nothing can be read (or subtracted) before it means something.
struct DeviceState: Equatable {
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
    /// token's rotation, its first update shown.
    struct Activity: Equatable {
        var startedNs: Int64
        var report: Report = .due
        /// When its update token rotated: the old one keeps working for the grace after it.
        var rotatedNs: Int64?
        var firstUpdateNs: Int64?
    }

    /// What became of the first report of an activity's update token.
    enum Report: Equatable {
        /// Not answered yet, or never sent (its app never reports, or the activity ended first).
        case due
        /// The service answered it with success at `atNs`: from then on it knew the token.
        case answered(atNs: Int64)
        /// The service refused it, or did not answer it in time.
        case failed
    }

    var life = Life.waiting
    /// The app re-issued its push-to-start token: a start to the first one starts nothing.
    var startTokenStale = false
    /// Activities the device shows now, against its limit.
    var liveActivities: UInt8 = 0

    /// The activity, once started, whether or not it still runs.
    var activity: Activity? {
        switch life {
        case .waiting: nil
        case .running(let activity), .ended(let activity, _, _): activity
        }
    }

    /// When the activity ended or was dismissed, if it has.
    var endedNs: Int64? {
        if case .ended(_, let atNs, _) = life { return atNs }
        return nil
    }

    /// Whether its user closed the activity.
    var dismissed: Bool {
        if case .ended(_, _, true) = life { return true }
        return false
    }

    /// Changes the started activity with `change`; nothing before its start.
    mutating func updateActivity(_ change: (inout Activity) -> Void) {
        switch life {
        case .waiting:
            return
        case .running(var activity):
            change(&activity)
            life = .running(activity)
        case .ended(var activity, let atNs, let dismissed):
            change(&activity)
            life = .ended(activity, atNs: atNs, dismissed: dismissed)
        }
    }

    /// Ends the running activity at `atNs`; an ended one stays as it ended.
    mutating func end(atNs: Int64, dismissed: Bool) {
        guard case .running(let activity) = life else { return }
        life = .ended(activity, atNs: atNs, dismissed: dismissed)
        liveActivities -= 1
    }
}
