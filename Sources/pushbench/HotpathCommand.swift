import ArgumentParser
import Foundation
import HotPath
import Instructions
import Pages
import Reports
import Wire

/// `pushbench hotpath`: what the sender core's hot path costs on this machine, beside its peers.
struct HotpathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotpath",
        abstract: "Measure ES256 signing, cached bearers and payload encoding against OpenSSL and JSONEncoder.",
        discussion: """
              pushbench hotpath --threads 2 --seconds 2s --json figures.json
              pushbench hotpath --instructions --json instructions.json

            For 1 to --threads threads (Dispatch concurrentPerform, one signer, encoder or token reader per \
            thread), each figure runs for --seconds after a short warm-up:
              es256_sign            ES256 signatures with a prepared context (the peer: openssl speed ecdsap256, \
            run with -multi for several threads when openssl is on PATH)
              provider_token_sign   whole provider tokens, what a sender that signs every push pays
              bearer_cached         cached bearer lookups, what a correct sender pays per push
              device_token          synthetic 64-hex device tokens from (seed, index)
              encode_<size>         PayloadEncoder on small (~150 B), typical (~400 B) and near_limit (~4 KB) Live \
            Activity payloads, against jsonencoder_<size>: Foundation's JSONEncoder on the same payloads

            Each figure is printed with its ratio to its peer and its scaling efficiency, rate(n) / (n × rate(1)). \
            With --allocator both (the default when Debian's libjemalloc2 is installed) the sweep runs again in a \
            child process with jemalloc preloaded (LD_PRELOAD), and the two allocators are shown side by side. \
            --json and --csv write every figure, with its unit in its name (es256_sign_per_s, \
            encode_typical_mb_per_s, encode_typical_vs_jsonencoder_typical_ratio, ...). Use a release build: \
            a debug build measures the compiler's checks, not the code.
            """
    )

    /// Which allocators to measure.
    enum AllocatorChoice: String, ExpressibleByArgument, CaseIterable {
        case glibc, jemalloc, both
    }

    @Option(name: .customLong("threads"), help: "Most threads in the sweep (1 ... N) (default: the number of cores).")
    var threadsGiven: Int?

    /// `--threads`, or one per core.
    var threads: Int { threadsGiven ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(
        name: .customLong("seconds"),
        help: "How long each figure is measured, per thread count."
    )
    var measuredFor = TimeSpan(seconds: 1)

    @Option(
        name: .customLong("openssl-seconds"),
        help: "How long openssl speed runs per thread count, in whole seconds; 0 skips it."
    )
    var opensslFor = TimeSpan(seconds: 1)

    /// `--seconds` in seconds.
    private var seconds: Double { measuredFor.seconds }

    /// `--openssl-seconds`, whole seconds as `openssl speed -seconds` takes them.
    private var opensslSeconds: Int { Int(opensslFor.seconds.rounded()) }

    @Option(help: "glibc, jemalloc or both (default: both when libjemalloc.so.2 is installed, else glibc).")
    var allocator: AllocatorChoice?

    @Option(
        help: ArgumentHelp(
            "Measure only these figures, comma-separated (for example es256_sign,encode_typical).",
            valueName: "figures"
        ),
        transform: { Set($0.split(separator: ",").map(String.init)) }
    )
    var only: Set<String>?

    @Flag(
        help: """
            Count instructions per push by stage under Valgrind instead of timing: figures a busy machine \
            cannot change, for `pushbench compare --mode instructions`.
            """
    )
    var instructions = false

    @Option(help: "With --instructions: the pushes counted.")
    var pushes = 1000

    @Option(name: .customLong(String(CallgrindCount.childOption.dropFirst(2))), help: .hidden)
    var countPushes: Int?

    @Option(help: "Write the figures as JSON to this file.")
    var json: String?

    @Option(help: "Write the figures as CSV (one row per allocator and thread count) to this file.")
    var csv: String?

    /// Set in a child process that measures the other allocator, so it never spawns another.
    static let childEnvironment = "PUSHBENCH_HOTPATH_CHILD"

    func validate() throws {
        guard (1...1_000_000).contains(pushes) else { throw ValidationError("--pushes must be 1 to 1000000") }
        if instructions, csv != nil { throw ValidationError("--csv is for timings; use --json with --instructions") }
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1 to 256") }
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be above 0 and at most 600") }
        guard (0...600).contains(opensslSeconds) else { throw ValidationError("--openssl-seconds must be 0 to 600") }
        if let only {
            let known = Set(HotPathMeasurement.names)
            let unknown = only.subtracting(known).sorted()
            guard unknown.isEmpty else {
                throw ValidationError(
                    "unknown figure(s) \(unknown.joined(separator: ", ")); known: \(HotPathMeasurement.names.joined(separator: ", "))"
                )
            }
        }
        if allocator == .jemalloc || allocator == .both, MemoryAllocator.jemallocLibrary == nil,
            MemoryAllocator.current != .jemalloc
        {
            throw ValidationError("jemalloc is not installed (Debian package libjemalloc2); use --allocator glibc")
        }
    }

    func run() throws {
        if let countPushes { return Console.out(try CallgrindCount.runChild(pushes: countPushes)) }
        if let json { try OutputPath.ensureFile(json, flag: "--json") }
        if instructions { return try countInstructions() }
        if let csv { try OutputPath.ensureFile(csv, flag: "--csv") }
        let threadCounts = Array(1...threads)
        let sweep = HotPathSweep(key: try ES256PrivateKey(), seconds: seconds, only: only)
        let openssl = measureOpenSSL(threadCounts)
        var rows: [HotPathRow] = []
        for wanted in allocators() {
            if wanted == MemoryAllocator.current {
                Console.err("measuring on \(wanted.rawValue) malloc, \(seconds) s per figure and thread count")
                rows += try sweep.run(threadCounts: threadCounts, openssl: openssl) { name, count in
                    Console.err("  \(name), \(count) thread\(count == 1 ? "" : "s")")
                }
            } else {
                let measured = try measureInChild(on: wanted).map { row in
                    var row = row
                    row.values["openssl_sign_per_s"] = openssl[row.threads]
                    return row
                }
                rows += sweep.withRatios(measured)
            }
        }
        Console.out(HotPathTable.render(rows, sweep: sweep))
        let document = HotPathTable.document(rows, sweep: sweep)
        if let json {
            let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
            try ReportFile.save(data + Data("\n".utf8), toPath: json)
            if ProcessInfo.processInfo.environment[Self.childEnvironment] == nil { Console.err("figures: \(json)") }
        }
        if let csv {
            try ReportFile.save(Data(HotPathTable.csv(rows, sweep: sweep).text.utf8), toPath: csv)
            Console.err("figures: \(csv)")
        }
    }

    /// `--instructions`: counts, prints and saves the instructions per push of each stage.
    private func countInstructions() throws {
        let counts = try CallgrindCount.run(pushes: pushes, build: PushBench.build) { Console.err($0) }
        Console.out(InstructionTable.render(counts))
        if let json {
            try ReportFile.save(counts.json + Data("\n".utf8), toPath: json)
            Console.err("counts: \(json)")
        }
    }

    /// The allocators to measure, this process's own first.
    private func allocators() -> [MemoryAllocator] {
        let current = MemoryAllocator.current
        if ProcessInfo.processInfo.environment[Self.childEnvironment] != nil { return [current] }
        let both = [current] + MemoryAllocator.allCases.filter { $0 != current }
        switch allocator {
        case .glibc: return [.glibc]
        case .jemalloc: return [.jemalloc]
        case .both: return both
        case nil: return MemoryAllocator.jemallocLibrary == nil ? [current] : both
        }
    }

    private func measureOpenSSL(_ threadCounts: [Int]) -> [Int: Double] {
        guard opensslSeconds > 0 else { return [:] }
        var rates: [Int: Double] = [:]
        for count in threadCounts {
            Console.err("openssl speed -seconds \(opensslSeconds)\(count > 1 ? " -multi \(count)" : "") ecdsap256")
            do {
                rates[count] = try OpenSSLSpeed.signaturesPerSecond(threads: count, seconds: opensslSeconds)
            } catch {
                Console.err("  no openssl reference: \(error)")
                return rates
            }
        }
        return rates
    }

    /// Runs this command again with `allocator` preloaded (or unloaded) and reads its rows back.
    private func measureInChild(on allocator: MemoryAllocator) throws -> [HotPathRow] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushbench-hotpath-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("figures.json").path
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childEnvironment] = "1"
        environment["LD_PRELOAD"] = allocator == .jemalloc ? MemoryAllocator.jemallocLibrary : nil
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = [
            "hotpath", "--threads", "\(threads)", "--seconds", "\(seconds)s", "--openssl-seconds", "0",
            "--allocator", allocator.rawValue, "--json", output,
        ]
        if let only { child.arguments? += ["--only", only.sorted().joined(separator: ",")] }
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw CommandLineError(
                "the \(allocator.rawValue) measurement (a child process) exited with status \(child.terminationStatus)"
            )
        }
        let rows: [HotPathRow]
        do {
            rows = try HotPathTable.rows(fromDocument: Data(contentsOf: URL(fileURLWithPath: output)))
        } catch {
            throw CommandLineError("\(error)")
        }
        guard rows.allSatisfy({ $0.allocator == allocator }) else {
            throw CommandLineError(
                "LD_PRELOAD=\(MemoryAllocator.jemallocLibrary ?? "") did not put the child on \(allocator.rawValue)"
            )
        }
        return rows
    }
}
