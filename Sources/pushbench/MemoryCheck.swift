import Budget
import Foundation

/// Checks, before any work, that what a count asks for fits in this machine's memory, so a
/// typo of three zeros ends in one line naming the flag instead of a crash an hour in.
enum MemoryCheck {
    /// Refuses `flag value` when `bytes` is more than three quarters of the machine's memory.
    /// - Parameter advice: what to do instead, such as "use fewer activities or --no-budget".
    static func ensure(_ bytes: Double, flag: String, value: Int, needing what: String, advice: String) throws {
        let memory = Double(ProcessInfo.processInfo.physicalMemory)
        guard bytes > memory * 0.75 else { return }
        throw CommandLineError(
            "\(flag) \(value): \(what) needs about \(gibibytes(bytes)) for that many, more than this machine's "
                + "\(gibibytes(memory)) of memory allows; \(advice)"
        )
    }

    /// Refuses `--activities activities` when the budget model of that many would not fit.
    static func ensureBudgetModel(of activities: Int, needing what: String, advice: String) throws {
        try ensure(
            Double(activities) * Double(BudgetModel.bytesPerActivity),
            flag: "--activities",
            value: activities,
            needing: what,
            advice: advice
        )
    }

    private static func gibibytes(_ bytes: Double) -> String {
        String(format: bytes >= 10 * 1_073_741_824 ? "%.0f GiB" : "%.1f GiB", bytes / 1_073_741_824)
    }
}
