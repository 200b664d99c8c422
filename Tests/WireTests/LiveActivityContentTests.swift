import XCTest

@testable import Wire

/// What a device would drop of Live Activity pushes APNs accepts, read without a JSON parser.
final class LiveActivityContentTests: XCTestCase {
    private func problem(_ json: String) -> String? {
        LiveActivityContent.problem(in: Array(json.utf8))
    }

    /// A timestamp in milliseconds is usable but irregular; one in seconds (10 digits, or 1.5e9
    /// written with an exponent) is not.
    func testAMillisecondTimestampIsNamedAsAnIrregularity() {
        func assessed(_ timestamp: String) -> (String?, String?) {
            let json = #"{"aps":{"event":"update","timestamp":\#(timestamp),"content-state":{}}}"#
            let result = LiveActivityContent.assess(Array(json.utf8))
            return (result.problem, result.irregularity)
        }
        XCTAssertTrue(assessed("1795558198000") == (nil, "timestamp_in_milliseconds"))
        XCTAssertTrue(assessed(" 1795558198") == (nil, nil))
        XCTAssertTrue(assessed("1.5e9") == (nil, nil))
        XCTAssertTrue(assessed(#""1795558198000""#) == (nil, nil), "a string is not a number of milliseconds")
    }

    /// What a recording keeps of `aps`, walked without a parser: the whole seconds of each date,
    /// nothing for a value that is not a number.
    func testTheDatesARecordingKeepsAreRead() throws {
        let json =
            #"{"x":[1],"aps":{"event":"end","timestamp": 1795558198.75,"stale-date":-5,"#
            + #""dismissal-date":"soon"}}"#
        let aps = try XCTUnwrap(APSMembers(json: Array(json.utf8)))
        XCTAssertEqual(aps.event, "end")
        XCTAssertEqual(aps.timestamp, 1_795_558_198)
        XCTAssertEqual(aps.staleDate, -5)
        XCTAssertNil(aps.dismissalDate, "a string is not a date")
        XCTAssertNil(APSMembers(json: Array(#"{"aps":{"timestamp":99999999999999999999}}"#.utf8))?.timestamp)
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
