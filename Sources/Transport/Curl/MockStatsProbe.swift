import CCurl

/// Reads `GET /stats` from a PushBench mock, so a run against `--endpoint` can compare its books
/// with the server's, as a run against the embedded mock does.
///
/// Any other target (APNs itself, another mock) answers something else or nothing; the probe
/// then returns `nil` and the run simply has no cross-check.
public enum MockStatsProbe {
    /// The body of `<origin>/stats` when it answers 200 within a second, else `nil`: a target that
    /// does not answer delays the run by no more.
    public static func fetch(_ configuration: TransportConfiguration) -> [UInt8]? {
        guard (try? CurlLibrary.ensureInitialised()) != nil, let easy = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(easy) }
        let response = EasyResponse(bodyLimit: 1 << 20)
        let url = configuration.origin + "/stats"
        _ = pb_easy_setopt_ptr(easy, CURLOPT_URL, url)
        _ = pb_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = pb_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = pb_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, 1000)
        _ = pb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, configuration.verifyPeer ? 1 : 0)
        _ = pb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, configuration.verifyPeer ? 2 : 0)
        if let pem = configuration.trustedCertificatesPEM {
            _ = pem.withUnsafeBytes { pb_easy_setopt_blob(easy, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }
        }
        response.receive(from: easy)
        var status = 0
        guard curl_easy_perform(easy) == CURLE_OK,
            pb_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK,
            status == 200
        else { return nil }
        return response.body
    }
}
