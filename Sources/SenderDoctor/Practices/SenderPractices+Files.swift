import Foundation
import Pages

extension SenderPractices {
    /// `practices.json`: the findings, most costly first, and the figures the checks read, in
    /// snake case with units in the names.
    public func json() -> Data {
        struct Document: Encodable {
            var findings: [Finding]
            var figures: Figures
            var verdict: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let document = Document(findings: findings, figures: figures, verdict: verdict)
        return (try? encoder.encode(document)) ?? Data("{}".utf8)
    }

    /// The verdict in a line, for the mock's stop line and the page.
    public var verdict: String {
        guard !findings.isEmpty else { return "no costly practice found in \(figures.pushes.formatted()) pushes" }
        return "\(findings.count) finding\(findings.count == 1 ? "" : "s"): "
            + findings.map(\.practice).joined(separator: ", ")
    }

    /// The report page's "Sender practices" section.
    func htmlSection() -> String {
        var section = "<h2>Sender practices</h2>\n<p class=\"sub\">\(HTML.escape(verdict)).</p>\n"
        guard !findings.isEmpty else {
            section += "<p class=\"note\">None of the checks in <code>docs/sender-doctor.md</code> found a costly "
            section +=
                "practice: tokens, connections, streams, retries, priorities, expiry and payloads look right.</p>\n"
            return section
        }
        section += HTML.grid(
            "Findings, most pushes affected first",
            headers: ["practice", "finding", "evidence", "cost", "instead"],
            rows: findings.map { [$0.practice, $0.title, $0.evidence, $0.cost, $0.advice] }
        )
        return section
    }
}
