import Foundation
import XCTest

@testable import Wire

final class PayloadEncoderTests: XCTestCase {
    private func decode(_ bytes: [UInt8]) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    private func aps(_ payload: LiveActivityPayload) throws -> [String: Any] {
        var encoder = PayloadEncoder()
        try encoder.encode(payload)
        return try XCTUnwrap(decode(encoder.bytes)["aps"] as? [String: Any])
    }

    func testPlainPayloadDecodesToTheExpectedDictionary() throws {
        let payload = LiveActivityPayload(
            event: .update,
            timestamp: 1_700_000_000,
            contentState: .object([
                JSONMember("homeScore", 2), JSONMember("awayScore", 1), JSONMember("minute", 67),
                JSONMember("live", true), JSONMember("odds", 1.75), JSONMember("scorers", ["A", "B"]),
                JSONMember("var", .null),
            ]),
            staleDate: 1_700_000_900,
            relevanceScore: 100,
            alert: .init(title: "GOAL!", body: "2–1", sound: "default")
        )
        let aps = try aps(payload)
        XCTAssertEqual(aps["event"] as? String, "update")
        XCTAssertEqual(aps["timestamp"] as? Int, 1_700_000_000)
        XCTAssertEqual(aps["stale-date"] as? Int, 1_700_000_900)
        XCTAssertEqual(aps["relevance-score"] as? Int, 100)
        XCTAssertNil(aps["dismissal-date"])
        let state = try XCTUnwrap(aps["content-state"] as? [String: Any])
        XCTAssertEqual(state["homeScore"] as? Int, 2)
        XCTAssertEqual(state["live"] as? Bool, true)
        XCTAssertEqual(state["odds"] as? Double, 1.75)
        XCTAssertEqual(state["scorers"] as? [String], ["A", "B"])
        XCTAssertTrue(state["var"] is NSNull)
        let alert = try XCTUnwrap(aps["alert"] as? [String: String])
        XCTAssertEqual(alert, ["title": "GOAL!", "body": "2–1", "sound": "default"])
    }

    func testStartPayloadCarriesAttributesAndAsksForAnUpdateToken() throws {
        let payload = LiveActivityPayload(
            event: .start,
            timestamp: 1_700_000_000,
            contentState: .object([JSONMember("homeScore", 0)]),
            alert: .init(title: "Kick-off", body: "The match has started"),
            attributesType: "MatchAttributes",
            attributes: .object([JSONMember("matchID", 7)]),
            inputPushToken: true
        )
        var encoder = PayloadEncoder()
        try encoder.encode(payload)
        let aps = try aps(payload)
        XCTAssertEqual(aps["attributes-type"] as? String, "MatchAttributes")
        XCTAssertEqual((aps["attributes"] as? [String: Int])?["matchID"], 7)
        XCTAssertEqual(aps["input-push-token"] as? Int, 1, "a number, as ActivityKit reads it")
        XCTAssertEqual(
            try decode(encoder.bytes) as NSDictionary,
            try decode(Array(JSONEncoder().encode(payload))) as NSDictionary
        )
        XCTAssertNil(try self.aps(.init(event: .update, timestamp: 1, contentState: .object([])))["input-push-token"])
    }

    /// A start that subscribes to a broadcast channel names it, as ActivityKit reads it (iOS 18).
    func testStartPayloadSubscribesToABroadcastChannel() throws {
        let payload = LiveActivityPayload(
            event: .start,
            timestamp: 1_700_000_000,
            contentState: .object([JSONMember("homeScore", 0)]),
            attributesType: "MatchAttributes",
            attributes: .object([]),
            inputPushChannel: "dHVyYm8tY2hhbm5lbC0wMQ=="
        )
        var encoder = PayloadEncoder()
        try encoder.encode(payload)
        XCTAssertEqual(try aps(payload)["input-push-channel"] as? String, "dHVyYm8tY2hhbm5lbC0wMQ==")
        XCTAssertNil(try aps(payload)["input-push-token"])
        XCTAssertEqual(
            try decode(encoder.bytes) as NSDictionary,
            try decode(Array(JSONEncoder().encode(payload))) as NSDictionary
        )
    }

    func testEscapedAndControlCharactersRoundTrip() throws {
        let nasty = "quote \" backslash \\ slash / newline \n tab \t return \r bell \u{07} nul \u{00} unit \u{1F}"
        let state = try XCTUnwrap(
            aps(.init(event: .update, timestamp: 1, contentState: .object([JSONMember(nasty, .string(nasty))])))[
                "content-state"
            ] as? [String: String]
        )
        XCTAssertEqual(state, [nasty: nasty])
    }

