import Basics
import Histogram
import Transport
import Workload

extension RunResult {
    /// Why shards' results cannot be added up.
    public struct MergeError: Error, CustomStringConvertible {
        /// What is wrong, in words.
        public let description: String
    }

    /// What a set of shards lacks of its run: shards never given (a pod lost before it wrote its
    /// report) and shards given but stopped early (interrupted: Ctrl-C or SIGTERM, so they wrote
    /// what they had measured). Either way the rest is not the whole run.
    public struct ShardGaps: Sendable, Equatable, CustomStringConvertible {
        /// How many shards the run was split into.
        public let count: Int
        /// The shards not given, by index.
        public let missing: [Int]
        /// The shards given that were stopped before their share was sent, by index.
        public let interrupted: [Int]

        /// Gaps as a summary records them.
        public init(count: Int, missing: [Int], interrupted: [Int]) {
            self.count = count
            self.missing = missing
            self.interrupted = interrupted
        }

        /// Whether the shards are the whole run.
        public var isEmpty: Bool { missing.isEmpty && interrupted.isEmpty }

        /// `shard 3/8 missing; shard 5/8 interrupted`, naming every gap.
        public var description: String {
            let named = { (indices: [Int]) in indices.map { "\($0)/\(count)" }.joined(separator: ", ") }
            return [
                missing.isEmpty ? nil : "shard(s) \(named(missing)) missing",
                interrupted.isEmpty ? nil : "shard(s) \(named(interrupted)) interrupted before their share was sent",
            ].compactMap { $0 }.joined(separator: "; ")
        }
    }

    /// The gaps of `shards`, shards of one run (`checkShardsOfOneRun`).
    public static func gaps(in shards: [RunResult]) -> ShardGaps {
        let count = shards.first?.configuration.shard.count ?? 1
        let indices = Set(shards.map(\.configuration.shard.index))
        return ShardGaps(
            count: count,
            missing: (0..<count).filter { !indices.contains($0) },
            interrupted: shards.filter(\.interrupted).map(\.configuration.shard.index).sorted()
        )
    }

    /// How far apart the shards' schedules started, seconds, and the index of the shard that
    /// started last: what `merge` reports, since it lines the shards' seconds up by wall clock
    /// and a shard that started late would show as a lower rate.
    public static func startSkew(of shards: [RunResult]) -> (seconds: Double, latest: Int) {
        guard let earliest = shards.map(\.startedAtUnix).min(),
            let latest = shards.max(by: { $0.startedAtUnix < $1.startedAtUnix })
        else { return (0, 0) }
        return (latest.startedAtUnix - earliest, latest.configuration.shard.index)
    }

    /// Refuses shards that were meant to start together (`--start-at`) but did not: different
    /// instants, or starts more than `maxSeconds` apart (unsynchronised clocks, a pod that came
    /// up after the instant). Shards without a start instant are not judged: they started when
    /// their processes did, and `merge` says so.
    /// - Throws: `MergeError` saying what differs.
    public static func checkSynchronizedStart(_ shards: [RunResult], maxSeconds: Double) throws(MergeError) {
        let instants = Set(shards.map(\.configuration.startAtUnix))
        guard instants != [nil] else { return }
        guard instants.count == 1 else {
            throw MergeError(
                description: "the shards were given different --start-at instants (or some none): not one start"
            )
        }
        let skew = startSkew(of: shards)
        guard skew.seconds <= maxSeconds else {
            throw MergeError(
                description:
                    "the shards started \(String(format: "%.3f", skew.seconds)) s apart (shard \(skew.latest) last), "
                    + "more than --max-start-skew \(maxSeconds.formatted()) s: are their clocks synchronised?"
            )
        }
    }

