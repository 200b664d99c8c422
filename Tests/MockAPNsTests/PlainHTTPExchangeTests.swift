import Telemetry
import XCTest

/// The admin and metrics ports' HTTP/1.1 as `PlainHTTPConnection` reads it, byte by byte: requests are
/// whole or not yet, kept alive as HTTP/1.x says, and anything else closes the connection.
final class PlainHTTPExchangeTests: XCTestCase {
    private func parse(_ text: String) -> PlainHTTPExchange.Parsed {
        PlainHTTPExchange.parse(Array(text.utf8)[...])
    }

    func testARequestIsReadOnlyOnceItsHeadIsWhole() {
        XCTAssertEqual(parse("GET /stats HTTP/1.1\r\nHost: x\r\n"), .incomplete)
        let whole = "GET /stats HTTP/1.1\r\nHost: x\r\n\r\n"
        XCTAssertEqual(
            parse(whole + "GET /metrics"),
            .request(.init(method: "GET", uri: "/stats", keepAlive: true), length: whole.utf8.count)
        )
    }

    func testKeepAliveFollowsTheVersionAndTheConnectionHeader() {
        func keepAlive(_ head: String) -> Bool? {
            guard case .request(let request, _) = parse(head + "\r\n") else { return nil }
            return request.keepAlive
        }
        XCTAssertEqual(keepAlive("GET / HTTP/1.1\r\n"), true)
        XCTAssertEqual(keepAlive("GET / HTTP/1.1\r\nConnection: close\r\n"), false)
        XCTAssertEqual(keepAlive("GET / HTTP/1.0\r\n"), false)
        XCTAssertEqual(keepAlive("GET / HTTP/1.0\r\nconnection: Keep-Alive\r\n"), true)
    }

    func testABodyItDeclaresIsPartOfTheRequest() {
        let head = "POST /stats HTTP/1.1\r\nContent-Length: 4\r\n\r\n"
        XCTAssertEqual(parse(head + "ab"), .incomplete)
        guard case .request(let request, let length) = parse(head + "abcdGET") else { return XCTFail() }
        XCTAssertEqual(length, head.utf8.count + 4)
        let answer = String(decoding: PlainHTTPExchange.response(to: request, routes: [:]), as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 404 Not Found\r\n"), answer)
    }

    func testWhatIsNotHTTP1IsMalformed() {
        XCTAssertEqual(parse("garbage\r\n\r\n"), .malformed)
        XCTAssertEqual(parse("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), .malformed)
        XCTAssertEqual(parse("GET /" + String(repeating: "a", count: 20_000)), .malformed)
    }

    func testAnswersComeFromTheRoutes() {
        let routes: [String: PlainHTTPExchange.Route] = ["/stats": { ("application/json", Array("{}".utf8)) }]
        let get = PlainHTTPExchange.Request(method: "GET", uri: "/stats?x=1", keepAlive: false)
        XCTAssertEqual(
            String(decoding: PlainHTTPExchange.response(to: get, routes: routes), as: UTF8.self),
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}"
        )
        let head = PlainHTTPExchange.Request(method: "HEAD", uri: "/stats", keepAlive: true)
        XCTAssertFalse(
            String(decoding: PlainHTTPExchange.response(to: head, routes: routes), as: UTF8.self).hasSuffix("{}")
        )
        let post = PlainHTTPExchange.Request(method: "POST", uri: "/stats", keepAlive: true)
        XCTAssertEqual(PlainHTTPExchange.answer(to: post, routes: routes).status, 405)
    }
}
