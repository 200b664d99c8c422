/// Where a worker's time goes, stage by stage, so a slow sender shows which part of the hot
/// path to fix.
///
/// Every push is timed on the monotonic clock (a vDSO read, about 20 ns, a few per push: well
/// under 1% of a push's cost). These are wall times on the worker's own thread; on a machine
/// whose cores are busy they include time the thread waited for a core.
public struct StageTimes: Sendable, Equatable {
    /// The stages of a push in the sender core.
    public enum Stage: Int, CaseIterable, Sendable {
        /// The scenario stream producing the next event.
        case workload
        /// Path and `aps` payload bytes.
        case encoding
        /// ES256 signing and provider-token refresh.
        case signing
        /// Handing the request to libcurl.
        case submit
        /// libcurl moving bytes: HTTP/2 framing, TLS, socket calls (waiting excluded).
        case transport
        /// Recording answers and handing accepted pushes on (the budget feed).
        case responses

        /// The stage's name in reports.
        public var name: String {
            switch self {
            case .workload: "workload"
            case .encoding: "encoding"
            case .signing: "signing"
            case .submit: "submit"
            case .transport: "transport"
            case .responses: "responses"
            }
        }
    }

    /// Nanoseconds spent in each stage, indexed by `Stage.rawValue`.
    public private(set) var nanos = [UInt64](repeating: 0, count: Stage.allCases.count)

    /// Creates empty totals.
    public init() {}

    /// Totals restored from a summary, nanoseconds per stage in `Stage` order.
    public init(nanos: [UInt64]) {
        precondition(nanos.count == Stage.allCases.count, "one total per stage")
        self.nanos = nanos
    }

    /// Adds the time from `start` to `end` to `stage`.
    mutating func add(_ stage: Stage, from start: UInt64, to end: UInt64) {
        nanos[stage.rawValue] &+= end &- start
    }

    /// Adds another worker's totals.
    mutating func add(_ other: StageTimes) {
        for index in nanos.indices { nanos[index] &+= other.nanos[index] }
    }

    /// Nanoseconds per push in `stage` over `pushes` pushes.
    public func nanosPerPush(_ stage: Stage, pushes: Int) -> Double {
        pushes > 0 ? Double(nanos[stage.rawValue]) / Double(pushes) : 0
    }

    /// The workers' CPU a push, `cpuNanosPerPush`, shared out among the stages, so that the
    /// stages and `other` add up to it exactly.
    ///
    /// The stages are timed on the wall clock. When their sum is below the CPU, each stage is its
    /// time and `other` is the CPU spent outside them (the loop, waiting for sockets). When it is
    /// above, the threads waited for a core inside the stages (a busy machine), and each stage
    /// gets its share of the CPU in proportion to its time: `scale` says by how much they were cut.
    public func cpuShares(cpuNanosPerPush: Double, pushes: Int) -> CPUShares {
        let wall = Stage.allCases.map { nanosPerPush($0, pushes: pushes) }
        let total = wall.reduce(0, +)
        let cpu = max(0, cpuNanosPerPush)
        guard total > cpu, total > 0 else {
            return CPUShares(stageNanos: wall, otherNanos: cpu - total, scale: 1)
        }
        let scale = cpu / total
        return CPUShares(stageNanos: wall.map { $0 * scale }, otherNanos: 0, scale: scale)
    }

    /// The CPU of a push by stage (`cpuShares`).
    public struct CPUShares: Sendable, Equatable {
        /// Nanoseconds a push, in `Stage` order.
        public let stageNanos: [Double]
        /// The CPU outside every stage, nanoseconds a push.
        public let otherNanos: Double
        /// What the stages' wall times were multiplied by to fit the CPU (1 when they fit).
        public let scale: Double

        /// The whole: the workers' CPU a push.
        public var totalNanos: Double { stageNanos.reduce(0, +) + otherNanos }

        /// `(name, nanoseconds)` for each stage, then `other`.
        public var named: [(name: String, nanos: Double)] {
            zip(Stage.allCases, stageNanos).map { ($0.name, $1) } + [("other", otherNanos)]
        }
    }
}