    /// The run that `shards` (`--shard i/N` results, one per shard, any order) were parts of.
    ///
    /// Counts, reasons, retries and CPU add up; histograms add exactly (the same buckets as one
    /// process would have filled). Time is wall-clock: the run starts with the earliest shard's
    /// measured start and ends with the last shard's end, and each shard's intervals join the
    /// merged interval their start fell in. Threads and connections
    /// are the shards' together.
    ///
    /// A shard missing or interrupted is refused, since the rest would understate the run; with
    /// `partial` the rest is merged all the same and `shardGaps` names what it lacks.
    ///
    /// - Throws: `MergeError` when the results are not the shards of one run: different
    ///   scenarios, seeds, pacing or shard counts, a shard twice, or (without `partial`) a shard
    ///   missing or interrupted.
    public static func merged(_ shards: [RunResult], partial: Bool = false) throws -> RunResult {
        guard let first = shards.first else { throw MergeError(description: "no results to merge") }
        let gaps = try checkShardsOfOneRun(shards, partial: partial)
        let sorted = shards.sorted { $0.configuration.shard.index < $1.configuration.shard.index }
        let measuredStart = { (result: RunResult) in result.startedAtUnix + result.configuration.warmup.inSeconds }
        let start = sorted.map(measuredStart).min()!
        let end = sorted.map { measuredStart($0) + $0.durationSeconds }.max()!

        var counts = OutcomeCounts()
        var warmupCounts = OutcomeCounts()
        var latency = Histogram.latency(digits: first.latency.numberOfSignificantValueDigits)
        var scheduleLag = Histogram.latency(digits: first.scheduleLag.numberOfSignificantValueDigits)
        var retries = RetryCounts()
        var recoveries: TransportRecoveries? = TransportRecoveries()
        var stageTimes = StageTimes()
        for shard in sorted {
            counts.add(shard.counts)
            warmupCounts.add(shard.warmupCounts)
            latency.add(shard.latency)
            scheduleLag.add(shard.scheduleLag)
            retries.add(shard.retries)
            if let shardRecoveries = shard.recoveries { recoveries?.add(shardRecoveries) } else { recoveries = nil }
            stageTimes.add(shard.stageTimes)
        }
        func sum(_ figure: (RunResult) -> Int) -> Int { sorted.reduce(0) { $0 + figure($1) } }
        func added<Key: Hashable>(_ figure: (RunResult) -> [Key: Int]) -> [Key: Int] {
            sorted.reduce(into: [:]) { $0.merge(figure($1), uniquingKeysWith: +) }
        }
        let series = mergedTimeline(sorted, start: start, measuredStart: measuredStart)
        var merged = RunResult(
            configuration: mergedConfiguration(sorted),
            mode: first.mode,
            startedAtUnix: start - first.configuration.warmup.inSeconds,
            durationSeconds: end - start,
            counts: counts,
            warmupCounts: warmupCounts,
            warmupRejectedByReason: added(\.warmupRejectedByReason),
            latency: latency,
            rejectedByReason: added(\.rejectedByReason),
            erroredByKind: added(\.erroredByKind),
            perConnection: added(\.perConnection),
            apnsIDMismatches: sum(\.apnsIDMismatches),
            timeline: series.samples,
            scheduleLag: scheduleLag,
            skippedForGoneTokens: sum(\.skippedForGoneTokens),
            startsNotSent: sum(\.startsNotSent),
            retries: retries,
            recoveries: recoveries,
            stageTimes: stageTimes,
            engineCPUSeconds: sorted.reduce(0) { $0 + $1.engineCPUSeconds },
            interrupted: sorted.contains { $0.interrupted }
        )
        merged.addTallies(of: sorted)
        merged.timelineResolutionSeconds = series.resolutionSeconds
        merged.shardGaps = gaps.isEmpty ? nil : gaps
        return merged
    }

    /// The first shard's configuration as the whole run's: its threads and connections are the
    /// shards' together.
    private static func mergedConfiguration(_ shards: [RunResult]) -> LoadConfiguration {
        var configuration = shards[0].configuration
        configuration.shard = .whole
        configuration.threads = shards.reduce(0) { $0 + $1.configuration.threads }
        configuration.transport.connections = shards.reduce(0) { $0 + $1.configuration.transport.connections }
        return configuration
    }

