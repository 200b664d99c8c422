import Foundation
import TestSupport
import XCTest

/// The mock's generated certificate names what its clients dial: `--host` when it is one
/// address, and every `--cert-name`. Senders verify it (no `--insecure`), so a name it lacks is
/// refused: what made every pod of a Kubernetes Job fail with `certificate_untrusted`.
/// (Scripts/rehearse-kubernetes.sh does the same across network namespaces, as root.)
final class MockCertificateTests: PushbenchTestCase {
    func testTheCertificateNamesTheHostAndEveryCertNameAndNothingElse() throws {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let (mock, origin, certificate) = try startMock([
            "--host", "127.0.0.2", "--cert-name", "mock-apns.pushbench.svc",
        ])
        defer { mock.interrupt() }
        XCTAssertTrue(origin.hasPrefix("https://127.0.0.2:"), origin)
        let port = String(try XCTUnwrap(origin.split(separator: ":").last))
        XCTAssertTrue(
            mock.output.contains("self-signed for localhost, 127.0.0.1, ::1, 127.0.0.2, mock-apns.pushbench.svc"),
            mock.output
        )
        let mode = try FileManager.default.attributesOfItem(atPath: certificate)[.posixPermissions] as? Int
        XCTAssertEqual(mode.map { $0 & 0o077 }, 0o044, "a certificate holds no key: readable by all, like a CA file")
        XCTAssertFalse(try String(contentsOfFile: certificate, encoding: .utf8).contains("PRIVATE"))

        let run = try pushbench.run([
            "run", "--endpoint", origin, "--ca-file", certificate, "--requests", "50", "--no-budget",
            "--reports-dir", directory.file("reports"),
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        for (name, verified) in [("mock-apns.pushbench.svc", true), ("other.pushbench.svc", false)] {
            let fetch = try curl.run([
                "-sS", "--http2", "--max-time", "5", "--cacert", certificate, "--resolve", "\(name):\(port):127.0.0.2",
                "https://\(name):\(port)/stats",
            ])
            if verified {
                XCTAssertEqual(fetch.status, 0, "\(name): \(fetch.stderr)")
                XCTAssertTrue(fetch.stdout.contains(#""pushes_by_client_address":{"127.0.0.1":50}"#), fetch.stdout)
            } else {
                XCTAssertEqual(fetch.status, 60, "\(name) is not in the certificate: curl must refuse it")
            }
        }
    }

    func testANameThatCouldSmuggleAnotherEntryIsRefused() throws {
        for bad in ["mock,DNS:evil.example", "mock-.svc", "mock..svc", "IP:10.0.0.1"] {
            let output = try pushbench.run(["mock", "--port", "0", "--cert-name=" + bad])
            assertCleanFailure(output, mentions: "--cert-name: cannot name it in the mock's certificate")
            XCTAssertEqual(output.status, 2, bad)
        }
        let both = try pushbench.run([
            "mock", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--cert-name", "mock-apns.pushbench.svc",
        ])
        assertCleanFailure(both, mentions: "--tls-cert's names are its own")
    }
}
