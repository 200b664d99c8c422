import Arrivals
import Encodings
import LoadEngine
import MockAPNs
import Synchronization
import TestSupport
import Transport
import Workload
import XCTest

/// The recorder writes each push's line and hands on the same push, decoded once, as an
/// `Arrival`: what the devices and the book read must be what `traffic.csv` says.
final class ArrivalRecordingTests: XCTestCase {
    func testEveryRecordedPushIsHandedOnOnceAsTheArrivalItsLineDescribes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arrivals = Mutex<[Arrival]>([])
        let recorder = try PushRecorder(path: directory.file("traffic.csv")) { arrival in
            arrivals.withLock { $0.append(arrival) }
        }
        let mock = try MockFixture(threads: 2, recorder: recorder)
        let load = try mock.load(requests: 300, activities: 30, transport: .nghttp2)
        let result = try LoadTest.run(load, tokens: mock.tokens())
        XCTAssertEqual(result.counts.succeeded, 300)
        try recorder.close()
        let lines = try TrafficFile.table(recorder.path)
        let handedOn = arrivals.withLock { $0 }
        XCTAssertEqual(lines.count, 300)
        XCTAssertEqual(handedOn.count, 300, "one arrival a recorded push")

        func key(token: String, digest: String, event: LifecyclePhase?, priority: Int, status: Int) -> String {
            "\(token) \(digest) \(event?.rawValue ?? "-") \(priority) \(status)"
        }
        let written = lines.map {
            key(
                token: $0.deviceToken,
                digest: $0.payloadDigest,
                event: $0.event,
                priority: $0.priority,
                status: $0.status
            )
        }
        let read = handedOn.map {
            key(
                token: $0.deviceToken,
                digest: FNV1a.hex(digest: $0.payloadDigest),
                event: $0.event,
                priority: $0.priority,
                status: $0.status
            )
        }
        XCTAssertEqual(written.sorted(), read.sorted())
        XCTAssertTrue(handedOn.allSatisfy { $0.reason == nil && $0.accepted && !$0.body.isEmpty })
        let times = handedOn.map(\.receivedNs)
        XCTAssertEqual(Set(times).count > 1, true, "each arrival keeps its own time")
    }

    /// The tag a sender passed through is read once, where the push is decoded; a body without
    /// one has none, and a body's digest tells it apart from another's.
    func testAnArrivalReadsItsTagAndDigestFromItsBody() {
        let payload = Array(#"{"aps":{"event":"update","content-state":{"minute":1}}}"#.utf8)
        let tagged = Arrival(
            receivedNs: 1,
            deviceToken: "aa",
            status: 200,
            event: .update,
            body: EventTag.tagged(payload, event: 42)
        )
        let untagged = Arrival(
            receivedNs: 1,
            deviceToken: "aa",
            status: 410,
            reason: .unregistered,
            event: .update,
            body: payload
        )
        XCTAssertEqual(tagged.tag, 42)
        XCTAssertNil(untagged.tag)
        XCTAssertNotEqual(tagged.payloadDigest, untagged.payloadDigest)
        XCTAssertEqual(untagged.payloadDigest, FNV1a.hash(payload))
        XCTAssertFalse(untagged.accepted)
    }
}
