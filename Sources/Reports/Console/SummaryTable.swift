import Basics
import Foundation
import LoadEngine
import Transport

/// The end-of-run table printed to stdout: the figures a person checks first, aligned.
public enum SummaryTable {
    /// Renders the table for `result`.
    public static func render(_ result: RunResult, context: RunContext) -> String {
        let rows =
            bookRows(result, context: context) + timingRows(result) + senderRows(result)
            + noteRows(result, context: context)
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
            .joined(separator: "\n")
    }

    /// What ran, and every request's outcome: whether the books balance, broadcasts, outages.
    private static func bookRows(_ result: RunResult, context: RunContext) -> [(String, String)] {
        let counts = result.counts
        var rows: [(String, String)] = []
        if let failure = RunFailure(result) { rows += failure.rows }
        rows += [
            ("run", "\(context.runID) (\(result.mode.rawValue), \(context.targetDescription))"),
            (
                "workload",
                "\(result.configuration.scenario.name) scenario, \(result.configuration.scenario.activities) activities, "
                    + "\(result.configuration.threads) worker thread(s), \(result.configuration.pacing.label)"
            ),
            ("sent", "\(counts.sent)"),
            ("succeeded", "\(counts.succeeded)"),
            ("rejected", "\(counts.rejected)" + reasons(result.rejectedByReason)),
            ("errored", "\(counts.errored)" + reasons(result.erroredByKind)),
            ("timed out", "\(counts.timedOut)"),
            (
                "accounting",
                counts.isBalanced ? "balanced (sent = succeeded + rejected + errored + timed out)" : "UNBALANCED"
            ),
        ]
        rows += broadcastRows(result)
        if !result.outages.isEmpty {
            rows.append(("outages", outages(result.outages)))
        }
        if result.counts.succeeded > 0, let hint = result.failureClasses.lazy.compactMap(\.hint).first {
            rows.append(("hint", hint))
        }
        return rows
    }

    /// How long it took, how fast, how late: throughput, latency, connections, engine CPU, lag.
    private static func timingRows(_ result: RunResult) -> [(String, String)] {
        let latency = RunSummary.Percentiles(result.latency)
        func ms(_ micros: UInt64) -> String { String(format: "%.2f ms", Double(micros) / 1000) }
        var rows: [(String, String)] = []
        rows += [
            ("duration", String(format: "%.2f s", result.durationSeconds)),
            (
                "throughput",
                String(
                    format: "%.0f attempts/s, %.0f successes/s",
                    result.throughputPerSecond,
                    result.successesPerSecond
                ) + (result.configuration.pacing.isOpenLoop ? " (offered: \(result.configuration.pacing.label))" : "")
            ),
        ]
        rows +=
            result.latency.totalCount > 0
            ? [
                ("latency", result.latencyOrigin),
                ("latency p50", ms(latency.p50)),
                ("latency p90", ms(latency.p90)),
                ("latency p99", ms(latency.p99)),
                ("latency p99.9", ms(latency.p99_9)),
                ("latency max", ms(latency.max)),
            ] : [("latency", "none: no push was answered")]
        rows += [
            (
                "connections",
                "\(result.perConnection.count) used of \(result.configuration.transport.connections), "
                    + "\(result.configuration.transport.streamsPerConnection) streams each, "
                    + result.configuration.transportKind.rawValue
                    + (result.recoveries.map {
                        "; \($0.reconnections) reopened, \($0.resentRefused) refused pushes sent again"
                    } ?? "")
            ),
            (
                "engine CPU",
                String(format: "%.2f s, %.1f µs per request", result.engineCPUSeconds, result.engineCPUMicrosPerRequest)
            ),
        ]
        if result.configuration.pacing.isOpenLoop {
            rows.append(
                (
                    "schedule lag",
                    String(
                        format: "p50 %.2f ms, p99 %.2f ms, max %.2f ms late, ",
                        Double(result.scheduleLag.valueAtPercentile(50)) / 1000,
                        Double(result.scheduleLag.valueAtPercentile(99)) / 1000,
                        Double(result.scheduleLag.max) / 1000
                    ) + result.configuration.pacing.label + " (latency counts it)"
                )
            )
        }
        return rows
    }

    /// Whether the sender kept up, where its time went, a burst's spread, and its practices.
    private static func senderRows(_ result: RunResult) -> [(String, String)] {
        var rows: [(String, String)] = []
        rows.append(("sender", GeneratorHealth.verdict(result)))
        rows.append(
            (
                "sender stages",
                GeneratorHealth.stageRows(result).dropLast().map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                    + " per push = " + (GeneratorHealth.stageRows(result).last?.1 ?? "") + " of CPU ("
                    + GeneratorHealth.stageNote(result) + ")"
            )
        )
        if case .burst(let kind) = result.configuration.pacing, result.latency.totalCount > 0 {
            let seconds = { (percentile: Double) in
                String(format: "%.3f s", Double(result.latency.valueAtPercentile(percentile)) / 1e6)
            }
            rows.append(
                (
                    "burst",
                    "\(result.counts.sent) \(kind.rawValue) pushes due at once: half the activities had theirs after "
                        + "\(seconds(50)), 99% after \(seconds(99)), the last after \(seconds(100))"
                )
            )
        }
        if !result.configuration.practices.isEmpty {
            rows.append(
                (
                    "practices",
                    result.configuration.practices.map(\.description).joined(separator: ", ")
                        + " (sender mistakes made on purpose; report.html says what they cost)"
                )
            )
        }
        return rows
    }

