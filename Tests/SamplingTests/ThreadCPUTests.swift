import Foundation
import Sampling
import XCTest

final class ThreadCPUTests: XCTestCase {
    /// A thread named like the mock's is counted; the test's own busy thread, named otherwise,
    /// is not: a part of the process is read apart from the rest.
    func testOnlyTheThreadsNamedLikeThePrefixAreCounted() {
        func spin(named name: String, seconds: Double) -> Thread {
            // Named in the kernel, as the mock names its loops (Foundation's `name` is not).
            Thread {
                try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                let until = Date().addingTimeInterval(seconds)
                var sink = 0
                while Date() < until { sink &+= 1 }
                _ = sink
            }
        }
        let before = ProcessStat.ownThreadsCPUSeconds(namedLike: "pb-test-spin")
        let counted = spin(named: "pb-test-spin", seconds: 0.3)
        let other = spin(named: "pb-test-other", seconds: 0.3)
        counted.start()
        other.start()
        // Read while both still run: a thread that ended is no longer listed.
        Thread.sleep(forTimeInterval: 0.25)
        let spun = ProcessStat.ownThreadsCPUSeconds(namedLike: "pb-test-spin") - before
        let others = ProcessStat.ownThreadsCPUSeconds(namedLike: "pb-test-other")
        XCTAssertGreaterThan(spun, 0.02, "the named thread's CPU")
        XCTAssertGreaterThan(others, 0.02, "the other thread's, read apart")
        XCTAssertEqual(ProcessStat.ownThreadsCPUSeconds(namedLike: "pb-test-nothing"), 0)
        Thread.sleep(forTimeInterval: 0.1)
    }
}
