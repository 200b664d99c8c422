import TestSupport
import XCTest

@testable import MockAPNs
@testable import Wire

final class ProviderKeyFileTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        try directory.write("public.pem", try ES256PrivateKey().publicKeyPEM())
        try directory.write("AuthKey.p8", try ES256PrivateKey().pkcs8PEM())
    }

    override func tearDown() {
        directory.remove()
    }

    private func load(_ json: String) throws -> [ProviderKey] {
        try ProviderKeyFile.load(try directory.write("keys.json", Array(json.utf8)))
    }

    func testReadsEachScopeWithKeysRelativeToTheFile() throws {
        let keys = try load(
            """
            {"keys": [
              {"key_id": "LEGACYKEY1", "team_id": "DEF123GHIJ", "public_key": "public.pem"},
              {"key_id": "TEAMPROD01", "team_id": "DEF123GHIJ", "public_key": "AuthKey.p8", "environment": "production"},
              {"key_id": "TOPICKEY01", "team_id": "DEF123GHIJ", "public_key": "\(directory.file("public.pem"))",
               "environment": "both", "topics": ["com.example.app", "com.example.other"]}
            ]}
            """
        )
        XCTAssertEqual(keys.map(\.keyID), ["LEGACYKEY1", "TEAMPROD01", "TOPICKEY01"])
        XCTAssertEqual(keys.map(\.isScoped), [false, true, true])
        XCTAssertEqual(keys[1].environment, .production)
        XCTAssertNil(keys[2].environment)
        XCTAssertEqual(keys[2].topics, ["com.example.app", "com.example.other"])
        XCTAssertEqual(keys[2].scope, "topic-specific (com.example.app, com.example.other), both environments")
    }

    func testEveryMistakeNamesTheFileTheKeyAndTheProblem() throws {
        let key = #""key_id": "ABC123DEFG", "team_id": "DEF123GHIJ", "public_key": "public.pem""#
        let cases: [(json: String, message: String)] = [
            ("[]", #"expected a JSON object {"keys": [...]} with at least one key"#),
            (#"{"keys": []}"#, "with at least one key"),
            (#"{"keys": [{\#(key), "enviroment": "production"}]}"#, "key 1: unknown field 'enviroment'"),
            (
                #"{"keys": [{\#(key), "environment": "staging"}]}"#,
                "environment must be production, development or both"
            ),
            (#"{"keys": [{\#(key), "topics": []}]}"#, "topics must be a non-empty list of bundle IDs"),
            (#"{"keys": [{\#(key)}, {\#(key)}]}"#, "key 2: key_id ABC123DEFG appears twice"),
            (
                #"{"keys": [{"key_id": "SHORT", "team_id": "DEF123GHIJ", "public_key": "public.pem"}]}"#,
                "key_id must be"
            ),
            (
                #"{"keys": [{"key_id": "ABC123DEFG", "team_id": "DEF123GHIJ", "public_key": "absent.pem"}]}"#,
                "cannot read public_key"
            ),
            (
                #"{"keys": [{"key_id": "ABC123DEFG", "team_id": "DEF123GHIJ", "public_key": "keys.json"}]}"#,
                "public_key \(directory.file("keys.json")) is unusable"
            ),
        ]
        for (json, message) in cases {
            XCTAssertThrowsError(try load(json), json) { error in
                let text = "\(error)"
                XCTAssertTrue(text.hasPrefix("keys file " + directory.file("keys.json") + ": "), text)
                XCTAssertTrue(text.contains(message), "\(json): \(text)")
            }
        }
        XCTAssertThrowsError(try ProviderKeyFile.load(directory.file("absent.json"))) { error in
            XCTAssertEqual("\(error)", "keys file " + directory.file("absent.json") + ": no such file")
        }
    }
}
