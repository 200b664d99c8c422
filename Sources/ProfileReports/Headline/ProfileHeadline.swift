import Foundation
import LoadEngine
import Reports

/// The first screen of a profile's report, one sentence each: how fast the sender was, what
/// it cost in CPU and memory per push, how late it was against its schedule, who set the pace,
/// what the sender doctor found, and what the budget model made of the accepted pushes.
public struct ProfileHeadline: Sendable {
    /// The answers, in reading order.
    public let lines: [RunHeadline.Line]

    /// The headline of `profile`.
    public init(_ profile: ProfileFigures) {
        let sender = profile.sender
        var lines = [
            RunHeadline.Line(
                topic: "speed",
                sentence: String(
                    format: "%@ sent %d pushes at %@ a second (first to last arrival); the mock accepted %@%@.",
                    Self.quoted(sender.command),
                    sender.pushes,
                    Self.rate(sender.pushesPerS),
                    sender.pushes == 0
                        ? "none" : sender.accepted == sender.pushes ? "all of them" : "\(sender.accepted)",
                    sender.acceptedUnsent.map {
                        ", and \($0) more whose answers were never written (their devices have them; the sender never heard)"
                    } ?? ""
                ),
                good: sender.accepted > 0
            ),
            Self.cost(profile),
            Self.lateness(profile.lag, profile.events),
            Self.pace(sender),
        ]
        if let books = Self.books(profile.arrivals.counts) { lines.insert(books, at: 1) }
        if let service = profile.service {
            var serviceLines = Self.service(service, events: profile.events, measured: profile.processesMeasured)
            if sender.stop == "settled" {
                serviceLines.append(
                    RunHeadline.Line(
                        topic: "end",
                        sentence:
                            "No push came for --settle after the last call's answer, so the service was ended with \(service.fanout.missing) owed pushes never sent: it had stopped pushing (nothing was still arriving), so they are missing, not a backlog.",
                        good: false
                    )
                )
            }
            lines.insert(contentsOf: serviceLines, at: 1)
        }
        if let sealed = profile.sealedNetwork { lines.insert(Self.sealed(sealed), at: 1) }
        if let verdict = profile.practicesVerdict {
            lines.append(RunHeadline.Line(topic: "doctor", sentence: verdict, good: nil))
        }
        if let verdict = profile.budgetVerdict {
            lines.append(RunHeadline.Line(topic: "budget", sentence: verdict, good: nil))
        }
        self.lines = lines
    }

    private static func cost(_ profile: ProfileFigures) -> RunHeadline.Line {
        let sender = profile.sender
        guard profile.processesMeasured else {
            return RunHeadline.Line(
                topic: "cost",
                sentence:
                    "Not measured: profile did not start the service (give it after -- to measure its CPU and memory).",
                good: nil
            )
        }
        return RunHeadline.Line(
            topic: "cost",
            sentence: String(
                format:
                    "%.1f µs of CPU per push (%.2f s user + %.2f s system: the sender and every process it started), peak memory %@ together (%@ the largest process).",
                sender.cpuUsPerPush,
                sender.cpuUserS,
                sender.cpuSystemS,
                Self.mebibytes(sender.peakRSSBytes),
                Self.mebibytes(sender.largestProcessPeakRSSBytes)
            ),
            good: nil
        )
    }

    /// A rate a second as a reader takes it: whole above 1, with its decimals below (0.30, not 0).
    static func rate(_ perSecond: Double) -> String {
        String(format: perSecond < 1 ? "%.2f" : "%.0f", perSecond)
    }

