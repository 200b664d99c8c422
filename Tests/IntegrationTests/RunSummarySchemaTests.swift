import Basics
import Budget
import BudgetReports
import Foundation
import LoadEngine
import Sampling
import Transport
import Workload
import XCTest

@testable import Reports

/// `summary.json` is the one schema every downstream command reads (`merge`, `compare`, `plan`,
/// the baselines), so no stored property of `RunSummary` may go unwritten: a property left out
/// of its `CodingKeys` compiles, encodes nothing and decodes as nil, and every reader then falls
/// back to a default without a word.
final class RunSummarySchemaTests: XCTestCase {
    /// A summary with every optional set, at every depth: each stored property must appear in the
    /// encoded JSON, and the JSON must decode to a summary that encodes to the same bytes.
    func testEveryStoredPropertyIsWrittenAndReadBack() throws {
        let summary = try Self.fullSummary()
        XCTAssertEqual(
            Self.unsetOptionals(in: summary, path: "summary"),
            [],
            "fill these in fullSummary(), so the schema test covers them"
        )
        let encoded = try summary.encoded()
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        XCTAssertEqual(Self.unwritten(summary, json: json, path: "summary"), [])
        let decoded = try RunSummary.decode(encoded)
        XCTAssertEqual(
            String(decoding: try decoded.encoded(), as: UTF8.self),
            String(decoding: encoded, as: UTF8.self),
            "what is read back is what was written"
        )
    }

    /// The reconnect backoff a run used comes back from its summary, so `merge` and `compare`
    /// judge the run that was made, not the defaults (they read 100 ms and 5 s while the keys
    /// were never written).
    func testASummaryRestoresTheReconnectBackoffTheRunUsed() throws {
        let mock = try MockFixture()
        var configuration = try mock.load(requests: 20)
        configuration.reconnectBackoff = ReconnectBackoff(base: .milliseconds(250), cap: .seconds(2))
        let result = try LoadTest.run(configuration, tokens: mock.tokens())
        let summary = RunSummary(result, context: RunContext(runID: "r", commandLine: "", targetDescription: "mock"))
        let restored = try RunSummary.decode(try summary.encoded()).runResult()
        XCTAssertEqual(restored.configuration.reconnectBackoff, configuration.reconnectBackoff)
    }

    /// A summary says what wrote it; one written before it did reads as a profile when it has a
    /// sender's section, and as a run when it has none.
    func testASummarySaysItsKindAndAnOlderOneIsReadByItsSections() throws {
        var summary = try Self.fullSummary()
        XCTAssertEqual(summary.kind, .run, "made from a run's result")
        summary.kind = nil
        XCTAssertEqual(try RunSummary.decode(try summary.encoded()).resolvedKind, .profile, "it has a sender")
        summary.sender = nil
        XCTAssertEqual(try RunSummary.decode(try summary.encoded()).resolvedKind, .run)
    }

