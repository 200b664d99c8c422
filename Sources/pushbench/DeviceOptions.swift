import ArgumentParser
import DeviceEmulation
import Foundation
import Profiling

/// How the devices PushBench plays behave, for an API file whose devices report their own tokens
/// (`token_report`). Apple publishes none of these numbers: docs/profile-lifecycle.md gives each
/// default's source or says it is an assumption, and why.
struct DeviceOptions: ParsableArguments {
    @Option(
        name: .customLong("report-delay"),
        help: ArgumentHelp(
            "From an activity's start to its app reporting the update token: MEDIAN[,P99] durations, log-normal.",
            discussion:
                "An assumption (no one publishes it): 1.5s,10s - a second or two to wake the app and send, a tail for background launches and the user's Allow."
        )
    )
    var reportDelay = "1.5s,10s"

    @Option(
        name: .customLong("never-report"),
        help:
            "Share of devices that never report an update token (a user who never allows the activity, a force-quit app)."
    )
    var neverReport = 0.0

    @Option(
        name: .customLong("rotation-rate"),
        help: "Share of active activities whose update token rotates each minute (once each at most)."
    )
    var rotationRate = 0.0

    @Option(name: .customLong("rotation-grace"), help: "How long a rotated-out update token keeps working.")
    var rotationGrace = TimeSpan(seconds: 30)

    @Option(
        name: .customLong("start-token-reissue"),
        help: "Share of devices that re-issue their push-to-start token right after a remote start."
    )
    var startTokenReissue = 0.0

    @Option(name: .customLong("dismiss"), help: "Share of users who close the activity before its end.")
    var dismiss = 0.0

    @Option(
        name: .customLong("activity-limit"),
        help: "Concurrent activities a device allows the app (vendors report about 5)."
    )
    var activityLimit = 5

    @Option(
        name: .customLong("unregister-delay"),
        help:
            "From a token's death (its activity ended, or rotated out past its grace) to APNs answering it 410 Unregistered."
    )
    var unregisterDelay = TimeSpan(seconds: 60)

    func validate() throws {
        for (name, share) in [
            ("--never-report", neverReport), ("--start-token-reissue", startTokenReissue), ("--dismiss", dismiss),
            ("--rotation-rate", rotationRate),
        ] where !(0...1).contains(share) {
            throw ValidationError("\(name) must be a share from 0 to 1, not \(share)")
        }
        if !(1...100).contains(activityLimit) { throw ValidationError("--activity-limit must be 1 to 100") }
        do { _ = try DeviceSettings.ReportDelay(parsing: reportDelay) } catch { throw ValidationError("\(error)") }
    }

    /// Whether any flag differs from its default: they need a lifecycle file.
    var isSet: Bool { settings() != DeviceSettings() }

    /// The settings the flags give.
    func settings() -> DeviceSettings {
        var settings = DeviceSettings()
        if let delay = try? DeviceSettings.ReportDelay(parsing: reportDelay) { settings.reportDelay = delay }
        settings.neverReportShare = neverReport
        settings.rotationSharePerMinute = rotationRate
        settings.rotationGrace = rotationGrace.duration
        settings.startTokenReissueShare = startTokenReissue
        settings.dismissShare = dismiss
        settings.activityLimit = activityLimit
        settings.unregisterDelay = unregisterDelay.duration
        return settings
    }
}
