import Encodings
import Foundation
import TestSupport
import XCTest

@testable import Wire

final class ProviderTokenTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    private func parts(_ jwt: String) throws -> (header: String, claims: String, signature: [UInt8], input: [UInt8]) {
        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(pieces.count, 3)
        let header = String(decoding: try XCTUnwrap(Base64.decodeURL(pieces[0])), as: UTF8.self)
        let claims = String(decoding: try XCTUnwrap(Base64.decodeURL(pieces[1])), as: UTF8.self)
        return (header, claims, try XCTUnwrap(Base64.decodeURL(pieces[2])), Array("\(pieces[0]).\(pieces[1])".utf8))
    }

    func testTokenHasExactlyTheHeaderAndClaimsAPNsWants() throws {
        let token = try ProviderToken.sign(
            keyID: "ABC123DEFG",
            teamID: "DEF123GHIJ",
            issuedAt: 1_700_000_000,
            with: ES256PrivateKey()
        )
        let (header, claims, signature, _) = try parts(token.jwt)
        XCTAssertEqual(header, #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        XCTAssertEqual(claims, #"{"iss":"DEF123GHIJ","iat":1700000000}"#)
        XCTAssertEqual(signature.count, 64, "JOSE wants raw r||s, not DER")
    }

    /// A token signed with `key`, split into its signature and signing input.
    private func signedToken(_ key: ES256PrivateKey) throws -> (signature: [UInt8], input: [UInt8]) {
        let token = try ProviderToken.sign(
            keyID: "ABC123DEFG",
            teamID: "DEF123GHIJ",
            issuedAt: 1_700_000_000,
            with: key
        )
        let (_, _, signature, input) = try parts(token.jwt)
        return (signature, input)
    }

    func testSignatureVerifiesWithOpenSSLAndTamperingBreaksIt() throws {
        let key = try ES256PrivateKey()
        let publicKey = try ES256PublicKey(pem: key.publicKeyPEM())
        let (signature, input) = try signedToken(key)
        XCTAssertTrue(publicKey.verify(signature: signature, of: input))

        var tamperedInput = input
        tamperedInput[tamperedInput.count - 3] ^= 0x01
        XCTAssertFalse(publicKey.verify(signature: signature, of: tamperedInput))
        var tamperedSignature = signature
        tamperedSignature[10] ^= 0x80
        XCTAssertFalse(publicKey.verify(signature: tamperedSignature, of: input))
        XCTAssertFalse(
            publicKey.verify(signature: try XCTUnwrap(ES256Signature.der(fromRaw: signature)), of: input),
            "DER is refused"
        )
        let otherKey = try ES256PublicKey(pem: ES256PrivateKey().publicKeyPEM())
        XCTAssertFalse(otherKey.verify(signature: signature, of: input))
    }

    func testSignatureVerifiesWithTheOpenSSLCommandLine() throws {
        let openssl = try XCTUnwrap(
            ExternalProgram.onPath("openssl"),
            "openssl is installed with libssl-dev's dependencies"
        )
        let key = try ES256PrivateKey()
        let (signature, input) = try signedToken(key)
        let publicKeyPath = try directory.write("public.pem", key.publicKeyPEM())
        let signaturePath = try directory.write("signature.der", XCTUnwrap(ES256Signature.der(fromRaw: signature)))
        let inputPath = try directory.write("input", input)
        let good = try openssl.run([
            "dgst", "-sha256", "-verify", publicKeyPath, "-signature", signaturePath, inputPath,
        ])
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
        XCTAssertTrue(good.stdout.contains("Verified OK"))

        var tampered = input
        tampered[0] ^= 0x01
        try directory.write("input", tampered)
        let bad = try openssl.run(["dgst", "-sha256", "-verify", publicKeyPath, "-signature", signaturePath, inputPath])
        XCTAssertNotEqual(bad.status, 0)
    }

    func testLoadsAnAppleStyleP8AndRefusesOtherKeys() throws {
        let openssl = try XCTUnwrap(ExternalProgram.onPath("openssl"))
        let p8 = directory.file("AuthKey_ABC123DEFG.p8")
        let made = try openssl.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8])
        XCTAssertEqual(made.status, 0, made.stderr)
        let pem = Array(try Data(contentsOf: URL(fileURLWithPath: p8)))
        XCTAssertTrue(
            String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"),
            "PKCS#8, as Apple ships"
        )
        let key = try ES256PrivateKey(pem: pem)
        let token = try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: 1, with: key)
        let (_, _, signature, input) = try parts(token.jwt)
        XCTAssertTrue(
            try ES256PublicKey(pem: pem).verify(signature: signature, of: input),
            "the mock accepts the .p8 itself"
        )

        let p384 = directory.file("p384.pem")
        XCTAssertEqual(
            try openssl.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", p384])
                .status,
            0
        )
        XCTAssertThrowsError(try ES256PrivateKey(pem: Array(Data(contentsOf: URL(fileURLWithPath: p384))))) {
            XCTAssertEqual($0 as? ES256KeyError, .notP256)
        }
        let garbage = Array("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n".utf8)
        XCTAssertThrowsError(try ES256PrivateKey(pem: garbage)) { error in
            XCTAssertEqual(error as? ES256KeyError, .notAPrivateKey)
            XCTAssertFalse("\(error)".contains("not a key"), "errors never echo the file")
        }
    }

    func testCacheSignsOncePerAgeWindow() throws {
        let cache = ProviderTokenCache(
            key: try ES256PrivateKey(),
            keyID: "ABC123DEFG",
            teamID: "DEF123GHIJ",
            refreshAge: 3000
        )
        let first = try cache.token(now: 1_000_000)
        let token = first
        XCTAssertEqual(try cache.token(now: 1_000_000 + 2999), first)
        let refreshed = try cache.token(now: 1_000_000 + 3000)
        XCTAssertNotEqual(refreshed, first)
        XCTAssertEqual(refreshed.issuedAt, 1_003_000)
        XCTAssertEqual(ProviderTokenCache.defaultRefreshAge, 50 * 60)
        XCTAssertEqual(token.authorization, "bearer " + token.jwt)
    }

    func testAReaderKeepsItsCopyUntilTheRefreshAgeAndThenFollowsTheCache() throws {
        let cache = ProviderTokenCache(key: try ES256PrivateKey(), keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        var first = ProviderTokenCache.Reader(cache)
        var second = ProviderTokenCache.Reader(cache)
        let start: Int64 = 1_000_000
        let token = try first.token(now: start)
        XCTAssertEqual(try second.token(now: start + 10), token, "readers share the cache's token")
        XCTAssertEqual(try first.token(now: start + cache.refreshAge - 1), token)
        let refreshed = try first.token(now: start + cache.refreshAge)
        XCTAssertEqual(refreshed.issuedAt, start + cache.refreshAge)
        XCTAssertEqual(
            try second.token(now: start + cache.refreshAge + 5),
            refreshed,
            "one refresh, not one per reader"
        )
        XCTAssertNotEqual(try first.token(now: start), refreshed, "a clock that went back gets a token it may send")
    }

    func testRefreshAgesStayInsideAPNsWindow() {
        XCTAssertEqual(ProviderTokenCache.allowedRefreshAges.lowerBound, 20 * 60, "APNs throttles faster changes")
        XCTAssertEqual(ProviderTokenCache.allowedRefreshAges.upperBound, 60 * 60, "APNs refuses older tokens")
        XCTAssertTrue(ProviderTokenCache.allowedRefreshAges.contains(ProviderTokenCache.defaultRefreshAge))
    }

    func testOneSignerSignsManyMessagesThatAllVerify() throws {
        let key = try ES256PrivateKey()
        let signer = try ES256Signer(key: key)
        let publicKey = try ES256PublicKey(pem: key.publicKeyPEM())
        for index in 0..<50 {
            let message = Array("message \(index)".utf8)
            let signature = try signer.sign(message)
            XCTAssertEqual(signature.count, 64)
            XCTAssertTrue(publicKey.verify(signature: signature, of: message), "signature \(index)")
        }
    }

    func testDERAndRawSignaturesConvertBothWaysForEveryIntegerShape() throws {
        var generator = SystemRandomNumberGenerator()
        var shapes: [[UInt8]] = [
            Array(repeating: 0xFF, count: 64),  // both halves need a sign byte in DER
            [0] + Array(repeating: 0x01, count: 31) + [0, 0] + Array(repeating: 0x80, count: 30),  // leading zeros
            Array(repeating: 0, count: 63) + [1],  // r is zero
        ]
        for _ in 0..<200 { shapes.append((0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        for raw in shapes {
            let der = try XCTUnwrap(ES256Signature.der(fromRaw: raw), "libcrypto encodes \(raw)")
            let back = der.withUnsafeBufferPointer { ES256Signature.raw(fromDER: $0) }
            XCTAssertEqual(back, raw)
        }
        let valid = try XCTUnwrap(ES256Signature.der(fromRaw: Array(repeating: 0x42, count: 64)))
        for broken in [Array(valid.dropLast()), [0x31] + valid.dropFirst(), valid + [0]] {
            XCTAssertNil(broken.withUnsafeBufferPointer { ES256Signature.raw(fromDER: $0) })
        }
    }

    func testSelfSignedIdentityIsAValidCertificateForLoopback() throws {
        let openssl = try XCTUnwrap(ExternalProgram.onPath("openssl"))
        let identity = try TLSIdentity.makeSelfSigned()
        let path = try directory.write("cert.pem", identity.certificatePEM)
        let text = try openssl.run(["x509", "-in", path, "-noout", "-text"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("DNS:localhost"))
        XCTAssertTrue(text.stdout.contains("IP Address:127.0.0.1"))
        let verify = try openssl.run(["verify", "-CAfile", path, path])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }
}
