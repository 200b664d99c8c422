// swift-tools-version: 6.2
//
// PushBench's package-benchmark suites, kept out of the main package so that its builds do not
// pay for the benchmark plugin (it adds 15-20 s to every clean build). Run from this folder:
//   swift package benchmark
//   swift package benchmark baseline check ci

import PackageDescription

let package = Package(
    name: "PushBenchBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "PushBench", path: "../"),
        // The only line that resolves from the mirror: its default trait needs a package that is
        // not there; MallocInterposer counts allocations without jemalloc.
        .package(url: "https://github.com/ordo-one/benchmark.git", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .executableTarget(
            name: "HotPathBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PushBenchHotPath", package: "PushBench"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Benchmarks/HotPathBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "LifecycleBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PushBenchServiceProfiling", package: "PushBench"),
            ],
            path: "Benchmarks/LifecycleBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The floor `mock-vs-bare.sh` compares `pushbench mock` with. Kept out of `Benchmarks/`:
        // the benchmark plugin runs every executable there as a suite, and this one is not.
        .executableTarget(
            name: "BareResponder",
            dependencies: [
                .product(name: "PushBenchHotPath", package: "PushBench"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tools/BareResponder",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
