import Foundation

/// The pieces every PushBench page shares: escaping, tables, and one stylesheet, so the run
/// report and the budget report look alike and stay self-contained.
package enum HTML {
    /// A whole page: inline CSS, nothing fetched, printable.
    package static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <title>\(escape(title))</title>
        <style>
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:960px;color:#1d1d1f;padding:0 16px}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
        .sub{color:#555}.cards{display:flex;flex-wrap:wrap;gap:10px;margin:16px 0}
        .card{border:1px solid #ddd;border-radius:8px;padding:8px 14px;min-width:120px}
        .card b{display:block;font-size:20px}.card span{color:#555;font-size:12px}
        .ok{color:#1a7f37}.bad{color:#c62828}.failed{color:#c62828;background:#fdecea;border-left:4px solid #c62828;padding:8px 12px}.note{background:#fff8e1;border-left:3px solid #f9a825;padding:6px 10px}
        table{border-collapse:collapse;margin:8px 0 16px;min-width:50%}caption{text-align:left;font-weight:600;padding:4px 0}
        th,td{border-bottom:1px solid #eee;padding:3px 10px;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
        svg{width:100%;height:auto;max-width:720px;display:block;margin:8px 0}
        .axis{stroke:#333}.grid{stroke:#eee}.band{fill:#fde2e1}.tick{font-size:11px;fill:#444}.label{font-size:12px;fill:#222}.title{font-size:13px;font-weight:600}
        code{background:#f5f5f7;padding:1px 4px;border-radius:4px}
        .headline{list-style:none;padding:0;margin:12px 0}.headline li{margin:4px 0}.headline b{display:inline-block;min-width:64px;text-transform:uppercase;font-size:11px;letter-spacing:.04em}
        .clock{background:#e8f1fb;border-left:3px solid #0a66c2;padding:6px 10px}
        svg.flame{max-width:none;margin:4px 0 12px}.fb{cursor:pointer}.fb rect{stroke:#fff;stroke-width:.5}.fb:hover rect{stroke:#000}
        .fb text{font:11px monospace;fill:#111;pointer-events:none}.flame-tools{margin:8px 0}.flame-tools input{width:220px}
        .legend span{margin-right:12px;white-space:nowrap}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
        @media print{body{margin:0}.card{break-inside:avoid}}
        </style></head><body>
        \(body)</body></html>

        """
    }

    /// A headline figure.
    package static func card(_ value: String, _ label: String) -> String {
        "<div class=\"card\"><b>\(escape(value))</b><span>\(escape(label))</span></div>"
    }

    /// A table whose first column labels the row and whose other columns are numbers.
    package static func grid(_ caption: String, headers: [String], rows: [[String]]) -> String {
        guard !rows.isEmpty else { return "" }
        var html = "<table><caption>\(escape(caption))</caption><tr>"
        html += headers.map { "<th>\(escape($0))</th>" }.joined() + "</tr>"
        for row in rows {
            html +=
                "<tr>"
                + row.enumerated().map { index, cell in
                    index == 0 ? "<td>\(escape(cell))</td>" : "<td class=\"num\">\(escape(cell))</td>"
                }.joined() + "</tr>"
        }
        return html + "</table>\n"
    }

    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    /// An instant as ISO 8601 in UTC, as every page's subtitle gives its start.
    package static func utc(_ unix: Double) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: unix))
    }

    /// A two-column table of label and value rows.
    package static func table(_ caption: String, _ rows: [(String, String)], headers: (String, String)) -> String {
        guard !rows.isEmpty else { return "" }
        var html = "<table><caption>\(escape(caption))</caption>"
        html += "<tr><th>\(escape(headers.0))</th><th>\(escape(headers.1))</th></tr>"
        for (label, value) in rows {
            html += "<tr><td>\(escape(label))</td><td class=\"num\">\(escape(value))</td></tr>"
        }
        return html + "</table>\n"
    }
}
