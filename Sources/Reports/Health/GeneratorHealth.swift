import Foundation
import LoadEngine

/// What the sender knows about itself after a run: whether it, rather than the target, set the
/// pace, and where its time went. Every report says it in the same words.
enum GeneratorHealth {
    /// One sentence: who limited the run, with the figures that say so.
    static func verdict(_ result: RunResult) -> String {
        let busy = String(format: "%.0f%%", result.workerBusyShare * 100)
        let lateP99Ms = Double(result.scheduleLag.valueAtPercentile(99)) / 1000
        if result.senderLimited {
            return "the sender limited this run: its \(result.configuration.threads) worker(s) were on a CPU \(busy) "
                + "of the time, so the target could have taken more (add --threads or cores; the stages below say "
                + "where the time went)"
        }
        if result.counts.succeeded == 0 {
            return "no pace to judge: no push succeeded (the sender's workers were on a CPU \(busy) of the time)"
        }
        guard result.configuration.pacing.isOpenLoop else {
            return "the target set the pace: the sender's workers were on a CPU \(busy) of the time"
        }
        if lateP99Ms > 10 {
            return String(format: "pushes left late (p99 %.0f ms) while the workers were on a CPU only ", lateP99Ms)
                + "\(busy) of the time: every stream was busy, so the target (or too few --connections × --streams) "
                + "held the schedule back"
        }
        return String(format: "the schedule set the pace: pushes left on time (p99 %.2f ms late); ", lateP99Ms)
            + "the sender (workers on a CPU \(busy) of the time) and the target kept up with it"
    }

    /// The workers' CPU a push shared out among the stages (`StageTimes.cpuShares`), so the
    /// stages and `other` add up to the CPU.
    static func stageShares(_ result: RunResult) -> StageTimes.CPUShares {
        result.stageTimes.cpuShares(
            cpuNanosPerPush: result.engineCPUMicrosPerRequest * 1000,
            pushes: result.counts.sent
        )
    }

    /// Each stage's CPU a push, `other`, and the workers' CPU a push they add up to.
    static func stageRows(_ result: RunResult) -> [(String, String)] {
        let shares = stageShares(result)
        return shares.named.map { ($0.name, String(format: "%.2f µs", $0.nanos / 1000)) } + [
            ("worker CPU (the sum)", String(format: "%.2f µs", shares.totalNanos / 1000))
        ]
    }

    /// What the stage rows are, in words: the CPU by stage, and when the stages' wall times had to
    /// be cut to fit it, by how much and why.
    static func stageNote(_ result: RunResult) -> String {
        let shares = stageShares(result)
        guard shares.scale < 1 else {
            return "CPU a push by stage; other is the CPU outside the stages"
        }
        return String(
            format: "CPU a push by stage: the stages' wall times (%.2f µs) were cut to %.0f%% to fit the CPU, "
                + "as the workers waited for a core inside them",
            shares.totalNanos / shares.scale / 1000,
            shares.scale * 100
        )
    }

    /// `stage_ns_per_push` of summary.json.
    static func stageNanosPerPush(_ result: RunResult) -> [String: Double] {
        Dictionary(
            uniqueKeysWithValues: StageTimes.Stage.allCases.map {
                ($0.name, (result.stageTimes.nanosPerPush($0, pushes: result.counts.sent) * 10).rounded() / 10)
            }
        )
    }
}
