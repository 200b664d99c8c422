import Foundation
import TestSupport
import XCTest

/// `pushbench run` against Debian's nginx answering `return 200` (the benchmarks' configuration,
/// `Benchmarks/nginx-apns.conf`), over real sockets and TLS. nginx answers a request as soon as
/// its headers arrive and, when the body has not come yet, resets the stream with NO_ERROR:
/// RFC 9113 §8.1 says the answer stands. libcurl 7.88 reports some of those streams as
/// `CURLE_HTTP2_STREAM` after handing over the whole answer, and leaves others running until
/// their deadline; both transports must count every such push a success, at once.
final class NginxTargetTests: PushbenchTestCase {
    func testAnAnswerBeforeTheBodyThenANoErrorResetIsASuccess() throws {
        let nginx = try startNginx()
        defer { nginx.program.interrupt() }
        for transport in ["nghttp2", "curl"] {
            let reports = directory.file("reports-\(transport)")
            let output = try pushbench.run(
                [
                    "run", "--endpoint", nginx.origin, "--ca-file", nginx.certificate, "--transport", transport,
                    "--requests", "20000", "--activities", "200", "--connections", "1", "--streams", "100",
                    "--timeout", "5s", "--no-budget", "--reports-dir", reports,
                ],
                timeout: 120
            )
            XCTAssertEqual(output.status, 0, "\(transport): \(output.stderr)")
            let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: reports).first, transport)
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(reports)/\(run)/summary.json"))
            let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], transport)
            let counts = try XCTUnwrap(summary["counts"] as? [String: Int], transport)
            XCTAssertEqual(counts["sent"], 20000, "\(transport): \(counts)")
            XCTAssertEqual(counts["succeeded"], 20000, "\(transport): \(counts)")
            XCTAssertEqual(counts["timed_out"], 0, "\(transport): \(counts)")
            print("nginx, \(transport): \(counts)")
        }
    }

    /// `profile --api` speaks HTTP/2 to an https service that offers it by ALPN: nginx stands in
    /// for a service (it answers every request 200 and pushes nothing), reached with the API
    /// file's `ca_file`. Every request is answered over HTTP/2; a service that sends no push is a
    /// failed profile, with the API's figures written.
    func testAServiceAPIOverTLSIsSpokenInHTTP2() throws {
        let nginx = try startNginx()
        defer { nginx.program.interrupt() }
        let api = directory.file("api.yaml")
        try """
        ca_file: \(nginx.certificate)
        register:
          url: \(nginx.origin)/register
          body: {token: "{{update_token}}", group: "{{group}}"}
        event:
          url: \(nginx.origin)/update
          body: {group: "{{group}}", state: "{{content_state}}"}
        """.write(toFile: api, atomically: true, encoding: .utf8)
        let providerKey = directory.file("AuthKey_NGINX00001.p8")
        let made = try XCTUnwrap(ExternalProgram.onPath("openssl")).run(
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", providerKey]
        )
        XCTAssertEqual(made.status, 0, made.stderr)
        let mockPort = try LoopbackListener()
        mockPort.close()
        let reports = directory.file("reports")
        let output = try pushbench.run(
            [
                "profile", "--api", api, "--activities", "50", "--requests", "10", "--rate", "100", "--settle", "1s",
                "--mock-port", String(mockPort.port), "--auth-key", providerKey, "--key-id", "NGINX00001",
                "--team-id", "TEAMNGINX1", "--reports-dir", reports,
            ],
            timeout: 60
        )
        XCTAssertEqual(output.status, 3, "nothing was pushed: \(output.stdout)\(output.stderr)")
        XCTAssertTrue(output.stdout.contains("FAILED: the sender sent nothing"), output.stdout)
        let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: reports).first)
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(reports)/\(run)/summary.json"))
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for (key, sent) in [("registrations", 50), ("api", 10)] {
            let phase = try XCTUnwrap(summary[key] as? [String: Any], key)
            XCTAssertEqual(phase["succeeded"] as? Int, sent, "\(key): \(phase)")
            XCTAssertEqual(phase["http_versions"] as? [Int], [2], "\(key) over HTTP/2")
        }
    }

    /// Starts nginx in the foreground on a free loopback port with a certificate made by openssl.
    private func startNginx() throws -> (program: RunningProgram, origin: String, certificate: String) {
        let nginx = try XCTUnwrap(
            ExternalProgram.onPath("nginx")
                ?? (FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx")
                    ? ExternalProgram(path: "/usr/sbin/nginx") : nil),
            "nginx comes with nginx-light (Scripts/install-deps.sh)"
        )
        // Benchmarks/nginx-apns.conf reads them by these names.
        let certificate = directory.file("server.pem")
        _ = try LoopbackCertificate(certificatePath: certificate, keyPath: directory.file("server.key"))
        let listener = try LoopbackListener()
        let port = listener.port
        listener.close()
        let template = try String(
            contentsOf: Self.repository.appendingPathComponent("Benchmarks/nginx-apns.conf"),
            encoding: .utf8
        )
        let configuration = template.replacingOccurrences(of: "@WORK@", with: directory.path)
            .replacingOccurrences(of: "@PORT@", with: String(port))
            .replacingOccurrences(of: "@WORKERS@", with: "1")
        let configurationFile = try directory.write("nginx.conf", Array(configuration.utf8))
        let program = try RunningProgram(nginx, ["-c", configurationFile, "-p", directory.path], captureStderr: true)
        let origin = "https://127.0.0.1:\(port)"
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        for _ in 0..<100 {
            let probe = try curl.run(["-sk", "--http2", "-o", "/dev/null", "-w", "%{http_code}", origin + "/"])
            if probe.stdout == "200" { return (program, origin, certificate) }
            usleep(50_000)
        }
        XCTFail("nginx did not answer on \(origin): \(program.output)")
        throw CancellationError()
    }
}
