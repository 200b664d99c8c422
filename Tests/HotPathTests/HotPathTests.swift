import Foundation
import XCTest

@testable import HotPath
@testable import Wire

final class HotPathTests: XCTestCase {
    func testSamplePayloadsHaveTheSizesTheirNamesPromise() throws {
        var encoder = PayloadEncoder()
        let expected: [SamplePayload: ClosedRange<Int>] = [
            .small: 120...200, .typical: 350...450, .nearLimit: 3800...PayloadEncoder.deviceLimit,
        ]
        for sample in SamplePayload.allCases {
            try encoder.encode(sample.payload)
            XCTAssertTrue(
                try XCTUnwrap(expected[sample]).contains(encoder.bytes.count),
                "\(sample): \(encoder.bytes.count) bytes"
            )
            let ours = try JSONSerialization.jsonObject(with: Data(encoder.bytes)) as? NSDictionary
            let foundation =
                try JSONSerialization.jsonObject(with: JSONEncoder().encode(sample.payload)) as? NSDictionary
            XCTAssertNotNil(ours)
            XCTAssertEqual(ours, foundation, "the peer encodes the same payload")
        }
    }

    func testOpenSSLSpeedOutputIsParsed() {
        let output = """
            version: 3.0.22
            CPUINFO: OPENSSL_ia32cap=0xfffa32034f8bffff:0x81cd19e67eb
                                          sign    verify    sign/s verify/s
             256 bits ecdsa (nistp256)   0.0000s   0.0001s  25646.2   7706.4
            """
        XCTAssertEqual(OpenSSLSpeed.parseSignaturesPerSecond(output), 25646.2)
        XCTAssertNil(OpenSSLSpeed.parseSignaturesPerSecond("version: 3.0.22\n 384 bits ecdsa (nistp384) 1 2 3 4\n"))
    }

    func testTheProbeCountsEveryThreadsOperationsAndBytes() throws {
        let rate = try ThroughputProbe.measure(threads: 2, seconds: 0.05) {
            { iterations in
                var sum = 0
                for index in 0..<iterations { sum &+= index & 1 }
                return iterations * 3 + (sum & 0)
            }
        }
        XCTAssertGreaterThan(rate.operationsPerSecond, 1000)
        XCTAssertEqual(rate.bytesPerSecond / rate.operationsPerSecond, 3, accuracy: 1e-9)
    }

    func testRatiosAndScalingAreDerivedFromTheRows() throws {
        let sweep = HotPathSweep(key: try ES256PrivateKey(), seconds: 0.01, only: ["es256_sign", "encode_small"])
        let rows = sweep.withRatios([
            HotPathRow(allocator: .glibc, threads: 1, values: ["es256_sign_per_s": 900, "openssl_sign_per_s": 1000]),
            HotPathRow(allocator: .glibc, threads: 2, values: ["es256_sign_per_s": 1500, "openssl_sign_per_s": 2000]),
        ])
        XCTAssertEqual(rows[0].values["es256_sign_vs_openssl_sign_ratio"], 0.9)
        XCTAssertEqual(rows[1].values["es256_sign_vs_openssl_sign_ratio"], 0.75)
        XCTAssertEqual(rows[1].values["es256_sign_scaling_efficiency"], 1500.0 / 1800)
        XCTAssertEqual(
            sweep.columns,
            [
                "es256_sign_per_s", "openssl_sign_per_s", "es256_sign_vs_openssl_sign_ratio",
                "es256_sign_scaling_efficiency", "encode_small_per_s", "encode_small_mb_per_s",
                "encode_small_vs_jsonencoder_small_ratio", "encode_small_scaling_efficiency",
            ]
        )
    }

    func testEveryMeasurementIsNamedForSelection() throws {
        XCTAssertEqual(HotPathMeasurement.all(key: try ES256PrivateKey()).map(\.name), HotPathMeasurement.names)
    }
}
