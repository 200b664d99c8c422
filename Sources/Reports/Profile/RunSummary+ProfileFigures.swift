import Basics
import Histogram
import LoadEngine
import Sampling
import Transport

extension RunSummary {
    /// The summary of a profile, in the schema `compare` and `plan` read a run's in: the mock's
    /// answers as the counts (sent = received; succeeded, rejected, withheld as timed out and
    /// never written as `answers_unsent`, each counted as the mock wrote or dropped it), the
    /// sender's lag as the schedule lag, its CPU as the engine's, its connections and streams as
    /// the transport, and the figures only a profile has. What a profile does not measure from
    /// outside (latency, retries, a warmup, the engine's stages, broadcasts) is written as a run
    /// that had none writes it.
    public init(profile: ProfileFigures, context: RunContext) {
        let arrivals = profile.arrivals
        let configuration = arrivals.configuration
        let duration = arrivals.durationSeconds
        let completed = arrivals.counts.completed
        let unmeasured = Histogram<UInt64>.latency(digits: .three)
        schemaVersion = Self.currentSchemaVersion
        kind = .profile
        runID = context.runID
        mode = (configuration.pacing.isOpenLoop ? RunResult.Mode.openLoop : .closedLoop).rawValue
        interrupted = arrivals.interrupted
        startedAtUnixS = arrivals.startedAtUnix
        durationS = duration
        counts = Counts(arrivals.counts)
        counts.answersUnsent = arrivals.counts.answersUnsent
        accountingBalanced = arrivals.counts.isBalanced
        rejectedByReason = arrivals.rejectedByReason
        erroredByKind = [:]
        erroredSamples = [:]
        nothingSucceeded = arrivals.counts.sent > 0 && arrivals.counts.succeeded == 0
        throughputPerS = duration > 0 ? Double(completed) / duration : 0
        successesPerS = duration > 0 ? Double(arrivals.counts.succeeded) / duration : 0
        latencyUs = Percentiles(unmeasured)
        latencyHistogramUs = SerializedHistogram(unmeasured)
        connections = arrivals.perConnection.sorted { $0.key < $1.key }.map(Connection.init)
        shard = ShardEntry(index: configuration.shard.index, count: configuration.shard.count, partial: nil)
        timeseries = []
        timeseriesResolutionS = 1
        outages = []
        apnsIDMismatches = 0
        engineCPUS = arrivals.cpuSeconds
        engineCPUUsPerRequest = completed > 0 ? arrivals.cpuSeconds * 1e6 / Double(completed) : 0
        scheduleLagUs = configuration.pacing.isOpenLoop ? Percentiles(arrivals.lag) : nil
        scheduleLagHistogramUs = SerializedHistogram(arrivals.lag)
        skippedGoneTokens = 0
        startsNotSent = 0
        retries = Retries(
            maxPerPush: configuration.retryPolicy.maxRetries,
            backoffBaseMs: configuration.retryPolicy.base.inSeconds * 1000,
            attempts: Counts(OutcomeCounts()),
            recovered: 0,
            exhausted: 0
        )
        warmup = Warmup(seconds: 0, rejectedByReason: [:], counts: Counts(OutcomeCounts()))
        connectionAttempts = arrivals.connectionAttempts
        gaveUpOnTarget = false
        tookEveryEvent = arrivals.tookEveryEvent
        deviceReachUs = Percentiles(unmeasured)
        deviceReachHistogramUs = SerializedHistogram(unmeasured)
        cpuSamples = (try? context.cpuSampling?.get()).map(CPUSamples.init)
        stageNsPerPush = Dictionary(uniqueKeysWithValues: StageTimes.Stage.allCases.map { ($0.name, 0) })
        stageNsTotal = Dictionary(uniqueKeysWithValues: StageTimes.Stage.allCases.map { ($0.name, 0) })
        // The sender's CPU as a share of the time watched: busy at 90% of a core or more, it set the pace.
        let busy = duration > 0 ? arrivals.cpuSeconds / (duration * Double(configuration.threads)) : 0
        generator = Generator(workerBusyShare: busy, limitedBy: busy >= 0.9 ? "sender" : "target")
        parameters = Parameters(configuration, context: context)
        machine = MachineDescription.current
        build = context.build
        add(profile)
    }

    /// What only a profile measured: its sender, lag, events and a service's API and fan-out.
    private mutating func add(_ profile: ProfileFigures) {
        sender = profile.sender
        lag = profile.lag
        events = profile.events
        registrations = profile.service?.registrations
        api = profile.service?.api
        fanout = profile.service?.fanout
        lifecycle = profile.service?.lifecycle
        sealedNetwork = profile.sealedNetwork
    }
}