    /// Retries, warmup, pushes not sent, the mock's own count, and how the run ended.
    private static func noteRows(_ result: RunResult, context: RunContext) -> [(String, String)] {
        var rows: [(String, String)] = []
        if result.configuration.retryPolicy.maxRetries > 0 {
            let retries = result.retries
            rows.append(
                (
                    "retries",
                    "\(retries.attempts.sent) sent again (in the counts above), \(retries.recovered) pushes recovered, "
                        + "\(retries.exhausted) still failing after \(result.configuration.retryPolicy.maxRetries)"
                )
            )
        }
        if result.configuration.warmup > .zero {
            let warm = result.warmupCounts
            rows.append(
                (
                    "warmup",
                    "\(warm.sent) pushes meant for the first \(RateProfile.number(result.configuration.warmup.inSeconds)) s, "
                        + "kept out of these figures (\(warm.succeeded) succeeded, \(warm.rejected) rejected, "
                        + "\(warm.errored) errored, \(warm.timedOut) timed out)"
                )
            )
        }
        if result.skippedForGoneTokens > 0 {
            rows.append(("not sent", "\(result.skippedForGoneTokens) pushes to tokens answered 410 earlier in the run"))
        }
        if let server = context.serverCounts {
            let check = ServerCheck(result: result, server: server)
            rows.append(
                (
                    "mock's count",
                    check.matches
                        ? "\(server.pushes) answered, \(server.accepted) accepted: agrees with the client"
                        : "DIFFERS: " + check.differences.joined(separator: "; ")
                )
            )
        }
        if result.interrupted { rows.append(("note", "interrupted: figures cover what was measured before the stop")) }
        if result.gaveUpOnTarget {
            rows.append(
                (
                    "note",
                    "gave up: the target answered nothing through every reconnect backoff, so the rest of the "
                        + "pushes were not sent (give --duration to keep trying that long)"
                )
            )
        }
        return rows
    }

    /// `from s to to s (n s, e errored, t timed out)` for each outage.
    private static func outages(_ outages: [Outage]) -> String {
        "nothing answered from "
            + outages.map {
                String(
                    format: "%.2f s to %.2f s (%.2f s: %d errored, %d timed out)",
                    $0.fromSeconds,
                    $0.toSeconds,
                    $0.seconds,
                    $0.errored,
                    $0.timedOut
                )
            }.joined(separator: ", from ")
    }

    /// The broadcasts among the requests above and the channel requests around them, when the
    /// scenario broadcasts.
    private static func broadcastRows(_ result: RunResult) -> [(String, String)] {
        let books = result.broadcasts
        let channels = result.channels
        let reach = books.deviceReach
        var rows: [(String, String)] = []
        if reach.totalCount > 0, books.counts.sent > 0 || result.configuration.pacing.isBurst {
            rows.append(
                (
                    "devices reached",
                    "\(reach.totalCount), accepted by APNs for 50% within "
                        + String(
                            format: "%.2f ms, 99%% within %.2f ms, all within %.2f ms",
                            Double(reach.valueAtPercentile(50)) / 1000,
                            Double(reach.valueAtPercentile(99)) / 1000,
                            Double(reach.max) / 1000
                        )
                )
            )
        }
        guard books.counts.sent > 0 || channels.requests > 0 else { return rows }
        let latency =
            books.latency.totalCount > 0
            ? String(
                format: ", p50 %.2f ms, p99 %.2f ms",
                Double(books.latency.valueAtPercentile(50)) / 1000,
                Double(books.latency.valueAtPercentile(99)) / 1000
            ) : ""
        return rows + [
            (
                "of which broadcasts",
                "\(books.counts.sent) sent, \(books.counts.succeeded) succeeded, \(books.counts.rejected) rejected, "
                    + "\(books.counts.errored) errored, \(books.counts.timedOut) timed out\(latency)"
            ),
            (
                "channel requests",
                "\(channels.created) created, \(channels.deleted) deleted"
                    + (channels.failedByReason.isEmpty ? "" : ", failed" + reasons(channels.failedByReason))
                    + String(format: ", max %.2f ms", Double(channels.latency.max) / 1000)
            ),
        ]
    }

    private static func reasons(_ counts: [String: Int]) -> String {
        guard !counts.isEmpty else { return "" }
        return " (" + counts.sorted { $0.value > $1.value }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            + ")"
    }
}
