import Foundation
import TestSupport
import XCTest

/// The Grafana dashboard's queries, run by a real Prometheus against a real run's `/metrics`:
/// every series they name exists, and every panel shows data. The scrape configuration beside it
/// passes `promtool check config`, and a scrape passes `promtool check metrics`.
final class GrafanaDashboardTests: PushbenchTestCase {
    private struct Panel {
        var title: String
        var queries: [String]
    }

    private func panels() throws -> [Panel] {
        let url = Self.repository.appendingPathComponent("deploy/grafana/pushbench-run.json")
        let dashboard = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let panels = try XCTUnwrap(dashboard["panels"] as? [[String: Any]])
        return try panels.map { panel in
            let targets = try XCTUnwrap(panel["targets"] as? [[String: Any]])
            return Panel(
                title: try XCTUnwrap(panel["title"] as? String),
                queries: try targets.map { try XCTUnwrap($0["expr"] as? String) }
            )
        }
    }

    /// The `pushbench_…` names a query reads.
    private func metricNames(in query: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "pushbench_[a-z_]+")
        let range = NSRange(query.startIndex..., in: query)
        return Set(pattern.matches(in: query, range: range).map { String(query[Range($0.range, in: query)!]) })
    }

    func testEveryPanelShowsDataFromARealRunThroughPrometheus() throws {
        let prometheus = try XCTUnwrap(ExternalProgram.onPath("prometheus"), "Scripts/install-deps.sh installs it")
        let promtool = try XCTUnwrap(ExternalProgram.onPath("promtool"))
        let scrapeConfig = Self.repository.appendingPathComponent("deploy/prometheus/pushbench-scrape.yaml").path
        let checked = try promtool.run(["check", "config", scrapeConfig])
        XCTAssertEqual(checked.status, 0, checked.stdout + checked.stderr)

        // Prometheus first, so that it scrapes the run from its first second.
        let ports = try (LoopbackListener(), LoopbackListener())
        let (metricsPort, webPort) = (ports.0.port, ports.1.port)
        ports.0.close()
        ports.1.close()
        let config = try directory.write(
            "prometheus.yml",
            Array(
                """
                global: {scrape_interval: 1s, evaluation_interval: 1s}
                scrape_configs:
                  - job_name: pushbench
                    static_configs: [{targets: ['127.0.0.1:\(metricsPort)']}]

                """.utf8
            )
        )
        let server = try RunningProgram(
            prometheus,
            [
                "--config.file=\(config)", "--storage.tsdb.path=\(directory.file("tsdb"))",
                "--web.listen-address=127.0.0.1:\(webPort)",
            ],
            captureStderr: true
        )
        defer { server.interrupt() }
        XCTAssertNotNil(server.waitForLine(containing: "Server is ready to receive web requests"), server.output)
        // Prometheus hands discovered targets to its scrapers at most every 5 s: wait for its first
        // attempt (which finds nothing listening yet).
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let deadline = Date().addingTimeInterval(30)
        while try !curl.run(["-sS", "http://127.0.0.1:\(webPort)/api/v1/targets"]).stdout.contains(#""health":"down""#),
            Date() < deadline
        {
            usleep(200_000)
        }
        let began = Date().timeIntervalSince1970

        let run = try RunningProgram(
            pushbench,
            [
                "run", "--requests", "4000", "--rate", "800", "--activities", "200", "--other-topic", "0.1",
                "--no-budget", "--metrics-port", "\(metricsPort)", "--metrics-hold", "30s", "--reports-dir",
                directory.file("r"),
            ],
            captureStderr: true
        )
        let announced = try XCTUnwrap(run.waitForLine(containing: "metrics: http://"), run.output)
        let url = String(try XCTUnwrap(announced.split(separator: " ").first { $0.hasPrefix("http://") }))
        let runID = String(try XCTUnwrap(announced.split(separator: " ").last?.dropLast()))

        XCTAssertNotNil(run.waitForLine(containing: "serving the final figures", timeout: 60), run.output)
        let scrape = try XCTUnwrap(try PrometheusScrape.fetch(url))
        let shell = try XCTUnwrap(ExternalProgram.onPath("sh"))
        let linted = try shell.run(["-c", "curl -sS --fail \(url) | \(promtool.path) check metrics"])
        XCTAssertEqual(linted.status, 0, linted.stdout + linted.stderr)
        sleep(3)  // the final figures scraped at least twice
        run.interrupt()
        _ = run.waitForExit()

        let panels = try panels()
        XCTAssertGreaterThanOrEqual(panels.count, 6)
        for panel in panels {
            for query in panel.queries {
                for name in metricNames(in: query) {
                    let family = name.hasSuffix("_bucket") ? String(name.dropLast("_bucket".count)) : name
                    XCTAssertNotNil(scrape.types[family], "\(panel.title): \(name) is not served")
                }
                let promQL = query.replacingOccurrences(of: "$run", with: runID)
                    .replacingOccurrences(of: "$__rate_interval", with: "4s")
                let answer = try curl.run([
                    "-sS", "--fail", "http://127.0.0.1:\(webPort)/api/v1/query_range",
                    "--data-urlencode", "query=\(promQL)", "--data-urlencode", "start=\(Int(began))",
                    "--data-urlencode", "end=\(Int(Date().timeIntervalSince1970))", "--data-urlencode", "step=1",
                ])
                XCTAssertEqual(answer.status, 0, "\(panel.title): \(promQL): \(answer.stderr)")
                let values = try finiteValues(answer.stdout)
                XCTAssertFalse(values.isEmpty, "\(panel.title): \(promQL) shows nothing: \(answer.stdout)")
            }
        }
    }

    /// Every finite number of a `query_range` answer's series.
    private func finiteValues(_ json: String) throws -> [Double] {
        let answer = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(answer["status"] as? String, "success", json)
        let data = try XCTUnwrap(answer["data"] as? [String: Any])
        let series = try XCTUnwrap(data["result"] as? [[String: Any]])
        return series.flatMap { ($0["values"] as? [[Any]]) ?? [] }.compactMap {
            ($0.last as? String).flatMap(Double.init)
        }
        .filter(\.isFinite)
    }
}
