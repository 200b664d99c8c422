import Foundation
import Sampling
import XCTest

@testable import Reports

final class FlameGraphTests: XCTestCase {
    private func stacks() -> FoldedStacks {
        var stacks = FoldedStacks()
        let root = StackFrame(function: "pushbench", library: "")
        let run = StackFrame(function: "LoadWorker.run()", library: "pushbench")
        let submit = StackFrame(function: "WorkerLoop.submitDue()", library: "pushbench")
        let encode = StackFrame(function: "PayloadEncoder.encode(_:)", library: "pushbench")
        let send = StackFrame(function: "nghttp2_session_mem_send", library: "libnghttp2.so.14.24.1")
        let write = StackFrame(function: "tcp_sendmsg", library: "kernel")
        stacks.add([root, run, submit, encode], samples: 30)
        stacks.add([root, run, submit, send], samples: 50)
        stacks.add([root, run, submit, send, write], samples: 15)
        stacks.add([root, run], samples: 4)
        stacks.add(
            [StackFrame(function: "python3", library: ""), StackFrame(function: "[unknown]", library: "python3.11")],
            samples: 200
        )
        // A sliver too narrow to draw, 1 sample in 100,000.
        stacks.add([root, StackFrame(function: "rare", library: "pushbench")], samples: 1)
        stacks.add([root, StackFrame(function: "hot", library: "pushbench")], samples: 99_700)
        return stacks
    }

    func testEveryBoxIsItsSelfTimeAndItsCalleesAndTheWidthsAddUpToTheSamples() {
        let graph = FlameGraph(stacks())
        XCTAssertEqual(graph.totalSamples, 100_000)
        XCTAssertEqual(graph.boxes[0].samples, graph.totalSamples)
        for (index, box) in graph.boxes.enumerated() {
            let callees = graph.boxes[(index + 1)...].prefix { $0.depth > box.depth }.filter {
                $0.depth == box.depth + 1
            }
            XCTAssertEqual(box.selfSamples + callees.map(\.samples).reduce(0, +), box.samples, "\(box.frame)")
            if let first = callees.first, let last = callees.last {
                XCTAssertGreaterThanOrEqual(first.start, box.start, "callees lie on their caller")
                XCTAssertLessThanOrEqual(last.start + last.samples, box.start + box.samples)
            }
        }
        XCTAssertEqual(graph.boxes.filter { $0.depth == 1 }.map(\.samples).reduce(0, +), graph.totalSamples)
        XCTAssertEqual(graph.maxDepth, 5)
        let send = graph.boxes.filter { $0.frame.function == "nghttp2_session_mem_send" }
        XCTAssertEqual(send.map(\.samples), [65], "one box for one path, however many stacks pass through it")
        XCTAssertEqual(send.map(\.selfSamples), [50])
    }

    func testTheSVGDrawsEachBoxAsWideAsItsSamples() throws {
        let graph = FlameGraph(stacks())
        let svg = graph.svg()
        let pattern = try NSRegularExpression(
            pattern:
                #"<g class="fb" data-s="(\d+)" data-n="(\d+)" data-d="(\d+)" data-f="([^"]*)"><title>[^<]*</title><rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)""#
        )
        let matches = pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg))
        let boxes = matches.map { match in
            (1...6).map { String(svg[Range(match.range(at: $0), in: svg)!]) }
        }
        XCTAssertEqual(boxes.count, graph.boxes.count - 1, "every box but the one of a sample in 100,000")
        XCTAssertFalse(boxes.contains { $0[3] == "rare" })
        XCTAssertEqual(boxes.first?[1], "100000")
        for box in boxes {
            let samples = Double(box[1])!
            XCTAssertEqual(Double(box[5])!, samples / 100_000 * 1200, accuracy: 0.006, box[3])
            XCTAssertEqual(Double(box[4])!, Double(box[0])! / 100_000 * 1200, accuracy: 0.006, box[3])
        }
        XCTAssertTrue(svg.contains(#"data-f="[python3.11]""#), "an unnamed function is labelled by its library")
        XCTAssertTrue(svg.contains("<title>nghttp2_session_mem_send (libnghttp2.so.14.24.1)\n65 samples"))
    }

    func testTheSectionNamesTheTopFunctionsAndSaysWhyThereAreNoStacks() {
        let profile = StackProfile(stacks: stacks(), frequencyHz: 997, scope: "a test", perfCPUSeconds: 0.5)
        let html = StackProfileSection(sampling: .success(profile), pushes: 1000).render()
        XCTAssertTrue(html.contains("100000 samples of a test, taken by perf at 997 Hz"))
        XCTAssertTrue(html.contains("(500.0 µs a push)"))
        XCTAssertTrue(html.contains("<td class=\"num\">1</td><td>hot</td><td>pushbench</td><td>sender's own code</td>"))
        let missing = StackProfileSection(sampling: .failure(PerfUnavailable("perf is not installed")), pushes: 0)
        XCTAssertTrue(missing.render().contains("Not sampled: perf is not installed."))
        XCTAssertEqual(StackProfileSection(sampling: nil, pushes: 0).render(), "")
    }
}
