import Basics
import CCurl

/// Process-wide libcurl set-up, and what the linked library can do (its versions are
/// `LinkedLibraries`').
public enum CurlLibrary {
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Initialises libcurl once per process (it is not thread-safe to do it lazily per handle).
    package static func ensureInitialised() throws(TransportError) {
        guard initialised else { throw TransportError.setup("curl_global_init failed") }
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
