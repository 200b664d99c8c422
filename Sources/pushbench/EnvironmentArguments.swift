import ArgumentParser
import Foundation

/// Options set in the environment: `PUSHBENCH_<OPTION>` (`PUSHBENCH_ACTIVITIES=2000`,
/// `PUSHBENCH_REPORTS_DIR=out`, `PUSHBENCH_QUIET=1`) stands for `--<option>` of the command being
/// run, as a CI job or a container sets its configuration. The command line wins: a variable of
/// an option the command line gives is ignored.
///
/// The options are read from the parser's own description of each command, so every option of
/// every command takes part and no list is kept by hand. `--help` and `--version` never do:
/// `PUSHBENCH_VERSION` is a common variable of CI files that means something else.
enum EnvironmentArguments {
    /// The prefix of every such variable.
    static let prefix = "PUSHBENCH_"

    /// `arguments` (without the program's name) with the options `environment` sets for the
    /// command they name added before any `--`.
    /// - Throws: `ValidationError` for a flag's variable that is neither true nor false.
    static func applied(to arguments: [String], environment: [String: String]) throws -> [String] {
        let variables = environment.filter { $0.key.hasPrefix(prefix) }
        guard !variables.isEmpty, let command = command(named: arguments) else { return arguments }
        let terminator = arguments.firstIndex(of: "--") ?? arguments.endIndex
        let given = Set(
            arguments[..<terminator].map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? $0 }
        )
        var added: [String] = []
        for option in options(of: command) where !option.names.contains(where: given.contains) {
            guard let value = variables[option.variable] else { continue }
            added += try option.arguments(for: value)
        }
        var result = arguments
        result.insert(contentsOf: added, at: terminator)
        return result
    }

    /// One option of a command, as the environment can set it.
    struct Option: Equatable {
        /// `--long` and `-s` spellings, as a command line would give them.
        var names: [String]
        /// `PUSHBENCH_LONG_NAME`.
        var variable: String
        var isFlag: Bool
        var isRepeating: Bool

        /// The arguments `value` stands for: a flag's name when true, nothing when false; an
        /// option's name and value, once per line for a repeatable one.
        func arguments(for value: String) throws -> [String] {
            let long = names[0]
            guard isFlag else {
                let values = isRepeating ? value.split(separator: "\n").map(String.init) : [value]
                return values.flatMap { [long, $0] }
            }
            switch value.lowercased() {
            case "1", "true", "yes", "on": return [long]
            case "0", "false", "no", "off", "": return []
            default:
                throw ValidationError("\(variable)=\(value): \(long) is a flag; set it to 1 or true, 0 or false")
            }
        }
    }

    /// The parser's description of the (sub)command `arguments` name, `run` for none.
    private static func command(named arguments: [String]) -> [String: Any]? {
        guard let data = PushBench._dumpHelp().data(using: .utf8),
            let tool = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            var command = tool["command"] as? [String: Any]
        else { return nil }
        var rest = arguments[...]
        var descended = false
        while let subcommands = command["subcommands"] as? [[String: Any]],
            let next = rest.first.flatMap({ name in subcommands.first { $0["commandName"] as? String == name } })
        {
            command = next
            rest = rest.dropFirst()
            descended = true
        }
        return descended ? command : nil
    }

    /// The options and flags of `command` that a variable can set.
    static func options(of command: [String: Any]) -> [Option] {
        let excluded: Set<String> = ["help", "version", "experimental-dump-help"]
        return (command["arguments"] as? [[String: Any]] ?? []).compactMap { argument in
            guard let kind = argument["kind"] as? String, kind == "option" || kind == "flag",
                let names = argument["names"] as? [[String: Any]],
                let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                !excluded.contains(long)
            else { return nil }
            let spellings = names.compactMap { name -> String? in
                guard let text = name["name"] as? String else { return nil }
                return (name["kind"] as? String == "long" ? "--" : "-") + text
            }
            return Option(
                names: ["--" + long] + spellings.filter { $0 != "--" + long },
                variable: prefix + long.uppercased().replacingOccurrences(of: "-", with: "_"),
                isFlag: kind == "flag",
                isRepeating: argument["isRepeating"] as? Bool ?? false
            )
        }
    }
}
