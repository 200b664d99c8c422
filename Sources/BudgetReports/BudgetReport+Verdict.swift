import Budget
import Foundation

extension BudgetReport {
    /// For a run's budget: which clock the pushes reached the devices on and what that means,
    /// the budget section's first line.
    public var clockSentence: String? {
        guard let feed = result.runFeed else { return nil }
        let name = feed.clock == .scenario ? "the scenario's clock" : "the run's clock (--budget-clock run)"
        return "Modelled on \(name): \(feed.clock.meaning)."
    }

    /// For a run that sent only part of its scenario: which part the budget covers.
    public var coverageSentence: String? {
        guard let feed = result.runFeed, feed.partial else { return nil }
        let covered =
            feed.spanMs.map { "its pushes up to minute \(Self.minutes($0.upperBound))" } ?? "none of its pushes"
        let whole =
            feed.wholeScenario.map {
                " of \(Self.minutes($0.lastEventMs)) (\(result.tally.pushes) accepted of the scenario's \($0.pushes) pushes)"
            } ?? " (\(result.tally.pushes) accepted; the whole scenario was too large to count again)"
        return "The run sent only part of the scenario, so the budget covers \(covered)\(whole); "
            + "later pushes are not modelled."
    }

    /// The budget's verdict in one sentence, for the first screen of a run's report.
    public var verdict: String {
        let tally = result.tally
        let pushes = tally.pushes
        guard pushes > 0 else { return "No push was accepted, so there is nothing to model." }
        var sentence = "\(Self.share(tally.count(.shown), of: pushes)) of \(pushes) accepted pushes shown, "
        sentence += "\(Self.share(tally.count(.throttled), of: pushes)) throttled, "
        sentence += "\(Self.share(tally.count(.coalesced), of: pushes)) coalesced ("
        sentence += "\(result.parameters.name) preset"
        if let feed = result.runFeed { sentence += ", \(feed.clock.rawValue) clock" }
        sentence += "; an estimate)"
        if tally.activitiesThrottled == 0 {
            sentence += "; no activity ran out of priority-10 budget"
        } else {
            sentence += "; \(Self.share(tally.activitiesThrottled, of: tally.activitiesBegun)) of activities ran out"
            if let firstMs = Self.lagPercentilesMs(tally.firstThrottleAfterStartMs)["p50"] {
                sentence += String(format: ", half of them within %.0f min of starting", Double(firstMs) / 60_000)
            }
        }
        if tally.endsNotShown > 0 {
            sentence += "; \(tally.endsNotShown) activities never showed their end and stay on screen"
        }
        return sentence + "."
    }

    /// The budget's line in a run's console summary, with its clock and what it covers.
    public var consoleLine: String {
        let tally = result.tally
        var line = "budget (\(result.parameters.name) preset, "
        if let feed = result.runFeed { line += "\(feed.clock.rawValue) clock, " }
        line += "an estimate): of \(tally.pushes) accepted pushes, \(tally.count(.shown)) shown, "
        line += "\(tally.count(.throttled)) throttled, \(tally.count(.coalesced)) coalesced on the devices"
        if let coverage = coverageSentence { line += "\n  " + coverage }
        return line
    }

    /// `count` as a share of `total`, `94.4%`: how every budget figure reads.
    static func share(_ count: Int, of total: Int) -> String {
        String(format: "%.1f%%", Double(count) * 100 / Double(max(total, 1)))
    }

    /// `ms` of the scenario's clock as a minute, one decimal when it needs one.
    static func minutes(_ ms: Int64) -> String {
        let minutes = Double(ms) / 60_000
        return minutes == minutes.rounded() ? String(format: "%.0f", minutes) : String(format: "%.1f", minutes)
    }
}
