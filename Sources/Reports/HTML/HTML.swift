/// Escaping for text placed in HTML.
enum HTML {
    static func escape(_ text: String) -> String {
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

    /// A two-column table of label and value rows.
    static func table(_ caption: String, _ rows: [(String, String)], headers: (String, String)) -> String {
        guard !rows.isEmpty else { return "" }
        var html = "<table><caption>\(escape(caption))</caption>"
        html += "<tr><th>\(escape(headers.0))</th><th>\(escape(headers.1))</th></tr>"
        for (label, value) in rows {
            html += "<tr><td>\(escape(label))</td><td class=\"num\">\(escape(value))</td></tr>"
        }
        return html + "</table>\n"
    }
}
