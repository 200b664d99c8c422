import Pages

extension HTML {
    /// A page's first screen: one sentence per question, its topic marked good or bad news.
    package static func headline(_ lines: [RunHeadline.Line]) -> String {
        "<ul class=\"headline\">"
            + lines.map { line in
                let mark = line.good.map { $0 ? " class=\"ok\"" : " class=\"bad\"" } ?? ""
                return "<li><b\(mark)>\(escape(line.topic))</b> \(escape(line.sentence))</li>"
            }.joined() + "</ul>"
    }
}