    /// `budget_summary.json` is held to the same rule: a real analysis (a small match, with its
    /// recommendations) with every optional set is written whole, read back through
    /// `BudgetSummary` as `compare` reads it, and re-encodes to the same bytes.
    func testEveryStoredPropertyOfTheBudgetSummaryIsWrittenAndReadBack() throws {
        let scenario = Scenario(name: "match", cohorts: [Scenario.Cohort(kind: .football, activities: 20, groups: 2)])
        let parameters = try BudgetParameters.preset(named: "conservative").parameters
        var result = try BudgetSimulation(scenario: scenario, parameters: parameters).run()
        result.runFeed = BudgetResult.RunFeed(
            clock: .scenario,
            spanMs: 0...1000,
            partial: true,
            wholeScenario: BudgetResult.RunFeed.WholeScenario(pushes: 10, lastEventMs: 1000)
        )
        let recommendations = try BudgetRecommendations.compute(
            PriorityPolicySearch(scenario: scenario, parameters: parameters, sampleActivities: 20)
        )
        var summary = BudgetReport(
            result: result,
            recommendations: recommendations,
            parametersSource: "preset conservative",
            runID: "budget-schema",
            commandLine: "pushbench budget"
        ).summary
        summary.input.seed = summary.input.seed ?? 1
        var search = try XCTUnwrap(summary.recommendations?.priorityPolicy)
        search.recommended = search.recommended ?? search.current
        search.bestShareReached = 1
        summary.recommendations?.priorityPolicy = search
        for index in summary.byEvent.indices {
            summary.byEvent[index].displayLagP50Ms = summary.byEvent[index].displayLagP50Ms ?? 0
            summary.byEvent[index].displayLagP99Ms = summary.byEvent[index].displayLagP99Ms ?? 0
            summary.byEvent[index].displayLagMaxMs = summary.byEvent[index].displayLagMaxMs ?? 0
        }
        XCTAssertFalse(summary.byEvent.isEmpty)
        XCTAssertEqual(Self.unsetOptionals(in: summary, path: "budget"), [], "set these above")
        let encoded = try summary.encoded()
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        XCTAssertEqual(Self.unwritten(summary, json: json, path: "budget"), [])
        let decoded = try BudgetSummary(decoding: encoded)
        XCTAssertEqual(decoded, summary)
        XCTAssertEqual(String(decoding: try decoded.encoded(), as: UTF8.self), String(decoding: encoded, as: UTF8.self))
        XCTAssertEqual(
            BudgetSummary.EventRow.columns.filter { $0.hasPrefix("pushes_") && !$0.hasPrefix("pushes_p") },
            BudgetOutcome.allCases.map { "pushes_\($0.rawValue)" },
            "one column for each outcome, in the outcomes' order"
        )
    }

