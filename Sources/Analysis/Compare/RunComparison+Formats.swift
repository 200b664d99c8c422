import Foundation
import Pages

extension RunComparison {
    /// The columns: without `p` and `ratio_ci` for instruction counts and budgets, which need no
    /// statistics.
    private var columns: [String] {
        thresholds.mode == .instructions || thresholds.mode == .budget
            ? ["figure", "baseline", "current", "change", "limit", "verdict"]
            : ["figure", "baseline", "current", "change", "p", "ratio_ci", "limit", "verdict"]
    }

    private var rows: [[String]] {
        checks.map {
            thresholds.mode == .instructions || thresholds.mode == .budget
                ? [$0.name, $0.baseline, $0.current, $0.change, $0.limit, $0.verdict.rawValue]
                : [
                    $0.name, $0.baseline, $0.current, $0.change, $0.pValue, $0.ratioInterval, $0.limit,
                    $0.verdict.rawValue,
                ]
        }
    }

    private var headline: String {
        if thresholds.mode == .budget {
            return (passed ? "PASS" : "REGRESSION")
                + ": the budget a sender's policy spends, one analysis a side (the model is deterministic); "
                + "estimates from the model's parameters, not measurements of devices"
        }
        if thresholds.mode == .instructions {
            return (passed ? "PASS" : "REGRESSION")
                + ": instructions per push counted under Valgrind, one count a side (a count does not change "
                + "with the machine's load, so no statistics); a stage fails when it rises beyond its limit"
        }
        let sides =
            "medians of \(baselineRuns) baseline and \(currentRuns) current run(s), \(thresholds.mode.rawValue) mode"
        let alpha = thresholds.alpha.formatted()
        let significance =
            judgesSignificance
            ? "a timing fails only beyond its limit and significant at p < \(alpha) (Mann-Whitney U); "
                + "ratio_ci is the \((100 * (1 - thresholds.alpha)).formatted())% bootstrap interval of current/baseline"
            : "significance not judged: \(baselineRuns) and \(currentRuns) run(s) cannot reach p < \(alpha) "
                + "(\(MannWhitneyTest.runsNeeded(forAlpha: thresholds.alpha)) a side can), "
                + "so the limits are judged on the medians alone"
        return (passed ? "PASS" : "REGRESSION") + ": " + sides + "; " + significance
    }

    /// The table as aligned text for a terminal, then the verdict.
    public var text: String {
        var table = CSVTable(columns: columns)
        for row in rows { table.append(row) }
        return (table.alignedLines + ["", headline]).joined(separator: "\n") + "\n"
    }

    /// The table as a section of a run's `report.html`.
    public var html: String {
        "<h2>Against the baseline</h2>"
            + "<p class=\"\(passed ? "ok" : "bad")\">\(HTML.escape(headline)).</p>"
            + HTML.grid("Each figure against the baseline's", headers: columns, rows: rows)
    }

    /// The table as GitHub-flavoured Markdown, for a pull-request comment.
    public var markdown: String {
        var text = "### pushbench compare: **\(passed ? "PASS" : "REGRESSION")**\n\n"
        text += "| " + columns.joined(separator: " | ") + " |\n"
        text += "|" + String(repeating: "---|", count: columns.count) + "\n"
        for row in rows {
            let cells = row.map { $0.replacingOccurrences(of: "|", with: "\\|") }
            text += "| " + cells.dropLast().joined(separator: " | ") + " | " + Self.mark(row.last ?? "") + " |\n"
        }
        return text + "\n" + headline + "\n"
    }

    private static func mark(_ verdict: String) -> String {
        switch verdict {
        case Verdict.pass.rawValue: "✅ pass"
        case Verdict.fail.rawValue: "❌ fail"
        default: verdict
        }
    }

    /// The judged checks as JUnit XML, a test case each, for CI systems that read test reports.
    public var junitXML: String {
        let judged = checks.filter { $0.verdict != .info }
        let failures = judged.count { $0.verdict == .fail }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuite name=\"pushbench compare\" tests=\"\(judged.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        for check in judged {
            xml += "  <testcase classname=\"pushbench.compare\" name=\"\(Self.escaped(check.name))\""
            guard check.verdict == .fail else {
                xml += "/>\n"
                continue
            }
            var message =
                "\(check.name): baseline \(check.baseline), current \(check.current) \(check.change), limit \(check.limit)"
            if !check.pValue.isEmpty { message += ", p \(check.pValue)" }
            if !check.ratioInterval.isEmpty { message += ", ratio interval \(check.ratioInterval)" }
            xml += ">\n    <failure message=\"\(Self.escaped(message))\"/>\n  </testcase>\n"
        }
        return xml + "</testsuite>\n"
    }

    /// `text` as an XML attribute's value.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
