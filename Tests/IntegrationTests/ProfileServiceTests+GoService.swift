import Foundation
import TestSupport
import XCTest

/// The lifecycle through the Go service (`Tests/Services/netmera-go`, Go's standard library only:
/// net/http's HTTP/2 client and crypto/ecdsa's ES256), built here with Debian's golang-go: the
/// same endpoints and books as the Python service's, from a service written apart from it.
extension ProfileServiceTests {
    /// The Go service's binary, built once per test process; skipped where Go is missing.
    static func goService() throws -> String {
        try GoServiceBuild.shared.get()
    }

    func testTheGoServiceRunsTheNetmeraLifecycleWithEveryBookBalanced() throws {
        let (output, summary, _) = try lifecycle(service: [try Self.goService()])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let lifecycle = try section(summary, "lifecycle")
        XCTAssertEqual(
            lifecycle["start_pushes"] as? [String: Int],
            ["sent": 300, "accepted": 300, "refused": 0],
            "a start push to each device, each a valid start (alert, attributes, content state)"
        )
        let activities = try XCTUnwrap(lifecycle["activities"] as? [String: Any])
        XCTAssertEqual(activities["started"] as? Int, 300)
        XCTAssertEqual(activities["updated"] as? Int, 300)
        XCTAssertEqual(try section(summary, "fanout")["missing"] as? Int, 0, "every update reached its activity")
        XCTAssertEqual(lifecycle["wasted_pushes"] as? Int, 0)
        XCTAssertEqual(summary?["accounting_balanced"] as? Bool, true)
        XCTAssertEqual(try section(summary, "counts")["sent"] as? Int, 300 + 500, "starts and updates alike")
    }

    /// The same lifecycle with the service sealed (`--as-apple`): its pushes reach the mock at
    /// Apple's name, and the operator's calls and the devices' token reports reach the service
    /// inside, on the port the request file names, carried in from the host's loopback.
    func testTheGoServiceRunsTheLifecycleSealedAtApplesName() throws {
        let (output, summary, _) = try lifecycle(options: ["--as-apple"], service: [try Self.goService()])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let lifecycle = try section(summary, "lifecycle")
        let reports = try XCTUnwrap((lifecycle["storm"] as? [String: Any])?["reports"] as? [String: Any])
        XCTAssertEqual(reports["by_status"] as? [String: Int], ["200": 300], "every token report reached the service")
        let activities = try XCTUnwrap(lifecycle["activities"] as? [String: Any])
        XCTAssertEqual(activities["updated"] as? Int, 300)
        XCTAssertEqual(summary?["accounting_balanced"] as? Bool, true)
        let hosts = try XCTUnwrap(try section(summary, "sealed_network")["hosts"] as? [[String: Any]])
        let used = hosts.filter { ($0["requests"] as? Int ?? 0) > 0 }
        XCTAssertEqual(used.map { "\($0["name"] ?? ""):\($0["port"] ?? "")" }, ["api.push.apple.com:443"])
        XCTAssertEqual(used.first?["accepted"] as? Int, 300 + 500, "starts and updates alike")
        let carried = try XCTUnwrap(try section(summary, "sealed_network")["carried_in"] as? [[String: Any]])
        XCTAssertEqual(carried.count, 1, "the file names one port")
        XCTAssertGreaterThan(carried.first?["connections"] as? Int ?? 0, 0)
        XCTAssertTrue(output.stdout.contains("its API was carried in at 127.0.0.1:"), output.stdout)
    }

    /// The Go service losing 5% of the reports it answers: each lost report is one activity
    /// never updated, charged to the service, as with the Python service.
    func testTheGoServiceLosingReportsIsChargedForEachOne() throws {
        let (output, summary, folder) = try lifecycle(
            service: [try Self.goService()],
            serviceOptions: ["-drop-reports", "0.05"]
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let log = try String(contentsOfFile: "\(try XCTUnwrap(folder))/sender.stderr.log", encoding: .utf8)
        let dropped = try XCTUnwrap(log.firstMatch(of: /token reports dropped: (\d+)/).flatMap { Int($0.1) }, log)
        XCTAssertGreaterThan(dropped, 0)
        let activities = try XCTUnwrap(try section(summary, "lifecycle")["activities"] as? [String: Any])
        XCTAssertEqual(activities["never_updated_by_cause"] as? [String: Int], ["report_lost_by_service": dropped])
    }
}

/// Builds the Go service once for every test that uses it.
private final class GoServiceBuild: Sendable {
    static let shared = GoServiceBuild()
    private let built: Result<String, Error>

    private init() {
        built = Result {
            guard ExternalProgram.onPath("go") != nil else {
                throw XCTSkip("Go is missing (apt-get install golang-go): the Go service is not built")
            }
            let repository = ProfileServiceTests.repository
            let source = repository.appendingPathComponent("Tests/Services/netmera-go").path
            // Beside the other build products, one a test process (Go 1.19 builds from the
            // module's own folder only).
            let binary = repository.appendingPathComponent(".build/netmera-go-test-\(getpid())").path
            let output = try ExternalProgram(path: "/bin/sh").run(
                ["-c", #"cd "$0" && go build -o "$1" ."#, source, binary],
                timeout: 300
            )
            guard output.status == 0 else { throw GoBuildFailure(output: output.stderr) }
            return binary
        }
    }

    func get() throws -> String { try built.get() }
}

private struct GoBuildFailure: Error, CustomStringConvertible {
    var output: String
    var description: String { "go build of the Go service failed: \(output)" }
}