    /// A real run's summary (a few pushes to the embedded mock), with the optionals such a run
    /// leaves unset given values.
    static func fullSummary() throws -> RunSummary {
        let mock = try MockFixture()
        let result = try LoadTest.run(mock.load(requests: 40), tokens: mock.tokens())
        let context = RunContext(
            runID: "schema",
            commandLine: "pushbench run --requests 40",
            targetDescription: "embedded mock",
            serverCounts: ServerCounts(pushes: 40, accepted: 40, rejectedByReason: [:], connections: 4),
            build: BuildDescription(version: "0", commit: "c")
        )
        var summary = RunSummary(result, context: context)
        summary.erroredSamples = ["connection_lost": "closed"]
        summary.nothingSucceeded = false
        summary.successesPerS = 1
        summary.scheduleLagUs = summary.latencyUs
        summary.connectionAttempts = 4
        summary.gaveUpOnTarget = false
        summary.tookEveryEvent = true
        summary.reconnections = 0
        summary.resentRefused = 0
        summary.thresholds = [
            RunSummary.ThresholdVerdict(
                expression: "p99<250ms",
                metric: "p99",
                measured: 3.5,
                limit: 250,
                unit: "ms",
                passed: true,
                about: "p99 latency, from submission (closed loop)"
            )
        ]
        summary.shard.partial = RunSummary.ShardEntry.Partial(shards: 8, missing: [3], interrupted: [5])
        // A profile's books only; 0 keeps them balanced.
        summary.counts.answersUnsent = 0
        summary.retries.attempts.answersUnsent = 0
        summary.warmup.counts.answersUnsent = 0
        summary.broadcasts = RunSummary.Broadcasts(
            counts: summary.counts,
            latencyUs: summary.latencyUs,
            latencyHistogramUs: summary.latencyHistogramUs,
            devicesReached: 1
        )
        summary.channelRequests = RunSummary.ChannelRequests(
            created: 1,
            deleted: 1,
            failedByReason: [:],
            latencyUs: summary.latencyUs,
            latencyHistogramUs: summary.latencyHistogramUs
        )
        summary.deviceReachUs = summary.latencyUs
        summary.deviceReachHistogramUs = summary.latencyHistogramUs
        summary.parameters.requestsCap = 40
        summary.parameters.durationCapS = 1
        summary.parameters.connectTimeoutMs = 5000
        summary.parameters.pingIntervalMs = 5000
        summary.parameters.reconnectBackoffMs = 100
        summary.parameters.reconnectBackoffMaxMs = 5000
        summary.parameters.priorityOverride = 5
        summary.parameters.practices = ["refresh:60"]
        summary.parameters.startAtUnixS = 1
        // Every kind's fields at once: no run has them all, but the schema must carry each.
        summary.parameters.pacing.ratePerS = 100
        summary.parameters.pacing.points = [[0, 100], [10, 200]]
        summary.parameters.pacing.timeScale = 60
        summary.parameters.pacing.event = "goal"
        summary.sender = RunSummary.Sender(
            command: "python3 sender.py",
            exitStatus: 0,
            stop: "exited",
            stopS: 0.1,
            failure: "the sender exited with status 1",
            pushes: 40,
            accepted: 40,
            cpuUserS: 0.2,
            cpuSystemS: 0.1,
            peakRSSBytes: 1 << 20,
            largestProcessPeakRSSBytes: 1 << 20,
            processes: 2,
            pushesPerS: 400,
            mockCPUS: 0.05,
            mockPeakCPUPercent: 12
        )
        summary.sender?.acceptedUnsent = 2
        summary.sender?.inFlightP90 = 1
        summary.lag = RunSummary.Lag(result.latency, early: 1)
        summary.events = RunSummary.Events(total: 40, received: 39, missing: 1, extra: 2, duplicates: 1)
        summary.events?.superseded = 3
        summary.events?.supersededStalenessMs = RunSummary.MillisecondPercentiles([120, 900])
        summary.events?.beforeClock = 4
        summary.events?.beforeClockByKind = ["update": 3, "none": 1]
        summary.events?.byKind = [
            "end": RunSummary.Events.KindEvents(
                owed: 10,
                arrived: 9,
                missing: 1,
                early: 2,
                earlyLeadMs: RunSummary.MillisecondPercentiles([5000, 60000]),
                lagMs: RunSummary.MillisecondPercentiles([0, 12])
            )
        ]
        summary.events?.byKind?["end"]?.cadenceMs = RunSummary.MillisecondPercentiles([1000, 1010])
        var stacks = FoldedStacks()
        stacks.add([StackFrame(function: "pushbench", library: ""), StackFrame(function: "f", library: "pushbench")])
        summary.cpuSamples = RunSummary.CPUSamples(
            StackProfile(stacks: stacks, frequencyHz: 997, scope: "a test", perfCPUSeconds: 0.25)
        )
        let phase = RunSummary.APIPhase(
            method: "POST",
            url: "http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/update",
            per: "group",
            sent: 3,
            succeeded: 1,
            refused: 1,
            timedOut: 0,
            failed: 1,
            byStatus: [202: 1, 500: 1],
            failedByClass: ["connect_refused": 1],
            latencyMs: RunSummary.MillisecondPercentiles([1.5, 2.5, 30]),
            durationS: 1.5,
            httpVersions: [1],
            concurrency: 16,
            rateLimitPerS: 100,
            client: RunSummary.APIPhase.Client(
                connections: 16,
                peakInFlight: 9,
                waited: 2,
                queuedUs: RunSummary.MicrosecondPercentiles(count: 3, p50: 10, p90: 1500, p99: 2100, max: 2100)
            )
        )
        let service = ServiceFigures(
            registrations: phase,
            api: phase,
            calls: [
                ServiceFigures.Call(
                    kind: "goal",
                    group: 0,
                    dueS: 1.5,
                    expected: 100,
                    arrived: 100,
                    firstMs: 2,
                    halfMs: 20,
                    p99Ms: 40,
                    lastMs: 41
                )
            ],
            extra: 0,
            matchedByTag: 100,
            eventsCPUUsPerPush: 12
        )
        summary.registrations = service.registrations
        summary.api = service.api
        summary.fanout = service.fanout
        summary.lifecycle = RunSummary.Lifecycle(
            starts: phase,
            startPushes: RunSummary.Lifecycle.StartPushes(accepted: 99, refused: 1),
            startCalls: service.calls,
            reissuedStartTokens: phase,
            storm: RunSummary.Lifecycle.Storm(
                reports: phase,
                perSecond: [0, 3, 1],
                answeredPerSecond: [0, 2, 2],
                startToReportMs: RunSummary.MillisecondPercentiles([1500, 2500])
            ),
            closes: phase,
            timeToFirstUpdateMs: RunSummary.MillisecondPercentiles([2000, 9000]),
            activities: RunSummary.Lifecycle.Activities(
                expected: 100,
                started: 99,
                neverStarted: 1,
                updated: 95,
                startedNeverUpdated: 4,
                neverUpdatedByCause: ["report_lost_by_service": 4],
                dismissed: 2,
                rotated: 1,
                extraStarts: 0,
                startsBeforeTheirCall: 2,
                ended: 5,
                endWasFirstPush: 1
            ),
            wastedPushesByCause: ["after_end_or_dismissal": 3],
            serviceCPUByPhaseS: ["start": 0.5, "registration_storm": 1.5, "updates": 2],
            serviceCPUUsPer: ["start_push": 5000, "token_report": 15000, "update_push": 10],
            emulation: RunSummary.Lifecycle.Emulation(cpuS: 0.01, deviceEvents: 1000, cpuUsPerEvent: 10),
            devices: ["activity_limit": "5"]
        )
        summary.lifecycle?.startFanout.serviceCPUUsPerPush = 8
        summary.sealedNetwork = RunSummary.SealedNetwork(
            hosts: [
                RunSummary.SealedNetwork.Host(
                    name: "api.push.apple.com",
                    port: 443,
                    environment: "production",
                    connections: 2,
                    handshakesUnfinished: 1,
                    requests: 40,
                    accepted: 39
                )
            ],
            reach: [RunSummary.SealedNetwork.Reach(address: "127.0.0.1:5432", connections: 3, refused: 1)],
            carriedIn: [RunSummary.SealedNetwork.Reach(address: "127.0.0.1:8080", connections: 5, refused: 0)]
        )
        return summary
    }

