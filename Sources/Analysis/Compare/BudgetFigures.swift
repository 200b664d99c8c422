import Foundation

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

    /// Reads `path`, a `budget_summary.json` or the folder holding one.
    /// - Throws: `ComparisonError` naming the file and what is missing.
    public init(contentsOf path: String) throws {
        let (file, read) = Self.summary(at: path)
        guard let object = read else { throw ComparisonError("cannot read \(file) as a budget summary") }
        guard object["kind"] as? String == "budget" else {
            throw ComparisonError("\(file) is not a budget summary (pushbench budget writes budget_summary.json)")
        }
        guard let spent = object["spent"] as? [String: Any], let p10 = spent["p10_per_activity_hour"] as? Double,
            let keyShare = spent["key_events_within_target_share"] as? Double,
            let target = spent["key_lag_target_s"] as? Double,
            let activities = object["activities"] as? [String: Any],
            let throttled = activities["throttled_share"] as? Double
        else {
            throw ComparisonError("\(file) has no 'spent' figures: it was written by an older pushbench; analyse again")
        }
        let input = object["input"] as? [String: Any] ?? [:]
        let parameters = object["parameters"] as? [String: Any] ?? [:]
        self.init(
            input: "\(input["name"] ?? "?"), \(input["activities"] ?? "?") activities",
            p10PerActivityHour: p10,
            throttledShare: throttled,
            keyEventsWithinTargetShare: keyShare,
            keyLagTargetSeconds: target,
            parameters: parameters.filter { $0.key != "source" }.mapValues { "\($0)" }
        )
    }

    /// Whether `path` holds (or is the folder of) a budget summary.
    public static func isBudgetSummary(_ path: String) -> Bool {
        summary(at: path).object?["kind"] as? String == "budget"
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