    /// Adds the shards' tallies that `init` does not take: failure samples, connection
    /// attempts, whether any gave up or missed an event, and the broadcast and channel books.
    private mutating func addTallies(of shards: [RunResult]) {
        erroredSamples = shards.reduce(into: [:]) { $0.merge($1.erroredSamples) { first, _ in first } }
        connectionAttempts = shards.reduce(0) { $0 + $1.connectionAttempts }
        gaveUpOnTarget = shards.contains { $0.gaveUpOnTarget }
        tookEveryEvent = shards.allSatisfy(\.tookEveryEvent)
        broadcasts = shards.reduce(into: BroadcastBooks()) { $0.add($1.broadcasts) }
        channels = shards.reduce(into: ChannelBooks()) { $0.add($1.channels) }
    }

    /// Checks that `shards` are of one run, each once, and returns what they lack of it.
    /// - Throws: `MergeError` naming what differs, a shard given twice, or (without `partial`)
    ///   a shard missing or interrupted.
    private static func checkShardsOfOneRun(_ shards: [RunResult], partial: Bool) throws -> ShardGaps {
        let first = shards[0].configuration
        let count = first.shard.count
        for result in shards {
            let other = result.configuration
            let differences = [
                ("scenario", other.scenario.name != first.scenario.name),
                ("activities", other.scenario.activities != first.scenario.activities),
                ("seed", other.scenario.seed != first.scenario.seed),
                ("pacing", other.pacing != first.pacing),
                ("shard count", other.shard.count != count),
            ].filter(\.1).map(\.0)
            if !differences.isEmpty {
                throw MergeError(
                    description: "shard \(other.shard) differs from shard \(first.shard) in "
                        + differences.joined(separator: ", ") + ": these are not the shards of one run"
                )
            }
        }
        if count == 1 && shards.count > 1 {
            throw MergeError(
                description: "these are \(shards.count) whole runs, not the shards of one: merge adds up the "
                    + "summaries of `pushbench run --shard i/N` (compare sets two whole runs side by side)"
            )
        }
        let indices = shards.map(\.configuration.shard.index)
        if let twice = Set(indices).first(where: { index in indices.filter { $0 == index }.count > 1 }) {
            throw MergeError(description: "shard \(twice)/\(count) is given twice")
        }
        let gaps = gaps(in: shards)
        if !gaps.isEmpty && !partial {
            throw MergeError(
                description: "\(gaps): a merge of part of a run would understate it "
                    + "(--partial merges what there is and marks it partial)"
            )
        }
        return gaps
    }

    /// The merged series is at the coarsest of the shards' resolutions (each divides the
    /// next, so the shards' intervals nest in it). Each merged interval adds the shards'
    /// intervals that fell in it, placed by their start on the wall clock, and its percentiles
    /// come from their histograms added up.
    private static func mergedTimeline(
        _ shards: [RunResult],
        start: Double,
        measuredStart: (RunResult) -> Double
    ) -> (samples: [TimelineSample], resolutionSeconds: Double) {
        let resolution = shards.map(\.timelineResolutionSeconds).max() ?? 1
        var intervals: [Int: (sample: TimelineSample, latency: Histogram<UInt64>)] = [:]
        var endSeconds = 0.0
        for shard in shards {
            let offset = measuredStart(shard) - start
            for sample in shard.timeline {
                let index = Int(((offset + sample.startSeconds) / resolution + 1e-9).rounded(.down))
                endSeconds = max(endSeconds, offset + sample.endSeconds)
                let latency = Histogram.latency(digits: .two, buckets: sample.latencyBuckets)
                if var entry = intervals[index] {
                    entry.sample.counts.add(sample.counts)
                    entry.latency.add(latency)
                    intervals[index] = entry
                } else {
                    var first = TimelineSample(startSeconds: Double(index) * resolution, intervalSeconds: resolution)
                    first.counts = sample.counts
                    intervals[index] = (first, latency)
                }
            }
        }
        let samples = intervals.keys.sorted().map { index in
            var (sample, latency) = intervals[index]!
            sample.intervalSeconds = min(resolution, max(0, endSeconds - sample.startSeconds))
            if latency.totalCount > 0 {
                sample.p50Us = latency.valueAtPercentile(50)
                sample.p99Us = latency.valueAtPercentile(99)
                sample.maxUs = latency.max
                sample.latencyBuckets = latency.buckets
            }
            return sample
        }
        return (samples, resolution)
    }
}
