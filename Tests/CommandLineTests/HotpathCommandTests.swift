import Foundation
import TestSupport
import XCTest

/// `pushbench hotpath` as a user (or a CI job reading its JSON) runs it.
final class HotpathCommandTests: PushbenchTestCase {
    func testFiguresComeOutAsATableJSONAndCSVWithUnitsInTheirNames() throws {
        let json = directory.path + "/hotpath.json"
        let csv = directory.path + "/hotpath.csv"
        let output = try pushbench.run([
            "hotpath", "--threads", "2", "--seconds", "0.05", "--openssl-seconds", "1", "--allocator", "glibc",
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
            "hotpath", "--threads", "1", "--seconds", "0.05", "--openssl-seconds", "0", "--allocator", "both",
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
}
