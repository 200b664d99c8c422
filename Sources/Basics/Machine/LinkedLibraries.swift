import CCurl
import CNGHTTP2
import COpenSSL

/// The C libraries PushBench sends and signs with, as the build and the machine descriptions
/// name them: the headers compiled against, and the libcurl actually loaded, which a system
/// update can change under an unchanged binary.
public enum LinkedLibraries {
    /// The libcurl headers PushBench was compiled against ("7.88.1").
    public static let curlBuiltWith = LIBCURL_VERSION
    /// The libnghttp2 headers PushBench was compiled against ("1.52.0").
    public static let nghttp2BuiltWith = NGHTTP2_VERSION
    /// The OpenSSL headers PushBench was compiled against ("3.0.19").
    public static let opensslBuiltWith = OPENSSL_FULL_VERSION_STR

    /// The loaded libcurl's version ("7.88.1").
    public static var curlVersion: String {
        guard let info = pb_curl_version_info(), let text = info.pointee.version else { return "unknown" }
        return String(cString: text)
    }
}
