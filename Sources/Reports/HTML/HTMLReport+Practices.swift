import LoadEngine
import Pages

extension HTMLReport {
    /// "Mistakes made on purpose": the run's `--practice`s beside what they cost in this run,
    /// so a team sees the price of a mistake before making it. Throughput lost is read against
    /// a run without them (`--baseline`, whose comparison the page shows above).
    func practiceSection() -> String {
        let practices = result.configuration.practices
        guard !practices.isEmpty else { return "" }
        let counts = result.counts
        let tokenRefusals = ["TooManyProviderTokenUpdates", "ExpiredProviderToken", "InvalidProviderToken"].compactMap {
            reason in result.rejectedByReason[reason].map { "\($0) \(reason)" }
        }
        var rows: [(String, String)] = [
            ("practices", practices.map(\.description).joined(separator: ", ")),
            ("provider token refusals", tokenRefusals.isEmpty ? "none" : tokenRefusals.joined(separator: ", ")),
            ("rejected, all reasons", "\(counts.rejected) of \(counts.sent) sent"),
            (
                "retries sent",
                "\(result.retries.attempts.sent), \(result.retries.attempts.rejected) of them refused again"
            ),
            (
                "connections opened",
                "\(result.connectionAttempts) for \(result.configuration.transport.connections) configured"
            ),
            ("successes per second", String(format: "%.0f", result.successesPerSecond)),
            ("engine CPU per request", String(format: "%.1f µs", result.engineCPUMicrosPerRequest)),
        ]
        if let budget {
            let tally = budget.result.tally
            rows.append(
                ("updates the devices would drop (budget)", "\(tally.count(.throttled)) throttled of \(tally.pushes)")
            )
        }
        let doctor =
            context.practices.map { practices in
                "<p>The sender doctor, on what the embedded mock received: \(HTML.escape(practices.verdict)).</p>"
                    + HTML.grid(
                        "The doctor's findings, most pushes affected first",
                        headers: ["practice", "finding", "evidence", "cost"],
                        rows: practices.findings.map { [$0.practice, $0.title, $0.evidence, $0.cost] }
                    )
            } ?? ""
        return "<h2>Mistakes made on purpose</h2>"
            + HTML.table(
                "This run made these sender mistakes (--practice), and paid this for them",
                rows,
                headers: ("", "")
            )
            + doctor
            + "<p class=\"note\">Run the same command without --practice as a --baseline to read the throughput "
            + "lost. Against an endpoint, <code>pushbench mock --report</code> runs the sender doctor on the server side.</p>"
    }
}
