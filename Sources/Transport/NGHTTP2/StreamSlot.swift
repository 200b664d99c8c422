import CNGHTTP2
import Wire

/// One request of the nghttp2 transport, reused: the bytes nghttp2 reads while it sends the
/// request (path, `apns-id`, content length, body: at fixed addresses, so nghttp2 need not copy
/// them), and what came back.
final class StreamSlot {
    var tag = 0
    var intendedAt: UInt64 = 0
    /// Its stream on the connection carrying it.
    var streamID: Int32 = 0
    /// Its place among that connection's `OpenStreams` while open; `Int.max` otherwise.
    var openIndex = Int.max
    /// The shared headers, kept alive while nghttp2 may still read them.
    var headers: HeaderBlock?
    private(set) var path = ByteField(capacity: 256)
    private(set) var apnsID = ByteField(capacity: APNsID.length)
    private(set) var contentLength = ByteField(capacity: 20)
    private(set) var body = ByteField(capacity: 512)
    var bodyOffset = 0
    var status = 0
    var responseBody: [UInt8] = []
    var echoedID = false
    var retryAfterSeconds: Int?
    /// Set when the deadline passed and the stream was cancelled.
    var timedOut = false
    /// Why it failed below HTTP, if it did (or, with an answer under way, why it was cut).
    var failure: ConnectionFailure?
    /// How often the server refused it unprocessed (REFUSED_STREAM, or past a GOAWAY's last
    /// stream) since it was submitted.
    var refusals = 0

    deinit {
        path.deallocate()
        apnsID.deallocate()
        contentLength.deallocate()
        body.deallocate()
    }

    func prepare(
        tag: Int,
        intendedAt: UInt64,
        path: [UInt8],
        apnsID: (high: UInt64, low: UInt64),
        headers: HeaderBlock,
        body: [UInt8]
    ) {
        self.tag = tag
        self.intendedAt = intendedAt
        self.headers = headers
        self.path.set(path)
        self.apnsID.count = APNsID.length
        APNsID.write(
            high: apnsID.high,
            low: apnsID.low,
            into: UnsafeMutableRawBufferPointer(start: self.apnsID.bytes, count: APNsID.length)
        )
        self.body.set(body)
        contentLength.setDecimal(body.count)
        timedOut = false
        refusals = 0
        rewind()
    }

    /// Readies the same request to be sent again from its first byte.
    func rewind() {
        bodyOffset = 0
        status = 0
        responseBody.removeAll(keepingCapacity: true)
        echoedID = false
        retryAfterSeconds = nil
        failure = nil
        streamID = 0
    }

    func header(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        if Self.matches(name, ":status") {
            status = value.reduce(0) { $0 * 10 + Int($1) - 48 }
        } else if Self.matches(name, "apns-id") {
            echoedID = value.count == apnsID.count && memcmp(value.baseAddress!, apnsID.bytes, value.count) == 0
        } else if Self.matches(name, "retry-after") {
            retryAfterSeconds = Int(String(decoding: value, as: UTF8.self))
        }
    }

    /// Whether `bytes` spell `name` (never empty): a length check and one `memcmp`, since every
    /// answer's headers pass through here.
    private static func matches(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        bytes.count == name.utf8CodeUnitCount && memcmp(bytes.baseAddress!, name.utf8Start, bytes.count) == 0
    }

    /// Keeps the answer's body; `false` once it is larger than APNs ever sends.
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard responseBody.count + bytes.count <= FailureClass.maxResponseBodyBytes else { return false }
        responseBody.append(contentsOf: bytes)
        return true
    }

    /// The finished request, seen from the engine; `localPort` identifies its connection.
    func completion(localPort: Int) -> PushCompletion {
        headers = nil
        let outcome: TransferOutcome
        if timedOut {
            outcome = .timedOut
        } else if let failure, status > 0 {
            outcome = .failed(failure.kind, message: failure.detail)  // an answer cut short
        } else if status > 0 {
            outcome = .response(status: status, body: responseBody)
        } else {
            let failure = failure ?? ConnectionFailure(.protocolError, "the stream closed without an answer")
            outcome = .failed(failure.kind, message: failure.detail)
        }
        var completion = PushCompletion(
            tag: tag,
            intendedAt: intendedAt,
            outcome: outcome,
            apnsIDEchoed: echoedID,
            localPort: localPort
        )
        completion.retryAfterSeconds = retryAfterSeconds
        return completion
    }
}

/// Bytes at a fixed address that grows only when a longer value comes.
struct ByteField {
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        bytes = .allocate(capacity: capacity)
    }

    mutating func set(_ value: [UInt8]) {
        if value.count > capacity {
            bytes.deallocate()
            capacity = value.count
            bytes = .allocate(capacity: capacity)
        }
        value.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: value.count) }
        count = value.count
    }

    mutating func setDecimal(_ value: Int) {
        var digits = 0
        var rest = value
        repeat {
            digits += 1
            rest /= 10
        } while rest > 0
        rest = value
        for index in stride(from: digits - 1, through: 0, by: -1) {
            bytes[index] = UInt8(48 + rest % 10)
            rest /= 10
        }
        count = digits
    }

    func deallocate() {
        bytes.deallocate()
    }

    /// An HTTP/2 header field naming `name` (static, never freed) with this value; nghttp2 reads
    /// both in place.
    func field(named name: StaticName, flags: UInt8 = StaticName.noCopy) -> nghttp2_nv {
        nghttp2_nv(name: name.bytes, value: bytes, namelen: name.count, valuelen: count, flags: flags)
    }
}

/// A header name or constant value allocated once for the process.
struct StaticName: @unchecked Sendable {
    let bytes: UnsafeMutablePointer<UInt8>
    let count: Int

    /// nghttp2 reads name and value in place.
    static let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
    static let noCopyNoIndex = noCopy | UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)

    init(_ text: String) {
        let utf8 = Array(text.utf8)
        count = utf8.count
        bytes = .allocate(capacity: max(count, 1))
        bytes.initialize(from: utf8, count: count)
    }

    static let method = StaticName(":method")
    static let post = StaticName("POST")
    static let scheme = StaticName(":scheme")
    static let https = StaticName("https")
    static let authority = StaticName(":authority")
    static let path = StaticName(":path")
    static let apnsID = StaticName("apns-id")
    static let contentLength = StaticName("content-length")
    static let status = StaticName(":status")
    static let ok = StaticName("200")
}
