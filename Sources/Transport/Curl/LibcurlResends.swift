/// Whether libcurl may send a request again on its own, shared by one client's transfer slots.
///
/// libcurl 7.88 sends a request anew on a fresh connection, up to five times and without telling,
/// when its stream was refused (REFUSED_STREAM) or its reused connection died before any answer.
/// Against a target that answers nothing, that is six connections a push behind the reconnect
/// backoff's back. So, as the nghttp2 transport sends a refused request again only on a
/// connection that has answered others, libcurl may resend only while the target answers: from
/// an HTTP answer until the next failure of a connection.
final class LibcurlResends {
    /// Whether the target has answered since its connections last failed.
    private(set) var allowed = false

    /// Notes how a transfer ended.
    func note(_ outcome: TransferOutcome) {
        switch outcome {
        case .response: allowed = true
        case .failed(let kind, _) where kind.isConnectionLevel: allowed = false
        case .failed, .timedOut: break
        }
    }
}
