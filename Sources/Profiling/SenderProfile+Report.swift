import ArrivalMatching
import Histogram
import LoadEngine
import MockAPNs
import Reports
import Transport
import Workload

extension SenderProfile {
    /// The profile as its report files take it: what the mock received and answered, what the
    /// sender was handed, and the figures only a profile has.
    ///
    /// `bundleID` is the app's in force (`--bundle-id`), which the summary's parameters name.
    ///
    /// Its transport is the sender's `concurrency` as the mock saw it (the connections that
    /// carried pushes, and the streams in flight on one), so that `plan` sizes a fleet from what
    /// the sender does, not from the server's limit.
    public func report(
        scenario: Scenario,
        requests: Int?,
        timing: EventTiming,
        bundleID: String,
        concurrency: (connections: Int, streams: Int)? = nil
    ) -> ProfileFigures {
        var transport = TransportConfiguration(origin: "https://127.0.0.1")
        if let concurrency {
            transport.connections = max(1, concurrency.connections)
            transport.streamsPerConnection = max(1, concurrency.streams)
        }
        return figures(
            ProfileFigures.Arrivals(
                startedAtUnix: startedAtUnix,
                durationSeconds: wallSeconds,
                counts: books,
                rejectedByReason: mock.rejectedByReason,
                perConnection: mock.pushesByConnection,
                connectionAttempts: mock.connectionsAccepted,
                lag: arrivals.lag,
                cpuSeconds: cpuSeconds,
                interrupted: stop == .interrupted,
                tookEveryEvent: arrivals.missing == 0,
                configuration: LoadConfiguration(
                    transport: transport,
                    scenario: scenario,
                    requests: requests,
                    pacing: timing.pacing,
                    bundleID: bundleID
                )
            )
        )
    }

    /// The profile's books: every push received, against how the mock's answers ended.
    var books: OutcomeCounts { OutcomeCounts(received: arrivals.pushes, answered: mock) }

    private func figures(_ measured: ProfileFigures.Arrivals) -> ProfileFigures {
        var figures = ProfileFigures(
            arrivals: measured,
            sender: RunSummary.Sender(
                command: subject.description,
                exitStatus: ending.map { Int($0.shellStatus) },
                stop: stop.rawValue,
                stopS: stopSeconds,
                failure: failure,
                pushes: arrivals.pushes,
                accepted: books.succeeded,
                cpuUserS: accounting.userSeconds,
                cpuSystemS: accounting.systemSeconds,
                peakRSSBytes: peakRSSBytes,
                largestProcessPeakRSSBytes: largestPeakRSSBytes,
                processes: accounting.reaped,
                pushesPerS: pushesPerSecond,
                mockCPUS: mockCPUSeconds,
                mockPeakCPUPercent: samples.filter { $0.startSeconds >= clockStartSeconds }.map(\.mockCPUPercent).max()
                    ?? 0
            ),
            lag: RunSummary.Lag(arrivals.lag, early: arrivals.early),
            events: events,
            rows: rows,
            stderrTail: stderrTail
        )
        if mock.acceptedUnsent > 0 { figures.sender.acceptedUnsent = mock.acceptedUnsent }
        figures.service = service?.figures(arrivals: arrivals, measured: subject.command != nil)
        figures.processesMeasured = subject.command != nil
        figures.sealedNetwork = sealedNetwork
        return figures
    }

    /// The events against the pushes: in all, by kind, and a service's superseded and
    /// before-the-clock pushes.
    private var events: RunSummary.Events {
        var events = RunSummary.Events(
            total: arrivals.events,
            received: arrivals.matched,
            missing: arrivals.missing,
            extra: arrivals.extra,
            duplicates: arrivals.duplicates
        )
        if service != nil {
            events.superseded = arrivals.superseded
            events.supersededStalenessMs = arrivals.staleness.millisecondPercentiles
        }
        if arrivals.beforeClock.total > 0 {
            events.beforeClock = arrivals.beforeClock.total
            events.beforeClockByKind = arrivals.beforeClock.byName
        }
        if service != nil || arrivals.ends.owed > 0 {
            let superseded = arrivals.superseded
            events.byKind = [
                "start": service?.lifecycle.map { Self.kindEvents($0.startsAgainstOwed, superseded: 0) },
                "update": Self.kindEvents(arrivals.updates, superseded: superseded),
                "end": Self.kindEvents(arrivals.ends, superseded: 0),
            ].compactMapValues { $0 }.filter { $0.value.owed > 0 || $0.value.arrived > 0 }
        }
        return events
    }

    private static func kindEvents(_ kind: KindFigures, superseded: Int) -> RunSummary.Events.KindEvents {
        var events = RunSummary.Events.KindEvents(
            owed: kind.owed,
            arrived: kind.matched,
            missing: kind.missing(superseded: superseded),
            early: kind.early,
            earlyLeadMs: kind.lead.millisecondPercentiles,
            lagMs: kind.lag.millisecondPercentiles
        )
        events.cadenceMs = kind.cadence.millisecondPercentiles
        return events
    }

    /// Seconds from the sender's start to the clock's: a service's registrations, which this
    /// process drives, are not the mock's work, so its busiest second is looked for after them.
    private var clockStartSeconds: Double {
        service?.startAtUnix.map { $0 - startedAtUnix } ?? 0
    }

    /// One row a second: the CPU and memory sample taken in it, and the pushes that arrived in it.
    private var rows: [ProfileFigures.Row] {
        samples.map { sample in
            let second = Int(sample.startSeconds)
            let interval = second < arrivals.intervals.count ? arrivals.intervals[second] : ArrivalBook.Interval()
            let length = max(sample.intervalSeconds, 0.001)
            return ProfileFigures.Row(
                startS: sample.startSeconds,
                intervalS: sample.intervalSeconds,
                pushesPerS: Double(interval.pushes) / length,
                acceptedPerS: Double(interval.accepted) / length,
                cpuPercent: sample.cpuPercent,
                rssBytes: sample.rssBytes,
                mockCPUPercent: sample.mockCPUPercent,
                lagP50Ms: Double(interval.lag.valueAtPercentile(50)) / 1000,
                lagP99Ms: Double(interval.lag.valueAtPercentile(99)) / 1000
            )
        }
    }
}

extension EventTiming {
    /// The pacing a run with the same schedule has.
    var pacing: Pacing {
        switch self {
        case .allAtOnce: .closedLoop
        case .scenarioTime(let scale): .scenarioTime(scale: scale)
        case .constantRate(let perSecond): (try? .constantRate(perSecond: perSecond)) ?? .closedLoop
        }
    }
}

extension OutcomeCounts {
    /// A profile's books, each count taken where it happens: `received` is every push the mock
    /// recorded, and the rest are the mock's own counters at the moment each answer was written:
    /// accepted, refused (the sum of its reasons), withheld on purpose by the fault plan (which
    /// the sender saw time out), and decided but never written because the stream or connection
    /// closed first. They balance only when every push received ended in exactly one of them.
    public init(received: Int, answered mock: MockStats.Snapshot) {
        self.init()
        sent = received
        succeeded = mock.accepted
        rejected = mock.rejectedByReason.values.reduce(0, +)
        timedOut = mock.answersWithheld
        answersUnsent = mock.pushAnswersUnsent
    }
}
