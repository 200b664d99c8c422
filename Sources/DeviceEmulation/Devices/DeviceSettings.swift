import ArrivalMatching
import Basics
import Foundation
import Transport
import Workload

/// How the devices PushBench plays behave, where Apple publishes no number: each default is an
/// assumption, named as one in `docs/profile-lifecycle.md` with its reasoning.
public struct DeviceSettings: Sendable, Equatable {
    /// From an activity's start to its app reporting the update token (`--report-delay`).
    public var reportDelay = ReportDelay(medianSeconds: 1.5, p99Seconds: 10)
    /// Share of devices that never report an update token: a user who never allows the
    /// activity, an app that was force-quit (`--never-report`).
    public var neverReportShare = 0.0
    /// Share of active activities whose update token rotates each minute, once at most
    /// (`--rotation-rate`: 0.5 rotates half in the first minute, half the rest in the second),
    /// and how long the old token keeps working (`--rotation-grace`).
    public var rotationSharePerMinute = 0.0
    public var rotationGrace: Duration = .seconds(30)
    /// Share of devices that re-issue their push-to-start token right after a remote start
    /// (`--start-token-reissue`): they report the new one, and a start to the old one starts
    /// nothing.
    public var startTokenReissueShare = 0.0
    /// Share of users who close the activity before its end (`--dismiss`).
    public var dismissShare = 0.0
    /// Concurrent activities a device allows the app (`--activity-limit`; vendors report about 5).
    public var activityLimit = 5
    /// From a token's death (its activity ended, or it was rotated out past its grace) to APNs
    /// answering it 410 `Unregistered` (`--unregister-delay`).
    public var unregisterDelay: Duration = .seconds(60)

    /// The defaults.
    public init() {}

    /// When after its start an activity's token rotates, from a uniform draw `unit` in [0, 1):
    /// of the activities not yet rotated, `rotationSharePerMinute` rotate within each minute
    /// (all within the first at 1). `nil`: it never rotates.
    func rotationAfterNs(_ unit: Double) -> Int64? {
        guard rotationSharePerMinute > 0 else { return nil }
        let minutes = rotationSharePerMinute >= 1 ? unit : log(1 - unit) / log(1 - rotationSharePerMinute)
        // A year at most: a rate near 0 draws lives far past any profile.
        return Int64(min(minutes, 525_600) * 60e9)
    }

    /// A log-normal delay given by its median and its 99th percentile: most apps report within
    /// a second or two, a long tail waits for a background launch or for the user's Allow.
    public struct ReportDelay: Sendable, Equatable, CustomStringConvertible {
        public var medianSeconds: Double
        public var p99Seconds: Double

        /// A distribution; the 99th percentile at least the median.
        public init(medianSeconds: Double, p99Seconds: Double) {
            self.medianSeconds = medianSeconds
            self.p99Seconds = max(medianSeconds, p99Seconds)
        }

        /// Reads `MEDIAN,P99` (`1.5s,10s`), or `MEDIAN` alone (no spread), each a duration with
        /// its unit as every duration is.
        /// - Throws: `ProfileError.badInput` naming the flag.
        public init(parsing text: String) throws {
            var parts: [Double?] = []
            for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                do {
                    parts.append(try Duration(parsing: part).inSeconds)
                } catch {
                    guard error.problem == .noUnit, Double(part)?.isFinite == true else {
                        parts.append(nil)
                        continue
                    }
                    throw ProfileError.badInput("--report-delay \(text): \(error)")
                }
            }
            guard (1...2).contains(parts.count), let median = parts[0],
                let p99 = parts.count == 2 ? parts[1] : median, p99 >= median, p99 <= Self.longestSeconds
            else {
                throw ProfileError.badInput(
                    "--report-delay: MEDIAN[,P99], the 99th percentile at least the median and at most \(Int(Self.longestSeconds))s (such as 1.5s,10s), not \(text)"
                )
            }
            self.init(medianSeconds: median, p99Seconds: p99)
        }

        public var description: String { String(format: "median %g s, p99 %g s", medianSeconds, p99Seconds) }

        /// The longest delay drawn: a profile waits for every first report, so the tail is cut
        /// at two minutes (with the defaults, about 3 devices in a million wait longer than 60 s).
        static let longestSeconds = 120.0

        /// One delay, nanoseconds, from two uniform draws (Box–Muller).
        func nanoseconds(_ random: inout SplitMix64) -> Int64 {
            guard p99Seconds > medianSeconds, medianSeconds > 0 else { return Int64(medianSeconds * 1e9) }
            let sigma = log(p99Seconds / medianSeconds) / 2.326
            let normal = sqrt(-2 * log(1 - random.nextUnit())) * cos(2 * .pi * random.nextUnit())
            return Int64(min(medianSeconds * exp(sigma * normal), Self.longestSeconds) * 1e9)
        }
    }
}
