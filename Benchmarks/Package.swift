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
    ]
)
