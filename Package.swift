// swift-tools-version: 6.2
//
// PushBench: a load and budget harness for the sender side of iOS Live Activity pushes.
// Module layout and the direction of dependencies follow docs/design.md: each target has one job,
// and dependencies point down the table (C wrappers, Encodings, Basics, EventLoops → Workload/Wire →
// Arrivals → Transport → LoadEngine → Pages, SenderDoctor, BudgetReports → Reports and Instructions →
// Analysis → Harness; ArrivalMatching → RequestFiles, DeviceEmulation → ServiceDriver → Profiling →
// pushbench; MockAPNs sits beside Transport on top of Wire and Arrivals, Sampling beside the C
// wrappers, and Telemetry, Prometheus' format and a plain-HTTP listener on an event loop, serves
// both the mock and a run).

import PackageDescription

/// Warnings are bugs here: every target of ours fails to build on one.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// The targets every push runs through (Wire, Workload, Transport, LoadEngine) skip the runtime's
/// exclusivity checks in release builds: each is single-threaded per worker, the compiler still
/// proves exclusivity statically, and debug builds (which the tests run) keep the dynamic
/// checks. Those checks were 9% of the HTTP/2 framing's instructions and 13% of an answer's
/// (`pushbench hotpath --instructions`; Benchmarks/README.md).
let hotPath: [SwiftSetting] =
    strict + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "PushBench",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pushbench", targets: ["pushbench"]),
        // For the benchmark package in Benchmarks/: the hot-path code, its sample payloads, and the
        // budget model that simulations push 100 M updates through.
        .library(name: "PushBenchHotPath", targets: ["Wire", "Workload", "HotPath", "Budget", "LoadEngine"]),
        // For the benchmark package in Benchmarks/: the devices `profile` plays (LifecycleBenchmarks).
        .library(
            name: "PushBenchServiceProfiling",
            targets: ["ServiceDriver", "DeviceEmulation", "RequestFiles", "Arrivals", "ArrivalMatching", "Workload"]
        ),
        // For the fuzzing package in Fuzz/: the mock, whose request checks it fuzzes.
        .library(name: "PushBenchMockAPNs", targets: ["MockAPNs", "MockFaults"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev", "libssl-dev"])]
        ),
        // prctl for profile's child subreaper and the workers' thread names; part of libc, so
        // nothing to link.
        .systemLibrary(name: "CProcess"),
        // epoll and accept4 for the event loops; part of libc too.
        .systemLibrary(name: "CSockets"),
        // An epoll loop a thread with timers, and its listening sockets: what the mock and the
        // metrics port serve connections on.
        .target(
            name: "EventLoops",
            dependencies: ["CSockets", "CProcess", .product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: strict
        ),
        .target(name: "Encodings", swiftSettings: strict),
        // What every module may read: the monotonic clock, durations and their units, and the
        // build and machine a figure was measured on.
        .target(name: "Basics", dependencies: ["CCurl", "CNGHTTP2", "COpenSSL"], swiftSettings: strict),
        .target(
            name: "Workload",
            dependencies: ["Encodings", "Yams", .product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: hotPath
        ),
        .target(name: "Wire", dependencies: ["COpenSSL", "Encodings"], swiftSettings: hotPath),
        // One answered push as the measuring reads it, decoded once on the mock thread that
        // answered it: the mock hands arrivals on, the devices and the book read them.
        .target(name: "Arrivals", dependencies: ["Encodings", "Wire", "Workload"], swiftSettings: hotPath),
        .target(
            name: "HotPath",
            dependencies: ["Wire", "Workload", "Basics", "Transport", "Pages"],
            swiftSettings: strict
        ),
        .target(
            name: "Budget",
            dependencies: ["Workload", .product(name: "Histogram", package: "hdrhistogram-swift")],
            swiftSettings: strict
        ),
        .target(
            name: "Transport",
            dependencies: ["Basics", "CCurl", "CNGHTTP2", "EventLoops", "Wire"],
            swiftSettings: hotPath
        ),
        // Prometheus' text format and the plain-HTTP listener that serves it: the mock's admin
        // port and a run's --metrics-port.
        .target(name: "Telemetry", dependencies: ["CSockets", "EventLoops"], swiftSettings: strict),
        .target(
            name: "LoadEngine",
            dependencies: [
                "CProcess", "Workload", "Wire", "Basics", "Transport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: hotPath
        ),
        // What every page and table shares: HTML, charts, CSV, writing a file whole.
        .target(
            name: "Pages",
            dependencies: [.product(name: "Histogram", package: "hdrhistogram-swift")],
            swiftSettings: strict
        ),
        // The sender doctor: practices judged from a recording of the traffic, and its report.
        .target(name: "SenderDoctor", dependencies: ["Pages", "Workload", "Budget"], swiftSettings: strict),
        // A budget analysis's files and pages: budget_summary.json, its CSV, budget.html, its console.
        .target(
            name: "BudgetReports",
            dependencies: [
                "Pages", "Budget", "Workload", "Basics", "Transport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // A run's files and pages: summary.json, CSV, report.html (with the budget's), the flame graph.
        .target(
            name: "Reports",
            dependencies: [
                "Pages", "SenderDoctor", "Sampling", "Workload", "Basics", "Transport", "LoadEngine", "Budget",
                "BudgetReports",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // What a team reads after a profile: its report folder, page and console headline.
        .target(
            name: "ProfileReports",
            dependencies: ["Pages", "Reports", "LoadEngine", "BudgetReports", "Basics"],
            swiftSettings: strict
        ),
        // Judging runs and sizing fleets from them: compare (its statistics and gates) and plan.
        .target(
            name: "Analysis",
            dependencies: [
                "Pages", "Reports", "BudgetReports", "Sampling", "LoadEngine", "Instructions", "Workload",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // Counting the sender's instructions per push under callgrind, and reading the counts.
        .target(
            name: "Instructions",
            dependencies: ["Pages", "LoadEngine", "HotPath", "Basics", "Transport", "Wire"],
            swiftSettings: strict
        ),
        // The faults a mock plays: the plan (rates, latencies, incidents, token rules, from flags
        // or a file) and the injector that draws them for each push and connection.
        .target(name: "MockFaults", dependencies: ["Wire", "Workload", "Basics"], swiftSettings: strict),
        .target(
            name: "MockAPNs",
            dependencies: [
                "Arrivals", "Encodings", "Wire", "Workload", "Telemetry", "Basics", "Transport", "EventLoops",
                "MockFaults",
                "CNGHTTP2", "CSockets",
            ],
            swiftSettings: strict
        ),
        .target(
            name: "Harness",
            dependencies: [
                "Workload", "Wire", "Basics", "Transport", "LoadEngine", "Budget", "Reports", "SenderDoctor",
                "MockAPNs",
                "Telemetry",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // Where a sender's CPU goes: perf's samples, folded stacks, the shares by class of code.
        .target(name: "Sampling", dependencies: ["CProcess"], swiftSettings: strict),
        // A network of its own for a command profile runs: Apple's names are the mock inside, and
        // nothing else answers but the addresses it may reach.
        .target(name: "SealedNetwork", dependencies: ["CProcess", "COpenSSL"], swiftSettings: strict),
        // What the mock received matched against what a sender or service was asked to send:
        // the schedule, the identity a push carries, the book, and the one clock they are read on.
        .target(
            name: "ArrivalMatching",
            dependencies: [
                "Arrivals", "Workload", "LoadEngine", "Basics", "Transport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // The API request file's language: a service's endpoints, the templates its requests are
        // written in and the placeholders PushBench fills, rendered from values it is handed.
        .target(name: "RequestFiles", dependencies: ["Workload", "Wire", "Yams"], swiftSettings: strict),
        // The devices a service serves, played behind the mock: pushes in, device requests out,
        // over the workload of activities and calls that the devices and the driver share.
        .target(
            name: "DeviceEmulation",
            dependencies: [
                "Arrivals", "ArrivalMatching", "RequestFiles", "Workload", "Wire", "LoadEngine", "Basics", "Transport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // A sender service driven through its own API: its HTTP client, the session of calls, the
        // devices' requests sent, and what it all measured, as report types.
        .target(
            name: "ServiceDriver",
            dependencies: [
                "CCurl", "Arrivals", "ArrivalMatching", "DeviceEmulation", "RequestFiles", "Workload", "Wire", "Basics",
                "Transport",
                "LoadEngine", "Reports",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "Profiling",
            dependencies: [
                "CProcess", "Sampling", "Workload", "Wire", "Basics", "Transport", "LoadEngine", "Reports", "MockAPNs",
                "Budget", "BudgetReports", "Harness", "Arrivals", "ArrivalMatching", "ServiceDriver", "DeviceEmulation",
                "RequestFiles", "SealedNetwork",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "pushbench",
            dependencies: [
                "Workload", "Wire", "HotPath", "Basics", "Transport", "LoadEngine", "Budget", "Pages", "Reports",
                "ProfileReports", "BudgetReports",
                "Analysis",
                "Instructions", "MockAPNs", "MockFaults", "Harness", "Telemetry", "Profiling", "ServiceDriver",
                "DeviceEmulation", "RequestFiles", "ArrivalMatching",
                "Sampling", "SealedNetwork",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict,
            plugins: ["BuildInfo"]
        ),
        // Writes the version and git commit into pushbench at build time.
        .plugin(name: "BuildInfo", capability: .buildTool()),
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "WorkloadTests", dependencies: ["Encodings", "Workload"], swiftSettings: strict),
        .testTarget(name: "WireTests", dependencies: ["Encodings", "Wire", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "BudgetTests", dependencies: ["Budget", "Workload"], swiftSettings: strict),
        .testTarget(name: "HotPathTests", dependencies: ["HotPath", "Wire"], swiftSettings: strict),
        .testTarget(name: "SamplingTests", dependencies: ["Sampling"], swiftSettings: strict),
        .testTarget(
            name: "LoadEngineTests",
            dependencies: [
                "LoadEngine", "Workload", "Wire", "Basics", "Transport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MockFaultsTests",
            dependencies: ["MockFaults", "Wire", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MockAPNsTests",
            dependencies: ["Encodings", "MockAPNs", "MockFaults", "Wire", "Workload", "Telemetry", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "Encodings", "Workload", "Wire", "Basics", "Transport", "LoadEngine", "Budget", "Pages", "Reports",
                "ProfileReports", "BudgetReports", "SenderDoctor",
                "Analysis", "Instructions", "MockAPNs", "MockFaults", "Harness", "Profiling", "ServiceDriver",
                "DeviceEmulation", "RequestFiles", "Arrivals", "ArrivalMatching",
                "Sampling",
                "TestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CommandLineTests",
            dependencies: ["pushbench", "Sampling", "TestSupport"],
            swiftSettings: strict
        ),
    ]
)
