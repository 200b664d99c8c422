import ArrivalMatching
import Basics
import Foundation
import Glibc
import MockAPNs
import Sampling
import Transport

/// The figures of a profile so far, for the console's progress line.
public struct ProfileProgress: Sendable {
    /// Seconds since the sender started.
    public var elapsedSeconds: Double
    /// Events handed to the sender, pushes the mock received and accepted.
    public var events: Int
    public var pushes: Int
    public var accepted: Int
    /// The sender's CPU over the last second, percent of one core, and its processes' memory.
    public var cpuPercent: Double
    public var rssBytes: Int
    /// Whether the sender is being ended.
    public var ending: Bool
}

/// Watches a running sender tick by tick: samples its processes, keeps the series, and ends it
/// when it should stop, SIGTERM first and SIGKILL after the grace. Without a sender (a service
/// that already ran before the profile), it keeps the arrivals' series and stops when due.
struct ProfileWatch {
    /// Where the watch is; a stop's cause and times live in the phases that have them.
    private enum Phase {
        case watching
        /// SIGTERM sent at `since` (seconds of the watch) for `cause`.
        case terminating(cause: SenderProfile.Stop, since: Double)
        /// SIGKILL sent at `since`; the stop began at `began`.
        case killing(cause: SenderProfile.Stop, began: Double, since: Double)
        /// Watching ended at `at`: the sender's processes gone, or given up on (`survivors`).
        case finished(cause: SenderProfile.Stop, began: Double?, at: Double, survivors: Int)
    }

    /// How long a tick sleeps.
    static let tickMicroseconds: useconds_t = 200_000
    /// How long after SIGKILL watching gives up on what remains.
    private static let killWaitSeconds = 5.0

    let sender: SenderProcess?
    let book: ArrivalBook
    /// perf sampling the sender, stopped once the sender's processes are all gone.
    let sampler: PerfRecording?
    /// The profile's `--duration` and `--grace`, in the seconds of this watch's clock.
    private let durationSeconds: Double?
    private let graceSeconds: Double
    /// The profile's clock, its nanoseconds when the sender started, and that in UNIX seconds.
    private let clock: ProfileClock
    private let startNs: Int64
    let startedAt: Double
    /// The mock's own CPU so far, seconds: its event loops' threads, less what playing the devices
    /// took on them (counted as the emulation's, once).
    private let mockCPU: @Sendable () -> Double
    private let mockCPUStart: Double
    private var mockCPUAtFinish: Double?
    private var phase = Phase.watching
    /// When a look first found the sender's processes all gone while perf still ran.
    private var senderGoneAt: Double?
    private var peakRSS = 0
    private var largestPeakRSS = 0
    private var samples: [SenderProfile.Sample] = []
    private var lastSample = (at: 0.0, cpu: 0.0, mockCPU: 0.0)
    private var lastRSS = 0
    private var nextProgressAt = 1.0

    init(
        sender: SenderProcess?,
        book: ArrivalBook,
        sampler: PerfRecording?,
        clock: ProfileClock,
        duration: Duration?,
        grace: Duration,
        mockCPU: @escaping @Sendable () -> Double
    ) {
        self.sender = sender
        self.book = book
        self.sampler = sampler
        self.clock = clock
        startNs = clock.nowNs
        startedAt = clock.unix(ofNs: startNs)
        book.beginIntervals(atNs: startNs)
        durationSeconds = duration?.inSeconds
        graceSeconds = grace.inSeconds
        self.mockCPU = mockCPU
        mockCPUStart = mockCPU()
        lastSample.mockCPU = mockCPUStart
    }

    /// Whether the sender and every descendant are gone, or watching gave up on them.
    var finished: Bool {
        if case .finished = phase { true } else { false }
    }

    /// One look: samples the processes, and moves towards the stop when one is due: Ctrl-C
    /// (`stopRequested`), `--duration`, the sender's exit, or a service's work done (`workDone`:
    /// drained, or settled with pushes missing).
    mutating func tick(stopRequested: Bool, workDone: SenderProfile.Stop? = nil) {
        let now = elapsed
        let tree = processes
        lastRSS = tree.rssBytes
        peakRSS = max(peakRSS, tree.rssBytes)
        largestPeakRSS = max(largestPeakRSS, tree.largestPeakRSSBytes)
        if Int(now) > Int(lastSample.at) { addSample(now: now, tree: tree) }
        if sender?.allReaped == true {
            finish(now: now, tree: tree)
            return
        }
        if let sampler, sender?.ending != nil, tree.members.isEmpty {
            // Only perf is left, writing its samples. The sender's processes were all gone at the
            // last look too, so the reaper has counted every one: the profile ends when they went.
            sampler.requestStop()
            if let senderGoneAt {
                finish(now: senderGoneAt, tree: tree)
                return
            }
            senderGoneAt = now
        }
        switch phase {
        case .watching:
            if stopRequested {
                terminate(.interrupted, now: now, tree: tree)
            } else if let durationSeconds, now >= durationSeconds {
                terminate(.duration, now: now, tree: tree)
            } else if sender?.ending != nil {
                terminate(.exited, now: now, tree: tree)
            } else if let workDone {
                terminate(workDone, now: now, tree: tree)
            }
        case .terminating(let cause, let since) where now - since >= grace(for: cause):
            _ = sender?.send(SIGKILL, to: tree)
            phase = .killing(cause: cause, began: since, since: now)
        case .killing(_, _, let since) where now - since >= Self.killWaitSeconds:
            finish(now: now, tree: tree, survivors: tree.members.count)
        default: break
        }
    }

