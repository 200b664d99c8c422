import Foundation
import XCTest

@testable import Sampling

/// `/proc` read as bytes: a stat file's fields after a command that holds spaces and
/// parentheses, a status file's labelled figure, a `children` file's PIDs, and a process
/// that is gone.
final class ProcFileTests: XCTestCase {
    private func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "procfile-\(UUID().uuidString)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testAStatLineIsReadPastACommandWithSpacesAndParentheses() throws {
        // After the command: state, ppid 42, nine fields, utime 100, stime 50, cutime 7, cstime 3,
        // six fields (a negative priority among them), rss 9 pages.
        let line = "1234 (a (b) c) S 42 1 2 3 4 5 6 7 8 9 100 50 7 3 -20 0 1 0 5 9000 9"
        var reader = ProcFile()
        let stat = try XCTUnwrap(ProcessStat(statPath: try file(line + "\n"), reader: &reader))
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        XCTAssertEqual(stat.parent, 42)
        XCTAssertEqual(stat.ownCPUSeconds, 150 / ticks, accuracy: 1e-9)
        XCTAssertEqual(stat.waitedChildrenCPUSeconds, 10 / ticks, accuracy: 1e-9)
        XCTAssertEqual(stat.rssBytes, 9 * sysconf(Int32(_SC_PAGESIZE)))
    }

    func testALabelledFigureAndAListOfPIDsAreRead() throws {
        var reader = ProcFile()
        XCTAssertTrue(reader.read(try file("Name:\tx\nVmPeak:\t  900 kB\nVmHWM:\t   1234 kB\n")))
        XCTAssertEqual(reader.integer(after: "VmHWM:"), 1234)
        XCTAssertNil(reader.integer(after: "VmSwap:"))
        XCTAssertTrue(reader.read(try file("17 4096 33 ")))
        XCTAssertEqual(reader.integers, [17, 4096, 33])
        XCTAssertFalse(reader.read("/proc/0/stat"), "no such process")
    }

    func testAFileLargerThanTheBufferIsReadWhole() throws {
        var reader = ProcFile()
        XCTAssertTrue(reader.read(try file(String(repeating: "1 ", count: 5000) + "77")))
        XCTAssertEqual(reader.integers.count, 5001)
        XCTAssertEqual(reader.integers.last, 77)
    }

    func testThisProcessIsReadAsTheKernelShowsIt() throws {
        let stat = try XCTUnwrap(ProcessStat(pid: getpid()))
        XCTAssertEqual(stat.parent, getppid())
        XCTAssertGreaterThan(stat.rssBytes, 0)
        XCTAssertTrue(ProcFile.numericEntries(of: "/proc/self/task").contains(getpid()), "the main thread's task")
    }
}
