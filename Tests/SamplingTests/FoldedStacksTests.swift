import Sampling
import XCTest

final class FoldedStacksTests: XCTestCase {
    private func sample() -> FoldedStacks {
        var stacks = FoldedStacks()
        let root = StackFrame(function: "python3", library: "")
        let main = StackFrame(function: "main", library: "python3.11")
        stacks.add([root, main, StackFrame(function: "_PyEval_EvalFrameDefault", library: "python3.11")], samples: 40)
        stacks.add(
            [
                root, main,
                StackFrame(
                    function: "std::vector<int, std::allocator<int> >::push_back(int const&)",
                    library: "libx.so.1"
                ),
            ],
            samples: 3
        )
        stacks.add(
            [root, StackFrame(function: "closure #1 in LoadTest.run([UInt8]) -> ()", library: "pushbench")],
            samples: 7
        )
        stacks.add([root, StackFrame(function: "tcp_sendmsg", library: "kernel")])
        return stacks
    }

    func testTheTextReadBackIsTheStacksWritten() throws {
        let stacks = sample()
        let read = try FoldedStacks(text: stacks.text)
        XCTAssertEqual(read, stacks)
        XCTAssertEqual(read.text, stacks.text)
        XCTAssertEqual(read.totalSamples, 51)
        XCTAssertTrue(stacks.text.contains("python3;python3.11`main;python3.11`_PyEval_EvalFrameDefault 40\n"))
    }

    func testAnotherToolsFramesHaveNoLibraryAndCountsAddUp() throws {
        let stacks = try FoldedStacks(text: "java;main;work 5\njava;main;work 2\n\njava;gc 1\n")
        XCTAssertEqual(stacks.totalSamples, 8)
        XCTAssertEqual(stacks.counts[["java", "main", "work"].map { StackFrame(function: $0, library: "") }], 7)
    }

    func testAMalformedLineIsNamed() {
        XCTAssertThrowsError(try FoldedStacks(text: "a;b 3\na;b three\n")) { error in
            XCTAssertEqual((error as? FoldedStacksError)?.line, 2)
        }
        XCTAssertThrowsError(try FoldedStacks(text: " 3\n"))
        XCTAssertThrowsError(try FoldedStacks(text: "a;b 0\n"))
    }

    func testTheFormatsReservedCharactersCannotSplitAFrame() throws {
        var stacks = FoldedStacks()
        stacks.add([StackFrame(function: "a;b\nc", library: "lib`x")])
        XCTAssertEqual(stacks.text, "lib x`a b c 1\n")
        XCTAssertEqual(try FoldedStacks(text: stacks.text), stacks)
    }

    func testTheTopFunctionsBySelfTimeCountRecursionOnce() {
        var stacks = FoldedStacks()
        let root = StackFrame(function: "p", library: "")
        let f = StackFrame(function: "f", library: "app")
        let g = StackFrame(function: "g", library: "libc.so.6")
        stacks.add([root, f, f, g], samples: 6)
        stacks.add([root, f], samples: 4)
        let top = stacks.topBySelfTime(20)
        XCTAssertEqual(top.map(\.frame), [g, f])
        XCTAssertEqual(top.map(\.selfSamples), [6, 4])
        XCTAssertEqual(top.map(\.totalSamples), [6, 10])
        XCTAssertEqual(stacks.shares[.runtimeAllocator], 60)
        XCTAssertEqual(stacks.shares[.senderCode], 40)
        XCTAssertEqual(stacks.shares.values.reduce(0, +), 100, accuracy: 1e-9)
    }
}
