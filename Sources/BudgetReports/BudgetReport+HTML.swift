import Budget
import Foundation
import Histogram
import Pages

extension BudgetReport {
    /// The budget section: what a run's `report.html` embeds and `budget.html` wraps.
    public var htmlBody: String {
        var html = titleHTML + cardsHTML
        html += "<h2>Exhaustion over time</h2>"
        html +=
            result.tally.minutes.count < 2
            ? "<p class=\"sub\">Under two simulated minutes: too short to chart; the tables below hold every figure.</p>"
            : overTimeCharts()
        html += lagHTML + outcomeMixHTML
        if let recommendations { html += recommendationsHTML(recommendations) }
        return html + parametersHTML
    }

    /// The title, what was analysed, and the notes on its clock, coverage and estimates.
    private var titleHTML: String {
        let tally = result.tally
        var html = "<h1>Live Activity budget: \(HTML.escape(result.name))</h1>"
        html += "<div class=\"sub\">\(result.activities) activities · preset \(HTML.escape(result.parameters.name))"
        html +=
            result.input == .run
            ? " · the \(tally.pushes) pushes the target accepted</div>"
            : " · \(tally.pushes) pushes simulated in \(String(format: "%.2f", result.wallSeconds)) s</div>"
        if let clock = clockSentence { html += "<p class=\"clock\">\(HTML.escape(clock))</p>" }
        if let coverage = coverageSentence { html += "<p class=\"bad\">\(HTML.escape(coverage))</p>" }
        if result.interrupted {
            html += "<p class=\"bad\">Interrupted: these figures cover the pushes simulated before the stop.</p>"
        }
        html += "<p class=\"note\">\(HTML.escape(Self.estimateNote))</p>"
        return html
    }

    /// The first screen's cards: shares shown, throttled and coalesced, time to first throttle.
    private var cardsHTML: String {
        let tally = result.tally
        let pushes = max(tally.pushes, 1)
        var html = ""
        let firstThrottle = Self.lagPercentilesMs(tally.firstThrottleAfterStartMs)["p50"]
        let target = recommendations.flatMap { $0.policy == nil ? nil : UInt64($0.keyLagTargetSeconds * 1000) }
        html += "<div class=\"cards\">"
        html += HTML.card(Self.share(tally.count(.shown), of: pushes), "of pushes shown")
        html += HTML.card(Self.share(tally.count(.throttled), of: pushes), "throttled by the budget")
        html += HTML.card(Self.share(tally.count(.coalesced), of: pushes), "coalesced (low priority)")
        html += HTML.card(
            Self.share(tally.activitiesThrottled, of: tally.activitiesBegun),
            "of activities throttled at least once"
        )
        html += HTML.card(
            firstThrottle.map { String(format: "%.0f min", Double($0) / 60_000) } ?? "never",
            "median time to first throttle"
        )
        if let target {
            html += HTML.card(
                String(format: "%.1f%%", tally.keyShareShown(withinMs: target) * 100),
                "key events shown within \(target / 1000) s"
            )
        }
        html += "</div>"

        return html
    }

    /// Display lag: the spectrum and its percentiles, of all updates and of key events.
    private var lagHTML: String {
        let tally = result.tally
        var html = ""
        html += "<h2>Display lag</h2>"
        html += "<p class=\"sub\">From an update's send until its state, or a later-sent one, is shown. "
        html += "Updates never followed by a shown state are not in the curve: \(tally.neverShown) of them, "
        html += "\(tally.keyNeverShown) key events. The x axis is log<sub>10</sub>(1/(1−p)).</p>"
        html += lagSpectrum()
        html += HTML.grid(
            "Display lag percentiles (s)",
            headers: ["updates", "p50", "p90", "p99", "p99.9", "max"],
            rows: [("all", tally.lagMs), ("key events", tally.keyLagMs)].map { name, histogram in
                let lag = Self.lagPercentilesMs(histogram)
                return [name]
                    + ["p50", "p90", "p99", "p99_9", "max"].map {
                        lag[$0].map { String(format: "%.1f", Double($0) / 1000) } ?? "–"
                    }
            }
        )

        return html
    }

    /// What the device did with each kind of push.
    private var outcomeMixHTML: String {
        let tally = result.tally
        var html = ""
        html += "<h2>Outcome mix by event kind</h2>"
        html += HTML.grid(
            "What the device did with each kind of push",
            headers: ["event", "pushes", "at p10", "shown", "throttled", "coalesced", "dropped", "lag p99 (s)"],
            rows: tally.labels.names.indices.compactMap { label in
                let total = (0..<3).reduce(0) { $0 + tally.pushes(label: label, priorityIndex: $1) }
                guard total > 0 else { return nil }
                let dropped = [BudgetOutcome.droppedEnded, .droppedStale, .startThrottled, .notStarted].reduce(0) {
                    $0 + tally.count($1, label: label)
                }
                let lag = tally.lagMsByLabel[label]
                return [
                    tally.labels.names[label] + (tally.labels.isKey[label] ? " (key)" : ""), String(total),
                    Self.share(tally.pushes(label: label, priorityIndex: 0), of: total),
                    Self.share(tally.count(.shown, label: label), of: total),
                    Self.share(tally.count(.throttled, label: label), of: total),
                    Self.share(tally.count(.coalesced, label: label), of: total), Self.share(dropped, of: total),
                    lag.totalCount > 0 ? String(format: "%.1f", Double(lag.valueAtPercentile(99)) / 1000) : "–",
                ]
            }
        )
        return html
    }

