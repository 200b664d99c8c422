import Budget
import Foundation

/// Checks, before any work, that what a count asks for fits in this machine's memory, so a
/// typo of three zeros ends in one line naming the flag instead of a crash an hour in.
enum MemoryCheck {
    /// Refuses `--activities activities` when the budget model of that many would take more
    /// than three quarters of the machine's memory.
    /// - Parameters:
    ///   - what: what holds them, as the message names it ("the budget model").
    ///   - advice: what to do instead, such as "give fewer, or add --no-budget".
    static func ensureBudgetModel(of activities: Int, needing what: String, advice: String) throws {
        let bytes = Double(activities) * Double(BudgetModel.bytesPerActivity)
        let memory = Double(ProcessInfo.processInfo.physicalMemory)
        guard bytes > memory * 0.75 else { return }
        throw CommandLineError(
            "--activities \(activities): \(what) needs about \(gibibytes(bytes)) for that many, more than this "
                + "machine's \(gibibytes(memory)) of memory allows; \(advice)"
        )
    }

    private static func gibibytes(_ bytes: Double) -> String {
        String(format: bytes >= 10 * 1_073_741_824 ? "%.0f GiB" : "%.1f GiB", bytes / 1_073_741_824)
    }
}
