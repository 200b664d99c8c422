import Foundation
import TestSupport
import XCTest

/// A scrape of a `/metrics`: each sample line's value by its name and labels as written.
struct PrometheusScrape {
    var samples: [String: Double] = [:]
    /// The families declared (`# TYPE`), by name, with their type.
    private(set) var types: [String: String] = [:]

    init(_ text: String) throws {
        var declared: (name: String, type: String)?
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("# HELP ") { continue }
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ").map(String.init)
                declared = (parts[2], parts[3])
                types[parts[2]] = parts[3]
                continue
            }
            let family = try XCTUnwrap(declared, "a sample before any TYPE: \(line)")
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let suffixes = family.type == "histogram" ? ["_bucket", "_sum", "_count"] : [""]
            XCTAssertTrue(suffixes.contains { family.name + $0 == name }, "\(line) under \(family.name)")
            let value = try XCTUnwrap(Double(line.split(separator: " ").last ?? ""), line)
            samples[String(line[..<line.lastIndex(of: " ")!])] = value
        }
    }

    /// The sample of `name` with `labels` after the run's own (`run`, `shard`).
    func value(_ name: String, _ labels: String = "", run: String) -> Double? {
        samples["\(name){run=\"\(run)\",shard=\"0\"\(labels.isEmpty ? "" : "," + labels)}"]
    }

    /// Every sample of `name`, summed.
    func total(_ name: String) -> Double {
        samples.filter { $0.key.hasPrefix(name + "{") }.values.reduce(0, +)
    }

    /// `url` scraped by curl; `nil` when nothing answered.
    static func fetch(_ url: String) throws -> PrometheusScrape? {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let output = try curl.run(["-sS", "--fail", "--max-time", "5", url])
        return output.status == 0 ? try PrometheusScrape(output.stdout) : nil
    }
}
