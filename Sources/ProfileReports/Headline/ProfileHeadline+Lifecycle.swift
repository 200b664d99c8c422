import Foundation
import Reports

extension ProfileHeadline {
    /// A lifecycle's lines: the starts and their fan-out, the registration storm, the time to
    /// first update with what was never updated and why, the devices' drops, and the costs.
    static func lifecycle(_ lifecycle: RunSummary.Lifecycle, measured: Bool) -> [RunHeadline.Line] {
        var lines = [
            startLine(lifecycle), stormLine(lifecycle.storm), firstUpdateLine(lifecycle), wasteLine(lifecycle),
        ]
        let perEvent = lifecycle.emulation.cpuUsPerEvent ?? 0
        let budget = RunSummary.Lifecycle.Emulation.budgetUsPerEvent
        var cost = String(
            format:
                "PushBench spent %.1f µs of its own CPU per device event playing the devices (%d events), apart from every figure above",
            perEvent,
            lifecycle.emulation.deviceEvents
        )
        if perEvent > budget {
            cost += String(
                format: ", over its %.0f µs budget: on a shared machine the devices may have held the service back",
                budget
            )
        }
        if measured, let phases = lifecycle.serviceCPUByPhaseS {
            let perUnit = lifecycle.serviceCPUUsPer ?? [:]
            let parts = [
                ("start", "on the starts", "start_push", "a start push"),
                ("registration_storm", "in the registration storm", "token_report", "a token report"),
                ("updates", "on updates and ends", "update_push", "an update or end push"),
            ].compactMap { phase, doing, unit, each -> String? in
                guard let seconds = phases[phase] else { return nil }
                // A phase of no length (its work came while another ran) has no cost a unit.
                guard seconds > 0 else { return "no time " + doing + " (a phase of no length)" }
                // Interpolated, not `%@`: a Swift string through `%@` can print (null) here.
                return String(format: "%.2f s ", seconds) + doing
                    + (perUnit[unit].map { String(format: " (%.1f µs ", $0) + each + ")" } ?? "")
            }
            cost += "; the service spent " + parts.joined(separator: ", ")
        }
        lines.append(RunHeadline.Line(topic: "costs", sentence: cost + ".", good: perEvent > budget ? false : nil))
        return lines
    }

    private static func startLine(_ lifecycle: RunSummary.Lifecycle) -> RunHeadline.Line {
        let fanout = lifecycle.startFanout
        let activities = lifecycle.activities
        guard fanout.calls > 0 else {
            return RunHeadline.Line(
                topic: "starts",
                sentence:
                    "\(activities.started) of \(activities.expected) apps started their activities themselves (no push-to-start).",
                good: activities.neverStarted == 0
            )
        }
        var sentence =
            lifecycle.starts.map { "The start API answered \(calls($0.sent)) (\(statuses($0))); " } ?? ""
        let early = activities.startsBeforeTheirCall
        sentence += "\(fanout.matched) of \(fanout.expectedPushes) devices started" + (early > 0 ? " by them" : "")
        if let all = fanout.all.lastMs ?? fanout.all.p99Ms, let first = fanout.all.firstMs, let half = fanout.all.halfMs
        {
            sentence += String(
                format: ", the first after %.0f ms, half after %.0f ms, %@ after %.0f ms (%@)",
                first.p50,
                half.p50,
                fanout.all.lastMs == nil ? "99%" : "the last",
                all.p50,
                all.count == 1 ? "one call" : "medians over \(all.count) calls"
            )
        }
        if early > 0 {
            sentence += "; \(early) more were started by the service before their call was due (not in its fan-out)"
        }
        let starts = lifecycle.starts
        let good = fanout.matched + early >= fanout.expectedPushes && (starts.map { $0.succeeded == $0.sent } ?? true)
        return RunHeadline.Line(topic: "starts", sentence: sentence + ".", good: good)
    }

    /// `1 call`, `3 calls`.
    private static func calls(_ count: Int) -> String { count == 1 ? "1 call" : "\(count) calls" }

    private static func stormLine(_ storm: RunSummary.Lifecycle.Storm) -> RunHeadline.Line {
        let reports = storm.reports
        // The statuses are interpolated, not formatted: %@ of a Swift string can print (null) here.
        var sentence =
            "The devices offered \(reports.sent) token reports, at most \(storm.peakPerS) in a second; "
            + "the service answered at most \(storm.peakAnsweredPerS ?? 0) in a second, in "
            + String(format: "%.1f", reports.latencyMs?.p99 ?? 0) + " ms at p99 (\(statuses(reports)))"
        if let delay = storm.startToReportMs {
            sentence += String(
                format: "; start to reported token %.2f s at the median, %.2f s at p99",
                delay.p50 / 1000,
                delay.p99 / 1000
            )
        }
        return RunHeadline.Line(topic: "storm", sentence: sentence + ".", good: reports.succeeded == reports.sent)
    }

    private static func firstUpdateLine(_ lifecycle: RunSummary.Lifecycle) -> RunHeadline.Line {
        let activities = lifecycle.activities
        var sentence =
            lifecycle.timeToFirstUpdateMs.map {
                String(
                    format: "Time to first update %.2f s at the median, %.2f s at p99 over %d activities",
                    $0.p50 / 1000,
                    $0.p99 / 1000,
                    $0.count
                )
            }
            ?? (activities.updated == 0 && activities.startedNeverUpdated == 0 && activities.started > 0
                ? "No update was owed (the scenario sends starts and ends only)" : "No activity was updated")
        if let ended = activities.ended, ended > 0 {
            sentence += "; \(ended) of \(activities.started) started were ended by their end push"
            if let first = activities.endWasFirstPush, first > 0 {
                sentence += " (for \(first) the end was the first push after the start: no update came before it)"
            }
        }
        if activities.startedNeverUpdated > 0 {
            let causes = activities.neverUpdatedByCause.filter { $0.value > 0 }.sorted { $0.value > $1.value }
            sentence += String(
                format: "; %d of %d started (%.1f%%) were never updated (%@)",
                activities.startedNeverUpdated,
                activities.started,
                100 * Double(activities.startedNeverUpdated) / Double(max(1, activities.started)),
                causes.map { "\($0.key.replacingOccurrences(of: "_", with: " ")): \($0.value)" }.joined(separator: ", ")
            )
        }
        if activities.neverStarted > 0 { sentence += "; \(activities.neverStarted) never started" }
        let good = activities.startedNeverUpdated == 0 && activities.neverStarted == 0
        return RunHeadline.Line(topic: "first update", sentence: sentence + ".", good: good)
    }

    private static func wasteLine(_ lifecycle: RunSummary.Lifecycle) -> RunHeadline.Line {
        guard lifecycle.wastedPushes > 0 else {
            return RunHeadline.Line(topic: "wasted", sentence: "No push was dropped on a device.", good: true)
        }
        let causes = lifecycle.wastedPushesByCause.filter { $0.value > 0 }.sorted { $0.value > $1.value }
        return RunHeadline.Line(
            topic: "wasted",
            sentence: "\(lifecycle.wastedPushes) pushes were dropped on the devices, though APNs took them ("
                + causes.map { "\($0.key.replacingOccurrences(of: "_", with: " ")): \($0.value)" }.joined(
                    separator: ", "
                )
                + ").",
            good: false
        )
    }
}
