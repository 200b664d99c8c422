/// `--help` as one screen a reader starts from: the usage first, the command's purpose and its
/// examples, then each option in a line or two. The long explanations (a command's prose, an
/// option's discussion) stay in the code, so one text is the source, and are shown in full in
/// docs/flags.md, which `make flags-doc` writes from the parser's description of every command.
enum HelpScreen {
    /// The last lines of every help screen: where everything else is, and the environment's
    /// rule, said once.
    static func footer(command: String) -> [String] {
        [
            "Every option in full, and what each is for: docs/flags.md (\(command)).",
            "Any option can be set as PUSHBENCH_<OPTION>, such as PUSHBENCH_REPORTS_DIR=out or PUSHBENCH_QUIET=1;",
            "a repeatable one takes a value a line, and the command line wins.",
        ]
    }

    /// The parser's full help `text` for `command`, made brief: the usage block moved to the top;
    /// the overview cut to its first paragraph and its example commands; each option's
    /// discussion (the lines the parser indents by eight spaces) left out.
    static func brief(_ text: String, command: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let usageStart = lines.firstIndex(where: { $0.hasPrefix("USAGE:") }) else { return text }
        let usageEnd = lines[usageStart...].firstIndex(where: \.isEmpty) ?? lines.endIndex
        let overview = Array(lines[..<usageStart])
        let rest = lines[usageEnd...].filter { !isOptionDiscussion($0) }
        var screen = Array(lines[usageStart..<usageEnd]) + [""]
        screen += overview.prefix { !$0.isEmpty }.map { $0.replacingOccurrences(of: "OVERVIEW: ", with: "") }
        let examples = exampleLines(overview)
        if !examples.isEmpty { screen += ["", "EXAMPLES:"] + examples }
        screen += rest.reduce(into: [String]()) { kept, line in
            if !(line.isEmpty && kept.last?.isEmpty == true) { kept.append(line) }
        }
        if screen.last?.isEmpty == false { screen.append("") }
        screen += footer(command: command)
        return screen.joined(separator: "\n")
    }

    /// An option's discussion: indented by exactly eight spaces, under its option's lines.
    private static func isOptionDiscussion(_ line: String) -> Bool {
        line.hasPrefix("        ") && !line.hasPrefix("         ")
    }

    /// The overview's example commands: lines that start `  pushbench`, and the lines that go on
    /// one ending in `\`.
    private static func exampleLines(_ overview: [String]) -> [String] {
        var examples: [String] = []
        var continues = false
        for line in overview {
            if line.hasPrefix("  pushbench") || (continues && line.hasPrefix("      ")) {
                examples.append(line)
                continues = line.hasSuffix("\\")
            } else {
                continues = false
            }
        }
        return examples
    }
}