    static func lateness(_ lag: RunSummary.Lag, _ events: RunSummary.Events) -> RunHeadline.Line {
        let duplicates = events.duplicates ?? 0
        // With nothing arrived there is no lag to give: zeros would read as on time.
        var sentence =
            events.received == 0
            ? "No event arrived, so there is no lag against the schedule"
            : String(
                format:
                    "Against its schedule, first arrivals were %.1f ms late at the median and %.1f ms at p99 (max %.1f ms)",
                lag.p50Ms,
                lag.p99Ms,
                lag.maxMs
            )
        if lag.early > 0 { sentence += ", \(lag.early) of \(events.received) before they were due (counted as 0)" }
        sentence += "; \(events.received) of \(events.total) events arrived, \(events.missing) never did"
        if duplicates > 0 { sentence += ", \(duplicates) pushes repeated an event already accepted (duplicates)" }
        sentence += events.extra > 0 ? ", and \(events.extra) pushes matched no event." : "."
        return RunHeadline.Line(topic: "lag", sentence: sentence, good: events.missing == 0 && duplicates == 0)
    }

    /// The books, when they say more than "every push answered": answers never written, or a
    /// push the mock received that no answer accounts for.
    static func books(_ counts: OutcomeCounts) -> RunHeadline.Line? {
        let answered = "\(counts.succeeded) accepted + \(counts.rejected) refused"
        guard counts.isBalanced else {
            return RunHeadline.Line(
                topic: "books",
                sentence:
                    "UNBALANCED: the mock received \(counts.sent) pushes, but its answers account for \(counts.completed) (\(answered) + \(counts.timedOut) withheld + \(counts.answersUnsent) never written); a PushBench bug worth reporting.",
                good: false
            )
        }
        guard counts.timedOut + counts.answersUnsent > 0 else { return nil }
        return RunHeadline.Line(
            topic: "books",
            sentence:
                "The mock wrote an answer to \(counts.succeeded + counts.rejected) of \(counts.sent) pushes (\(answered)); \(counts.timedOut) were withheld by the fault plan and \(counts.answersUnsent) decided but never written, their stream or connection closed first (the sender's timeouts and resets).",
            good: false
        )
    }

    private static func pace(_ sender: RunSummary.Sender) -> RunHeadline.Line {
        let saturated = sender.mockPeakCPUPercent >= 90
        let sentence =
            saturated
            ? String(
                format:
                    "The mock was busy (%.0f%% of a core at its busiest second, %.2f s in all): on a shared machine it may have held the sender back, so these figures are a floor on its speed.",
                sender.mockPeakCPUPercent,
                sender.mockCPUS
            )
            : String(
                format:
                    "The sender set the pace: the mock used at most %.0f%% of a core in any second (%.2f s in all).",
                sender.mockPeakCPUPercent,
                sender.mockCPUS
            )
        return RunHeadline.Line(topic: "pace", sentence: sentence, good: saturated ? false : nil)
    }