    /// How long the sender has between SIGTERM and SIGKILL: `--grace`, but at most
    /// `signalGraceSeconds` after Ctrl-C or SIGTERM, so PushBench ends within 2 s of the signal
    /// (a sender still starting when it came may not have heard its SIGTERM).
    private func grace(for cause: SenderProfile.Stop) -> Double {
        cause == .interrupted ? min(graceSeconds, Self.signalGraceSeconds) : graceSeconds
    }

    /// The sender's grace after a signal to PushBench.
    static let signalGraceSeconds = 0.8

    /// The progress figures, once a second.
    mutating func progressDue() -> ProfileProgress? {
        let now = elapsed
        guard now >= nextProgressAt else { return nil }
        nextProgressAt = now.rounded(.down) + 1
        let counts = book.counts
        let ending: Bool
        if case .watching = phase { ending = false } else { ending = true }
        return ProfileProgress(
            elapsedSeconds: now,
            events: counts.events,
            pushes: counts.pushes,
            accepted: counts.accepted,
            cpuPercent: samples.last?.cpuPercent ?? 0,
            rssBytes: lastRSS,
            ending: ending
        )
    }

    /// What was measured, once finished.
    func profile(
        subject: ProfileSubject,
        startAt: Double,
        mock: MockStats.Snapshot,
        stderrTail: [String]
    ) -> SenderProfile {
        guard case .finished(let cause, let began, let endedAt, let survivors) = phase else {
            preconditionFailure("a profile is read once watching has finished")
        }
        return SenderProfile(
            subject: subject,
            ending: sender?.ending,
            stop: cause,
            stopSeconds: began.map { endedAt - $0 } ?? 0,
            survivors: survivors,
            accounting: accounting,
            peakRSSBytes: peakRSS,
            largestPeakRSSBytes: largestPeakRSS,
            // The mock's threads' CPU is summed over those alive at each reading: one that ended
            // between the two can make the difference dip below 0, which no CPU time is.
            mockCPUSeconds: max(0, (mockCPUAtFinish ?? mockCPUStart) - mockCPUStart),
            startedAtUnix: startedAt,
            startAtUnix: startAt,
            wallSeconds: endedAt,
            arrivals: book.figures,
            book: book,
            mock: mock,
            samples: samples,
            stderrTail: stderrTail,
            signalsSent: Set([SIGTERM, SIGKILL].filter { sender?.sent($0) == true })
        )
    }

    /// CPU seconds of the sender and every descendant until now, read from the kernel.
    func cpuSecondsNow() -> Double {
        processes.cpuSeconds + accounting.userSeconds + accounting.systemSeconds
    }

    /// The sender's processes now; none without a sender.
    private var processes: ProcessTree {
        sender.map { ProcessTree.sample(apart: $0.apart) } ?? ProcessTree(members: [])
    }

    private var accounting: SenderProcess.Accounting { sender?.accounting ?? SenderProcess.Accounting() }

    private var elapsed: Double { Double(clock.nowNs - startNs) / 1e9 }

    /// Begins the stop for `cause`: SIGTERM to the sender's processes, or, with no sender to
    /// end, the end of watching at once.
    private mutating func terminate(_ cause: SenderProfile.Stop, now: Double, tree: ProcessTree) {
        phase = .terminating(cause: cause, since: now)
        guard let sender else { return finish(now: now, tree: tree) }
        _ = sender.send(SIGTERM, to: tree)
    }

    /// Ends watching at `now`, with the stop the phase holds (an exit by itself when none began).
    private mutating func finish(now: Double, tree: ProcessTree, survivors: Int = 0) {
        if now > lastSample.at { addSample(now: now, tree: tree) }
        let stop: (cause: SenderProfile.Stop, began: Double?) =
            switch phase {
            case .terminating(let cause, let since): (cause, since)
            case .killing(let cause, let began, _): (cause, began)
            case .watching, .finished: (.exited, nil)
            }
        phase = .finished(cause: stop.cause, began: stop.began, at: now, survivors: survivors)
        // Read while the mock still runs: its threads' CPU is gone from /proc once it stops.
        mockCPUAtFinish = mockCPU()
    }

    /// Closes the interval since the last sample: CPU is what the live processes hold plus what
    /// the kernel accounted for the reaped ones, so a process that exits between two looks still
    /// counts.
    private mutating func addSample(now: Double, tree: ProcessTree) {
        let accounting = self.accounting
        let cpu = tree.cpuSeconds + accounting.userSeconds + accounting.systemSeconds
        let mockCPU = max(lastSample.mockCPU, mockCPU())
        let seconds = now - lastSample.at
        samples.append(
            SenderProfile.Sample(
                startSeconds: lastSample.at,
                intervalSeconds: seconds,
                cpuPercent: max(0, cpu - lastSample.cpu) / seconds * 100,
                rssBytes: tree.rssBytes,
                mockCPUPercent: (mockCPU - lastSample.mockCPU) / seconds * 100
            )
        )
        lastSample = (now, max(cpu, lastSample.cpu), mockCPU)
    }

}
