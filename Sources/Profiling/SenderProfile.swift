import ArrivalMatching
import Glibc
import MockAPNs
import Reports
import Sampling
import ServiceDriver

/// What `profile` measured of a sender, from outside: its CPU and memory, its pushes matched
/// against its schedule, the mock's answers and its own CPU, and how the sender stopped.
public struct SenderProfile: Sendable {
    /// Why the profile stopped watching.
    public enum Stop: String, Sendable {
        /// The sender exited by itself.
        case exited
        /// `--duration` passed and the sender was ended.
        case duration
        /// Ctrl-C or SIGTERM arrived and the sender was ended.
        case interrupted
        /// A service's calls were answered and every push they owed arrived, and the service
        /// was ended.
        case drained
        /// A service's calls were answered, pushes were still missing, and none came for
        /// `--settle`: the service was ended, having stopped pushing with them owed.
        case settled
    }

    /// One second of the run, counted from the sender's start.
    public struct Sample: Sendable {
        /// Seconds since the sender started, and the interval's length.
        public var startSeconds: Double
        public var intervalSeconds: Double
        /// The sender's processes' CPU in the interval, percent of one core.
        public var cpuPercent: Double
        /// Their resident memory together at the interval's end, bytes.
        public var rssBytes: Int
        /// This process's CPU (the mock, and measuring), percent of one core.
        public var mockCPUPercent: Double
    }

    /// What was profiled: a sender, a service profile started, or one that already ran.
    public var subject: ProfileSubject
    /// How the sender ended; `nil` if it could not be ended.
    public var ending: SenderProcess.Ending?
    /// Why watching stopped, and how long the sender and its descendants then took to go.
    public var stop: Stop
    public var stopSeconds: Double
    /// Processes still alive when watching gave up on them (SIGKILL ignored: a process in an
    /// uninterruptible sleep).
    public var survivors: Int
    /// What the kernel accounted for every reaped descendant.
    public var accounting: SenderProcess.Accounting
    /// The largest resident memory the sender's processes held together, sampled, bytes.
    public var peakRSSBytes: Int
    /// The largest peak of any one process, as the kernel kept it (`VmHWM`), sampled, bytes.
    public var largestPeakRSSBytes: Int
    /// CPU seconds of this process (the mock and the measuring) while the sender ran.
    public var mockCPUSeconds: Double
    /// UNIX seconds when the sender started, and of `at_s` 0.
    public var startedAtUnix: Double
    public var startAtUnix: Double
    /// Seconds from the sender's start until watching stopped.
    public var wallSeconds: Double
    /// Arrivals matched against the schedule, and the book that matched them.
    public var arrivals: ArrivalBook.Figures
    public var book: ArrivalBook
    /// The mock's counters at the end.
    public var mock: MockStats.Snapshot
    /// The series, one sample a second.
    public var samples: [Sample]
    /// The sender's last lines on standard error.
    public var stderrTail: [String]
    /// A service's API and fan-out, when it was driven through its API (`--api`).
    public var service: ServiceOutcome? = nil
    /// What arrived at each of Apple's names and each `--reach` address, when the sender ran
    /// sealed (`--as-apple`).
    public var sealedNetwork: RunSummary.SealedNetwork? = nil
    /// The sender's call stacks, when sampled (`--perf`), or why they could not be.
    public var cpuSampling: Result<StackProfile, PerfUnavailable>? = nil

    /// CPU seconds of the sender and every descendant.
    public var cpuSeconds: Double { accounting.userSeconds + accounting.systemSeconds }

    /// Why the profile failed, in one line, or `nil`: a sender that exited non-zero or died of
    /// a signal it was not sent, one that could not be ended, or one that sent nothing. In a
    /// sealed network, the handshakes that never finished with the mock are named by host.
    public var failure: String? {
        guard let cause else { return nil }
        if sealedNetwork != nil, stderrTail.contains(where: { $0.contains("already in use") }) {
            return cause
                + "; it could not listen on a port: in its sealed network, 443, 2197, 2195 and 2196 are the mock's (Apple's ports), so listen on another"
        }
        guard let unfinished = sealedNetwork?.unfinishedHandshakes, !unfinished.isEmpty else { return cause }
        return cause + "; "
            + unfinished.map { "\($0.count) connection\($0.count == 1 ? "" : "s") to \($0.host)" }.joined(
                separator: ", "
            )
            + " never finished the TLS handshake with the mock (does it pin Apple's certificate, or trust a CA store of its own?)"
    }

    /// Why PushBench itself failed (its devices' client could not start): exit 4, not the
    /// sender's failure.
    public var pushbenchFailure: String? { service?.pushbenchFailure }

    private var cause: String? {
        if let pushbenchFailure { return pushbenchFailure }
        if survivors > 0 { return "\(survivors) of the sender's processes could not be ended (even with SIGKILL)" }
        switch ending {
        case .exited(let status) where status != 0 && stop == .exited:
            return "the sender exited with status \(status)"
        case .signalled(let signal) where !signalsSent.contains(signal):
            return "the sender died of signal \(signal) (\(Self.name(of: signal))), which profile did not send"
        default: break
        }
        if let failure = service?.failure { return failure }
        if arrivals.pushes == 0 { return "the sender sent nothing: the mock received no push" }
        if mock.accepted == 0, let nothingAccepted { return nothingAccepted }
        return nil
    }

    /// Why the mock accepted none of the pushes it answered, by its most frequent reason and
    /// what that reason means of the sender; `nil` when it answered none.
    private var nothingAccepted: String? {
        guard let (reason, count) = mock.rejectedByReason.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else {
            return nil
        }
        let answered = mock.rejectedByReason.values.reduce(0, +)
        let meanings = [
            "DeviceTokenNotForTopic":
                "its apns-topic is not the one its tokens are for (the app's bundle id, with .push-type.liveactivity for a Live Activity): check the service's topic against --bundle-id",
            "TopicDisallowed": "its apns-topic is not one its key may push to: check --bundle-id",
            "BadDeviceToken": "its tokens are not ones the devices were given",
            "InvalidProviderToken":
                "its JWT did not verify against the key the mock was given (--auth-key, --key-id, --team-id)",
            "ExpiredProviderToken": "its JWT was older than an hour",
            "MissingProviderToken": "it sent no JWT",
        ]
        return "the mock accepted none of the \(answered) pushes it answered: \(count) were \(reason)"
            + (meanings[reason].map { ", so \($0)" } ?? "")
    }

    /// The signals profile sent to the sender's processes.
    public var signalsSent: Set<Int32>

    /// Pushes the mock received a second, from the first arrival to the last.
    public var pushesPerSecond: Double {
        guard let first = arrivals.firstArrivalNs, let last = arrivals.lastArrivalNs, last > first else { return 0 }
        return Double(arrivals.pushes) / (Double(last - first) / 1e9)
    }

    /// The name of `signal`, such as `SIGSEGV`.
    public static func name(of signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGABRT: "SIGABRT",
            SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE",
            SIGTERM: "SIGTERM",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
