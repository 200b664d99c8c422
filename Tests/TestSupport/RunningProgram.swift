import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program started in the background, for tests that talk to it while it runs (a mock server)
/// or interrupt it (Ctrl-C). Its standard output is collected as it arrives.
public final class RunningProgram {
    private let process: Process
    private let collected = CollectedText()
    private let reading = DispatchGroup()

    /// Starts `program` with `arguments`; stderr is discarded unless `captureStderr`, in which
    /// case it is mixed into the collected output.
    public init(_ program: ExternalProgram, _ arguments: [String], captureStderr: Bool = false) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = captureStderr ? pipe : FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let handle = pipe.fileHandleForReading
        let collected = self.collected
        DispatchQueue.global().async(group: reading) {
            while case let data = handle.availableData, !data.isEmpty {
                collected.append(String(decoding: data, as: UTF8.self))
            }
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Everything printed so far.
    public var output: String { collected.text }

    /// Forgets what was printed so far, so that `waitForLine` waits for a new line.
    public func clearOutput() {
        collected.clear()
    }

    /// The program's process ID, for reading its memory and descriptors from `/proc`.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Waits until the output contains `text` and returns the line holding it; `nil` on timeout.
    public func waitForLine(containing text: String, timeout: TimeInterval = 30) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = output.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            usleep(20_000)
        }
        return nil
    }

    /// Sends SIGINT, as Ctrl-C does.
    public func interrupt() {
        kill(process.processIdentifier, SIGINT)
    }

    /// Sends SIGTERM, as a CI job's timeout or `kubectl delete` does.
    public func terminate() {
        kill(process.processIdentifier, SIGTERM)
    }

    /// Kills the program at once with SIGKILL, as a crash or the OOM killer does: it writes nothing
    /// more and closes no connection cleanly.
    public func killAtOnce() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the program to end (killing it after `timeout`) and returns its exit status.
    public func waitForExit(timeout: TimeInterval = 60) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        reading.wait()
        return process.terminationStatus
    }
}

/// Text appended by a reader thread and read by the test thread.
private final class CollectedText: Sendable {
    private let storage = Mutex<String>("")

    var text: String { storage.withLock { $0 } }

    func append(_ more: String) {
        storage.withLock { $0 += more }
    }

    func clear() {
        storage.withLock { $0 = "" }
    }
}
