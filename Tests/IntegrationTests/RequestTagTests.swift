import XCTest

@testable import ServiceDriver

/// Every request to the service comes back as itself from its answer's tag, whatever its kind
/// and number: a rotated token report is a report, not a close, and no number is negative.
final class RequestTagTests: XCTestCase {
    func testEveryKindOfRequestRoundTripsThroughItsTag() {
        let tags: [RequestTag] = [0, 1, 7, 8, 999_999, 10_000_000].flatMap { number in
            [
                .registration(number), .call(number), .start(number),
                .device(.tokenReport(activity: number, rotated: false)),
                .device(.tokenReport(activity: number, rotated: true)),
                .device(.close(activity: number)),
                .device(.startToken(activity: number, reissued: false)),
                .device(.startToken(activity: number, reissued: true)),
            ]
        }
        for tag in tags {
            XCTAssertGreaterThanOrEqual(tag.rawValue, 0, "\(tag)")
            XCTAssertEqual(RequestTag(rawValue: tag.rawValue), tag)
        }
        XCTAssertEqual(Set(tags.map(\.rawValue)).count, tags.count, "no two requests share a tag")
    }
}