    func testNonASCIIPassesThroughAsUTF8() throws {
        let text = "Málaga – Борусія 🇩🇪 ⚽️ 東京"
        var encoder = PayloadEncoder()
        try encoder.encode(
            .init(
                event: .end,
                timestamp: 1,
                contentState: .object([JSONMember("team", .string(text))]),
                dismissalDate: 9
            )
        )
        XCTAssertTrue(
            String(decoding: encoder.bytes, as: UTF8.self).contains(text),
            "non-ASCII must not be \\u-escaped"
        )
        let aps = try XCTUnwrap(decode(encoder.bytes)["aps"] as? [String: Any])
        XCTAssertEqual((aps["content-state"] as? [String: String])?["team"], text)
        XCTAssertEqual(aps["dismissal-date"] as? Int, 9)
    }

    func testIntegersAreExactAndDoublesRoundTrip() throws {
        var bytes: [UInt8] = []
        for value in [Int64.min, -10, -9, -1, 0, 7, 9, 10, 99, 1_800_000_000, Int64.max] {
            bytes.removeAll()
            JSONWriter.writeInteger(value, to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(value))
        }
        for value in [0.1, -2.5e-8, 1.0 / 3.0, 6.02214076e23, 123.0] {
            bytes.removeAll()
            JSONWriter.writeDouble(value, to: &bytes)
            let parsed = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) as? NSNumber
            )
            XCTAssertEqual(parsed.doubleValue, value)
        }
        bytes.removeAll()
        JSONWriter.writeDouble(.nan, to: &bytes)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "null")
    }

    /// A payload exactly at the limit is sent whole; one byte over, it is refused with its exact
    /// size, though the encoder kept only the limit's worth of it. The refusal leaves the last
    /// payload that fitted in `bytes`.
    func testTheLimitIsExactAndARefusalReportsTheWholeSize() throws {
        let payload = LiveActivityPayload(
            event: .update,
            timestamp: 1_800_000_000,
            contentState: .object([JSONMember("note", .string("ü \"quoted\" \u{1}")), JSONMember("n", .double(0.5))]),
            alert: .init(title: "t", body: "b", sound: "default")
        )
        var unbounded = PayloadEncoder(limit: 1 << 16)
        try unbounded.encode(payload)
        let size = unbounded.bytes.count
        var exact = PayloadEncoder(limit: size)
        try exact.encode(payload)
        XCTAssertEqual(exact.bytes, unbounded.bytes)
        var short = PayloadEncoder(limit: size - 1)
        try short.encode(LiveActivityPayload(event: .end, timestamp: 1, contentState: .object([])))
        let fitted = short.bytes
        XCTAssertThrowsError(try short.encode(payload)) { error in
            XCTAssertEqual(error as? PayloadTooLargeError, PayloadTooLargeError(size: size, limit: size - 1))
        }
        XCTAssertEqual(short.bytes, fitted)
    }

    func testOversizedPayloadIsRefusedWithItsSize() {
        var encoder = PayloadEncoder()
        let big = String(repeating: "x", count: 5000)
        XCTAssertThrowsError(
            try encoder.encode(
                .init(event: .update, timestamp: 1, contentState: .object([JSONMember("s", .string(big))]))
            )
        ) { error in
            let tooLarge = error as? PayloadTooLargeError
            XCTAssertEqual(tooLarge?.limit, 4096)
            XCTAssertGreaterThan(tooLarge?.size ?? 0, 5000)
            XCTAssertTrue("\(error)".contains("4096"))
        }
        var voip = PayloadEncoder(limit: PushType.voip.payloadLimit)
        XCTAssertNoThrow(
            try voip.encode(
                .init(
                    event: .update,
                    timestamp: 1,
                    contentState: .object([JSONMember("s", .string(String(big.prefix(4500))))])
                )
            )
        )
    }

    func testEncoderReusesItsBuffer() throws {
        var encoder = PayloadEncoder()
        try encoder.encode(
            .init(
                event: .update,
                timestamp: 1,
                contentState: .object([JSONMember("long", .string(String(repeating: "y", count: 300)))])
            )
        )
        try encoder.encode(.init(event: .update, timestamp: 2, contentState: .object([])))
        XCTAssertEqual(
            String(decoding: encoder.bytes, as: UTF8.self),
            #"{"aps":{"timestamp":2,"event":"update","content-state":{}}}"#
        )
    }
    /// A payload reused for the next push keeps only its event, timestamp and content-state.
    func testClearingLeavesOnlyTheMembersEveryPushSends() {
        var payload = LiveActivityPayload(
            event: .start,
            timestamp: 7,
            contentState: .object([JSONMember("score", .integer(1))]),
            staleDate: 8,
            dismissalDate: 9,
            relevanceScore: 0.5,
            alert: .init(title: "Goal", body: "1-0", sound: "default"),
            attributesType: "MatchAttributes",
            attributes: .object([JSONMember("home", .string("A"))]),
            inputPushToken: true,
            inputPushChannel: "Y2hhbm5lbA=="
        )
        payload.clearOptionalMembers()
        XCTAssertEqual(
            payload,
            LiveActivityPayload(event: .start, timestamp: 7, contentState: .object([JSONMember("score", .integer(1))]))
        )
    }
}
