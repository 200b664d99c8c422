import Foundation
import Sampling
import XCTest

/// perf itself, sampling every CPU: CI installs linux-perf and runs as root, so these sample
/// for real there; `PerfUnavailable` answers the machines that cannot.
final class PerfRecordingTests: XCTestCase {
    func testItSamplesAChildAndWhatTheChildStartsButNotThisProcess() throws {
        let recording = try PerfRecording.start().get()
        let busy = "import time\nt = time.time()\nwhile time.time() - t < 0.6: pass\n"
        let shell = try ChildLaunch.start(
            ["/bin/sh", "-c", "/usr/bin/python3 -c '\(busy)'; exit 0"],
            environment: ProcessInfo.processInfo.environment,
            outputPath: "/dev/null",
            errorPath: "/dev/null"
        )
        XCTAssertTrue(ChildLaunch.waitForExit(shell, seconds: 30))
        let profile = try recording.finish(following: shell, scope: "a shell and its python").get()
        let stacks = profile.stacks
        XCTAssertGreaterThan(stacks.totalSamples, 200, "0.6 s of a busy python at 997 Hz")
        XCTAssertEqual(profile.frequencyHz, 997)
        let roots = Set(stacks.counts.keys.map { $0[0].function })
        XCTAssertTrue(roots.isSubset(of: ["sh", "python3"]), "only the shell and what it forked: \(roots)")
        let python = stacks.counts.filter { $0.key.contains { $0.library.hasPrefix("python3") } }
        XCTAssertGreaterThan(python.values.reduce(0, +) * 2, stacks.totalSamples, "most samples are the interpreter's")
        XCTAssertGreaterThan(stacks.shares[.runtimeAllocator] ?? 0, 50)
    }

    /// Go keeps frame pointers and its symbols: perf names a Go sender's own functions, and its
    /// runtime's, with nothing added to the program.
    func testAGoProgramIsNamedByItsOwnFunctions() throws {
        let folder = try temporaryFolder()
        let source = (folder as NSString).appendingPathComponent("spin.go")
        try """
        package main

        import "time"

        //go:noinline
        func spin(until time.Time) int {
            n := 0
            for time.Now().Before(until) {
                n++
            }
            return n
        }

        func main() { println(spin(time.Now().Add(600 * time.Millisecond))) }

        """.write(toFile: source, atomically: true, encoding: .utf8)
        let program = (folder as NSString).appendingPathComponent("spin")
        let build = try ChildLaunch.start(
            ["go", "build", "-o", program, source],
            environment: ProcessInfo.processInfo.environment.merging(
                [
                    "GOCACHE": (folder as NSString).appendingPathComponent("cache"), "GOPATH": folder,
                    "GO111MODULE": "off",
                ]
            ) { _, ours in ours },
            outputPath: "/dev/null",
            errorPath: (folder as NSString).appendingPathComponent("build.log")
        )
        XCTAssertTrue(ChildLaunch.waitForExit(build, seconds: 120))
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: program), "go build failed")
        let recording = try PerfRecording.start().get()
        let spin = try ChildLaunch.start(
            [program],
            environment: ProcessInfo.processInfo.environment,
            outputPath: "/dev/null",
            errorPath: "/dev/null"
        )
        XCTAssertTrue(ChildLaunch.waitForExit(spin, seconds: 30))
        let stacks = try recording.finish(following: spin, scope: "a Go program").get().stacks
        let top = stacks.topBySelfTime(20).map(\.frame)
        XCTAssertTrue(top.contains { $0.library == "spin" && $0.function.hasPrefix("time.") }, "\(top)")
        let frames = Set(stacks.counts.keys.flatMap { $0 })
        let own = try XCTUnwrap(frames.first { $0.function == "main.spin" }, "the program's own function, named")
        XCTAssertEqual(CPUShare(of: own), .senderCode)
        XCTAssertTrue(frames.contains { $0.function == "main.main" }, "its caller too, by frame pointers")
    }

    func testWithoutPerfOneLineSaysSo() throws {
        let empty = try temporaryFolder()
        let reason = try withPATH(empty) { try XCTUnwrap(failure(PerfRecording.start())) }
        XCTAssertEqual(reason, "perf is not installed (Debian's linux-perf)")
    }

    func testARefusalToSampleSaysWhatPerfNeeds() throws {
        let folder = try temporaryFolder()
        let fake = (folder as NSString).appendingPathComponent("perf")
        try """
        #!/bin/sh
        echo 'Error:' >&2
        echo 'Access to performance monitoring and observability operations is limited.' >&2
        echo 'perf_event_paranoid setting is 2:' >&2
        exit 255

        """.write(toFile: fake, atomically: true, encoding: .utf8)
        chmod(fake, 0o755)
        let reason = try withPATH(folder + ":/usr/bin:/bin") { try XCTUnwrap(failure(PerfRecording.start())) }
        XCTAssertTrue(reason.hasPrefix("perf may not sample every CPU here (perf_event_paranoid is "), reason)
        XCTAssertTrue(reason.hasSuffix("it needs root, CAP_PERFMON or at most 0)"), reason)
    }

    private func failure(_ result: Result<PerfRecording, PerfUnavailable>) -> String? {
        if case .failure(let unavailable) = result { unavailable.reason } else { nil }
    }

    private func withPATH<T>(_ path: String, _ body: () throws -> T) rethrows -> T {
        let saved = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        setenv("PATH", path, 1)
        defer { setenv("PATH", saved, 1) }
        return try body()
    }

    /// Not named `/tmp/perf-…`: perf takes such a path for a JIT's symbol map.
    private func temporaryFolder() throws -> String {
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("sampling-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }
}