    /// The paths of optionals that hold nil, at every depth of `value`.
    private static func unsetOptionals(in value: Any, path: String) -> [String] {
        Mirror(reflecting: value).children.flatMap { child -> [String] in
            let childPath = "\(path).\(child.label ?? "?")"
            let mirror = Mirror(reflecting: child.value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first else { return [childPath] }
                return unsetOptionals(in: wrapped.value, path: childPath)
            }
            return mirror.displayStyle == .struct ? unsetOptionals(in: child.value, path: childPath) : []
        }
    }

    /// The stored properties of `value`, at every depth of its structs, that `json` (its
    /// encoding) has no key for: a struct's set properties and its JSON object's keys must be as
    /// many. Arrays of structs are checked through their first element.
    private static func unwritten(_ value: Any, json: [String: Any], path: String) -> [String] {
        let children = Mirror(reflecting: value).children.compactMap { child -> (String, Any)? in
            let mirror = Mirror(reflecting: child.value)
            guard mirror.displayStyle == .optional else { return (child.label ?? "?", child.value) }
            return mirror.children.first.map { (child.label ?? "?", $0.value) }
        }
        var missing: [String] = []
        if children.count != json.count {
            missing.append(
                "\(path): \(children.count) properties (\(children.map(\.0).sorted().joined(separator: ", "))) but "
                    + "\(json.count) keys (\(json.keys.sorted().joined(separator: ", ")))"
            )
        }
        for (label, child) in children {
            guard let key = json.keys.first(where: { snakeCase(label) == $0 }) else { continue }
            if Mirror(reflecting: child).displayStyle == .struct, let object = json[key] as? [String: Any] {
                missing += unwritten(child, json: object, path: "\(path).\(key)")
            } else if let elements = child as? [Any], let first = elements.first,
                Mirror(reflecting: first).displayStyle == .struct,
                let object = (json[key] as? [Any])?.first as? [String: Any]
            {
                missing += unwritten(first, json: object, path: "\(path).\(key)[0]")
            }
        }
        return missing
    }

    /// A property's name as the summary's keys spell most of them: `startedAtUnixS` is
    /// `started_at_unix_s`, `runID` is `run_id`.
    private static func snakeCase(_ name: String) -> String {
        var key = ""
        var previousWasUpper = true
        for character in name {
            if character.isUppercase && !previousWasUpper { key += "_" }
            previousWasUpper = character.isUppercase
            key += character.lowercased()
        }
        return key
    }
}
