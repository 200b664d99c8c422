import LoadEngine
import Reports

/// `hotpath --instructions` on a terminal: each stage's instructions per push and share.
enum InstructionTable {
    static func render(_ counts: InstructionCounts) -> String {
        let total = counts.totalPerPush
        var rows = [["stage", "instructions_per_push", "share_percent", "what it covers"]]
        for stage in counts.stages {
            let share = total > 0 ? stage.instructionsPerPush / total * 100 : 0
            rows.append([
                stage.stage, String(format: "%.1f", stage.instructionsPerPush), String(format: "%.1f", share),
                PushStage(rawValue: stage.stage)?.summary ?? "",
            ])
        }
        rows.append(["total", String(format: "%.1f", total), "100.0", "every stage of one push"])
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        let lines = rows.map { row in
            (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                + "  " + row[3]
        }
        return
            (lines + [
                "",
                "\(counts.pushes) pushes counted under \(counts.counter) (\(counts.workload)); "
                    + "instructions are user-space only: time in the kernel does not count",
            ]).joined(separator: "\n")
    }
}
