import Sampling

extension RunSummary {
    /// Where the sender's CPU went, sampled with perf (`--perf`; absent before 0.4): the shares
    /// by class of code that `compare` sets side by side, and the functions with the most self
    /// time. The stacks themselves are in `stacks.folded` beside the summary.
    public struct CPUSamples: Codable, Sendable, Equatable {
        /// Samples a second on each CPU, and samples of the sender in all.
        public var frequencyHz: Int
        public var samples: Int
        /// Whose stacks they are.
        public var scope: String
        /// CPU perf itself used while sampling, seconds.
        public var perfCPUS: Double
        /// Percent of the samples by class of the code running (keys: `kernel`, `tls_crypto`,
        /// `json`, `http2`, `runtime_allocator`, `sender_code`, `other`).
        public var sharesPercent: [String: Double]
        /// The 20 functions with the most self time, most first.
        public var topSelf: [FunctionShare]

        /// A function's share of the samples.
        public struct FunctionShare: Codable, Sendable, Equatable {
            /// The function (demangled) and its library's file name.
            public var function: String
            public var library: String
            /// Percent of samples with it as the leaf, and with it anywhere on the stack.
            public var selfPercent: Double
            public var totalPercent: Double

            enum CodingKeys: String, CodingKey {
                case function, library
                case selfPercent = "self_percent"
                case totalPercent = "total_percent"
            }
        }

        enum CodingKeys: String, CodingKey {
            case frequencyHz = "frequency_hz"
            case samples, scope
            case perfCPUS = "perf_cpu_s"
            case sharesPercent = "shares_percent"
            case topSelf = "top_self"
        }

        /// The summary of `profile`.
        public init(_ profile: StackProfile) {
            let total = profile.stacks.totalSamples
            frequencyHz = profile.frequencyHz
            samples = total
            scope = profile.scope
            perfCPUS = profile.perfCPUSeconds
            sharesPercent = Dictionary(uniqueKeysWithValues: profile.stacks.shares.map { ($0.key.rawValue, $0.value) })
            topSelf = profile.stacks.topBySelfTime(20).map {
                FunctionShare(
                    function: $0.frame.function,
                    library: $0.frame.library,
                    selfPercent: Double($0.selfSamples) * 100 / Double(max(total, 1)),
                    totalPercent: Double($0.totalSamples) * 100 / Double(max(total, 1))
                )
            }
        }
    }
}
