import Sampling
import XCTest

final class PerfScriptTextTests: XCTestCase {
    /// What `perf script -F comm,pid,tid,ip,sym,dso --show-task-events` prints, cut down: the
    /// sender (100) forks a worker (101), a stranger (200) forks too, and the kernel idles.
    private let text = """
        bash  90/90  PERF_RECORD_FORK(100:100):(90:90)
        sender  100/100  PERF_RECORD_COMM exec: sender:100/100
        sender  100/100 
        \t          4709cd $s4Wire6APNsIDO7isValidySbSSFZ (/opt/app/sender)
        \t           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)

        sender  100/100  PERF_RECORD_FORK(101:101):(100:100)
        other  200/200  PERF_RECORD_FORK(201:201):(200:200)
        Web Content  101/102 
        \tffffffff81a0 tcp_sendmsg ([kernel.kallsyms])
        \t          1234 std::vector<int, std::allocator<int> >::push_back(int const&) (/usr/lib/libstdc++.so.6)
        \t          5678 [unknown] ([unknown])

        other  201/201 
        \t          4444 busy (/usr/bin/other)

        swapper     0/0   
        \tffffffff8100 default_idle ([kernel.kallsyms])

        sender  100/100 
        \t          4709cd $s4Wire6APNsIDO7isValidySbSSFZ (/opt/app/sender)
        \t           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)
        """

    /// A frame in no library (a frame-pointer walk gone astray) is left out.
    func testItFollowsTheSenderAndWhatItForksAndNothingElse() {
        var asked: [String] = []
        let stacks = PerfScriptText.fold(
            text,
            following: 100,
            demangle: { names in
                asked = names
                return Dictionary(uniqueKeysWithValues: names.map { ($0, "static APNsID.isValid(_:)") })
            }
        )
        XCTAssertEqual(asked, ["$s4Wire6APNsIDO7isValidySbSSFZ"], "each mangled name is demangled once")
        XCTAssertEqual(stacks.totalSamples, 3)
        let sender = StackFrame(function: "sender", library: "")
        let isValid = StackFrame(function: "static APNsID.isValid(_:)", library: "sender")
        let startThread = StackFrame(function: "start_thread", library: "libc.so.6")
        XCTAssertEqual(stacks.counts[[sender, startThread, isValid]], 2)
        let worker: [StackFrame] = [
            StackFrame(function: "Web Content", library: ""),
            StackFrame(
                function: "std::vector<int, std::allocator<int> >::push_back(int const&)",
                library: "libstdc++.so.6"
            ),
            StackFrame(function: "tcp_sendmsg", library: "kernel"),
        ]
        XCTAssertEqual(stacks.counts[worker], 1)
    }

    func testWithoutAProcessEverySampleIsKeptAndRootsCanBeRenamedOrLeftOut() {
        XCTAssertEqual(PerfScriptText.fold(text).totalSamples, 5)
        let renamed = PerfScriptText.fold(text, following: nil) { $0 == "sender" ? "pushbench" : nil }
        XCTAssertEqual(renamed.totalSamples, 2)
        XCTAssertEqual(Set(renamed.counts.keys.map { $0[0].function }), ["pushbench"])
    }
}
