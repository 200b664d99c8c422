import Basics
import Foundation
import Pages
import Transport

/// The outputs of `pushbench hotpath`: the terminal table, the JSON document and the CSV.
package enum HotPathTable {
    /// The schema of `--json`; bump on any change a reader would notice.
    package static let schema = "pushbench.hotpath/1"

    /// One table per allocator (figures by thread count, scaling, ratio to the peer), the
    /// allocators side by side when there are two, and the issue's targets checked.
    package static func render(_ rows: [HotPathRow], sweep: HotPathSweep) -> String {
        var lines: [String] = []
        let allocators = rows.map(\.allocator).reduce(into: [MemoryAllocator]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        for allocator in allocators {
            let mine = rows.filter { $0.allocator == allocator }.sorted { $0.threads < $1.threads }
            lines.append("hot path on \(allocator.rawValue) malloc, \(sweep.seconds) s per figure")
            var header = pad("figure", 38)
            for row in mine { header += pad("\(row.threads) thread\(row.threads == 1 ? "" : "s")", 14, right: true) }
            lines.append(header + pad("scaling", 10, right: true) + "   ratio to peer (1 thread)")
            for name in displayedFigures(sweep) {
                guard mine.contains(where: { $0.values[name] != nil }) else { continue }
                var line = pad(name, 38)
                for row in mine { line += pad(row.values[name].map { figure($0, name: name) } ?? "-", 14, right: true) }
                let stem = name.replacingOccurrences(of: "_per_s", with: "")
                let efficiency = mine.last?.values["\(stem)_scaling_efficiency"]
                line += pad(
                    mine.count > 1 ? efficiency.map { String(format: "%.0f%%", $0 * 100) } ?? "" : "",
                    10,
                    right: true
                )
                if let peer = sweep.measurements.first(where: { "\($0.name)_per_s" == name })?.peer,
                    let ratio = mine.first?.values["\(stem)_vs_\(peer)_ratio"]
                {
                    line += String(format: "   %.2f× %@_per_s", ratio, peer)
                }
                lines.append(line)
            }
            lines.append("")
        }
        if allocators.count == 2, let threads = rows.map(\.threads).max() {
            lines.append(contentsOf: allocatorComparison(rows, allocators: allocators, threads: threads, sweep: sweep))
        }
        lines.append(contentsOf: targets(rows))
        return lines.joined(separator: "\n")
    }

    /// Every figure of every row, for `--json`.
    package static func document(_ rows: [HotPathRow], sweep: HotPathSweep) -> [String: Any] {
        [
            "schema": schema,
            "seconds_per_measurement": sweep.seconds,
            "machine": MachineDescription.currentJSONObject,
            "figures": Dictionary(uniqueKeysWithValues: sweep.measurements.map { ($0.name, $0.summary) }),
            "results": rows.map { row -> [String: Any] in
                var entry: [String: Any] = ["allocator": row.allocator.rawValue, "threads": row.threads]
                for (name, value) in row.values { entry[name] = value }
                return entry
            },
        ]
    }

    /// A `--json` document that is not one this build writes.
    package struct DocumentError: Error, CustomStringConvertible {
        package var description: String
    }

    /// Reads the rows back from a `--json` document (how the parent reads a child's figures).
    package static func rows(fromDocument data: Data) throws -> [HotPathRow] {
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            document["schema"] as? String == schema,
            let results = document["results"] as? [[String: Any]]
        else { throw DocumentError(description: "hot-path figures are not a \(schema) document") }
        return try results.map { entry in
            guard let allocator = (entry["allocator"] as? String).flatMap(MemoryAllocator.init(rawValue:)),
                let threads = entry["threads"] as? Int
            else { throw DocumentError(description: "a hot-path result has no allocator or thread count") }
            let values = entry.compactMapValues { $0 as? Double }.filter { $0.key != "threads" }
            return HotPathRow(allocator: allocator, threads: threads, values: values)
        }
    }

    /// One row per allocator and thread count, every figure a column.
    package static func csv(_ rows: [HotPathRow], sweep: HotPathSweep) -> CSVTable {
        var table = CSVTable(columns: ["allocator", "threads"] + sweep.columns)
        for row in rows {
            table.append(
                [row.allocator.rawValue, "\(row.threads)"] + sweep.columns.map { row.values[$0].map { "\($0)" } ?? "" }
            )
        }
        return table
    }

    private static func displayedFigures(_ sweep: HotPathSweep) -> [String] {
        sweep.columns.filter { $0.hasSuffix("_per_s") }
    }

    private static func allocatorComparison(
        _ rows: [HotPathRow],
        allocators: [MemoryAllocator],
        threads: Int,
        sweep: HotPathSweep
    ) -> [String] {
        let pair = allocators.map { allocator in rows.first { $0.allocator == allocator && $0.threads == threads } }
        guard let first = pair[0], let second = pair[1] else { return [] }
        var lines = [
            "allocators side by side, \(threads) thread\(threads == 1 ? "" : "s")",
            pad("figure", 38) + pad(first.allocator.rawValue, 14, right: true)
                + pad(second.allocator.rawValue, 14, right: true)
                + pad("\(second.allocator.rawValue)/\(first.allocator.rawValue)", 18, right: true),
        ]
        for name in displayedFigures(sweep) where !name.hasPrefix("openssl") {
            guard let a = first.values[name], let b = second.values[name], a > 0 else { continue }
            lines.append(
                pad(name, 38) + pad(figure(a, name: name), 14, right: true)
                    + pad(figure(b, name: name), 14, right: true)
                    + pad(String(format: "%.2f×", b / a), 18, right: true)
            )
        }
        lines.append("")
        return lines
    }

    /// The issue's targets, judged on the one-thread figures of the first allocator.
    private static func targets(_ rows: [HotPathRow]) -> [String] {
        guard let row = rows.first(where: { $0.threads == 1 }) else { return [] }
        var lines = ["targets (1 thread, \(row.allocator.rawValue)):"]
        func judge(_ label: String, _ value: Double?, _ minimum: Double, _ shown: (Double) -> String) {
            guard let value else {
                lines.append("  \(label): not measured")
                return
            }
            lines.append("  \(label): \(shown(value)) \(value >= minimum ? "met" : "MISSED")")
        }
        judge("es256_sign >= 0.90× openssl", row.values["es256_sign_vs_openssl_sign_ratio"], 0.9) {
            String(format: "%.2f×", $0)
        }
        judge("bearer_cached >= 20 M/s", row.values["bearer_cached_per_s"], 20e6) {
            String(format: "%.1f M/s", $0 / 1e6)
        }
        judge(
            "encode_typical >= 10× JSONEncoder",
            row.values["encode_typical_vs_jsonencoder_typical_ratio"],
            10
        ) { String(format: "%.1f×", $0) }
        judge("device_token >= 20 M/s", row.values["device_token_per_s"], 20e6) {
            String(format: "%.1f M/s", $0 / 1e6)
        }
        return lines
    }

    private static func figure(_ value: Double, name: String) -> String {
        if name.hasSuffix("_mb_per_s") { return String(format: "%.1f", value) }
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 0
        return formatter.string(from: NSNumber(value: value.rounded())) ?? "\(Int(value))"
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let gap = String(repeating: " ", count: max(1, width - text.count))
        return right ? gap + text : text + gap
    }
}