    /// The model's parameters, and how it was fed.
    private var parametersHTML: String {
        var html = ""
        html += "<h2>Parameters</h2>"
        let parameters = result.parameters
        html += HTML.table(
            "The model's numbers (\(parametersSource))",
            [
                ("preset", parameters.name), ("priority-10 burst", "\(parameters.burst) updates"),
                ("priority-10 refill", "\(parameters.perHour) per hour"),
                ("low-priority window", "\(parameters.lowPriorityIntervalSeconds) s"),
                ("frequent updates", parameters.frequentUpdates ? "on, ×\(parameters.frequentFactor)" : "off"),
                ("users with frequent updates off", String(format: "%.0f%%", parameters.frequentOffFraction * 100)),
                ("push-to-start burst", "\(parameters.startBurst) starts"),
                ("push-to-start refill", "\(parameters.startPerHour) per hour"),
                ("active limit", "\(parameters.activeLimitSeconds) s"),
                ("activities per device", "\(result.activitiesPerDevice)"),
                ("scenario seed", result.seed.map(String.init) ?? "– (recorded traffic)"), ("command", commandLine),
                (
                    "simulation",
                    result.input == .run
                        ? "fed as the target answered, on the \(result.runFeed?.clock.rawValue ?? "scenario") clock"
                        : String(format: "%d thread(s), %.1f M pushes/s", result.threads, result.pushesPerSecond / 1e6)
                ),
            ],
            headers: ("parameter", "value")
        )
        return html
    }

    /// The per-minute charts: exhaustion, budget left, and pushes by outcome.
    private func overTimeCharts() -> String {
        let tally = result.tally
        var html = ""
        let minutes = tally.minutes.enumerated()
        html += LineChart(
            title: "Live activities with less than one priority-10 update left",
            xLabel: "simulated hours",
            yLabel: "% of live activities",
            series: [
                .init(
                    name: "exhausted",
                    color: "#c62828",
                    points: minutes.filter { $0.element.live > 0 }.map {
                        (Double($0.offset + 1) / 60, Double($0.element.exhausted) * 100 / Double($0.element.live))
                    }
                )
            ]
        ).render()
        html += LineChart(
            title: "Priority-10 budget left across live activities",
            xLabel: "simulated hours",
            yLabel: "% of the bucket",
            series: [(0.5, "median", "#0a66c2"), (0.1, "p10 (the worst-off tenth)", "#ef6c00")].map {
                quantile,
                name,
                color in
                .init(
                    name: name,
                    color: color,
                    points: tally.minutes.indices.compactMap { minute in
                        tally.remainingPercent(minute: minute, quantile: quantile).map {
                            (Double(minute + 1) / 60, Double($0))
                        }
                    }
                )
            }
        ).render()
        html += LineChart(
            title: "Pushes per simulated minute and what the device did with them",
            xLabel: "simulated hours",
            yLabel: "pushes/min",
            series: [
                (BudgetOutcome.shown, "#1a7f37"), (.throttled, "#c62828"), (.coalesced, "#6a1b9a"),
                (.droppedEnded, "#757575"),
            ].map { outcome, color in
                .init(
                    name: outcome.rawValue,
                    color: color,
                    points: tally.minutes.enumerated().map {
                        (Double($0.offset) / 60, Double($0.element.outcomes[outcome.ordinal]))
                    }
                )
            }
        ).render()

        return html
    }

    private func recommendationsHTML(_ recommendations: BudgetRecommendations) -> String {
        var html = "<h2>Recommendations (computed by the model)</h2>"
        html += HTML.grid(
            "The fastest steady priority-10 cadence that never throttles",
            headers: ["activity lives", "frequent updates", "one update every", "updates per hour"],
            rows: recommendations.steadyRates.map {
                [
                    String(format: "%.0f h", Double($0.durationSeconds) / 3600), $0.frequent ? "on" : "off",
                    "\($0.intervalSeconds) s", String(format: "%.1f", $0.perHour),
                ]
            }
        )
        guard let search = recommendations.policy else { return html }
        html += "<p>Cheapest priority policy that shows "
        html += String(format: "%.0f%%", recommendations.requiredShare * 100)
        html += " of key events within \(String(format: "%g", recommendations.keyLagTargetSeconds)) s "
        html += "(searched over \(search.tried) policies on \(recommendations.sampleActivities) activities): "
        if let recommended = search.recommended {
            html += "<b>\(HTML.escape(recommended.summary))</b>, "
            html += String(format: "%.1f priority-10 updates per activity", recommended.p10PerActivity)
            html += "; the scenario's own policy (\(HTML.escape(search.current.summary))) sends "
            html += String(format: "%.1f", search.current.p10PerActivity) + " and shows "
            html += String(format: "%.1f%%", search.current.keyShareWithinTarget * 100) + " within the target.</p>"
        } else {
            html += "<b class=\"bad\">no policy meets it</b>; the best reaches "
            html += String(format: "%.1f%%", search.bestShare * 100) + ".</p>"
        }
        return html
    }

    private func lagSpectrum() -> String {
        LineChart.spectrum(
            title: "Display lag by percentile",
            yLabel: "seconds",
            divisor: 1000,
            series: [
                ("all updates", "#0a66c2", result.tally.lagMs), ("key events", "#c62828", result.tally.keyLagMs),
            ]
        ).render()
    }
}
