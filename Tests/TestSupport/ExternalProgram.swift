import Foundation

/// Runs another program to completion and captures what it printed: how tests check PushBench
/// against independent implementations (openssl, curl) and drive the `pushbench` binary itself.
public struct ExternalProgram: Sendable {
    /// What a finished program left behind.
    public struct Output: Sendable {
        /// Exit status (or 128 + signal).
        public let status: Int32
        /// Standard output as text.
        public let stdout: String
        /// Standard error as text.
        public let stderr: String
    }

    /// The program's path.
    public let path: String

    /// A program by absolute path.
    public init(path: String) {
        self.path = path
    }

    /// A program found on `PATH`, or `nil`.
    public static func onPath(_ name: String) -> ExternalProgram? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            .map(ExternalProgram.init)
    }

    /// The `pushbench` binary built beside the tests.
    public static var pushbench: ExternalProgram {
        var directory = Bundle.main.bundleURL
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("pushbench").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return ExternalProgram(path: candidate) }
            directory = directory.deletingLastPathComponent()
        }
        return ExternalProgram(path: "pushbench-not-built")
    }

    /// Runs with `arguments`, feeding nothing on stdin, and waits up to `timeout` seconds
    /// before killing it; `environment` adds to (or replaces) this process's variables.
    public func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: TimeInterval = 120
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let collected = DispatchGroup()
        nonisolated(unsafe) var stdoutData = Data()
        nonisolated(unsafe) var stderrData = Data()
        DispatchQueue.global().async(group: collected) { stdoutData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: collected) { stderrData = err.fileHandleForReading.readDataToEndOfFile() }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        collected.wait()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self)
        )
    }
}

/// A fresh temporary folder, removed by the caller with `remove()`.
public struct TemporaryDirectory {
    /// Its path.
    public let path: String

    /// Creates the folder.
    public init() throws {
        path = NSTemporaryDirectory() + "pushbench-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    /// Deletes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
