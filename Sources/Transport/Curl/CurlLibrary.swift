import CCurl

/// Process-wide libcurl set-up and facts about the linked library.
public enum CurlLibrary {
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Initialises libcurl once per process (it is not thread-safe to do it lazily per handle).
    package static func ensureInitialised() throws(TransportError) {
        guard initialised else { throw TransportError.setup("curl_global_init failed") }
    }

    /// The libcurl headers PushBench was compiled against ("7.88.1").
    public static let builtWith = LIBCURL_VERSION

    /// The linked libcurl's version, for reports ("7.88.1").
    public static var version: String {
        guard let info = pb_curl_version_info(), let text = info.pointee.version else { return "unknown" }
        return String(cString: text)
    }

    /// Whether the linked libcurl can speak HTTP/2.
    public static var supportsHTTP2: Bool {
        guard let info = pb_curl_version_info() else { return false }
        return info.pointee.features & CURL_VERSION_HTTP2 != 0
    }
}

/// libcurl's message for an error code.
package func curlMessage(_ code: CURLcode) -> String {
    String(cString: curl_easy_strerror(code))
}
