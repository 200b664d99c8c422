import Encodings
import XCTest

@testable import Wire

final class EncodingTests: XCTestCase {
    func testBase64URLMatchesRFC4648Vectors() {
        let vectors = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64.encode(Array(plain.utf8), .url), encoded)
            XCTAssertEqual(Base64.decodeURL(encoded), Array(plain.utf8))
        }
        XCTAssertEqual(Base64.encode([0xFB, 0xFF, 0xBF], .url), "-_-_")
        XCTAssertEqual(Base64.decodeURL("-_-_"), [0xFB, 0xFF, 0xBF])
        XCTAssertNil(Base64.decodeURL("a+b/"))
        XCTAssertNil(Base64.decodeURL("Zm9vY"))
    }

    func testAPNsIDsAreCanonicalLowercaseVersion4UUIDs() {
        var bytes = [UInt8](repeating: 0, count: APNsID.length)
        bytes.withUnsafeMutableBytes { APNsID.write(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210, into: $0) }
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "01234567-89ab-4def-bedc-ba9876543210")
        XCTAssertTrue(APNsID.isValid(String(decoding: bytes, as: UTF8.self)))
        XCTAssertTrue(APNsID.isValid(APNsID.random()))
        XCTAssertFalse(APNsID.isValid("01234567-89AB-4DEF-BEDC-BA9876543210"))
        XCTAssertFalse(APNsID.isValid("0123456789ab4defbedcba9876543210"))
    }

    func testAPNsIDsMatchFoundationsUUIDOfTheSameBits() {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: APNsID.length)
        for _ in 0..<1_000 {
            let high = generator.next() as UInt64
            let low = generator.next() as UInt64
            bytes.withUnsafeMutableBytes { APNsID.write(high: high, low: low, into: $0) }
            let versioned = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
            let variant = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
            var uuid = UUID().uuid
            withUnsafeMutableBytes(of: &uuid) { raw in
                raw.storeBytes(of: versioned.bigEndian, as: UInt64.self)
                raw.storeBytes(of: variant.bigEndian, toByteOffset: 8, as: UInt64.self)
            }
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), UUID(uuid: uuid).uuidString.lowercased())
        }
    }

    func testReasonsCarryApplesStatuses() {
        XCTAssertEqual(APNsReason.badDeviceToken.status, 400)
        XCTAssertEqual(APNsReason.invalidProviderToken.status, 403)
        XCTAssertEqual(APNsReason.badPath.status, 404)
        XCTAssertEqual(APNsReason.methodNotAllowed.status, 405)
        XCTAssertEqual(APNsReason.unregistered.status, 410)
        XCTAssertEqual(APNsReason.payloadTooLarge.status, 413)
        XCTAssertEqual(APNsReason.tooManyProviderTokenUpdates.status, 429)
        XCTAssertEqual(APNsReason.shutdown.status, 503)
        XCTAssertEqual(
            APNsErrorBody(bytes: Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8)),
            APNsErrorBody(bytes: Array(#"{"timestamp":1700000000123,"reason":"Unregistered"}"#.utf8))
        )
        XCTAssertNil(APNsErrorBody(bytes: []))
    }

    func testTopicsFollowThePushType() {
        XCTAssertEqual(
            PushType.liveactivity.topic(forBundleID: "com.example.app"),
            "com.example.app.push-type.liveactivity"
        )
        XCTAssertEqual(PushType.alert.topic(forBundleID: "com.example.app"), "com.example.app")
        XCTAssertEqual(PushType.voip.payloadLimit, 5120)
    }
}
