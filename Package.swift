// swift-tools-version: 6.2
//
// PushBench: a load and budget harness for the sender side of iOS Live Activity pushes.
// Module layout and the direction of dependencies follow ../shared/DESIGN.md: each target has
// one job, and dependencies point down the table (C wrappers → Workload/Wire → Transport →
// LoadEngine → Reports → pushbench; MockAPNs sits beside Transport on top of Wire).

import PackageDescription

/// Warnings are bugs here: every target of ours fails to build on one.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "PushBench",
    platforms: [.macOS(.v15)],
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
        .target(name: "Workload", swiftSettings: strict),
        .target(name: "Wire", dependencies: ["COpenSSL"], swiftSettings: strict),
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "WorkloadTests", dependencies: ["Workload"], swiftSettings: strict),
        .testTarget(name: "WireTests", dependencies: ["Wire", "TestSupport"], swiftSettings: strict),
    ]
)
