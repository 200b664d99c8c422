import MockAPNs
import XCTest

/// The filter the mock applies before it makes strings of a header field: it must let through
/// every field `InboundPush` reads, or a push would be judged without it.
final class InboundPushTests: XCTestCase {
    private func mayKeep(_ name: String) -> Bool {
        Array(name.utf8).withUnsafeBytes { InboundPush.mayKeep($0) }
    }

    func testEveryFieldAPushIsJudgedByPassesTheFilter() {
        let read = [
            ":method", ":path", "authorization", "apns-id", "apns-topic", "apns-priority", "apns-push-type",
            "apns-expiration", "apns-channel-id", "apns-request-id", "apns-collapse-id",
        ]
        for name in read { XCTAssertTrue(mayKeep(name), name) }
        var push = InboundPush(method: "", path: "")
        for name in read { push.addField(name: name, value: name == "apns-priority" ? "10" : "x") }
        XCTAssertEqual(push.method, "x")
        XCTAssertEqual(push.path, "x")
        XCTAssertEqual(push.priority, "10")
        XCTAssertEqual(push.authorization, "x")
        XCTAssertFalse(push.hasDuplicateHeader)
    }

    func testFieldsNoPushIsJudgedByAreSkipped() {
        for name in ["user-agent", "accept", "accept-encoding", "content-length", "content-type", "apns", "", "te"] {
            XCTAssertFalse(mayKeep(name), name)
        }
    }
}
