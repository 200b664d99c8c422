import LoadEngine
import Pages

/// `hotpath --instructions` on a terminal: each stage's instructions per push and share.
public enum InstructionTable {
    /// The table, then how the count was made.
    public static func render(_ counts: InstructionCounts) -> String {
        let total = counts.totalPerPush
        var table = CSVTable(columns: ["stage", "instructions_per_push", "share_percent", "what it covers"])
        for stage in counts.stages {
            let share = total > 0 ? stage.instructionsPerPush / total * 100 : 0
            table.append([
                stage.stage, String(format: "%.1f", stage.instructionsPerPush), String(format: "%.1f", share),
                PushStage(rawValue: stage.stage)?.summary ?? "",
            ])
        }
        table.append(["total", String(format: "%.1f", total), "100.0", "every stage of one push"])
        return
            (table.alignedLines + [
                "",
                "\(counts.pushes) pushes counted under \(counts.counter) (\(counts.workload)); "
                    + "instructions are user-space only: time in the kernel does not count",
            ]).joined(separator: "\n")
    }
}
