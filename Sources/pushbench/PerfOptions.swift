import ArgumentParser
import Foundation
import LoadEngine
import Sampling

/// `--perf`: where the sender's CPU goes, sampled with perf, for `run` (PushBench's own
/// workers) and `profile` (the sender and every process it starts).
struct PerfOptions: ParsableArguments {
    @Flag(
        name: .customLong("perf"),
        help: ArgumentHelp(
            "Sample the sender's call stacks with perf and draw where its CPU went.",
            discussion: """
                perf (Debian's linux-perf) samples every CPU at 997 Hz (cpu-clock, frame-pointer \
                stacks) and keeps the sender's samples: a run's worker threads, not its embedded \
                mock's; a profile's sender and every process it starts. The report gets a flame \
                graph, the 20 functions with the most self time, and the CPU's shares by class of \
                code (kernel, TLS and crypto, JSON, HTTP/2, runtime and allocator, the sender's own \
                code), which summary.json and compare carry; the stacks go to stacks.folded. perf \
                needs root, CAP_PERFMON or kernel.perf_event_paranoid at most 0: without it, or \
                without perf, one line says so and the work goes on unsampled.
                """
        )
    )
    var enabled = false

    /// Starts sampling when asked to, saying so, or why it cannot, in one line.
    func start() -> Result<PerfRecording, PerfUnavailable>? {
        enabled ? PerfRecording.start { Console.err($0) } : nil
    }

    /// A run's stacks, once it is done: its worker threads' samples, as one sender. Stops perf
    /// either way.
    static func workerStacks(
        _ sampling: Result<PerfRecording, PerfUnavailable>?,
        threads: Int
    ) -> Result<StackProfile, PerfUnavailable>? {
        sampling?.flatMap {
            $0.finish(following: getpid(), scope: "pushbench's \(threads) worker thread(s)") {
                $0.hasPrefix(WorkerThreadName.prefix) ? "pushbench" : nil
            }
        }
    }

    /// The line the console gets for sampled stacks: how many, and the shares by class.
    static func summaryLine(_ sampling: Result<StackProfile, PerfUnavailable>) -> String {
        switch sampling {
        case .failure(let unavailable):
            return "--perf: \(unavailable)"
        case .success(let profile):
            let shares = profile.stacks.shares
            return "where the CPU went (\(profile.stacks.totalSamples) samples): "
                + CPUShare.allCases.filter { (shares[$0] ?? 0) >= 0.05 }.map {
                    "\($0.title) " + String(format: "%.1f%%", shares[$0] ?? 0)
                }.joined(separator: ", ")
        }
    }
}
