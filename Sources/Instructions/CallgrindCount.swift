import Basics
import Foundation
import HotPath
import LoadEngine
import Transport
import Wire

/// Counts the sender's instructions per push, by stage: this binary runs `PushStageWorkload`
/// in a child under Valgrind's callgrind, which collects only inside
/// `PushStageWorkload.runCountedPushes`, and the stages' counts are read from what it called.
///
/// Valgrind gives up on this toolchain's DWARF, so the child is a copy of this binary with its
/// debug information stripped (`strip --strip-debug`; the symbols the stages are found by stay).
/// The child hashes deterministically (`SWIFT_DETERMINISTIC_HASHING`), so a dictionary's
/// layout, and the instructions that walk it, are the same in every run. And glibc and libcrypto
/// are kept to their baseline x86-64 code (SSE2 to SSE4.2, AES-NI and PCLMUL; no AVX, BMI2 or
/// ADX), which they would otherwise choose by CPU: a count made on one x86-64 machine then
/// holds on another, which a committed baseline needs.
public enum CallgrindCount {
    /// Pushes run before counting starts: the handshake, lazy binding and first allocations,
    /// and the scenario's starts, so the counted pushes are its updates.
    public static let warmUpPushes = PushStageWorkload.activities

    /// The hidden option that makes `hotpath` the child: run the workload and print its outcome.
    public static let childOption = "--count-pushes"

    /// What the child runs with: deterministic hashing, and the same code paths on any CPU.
    public static let countingEnvironment = [
        "SWIFT_DETERMINISTIC_HASHING": "1",
        // CPUID.1:ECX's AVX bit off, and every CPUID.7 feature (AVX2, BMI, ADX, SHA, AVX-512).
        "OPENSSL_ia32cap": "~0x1000000000000000:~0xFFFFFFFFFFFFFFFF",
        "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX,-AVX2,-AVX512F,-AVX512VL,-ERMS,-AVX_Fast_Unaligned_Load",
    ]

    /// Runs the count for `pushes` pushes of `build`; `progress` hears what is happening.
    ///
    /// - Throws: `CallgrindError` when Valgrind or strip is missing, or the count fails.
    public static func run(
        pushes: Int,
        build: BuildDescription,
        progress: (String) -> Void
    ) throws -> InstructionCounts {
        guard let valgrind = ExecutableSearch.onPath("valgrind") else {
            throw CallgrindError(
                "Valgrind is not installed, and --instructions counts under it: apt-get install valgrind "
                    + "(Scripts/install-deps.sh installs it)"
            )
        }
        guard let strip = ExecutableSearch.onPath("strip") else {
            throw CallgrindError("strip is not on PATH (Debian package binutils); --instructions needs it")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushbench-callgrind-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = directory.appendingPathComponent("pushbench").path
        let output = directory.appendingPathComponent("callgrind.out").path
        let this = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        try runTool(strip, ["--strip-debug", "-o", binary, this], what: "strip --strip-debug", in: directory)
        progress("counting \(pushes) pushes under callgrind (after \(warmUpPushes) to warm up)")
        let childOutput = try runTool(
            valgrind,
            [
                "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=*runCountedPushes*",
                "--callgrind-out-file=\(output)", binary, "hotpath", childOption, "\(pushes)",
            ],
            what: "valgrind",
            in: directory,
            environment: countingEnvironment
        )
        let answered = "answered \(warmUpPushes + pushes) accepted \(warmUpPushes + pushes)"
        guard childOutput.contains(answered) else {
            throw CallgrindError(
                "the counted pushes did not all succeed: the child said \"\(childOutput.trimmingCharacters(in: .whitespacesAndNewlines))\", not \"\(answered)\""
            )
        }
        let version = try runTool(valgrind, ["--version"], what: "valgrind --version", in: directory)
        let text: String
        do {
            text = try String(contentsOfFile: output, encoding: .utf8)
        } catch {
            throw CallgrindError("callgrind wrote no output file: \(error.localizedDescription)")
        }
        do {
            return try InstructionCounts(
                callees: CallgrindCallees(text: text, caller: "runCountedPushes"),
                pushes: pushes,
                build: build,
                counter: "\(version.trimmingCharacters(in: .whitespacesAndNewlines)) callgrind, x86-64 baseline code",
                workload: "\(PushStageWorkload.scenarioName), \(PushStageWorkload.activities) activities, "
                    + "\(warmUpPushes) pushes to warm up"
            )
        } catch {
            throw CallgrindError("\(error)")
        }
    }

    /// The child's part: warm up, run the counted pushes, and return the line that says how
    /// many were answered and how OpenSSL's allocations during them were served (its pool's
    /// reused blocks and mallocs), for the child to print.
    public static func runChild(pushes: Int) throws -> String {
        // A fixed clock: the timestamps a push carries are the same in every run, digit for digit.
        var workload = try PushStageWorkload(now: 1_790_000_000)
        try workload.warmUp(pushes: warmUpPushes)
        let before = OpenSSLMemory.currentThreadPool.map { ($0.reused, $0.fromMalloc) } ?? (0, 0)
        try workload.runCountedPushes(pushes)
        let after = OpenSSLMemory.currentThreadPool.map { ($0.reused, $0.fromMalloc) } ?? (0, 0)
        return "answered \(workload.answered) accepted \(workload.accepted) "
            + "openssl-reused \(after.0 - before.0) openssl-malloc \(after.1 - before.1)"
    }

    /// Runs `tool` to the end and returns its standard output; its standard error goes to a
    /// file in `scratch`, whose end a failure quotes.
    @discardableResult
    private static func runTool(
        _ tool: URL,
        _ arguments: [String],
        what: String,
        in scratch: URL,
        environment: [String: String] = [:]
    ) throws -> String {
        let errorPath = scratch.appendingPathComponent("stderr.txt").path
        guard FileManager.default.createFile(atPath: errorPath, contents: nil),
            let errors = FileHandle(forWritingAtPath: errorPath)
        else { throw CallgrindError("cannot write in \(scratch.path)") }
        defer { try? errors.close() }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errorText = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            let tail = errorText.split(separator: "\n").suffix(3).joined(separator: " / ")
            throw CallgrindError("\(what) exited with status \(process.terminationStatus): \(tail)")
        }
        return text
    }
}

/// Counting instructions failed while working: Valgrind or strip missing, the child failing,
/// callgrind's output missing or not what it should be.
public struct CallgrindError: Error, CustomStringConvertible {
    public let description: String

    /// A failure, in one line.
    public init(_ description: String) {
        self.description = description
    }
}
