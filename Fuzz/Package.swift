// swift-tools-version: 6.2
//
// A libFuzzer target over the mock's request checks (MockAPNs' `RequestFuzzer`): path parsing,
// header validation, provider-token parsing and the payload scans. Kept out of the main package
// because it only builds with the fuzzer's instrumentation. Run it with Scripts/fuzz.sh, which
// builds it as:
//   swift build --package-path Fuzz --sanitize=fuzzer --product MockRequestFuzzer

import PackageDescription

let package = Package(
    name: "PushBenchFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "PushBench", path: "../")],
    targets: [
        .executableTarget(
            name: "MockRequestFuzzer",
            dependencies: [.product(name: "PushBenchMockAPNs", package: "PushBench")],
            swiftSettings: [
                .treatAllWarnings(as: .error),
                // libFuzzer brings its own main; the target only defines LLVMFuzzerTestOneInput.
                .unsafeFlags(["-parse-as-library"]),
            ]
        )
    ]
)
