import BudgetReports
import Foundation
import Reports

/// The figures of one budget analysis (`budget_summary.json`) a budget gate judges: what a
/// sender's update policy spends of the devices' budget, and what its users see for it.
public struct BudgetFigures: Sendable, Equatable {
    /// What was analysed: the scenario or run, and its activities.
    public var input: String
    /// Priority-10 pushes per activity-hour.
    public var p10PerActivityHour: Double
    /// Activities throttled at least once, as a share of those begun (0 to 1).
    public var throttledShare: Double
    /// Key events shown within `keyLagTargetSeconds`, as a share of all key events (0 to 1).
    public var keyEventsWithinTargetShare: Double
    public var keyLagTargetSeconds: Double
    /// The model's parameters, `name=value` by name, for the report: figures of other
    /// parameters differ.
    public var parameters: [String: String]
    /// What was analysed, to refuse comparing unlike inputs: its kind and activities, and the
    /// scenario's name (two recordings of one sender's traffic compare whatever their paths).
    public var workload: ComparedWorkload?

    public init(
        input: String,
        p10PerActivityHour: Double,
        throttledShare: Double,
        keyEventsWithinTargetShare: Double,
        keyLagTargetSeconds: Double,
        parameters: [String: String]
    ) {
        self.input = input
        self.p10PerActivityHour = p10PerActivityHour
        self.throttledShare = throttledShare
        self.keyEventsWithinTargetShare = keyEventsWithinTargetShare
        self.keyLagTargetSeconds = keyLagTargetSeconds
        self.parameters = parameters
    }

    /// Reads `path`, a `budget_summary.json` or the folder holding one, through `BudgetSummary`.
    /// - Throws: `ComparisonError` naming the file and what is wrong with it.
    public init(contentsOf path: String) throws {
        let (file, object) = Self.summary(at: path)
        guard let object, let data = FileManager.default.contents(atPath: file) else {
            throw ComparisonError("cannot read \(file) as a budget summary")
        }
        guard object["kind"] as? String == "budget" else {
            throw ComparisonError("\(file) is not a budget summary (pushbench budget writes budget_summary.json)")
        }
        let summary: BudgetSummary
        do {
            summary = try BudgetSummary(decoding: data)
        } catch {
            throw ComparisonError(
                "\(file) is not a budget summary this pushbench reads (\(Self.describe(error))): analyse again"
            )
        }
        self.init(
            input: "\(summary.input.name), \(summary.input.activities) activities",
            p10PerActivityHour: summary.spent.p10PerActivityHour,
            throttledShare: summary.activities.throttledShare,
            keyEventsWithinTargetShare: summary.spent.keyEventsWithinTargetShare,
            keyLagTargetSeconds: summary.spent.keyLagTargetS,
            parameters: summary.parameters.byName
        )
        let input = summary.input
        workload = ComparedWorkload(
            parts: [("input", input.kind), ("activities", String(input.activities))]
                + (input.kind == "scenario" ? [("scenario", input.name)] : [])
        )
    }

    /// What a decoding error says is missing or wrong, as a key path.
    private static func describe(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "no '\((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))'"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
            return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    /// Whether `path` holds (or is the folder of) a budget summary.
    public static func isBudgetSummary(_ path: String) -> Bool {
        // A run's or a profile's folder holds its budget's files too: it is judged as a run.
        let runSummary = (path as NSString).appendingPathComponent("summary.json")
        guard !FileManager.default.fileExists(atPath: runSummary) else { return false }
        return summary(at: path).object?["kind"] as? String == "budget"
    }

    /// The summary file `path` names (itself, or `budget_summary.json` in the folder it is), and
    /// its JSON object if it has one.
    private static func summary(at path: String) -> (file: String, object: [String: Any]?) {
        var isDirectory: ObjCBool = false
        let file =
            FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? (path as NSString).appendingPathComponent("budget_summary.json") : path
        let object = FileManager.default.contents(atPath: file).flatMap {
            (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any]
        }
        return (file, object)
    }
}
