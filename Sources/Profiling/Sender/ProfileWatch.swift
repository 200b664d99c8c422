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
    private enum Phase {
        case watching
        case terminating(since: Double)
        case killing(since: Double)
        case finished
    }

    /// How long a tick sleeps.
    static let tickMicroseconds: useconds_t = 200_000
    /// How long after SIGKILL watching gives up on what remains.
    private static let killWaitSeconds = 5.0

    let sender: SenderProcess?
    let book: LagBook
    /// perf sampling the sender, stopped once the sender's processes are all gone.
    let sampler: PerfRecording?
    /// The profile's `--duration` and `--grace`, in the seconds of this watch's clock.
    private let durationSeconds: Double?
    private let graceSeconds: Double
    /// UNIX seconds when the sender started.
    let startedAt = Date().timeIntervalSince1970
    private let clockStart = DispatchTime.now().uptimeNanoseconds
    private let mockCPUStart = Self.processCPUSeconds()
    private var phase = Phase.watching
    private var stop = SenderProfile.Stop.exited
    private var stopBeganAt: Double?
    private var stopEndedAt: Double?
    /// When a look first found the sender's processes all gone while perf still ran.
    private var senderGoneAt: Double?
    private var survivors = 0
    private var peakRSS = 0
    private var largestPeakRSS = 0
    private var samples: [SenderProfile.Sample] = []
    private var lastSample = (at: 0.0, cpu: 0.0, mockCPU: 0.0)
    private var lastRSS = 0
    private var nextProgressAt = 1.0

    init(sender: SenderProcess?, book: LagBook, sampler: PerfRecording?, duration: Duration?, grace: Duration) {
        self.sender = sender
        self.book = book
        self.sampler = sampler
        book.beginIntervals(atNs: Int64(startedAt * 1e9))
        durationSeconds = duration?.inSeconds
        graceSeconds = grace.inSeconds
        lastSample.mockCPU = mockCPUStart
    }

    /// Whether the sender and every descendant are gone, or watching gave up on them.
    var finished: Bool {
        if case .finished = phase { true } else { false }
    }

    /// One look: samples the processes, and moves towards the stop when one is due: Ctrl-C
    /// (`stopRequested`), `--duration`, the sender's exit, or a service's work done (`workDone`).
    mutating func tick(stopRequested: Bool, workDone: Bool = false) {
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
            } else if workDone {
                terminate(.drained, now: now, tree: tree)
            }
        case .terminating(let since) where now - since >= graceSeconds:
            _ = sender?.send(SIGKILL, to: tree)
            phase = .killing(since: now)
        case .killing(let since) where now - since >= Self.killWaitSeconds:
            survivors = tree.members.count
            finish(now: now, tree: tree)
        default: break
        }
    }

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
    func profile(command: [String], startAt: Double, mock: MockStats.Snapshot, stderrTail: [String]) -> SenderProfile {
        SenderProfile(
            command: command,
            ending: sender?.ending,
            stop: stop,
            stopSeconds: stopBeganAt.map { (stopEndedAt ?? elapsed) - $0 } ?? 0,
            survivors: survivors,
            accounting: accounting,
            peakRSSBytes: peakRSS,
            largestPeakRSSBytes: largestPeakRSS,
            mockCPUSeconds: Self.processCPUSeconds() - mockCPUStart,
            startedAtUnix: startedAt,
            startAtUnix: startAt,
            wallSeconds: stopEndedAt ?? elapsed,
            lag: book.figures,
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

    private var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - clockStart) / 1e9 }

    private mutating func terminate(_ cause: SenderProfile.Stop, now: Double, tree: ProcessTree) {
        stop = cause
        stopBeganAt = now
        guard let sender else { return finish(now: now, tree: tree) }
        _ = sender.send(SIGTERM, to: tree)
        phase = .terminating(since: now)
    }

    private mutating func finish(now: Double, tree: ProcessTree) {
        if now > lastSample.at { addSample(now: now, tree: tree) }
        stopEndedAt = now
        phase = .finished
    }

    /// Closes the interval since the last sample: CPU is what the live processes hold plus what
    /// the kernel accounted for the reaped ones, so a process that exits between two looks still
    /// counts.
    private mutating func addSample(now: Double, tree: ProcessTree) {
        let accounting = self.accounting
        let cpu = tree.cpuSeconds + accounting.userSeconds + accounting.systemSeconds
        let mockCPU = Self.processCPUSeconds()
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

    private static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
