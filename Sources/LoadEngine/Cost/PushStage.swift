/// A part of the sender's per-push work that `pushbench hotpath --instructions` counts apart,
/// so an instructions gate can say which part of a push grew, not only that one did.
public enum PushStage: String, CaseIterable, Codable, Sendable {
    case workloadEvent = "workload_event"
    case payloadEncoding = "payload_encoding"
    case headersAndBearer = "headers_and_bearer"
    case signature = "es256_signature"
    case framingAndTLS = "http2_framing_tls"
    case responseHandling = "response_handling"

    /// What the stage's count covers, for the report and `--help`.
    public var summary: String {
        switch self {
        case .workloadEvent: "the scenario's next event (the merged stream of every activity's timeline)"
        case .payloadEncoding: "the request path and the aps payload, encoded into reused buffers"
        case .headersAndBearer:
            "a cached bearer lookup (a worker does one a second), the header block and a new apns-id"
        case .signature: "one whole provider token signed with ES256 (per signature, not per push)"
        case .framingAndTLS: "the request handed to nghttp2, framed with HPACK, and sealed into TLS records"
        case .responseHandling: "the answer's TLS records opened, its frames parsed, and the outcome recorded"
        }
    }

    /// The function of `PushStageWorkload` that does the stage's work: the instruction count
    /// attributes what it and everything it calls executed to the stage. Each name must appear
    /// whole in its mangled symbol, so none repeats a word of `LoadEngine` or
    /// `PushStageWorkload` (Swift's mangling would abbreviate it).
    public var functionName: String {
        switch self {
        case .workloadEvent: "countScenarioEvent"
        case .payloadEncoding: "countPayloadEncoding"
        case .headersAndBearer: "countHeadersAndBearer"
        case .signature: "countSignature"
        case .framingAndTLS: "countFramingAndTLS"
        case .responseHandling: "countResponseHandling"
        }
    }
}
