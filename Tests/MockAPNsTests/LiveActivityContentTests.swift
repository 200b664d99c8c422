import XCTest

@testable import MockAPNs

/// What a device would drop of Live Activity pushes APNs accepts, read without a JSON parser.
final class LiveActivityContentTests: XCTestCase {
    private func problem(_ json: String) -> String? {
        LiveActivityContent.problem(in: Array(json.utf8))
    }

    func testUsablePayloadsHaveNoProblem() {
        XCTAssertNil(problem(#"{"aps":{"timestamp":1,"event":"update","content-state":{"a":[1,{"b":null}]}}}"#))
        XCTAssertNil(
            problem(
                #" { "aps" : { "event" : "start", "timestamp" : 1.5e9, "content-state" : {}, "#
                    + #""attributes-type":"Match","attributes":{"name":"A \"quoted\" \\ \u00e9"},"#
                    + #""alert":{"title":"t","body":"b"},"input-push-token":1 } , "extra" : [true,false] } "#
            )
        )
        XCTAssertNil(problem(#"{"aps":{"event":"end","timestamp":1,"content-state":{},"dismissal-date":2}}"#))
    }

    func testEachProblemIsNamed() {
        XCTAssertEqual(problem(#"{"aps":{"timestamp":1,"content-state":{}}}"#), "MissingEvent")
        XCTAssertEqual(problem(#"{"aps":{"event":"pause","timestamp":1,"content-state":{}}}"#), "UnknownEvent")
        XCTAssertEqual(problem(#"{"aps":{"event":3,"timestamp":1,"content-state":{}}}"#), "UnknownEvent")
        XCTAssertEqual(problem(#"{"aps":{"event":"update","content-state":{}}}"#), "MissingTimestamp")
        XCTAssertEqual(problem(#"{"aps":{"event":"update","timestamp":1}}"#), "MissingContentState")
        let start = #""event":"start","timestamp":1,"content-state":{}"#
        XCTAssertEqual(problem(#"{"aps":{\#(start),"attributes":{},"alert":{}}}"#), "StartWithoutAttributesType")
        XCTAssertEqual(problem(#"{"aps":{\#(start),"attributes-type":"M","alert":{}}}"#), "StartWithoutAttributes")
        XCTAssertEqual(problem(#"{"aps":{\#(start),"attributes-type":"M","attributes":{}}}"#), "StartWithoutAlert")
        XCTAssertEqual(
            problem(#"{"aps":{"event":"update","timestamp":1,"content-state":{},"dismissal-date":2}}"#),
            "DismissalDateWithoutEnd"
        )
    }

    func testWhatIsNotAJSONObjectWithAnApsObjectHasNoAps() {
        for json in [
            "", "{}", "[]", #"{"aps":1}"#, #"{"aps":{"event":"update""#, #"{"aps":{}} trailing"#,
            #"{"aps":{"event":"upd"#, #"{"aps":{"a":[1,2}}"#, #"{"aps":{"a" 1}}"#,
        ] {
            XCTAssertEqual(problem(json), "NoApsObject", json)
        }
    }
}
