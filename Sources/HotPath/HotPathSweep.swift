import Wire

/// The figures of one allocator at one thread count, keyed by column name (units in the name).
public struct HotPathRow: Sendable {
    /// The allocator the figures were measured on.
    public var allocator: MemoryAllocator
    /// How many threads ran each measurement.
    public var threads: Int
    /// `<figure>_per_s`, `<figure>_mb_per_s`, `openssl_sign_per_s`, ratios and efficiencies.
    public var values: [String: Double]

    /// Creates a row.
    public init(allocator: MemoryAllocator, threads: Int, values: [String: Double]) {
        self.allocator = allocator
        self.threads = threads
        self.values = values
    }
}

/// Runs every `HotPathMeasurement` for 1...N threads and derives the ratios to their peers and
/// the scaling efficiency.
public struct HotPathSweep {
    /// The measurements, in report order.
    public let measurements: [HotPathMeasurement]
    /// Seconds each measurement runs for, per thread count.
    public let seconds: Double

    /// Creates a sweep of every measurement (or of those named in `only`), signing with `key`.
    public init(key: ES256PrivateKey, seconds: Double, only: Set<String>? = nil) {
        measurements = HotPathMeasurement.all(key: key).filter { only?.contains($0.name) ?? true }
        self.seconds = seconds
    }

    /// The column names of a row, in report order.
    public var columns: [String] {
        var names: [String] = []
        for measurement in measurements {
            names.append("\(measurement.name)_per_s")
            if measurement.reportsBytes { names.append("\(measurement.name)_mb_per_s") }
            if let peer = measurement.peer { names.append("\(measurement.name)_vs_\(peer)_ratio") }
            names.append("\(measurement.name)_scaling_efficiency")
        }
        names.insert("openssl_sign_per_s", at: 1)
        return names
    }

    /// Measures on this process's allocator for each of `threadCounts`.
    ///
    /// - Parameters:
    ///   - openssl: `openssl speed`'s sign/s by thread count, from `OpenSSLSpeed`; rows without
    ///     one have no ratio for the signer.
    ///   - progress: told the name and thread count before each measurement.
    public func run(
        threadCounts: [Int],
        openssl: [Int: Double],
        progress: (String, Int) -> Void
    ) throws -> [HotPathRow] {
        var rows: [HotPathRow] = []
        for threads in threadCounts {
            var values: [String: Double] = [:]
            if let reference = openssl[threads] { values["openssl_sign_per_s"] = reference }
            for measurement in measurements {
                progress(measurement.name, threads)
                let rate = try ThroughputProbe.measure(
                    threads: threads,
                    seconds: seconds,
                    makeOperation: measurement.makeOperation
                )
                values["\(measurement.name)_per_s"] = rate.operationsPerSecond
                if measurement.reportsBytes { values["\(measurement.name)_mb_per_s"] = rate.bytesPerSecond / 1e6 }
            }
            rows.append(HotPathRow(allocator: MemoryAllocator.current, threads: threads, values: values))
        }
        return withRatios(rows)
    }

    /// Adds each figure's ratio to its peer and its scaling efficiency, rate(n) / (n × rate(1)),
    /// to `rows` of one allocator (again, after a peer figure was added).
    public func withRatios(_ rows: [HotPathRow]) -> [HotPathRow] {
        let single = rows.first { $0.threads == 1 }
        return rows.map { row in
            var row = row
            for measurement in measurements {
                let figure = "\(measurement.name)_per_s"
                guard let rate = row.values[figure] else { continue }
                if let peer = measurement.peer, let peerRate = row.values["\(peer)_per_s"], peerRate > 0 {
                    row.values["\(measurement.name)_vs_\(peer)_ratio"] = rate / peerRate
                }
                if let base = single?.values[figure], base > 0 {
                    row.values["\(measurement.name)_scaling_efficiency"] = rate / (Double(row.threads) * base)
                }
            }
            return row
        }
    }
}
