import MockAPNs
import XCTest

/// The classifier the mock applies to a header field's name before it makes a string of its
/// value: it must know every field `InboundPush` reads, or a push would be judged without it.
final class InboundPushTests: XCTestCase {
    private func field(_ name: String) -> InboundPush.Field? {
        Array(name.utf8).withUnsafeBytes { InboundPush.Field(named: $0) }
    }

    func testEveryFieldAPushIsJudgedByPassesTheFilter() {
        let read = [
            ":method", ":path", "authorization", "apns-id", "apns-topic", "apns-priority", "apns-push-type",
            "apns-expiration", "apns-channel-id", "apns-request-id", "apns-collapse-id",
        ]
        XCTAssertEqual(Set(read.compactMap(field)), Set(InboundPush.Field.allCases), "each name its own field")
        for name in read { XCTAssertEqual(field(name)?.name.description, name) }
        var push = InboundPush(method: "", path: "")
        for name in read { push.set(field(name)!, to: name == "apns-priority" ? "10" : "x") }
        XCTAssertEqual(push.method, "x")
        XCTAssertEqual(push.path, "x")
        XCTAssertEqual(push.priority, "10")
        XCTAssertEqual(push.authorization, "x")
        XCTAssertFalse(push.hasDuplicateHeader)
    }

    func testFieldsNoPushIsJudgedByAreSkipped() {
        let unread = [
            "user-agent", "accept", "accept-encoding", "content-length", "content-type", "apns", "", "te",
            ":scheme", ":authority", "apns-idx", "apns-topix", "authorizatiom", "apns-expiratiom", "apns-hannel-id",
        ]
        for name in unread { XCTAssertNil(field(name), name) }
    }

    func testARepeatedHeaderKeepsItsFirstValueAndIsNoted() {
        var push = InboundPush(method: "POST", path: "/3/device/aa")
        push.add(name: "apns-priority", value: "5")
        XCTAssertFalse(push.hasDuplicateHeader)
        push.add(name: "apns-priority", value: "10")
        push.add(name: ":path", value: "/elsewhere")
        XCTAssertEqual(push.priority, "5")
        XCTAssertTrue(push.hasDuplicateHeader)
        XCTAssertEqual(push.path, "/3/device/aa", "a pseudo-header given as text is ignored")
    }
}