    /// A service's lines: its registrations, its event API, and its fan-out to the last push;
    /// for a lifecycle, the devices' side after them.
    private static func service(
        _ service: ServiceFigures,
        events: RunSummary.Events?,
        measured: Bool
    ) -> [RunHeadline.Line] {
        let fanout = service.fanout
        var lines: [RunHeadline.Line] = []
        if let registrations = service.registrations {
            lines.append(registrationLine(registrations, lifecycle: service.lifecycle != nil))
        }
        if service.api.hasRequest { lines.append(apiLine(service.api)) }
        if let client = clientLine(service) { lines.append(client) }
        lines.append(RunHeadline.Line(topic: "fan-out", sentence: fanoutSentence(fanout), good: fanout.missing == 0))
        if let byKind = events?.byKind, byKind["end"] != nil || service.calls.contains(where: \.ownClock) {
            lines.append(RunHeadline.Line(topic: "owed", sentence: owedSentence(byKind), good: nil))
        }
        if let events, let beforeClock = events.beforeClock, beforeClock > 0 {
            let kinds = (events.beforeClockByKind ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            lines.append(
                RunHeadline.Line(
                    topic: "before clock",
                    sentence:
                        "\(beforeClock) pushes came before anything owed them (\(kinds.joined(separator: ", "))): "
                        + "before the scenario's clock started, or before any call to their activity was sent, as a welcome "
                        + "push at registration does; the service's own, in no lag and no fan-out.",
                    good: nil
                )
            )
        }
        if let lifecycle = service.lifecycle { lines += Self.lifecycle(lifecycle, measured: measured) }
        if measured, let cost = service.eventsCPUUsPerPush {
            lines.append(
                RunHeadline.Line(
                    topic: "fan-out cost",
                    sentence: String(
                        format: service.lifecycle == nil
                            ? "%.1f µs of the service's CPU per push from the first call on (its registrations apart)."
                            : "%.1f µs of the service's CPU per update or end push after the starts (its starts and token reports apart).",
                        cost
                    ),
                    good: nil
                )
            )
        }
        return lines
    }

    /// The event API's answers, from their intended times, PushBench's own queue apart.
    private static func apiLine(_ api: RunSummary.APIPhase) -> RunHeadline.Line {
        let unanswered = api.refused + api.timedOut + api.failed
        let latency =
            api.latencyMs.map {
                String(format: " in %.1f ms at the median and %.1f ms at p99 from their intended times", $0.p50, $0.p99)
            } ?? ""
        let queued = api.queuedUs.map {
            String(format: "; PushBench queued them %.1f ms at p99", Double($0.p99) / 1000)
        }
        return RunHeadline.Line(
            topic: "api",
            sentence: "The event API answered \(api.succeeded + api.refused) of \(api.sent) calls\(latency)"
                + " (\(statuses(api)))" + (unanswered == 0 ? "" : "; \(unanswered) did not succeed") + (queued ?? "")
                + ".",
            good: unanswered == 0
        )
    }

    /// When PushBench's own clients set the pace (a request waited for one of their
    /// connections), which phases, how long, and what to change: never the service's figure.
    private static func clientLine(_ service: ServiceFigures) -> RunHeadline.Line? {
        let lifecycle = service.lifecycle
        let phases: [(String, RunSummary.APIPhase?)] = [
            ("event calls", service.api), ("start calls", lifecycle?.starts),
            ("token reports", lifecycle?.storm.reports), ("closes", lifecycle?.closes),
            ("push-to-start tokens", lifecycle?.reissuedStartTokens),
        ]
        let saturated = phases.compactMap { name, phase -> String? in
            guard let phase, phase.clientSaturated else { return nil }
            var text =
                "\(phase.waited ?? 0) of \(phase.sent) \(name) waited for one of its \(phase.connections ?? 0) connections"
            if let queued = phase.queuedUs {
                text += String(format: " (queued p99 %.1f ms)", Double(queued.p99) / 1000)
            }
            if phase.queueTimeouts > 0 {
                text += ", \(phase.queueTimeouts) until their deadline (pushbench_queue_timeout)"
            }
            return text
        }
        guard !saturated.isEmpty else { return nil }
        return RunHeadline.Line(
            topic: "client",
            sentence: "PushBench's own client set the pace: " + saturated.joined(separator: "; ")
                + ". That wait is PushBench's, kept out of the service's latency and timeouts; --api-connections N raises the limit.",
            good: false
        )
    }

    /// What was owed of each kind, and how it came: `ends 300 owed, 300 arrived (150 early by
    /// up to 1.2 s, 150 late, lag p99 210 ms)`.
    private static func owedSentence(_ byKind: [String: RunSummary.Events.KindEvents]) -> String {
        let kinds = [("start", "starts"), ("update", "updates"), ("end", "ends")].compactMap { key, name -> String? in
            guard let kind = byKind[key] else { return nil }
            var text = "\(name) \(kind.owed) owed, \(kind.arrived) arrived"
            var details: [String] = []
            if kind.early > 0 {
                details.append(
                    "\(kind.early) early"
                        + (kind.earlyLeadMs.map { String(format: " by up to %.1f s", $0.max / 1000) } ?? "")
                )
            }
            details.append("\(kind.late) late")
            if let lag = kind.lagMs { details.append(String(format: "lag p50 %.0f ms, p99 %.0f ms", lag.p50, lag.p99)) }
            if let cadence = kind.cadenceMs {
                details.append(String(format: "an activity's every %.2f s at the median", cadence.p50 / 1000))
            }
            text += " (" + details.joined(separator: ", ") + ")"
            if kind.missing > 0 { text += ", \(kind.missing) missing" }
            return text
        }
        return "Against the moments they were owed (a call's, or the service's own clock's): "
            + kinds.joined(separator: "; ") + "."
    }

    /// The registrations before the clock: every activity's tokens, or a lifecycle's
    /// push-to-start tokens.
    private static func registrationLine(_ registrations: RunSummary.APIPhase, lifecycle: Bool) -> RunHeadline.Line {
        RunHeadline.Line(
            topic: lifecycle ? "start tokens" : "register",
            sentence: (lifecycle ? "Devices reported" : "Registered")
                + " \(registrations.succeeded) of \(registrations.sent) "
                + (lifecycle ? "push-to-start tokens" : "activities")
                + String(
                    format: " at %.0f a second (p99 %.1f ms)",
                    registrations.perS,
                    registrations.latencyMs?.p99 ?? 0
                )
                + (registrations.succeeded == registrations.sent
                    ? "" : "; \(registrations.sent - registrations.succeeded) failed (\(statuses(registrations)))")
                + ".",
            good: registrations.succeeded == registrations.sent
        )
    }

    /// How long each call took to reach its last push (or 99% of them), by kind, and what never
    /// arrived or matched no call.
    private static func fanoutSentence(_ fanout: RunSummary.Fanout) -> String {
        var fanoutSentence: String
        if let last = fanout.all.lastMs {
            fanoutSentence = String(
                format:
                    "Fan-out to the last push took %.0f ms at the median and %.0f ms at p99 (max %.0f ms) over %d calls",
                last.p50,
                last.p99,
                last.max,
                last.count
            )
        } else {
            fanoutSentence = "No call's pushes all arrived"
            if let p99 = fanout.all.p99Ms {
                fanoutSentence += String(
                    format: "; 99%% of them arrived within %.0f ms at the median and %.0f ms at p99 over %d calls",
                    p99.p50,
                    p99.p99,
                    p99.count
                )
            }
        }
        let kinds = fanout.byKind.sorted { $0.key < $1.key }.compactMap { kind, figures in
            figures.lastMs.map { String(format: "%@ %.0f/%.0f ms", kind, $0.p50, $0.p99) }
        }
        if !kinds.isEmpty { fanoutSentence += " (p50/p99 by kind: " + kinds.joined(separator: ", ") + ")" }
        let superseded = fanout.superseded ?? 0
        if superseded > 0 {
            fanoutSentence += String(
                format: "; %d of %d owed updates were coalesced into a later push of their activity (%.1f%%)",
                superseded,
                fanout.expectedPushes,
                100 * Double(superseded) / Double(max(1, fanout.expectedPushes))
            )
        }
        fanoutSentence +=
            fanout.missing == 0
            ? (superseded > 0 ? ", and every other push arrived" : "; every push arrived")
            : "; \(fanout.missing) of \(fanout.expectedPushes) pushes never arrived, in \(fanout.all.incompleteCalls) calls"
        fanoutSentence += fanout.extra > 0 ? ", and \(fanout.extra) matched no call." : "."
        return fanoutSentence
    }

    /// `202: 96, 500: 10, timed out: 2`: a phase's answers.
    static func statuses(_ phase: RunSummary.APIPhase) -> String {
        var parts = phase.byStatus.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        if phase.timedOut > 0 { parts.append("timed out: \(phase.timedOut)") }
        parts += phase.failedByClass.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return parts.isEmpty ? "no answers" : parts.joined(separator: ", ")
    }

    static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    private static func quoted(_ command: String) -> String {
        command.count > 60 ? String(command.prefix(57)) + "..." : command
    }
}
