import Foundation
import TestSupport
import XCTest

/// `pushbench hotpath` as a user (or a CI job reading its JSON) runs it.
final class HotpathCommandTests: PushbenchTestCase {
    func testFiguresComeOutAsATableJSONAndCSVWithUnitsInTheirNames() throws {
        let json = directory.path + "/hotpath.json"
        let csv = directory.path + "/hotpath.csv"
        let output = try pushbench.run([
            "hotpath", "--threads", "2", "--seconds", "50ms", "--openssl-seconds", "1s", "--allocator", "glibc",
            "--only", "es256_sign,bearer_cached,encode_typical,jsonencoder_typical", "--json", json, "--csv", csv,
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("es256_sign_per_s"), output.stdout)
        XCTAssertTrue(output.stdout.contains("targets (1 thread, glibc)"), output.stdout)

        let document = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        )
        XCTAssertEqual(document["schema"] as? String, "pushbench.hotpath/1")
        let results = try XCTUnwrap(document["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["threads"] as? Int }, [1, 2])
        for row in results {
            XCTAssertEqual(row["allocator"] as? String, "glibc")
            for name in [
                "es256_sign_per_s", "openssl_sign_per_s", "bearer_cached_per_s", "encode_typical_mb_per_s",
                "encode_typical_vs_jsonencoder_typical_ratio", "es256_sign_vs_openssl_sign_ratio",
            ] {
                XCTAssertGreaterThan(row[name] as? Double ?? 0, 0, "\(name) in \(row)")
            }
        }
        let header = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\r\n").first
        XCTAssertTrue(
            header?.hasPrefix("allocator,threads,es256_sign_per_s,openssl_sign_per_s,") ?? false,
            "\(header ?? "")"
        )
    }

    func testJemallocIsMeasuredInAChildBesideGlibc() throws {
        guard
            ["/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2"]
                .contains(where: FileManager.default.fileExists(atPath:))
        else { throw XCTSkip("libjemalloc2 is not installed") }
        let json = directory.path + "/hotpath.json"
        let output = try pushbench.run([
            "hotpath", "--threads", "1", "--seconds", "50ms", "--openssl-seconds", "0", "--allocator", "both",
            "--only", "encode_small", "--json", json,
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("allocators side by side"), output.stdout)
        let document = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        )
        let allocators = (document["results"] as? [[String: Any]])?.compactMap { $0["allocator"] as? String }
        XCTAssertEqual(allocators, ["glibc", "jemalloc"])
    }

    func testAnUnknownFigureIsRefusedWithTheKnownOnes() throws {
        let output = try pushbench.run(["hotpath", "--only", "es256_sign,warp_drive"])
        XCTAssertNotEqual(output.status, 0)
        XCTAssertTrue(output.stderr.contains("unknown figure(s) warp_drive"), output.stderr)
        XCTAssertTrue(output.stderr.contains("encode_near_limit"), output.stderr)
    }

    /// The instructions gate end to end: a count under Valgrind, then `compare` on counts, which
    /// passes against itself, fails on a stage that grew, and refuses another version's count.
    func testInstructionsAreCountedPerStageAndGatedStageByStage() throws {
        guard ExternalProgram.onPath("valgrind") != nil else { throw XCTSkip("valgrind is not installed") }
        let json = directory.file("instructions.json")
        let count = try pushbench.run(["hotpath", "--instructions", "--pushes", "20", "--json", json])
        XCTAssertEqual(count.status, 0, count.stderr)
        XCTAssertTrue(count.stdout.contains("20 pushes counted under valgrind-"), count.stdout)
        let document = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        )
        XCTAssertEqual(document["kind"] as? String, "pushbench_instructions")
        let stages = try XCTUnwrap(document["stages"] as? [[String: Any]])
        XCTAssertEqual(
            stages.map { $0["stage"] as? String },
            [
                "workload_event", "payload_encoding", "headers_and_bearer", "es256_signature", "http2_framing_tls",
                "response_handling",
            ]
        )
        for stage in stages {
            XCTAssertEqual(stage["calls"] as? Int, 20, "\(stage)")
            XCTAssertGreaterThan(stage["instructions_per_push"] as? Double ?? 0, 100, "\(stage)")
        }

        let same = try pushbench.run(["compare", json, json])
        XCTAssertEqual(same.status, 0, same.stdout + same.stderr)
        XCTAssertTrue(same.stdout.contains("PASS: instructions per push counted under Valgrind"), same.stdout)

        func altered(_ name: String, _ change: (inout [String: Any]) -> Void) throws -> String {
            var copy = document
            change(&copy)
            return try directory.write(name, Array(try JSONSerialization.data(withJSONObject: copy)))
        }
        let grown = try altered("grown.json") { copy in
            var stages = copy["stages"] as! [[String: Any]]
            stages[1]["instructions_per_push"] = (stages[1]["instructions_per_push"] as! Double) * 1.03
            copy["stages"] = stages
        }
        let junit = directory.file("gate.xml")
        let regression = try pushbench.run(["compare", "--mode", "instructions", json, grown, "--junit", junit])
        XCTAssertEqual(regression.status, 1, regression.stdout + regression.stderr)
        XCTAssertTrue(regression.stdout.contains("REGRESSION"), regression.stdout)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("name=\"payload_encoding_instructions_per_push\">\n    <failure"), xml)
        XCTAssertTrue(xml.contains("name=\"workload_event_instructions_per_push\"/>"), xml)
        XCTAssertEqual(
            try pushbench.run(["compare", json, grown, "--max-stage-rise", "payload_encoding=5%"]).status,
            0
        )

        let older = try altered("older.json") { copy in
            var build = copy["build"] as! [String: Any]
            build["version"] = "0.0.1"
            copy["build"] = build
        }
        let refused = try pushbench.run(["compare", older, json])
        XCTAssertEqual(refused.status, 2)
        assertCleanFailure(refused, mentions: "another PushBench version (0.0.1, not ")
        assertCleanFailure(
            try pushbench.run(["compare", "--mode", "instructions", json, json, "--current", json]),
            mentions: "not both"
        )
    }

    func testCountingWithoutValgrindSaysHowToInstallIt() throws {
        let output = try pushbench.run(
            ["hotpath", "--instructions", "--pushes", "5"],
            environment: ["PATH": directory.path]
        )
        assertCleanFailure(output, mentions: "Valgrind is not installed")
        XCTAssertTrue(output.stderr.contains("apt-get install valgrind"), output.stderr)
    }

    /// OpenSSL allocates for every TLS record it writes or reads; `pushbench` serves that from a
    /// pool per thread, which in steady state never calls malloc. The counting child says how its
    /// counted pushes were served: none of OpenSSL's blocks from malloc, and many reused (none
    /// reused would mean OpenSSL never reached the pool).
    func testOpenSSLAllocatesFromItsThreadPoolNotMallocInSteadyState() throws {
        let output = try pushbench.run(["hotpath", "--count-pushes", "300"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let fields = output.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        func figure(_ name: String) -> Int? { fields.firstIndex(of: name).flatMap { Int(fields[$0 + 1]) } }
        XCTAssertEqual(figure("accepted"), 200 + 300, "200 to warm up, then 300 counted: \(output.stdout)")
        XCTAssertEqual(figure("openssl-malloc"), 0, output.stdout)
        XCTAssertGreaterThan(figure("openssl-reused") ?? 0, 300, output.stdout)
    }
}
