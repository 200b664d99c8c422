import Basics
import CCurl
import Wire

/// Creates and deletes iOS 18 broadcast channels through APNs' channel management API
/// (`docs/apns.md` §3.5.1), on a connection of its own, as Apple serves that API from its own
/// hosts and ports (`api-manage-broadcast…:2195/2196`).
///
/// A run needs a channel for each broadcast group before the group's first start names it, and
/// deletes it when the run ends; there are few (one per match), so one HTTP/2 connection and
/// one request at a time carry them, each timed on its own.
public final class ChannelClient {
    /// One request's answer.
    public struct Answer: Sendable {
        /// The HTTP status, or 0 when no answer came.
        public var status: Int
        /// APNs' reason on a refusal, or the transport's failure when no answer came.
        public var reason: String?
        /// `apns-channel-id` of a created channel.
        public var channelID: String?
        /// From the request's start to its answer, nanoseconds.
        public var latencyNanos: UInt64
    }

    private let origin: String
    private let configuration: TransportConfiguration
    private let easy: UnsafeMutableRawPointer

    /// Opens nothing yet: the first request connects to `origin` (`https://host:port`) with the
    /// TLS trust of `configuration`.
    /// - Throws: `TransportError.setup` when libcurl cannot start.
    public init(origin: String, configuration: TransportConfiguration) throws(TransportError) {
        try CurlLibrary.ensureInitialised()
        guard let easy = curl_easy_init() else { throw TransportError.setup("curl_easy_init failed") }
        self.easy = easy
        self.origin = origin
        self.configuration = configuration
    }

    deinit {
        curl_easy_cleanup(easy)
    }

    /// `POST /1/apps/<bundle>/channels`: a new channel with `storagePolicy` (0 or 1).
    public func create(bundleID: String, storagePolicy: Int, authorization: String) -> Answer {
        perform(
            method: "POST",
            path: "/1/apps/\(bundleID)/channels",
            headers: ["authorization: \(authorization)", "content-type: application/json"],
            body: Array(#"{"message-storage-policy":\#(storagePolicy),"push-type":"LiveActivity"}"#.utf8)
        )
    }

    /// `DELETE /1/apps/<bundle>/channels` for `channelID`.
    public func delete(bundleID: String, channelID: String, authorization: String) -> Answer {
        perform(
            method: "DELETE",
            path: "/1/apps/\(bundleID)/channels",
            headers: ["authorization: \(authorization)", "apns-channel-id: \(channelID)"],
            body: nil
        )
    }

    private func perform(method: String, path: String, headers: [String], body: [UInt8]?) -> Answer {
        curl_easy_reset(easy)
        let response = EasyResponse(bodyLimit: 1 << 16)
        _ = pb_easy_setopt_ptr(easy, CURLOPT_URL, origin + path)
        _ = pb_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = pb_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = pb_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, configuration.requestTimeout.inMilliseconds)
        _ = pb_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.inMilliseconds)
        _ = pb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, configuration.verifyPeer ? 1 : 0)
        _ = pb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, configuration.verifyPeer ? 2 : 0)
        if let pem = configuration.trustedCertificatesPEM {
            _ = pem.withUnsafeBytes { pb_easy_setopt_blob(easy, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }
        }
        _ = pb_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, method)
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for header in headers { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        _ = pb_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, list)
        response.receive(from: easy)
        let started = monotonicNanos()
        let code: CURLcode =
            if let body {
                body.withUnsafeBytes { bytes in
                    _ = pb_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, bytes.count)
                    _ = pb_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress)
                    return curl_easy_perform(easy)
                }
            } else {
                curl_easy_perform(easy)
            }
        let latency = monotonicNanos() - started
        guard code == CURLE_OK else {
            return Answer(status: 0, reason: curlMessage(code), channelID: nil, latencyNanos: latency)
        }
        var status = 0
        _ = pb_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        let reason = status >= 300 ? APNsErrorBody(bytes: response.body)?.reason : nil
        return Answer(
            status: status,
            reason: reason,
            channelID: response.header("apns-channel-id"),
            latencyNanos: latency
        )
    }
}
