import CNGHTTP2

/// Facts about libnghttp2, the HTTP/2 framing the nghttp2 transport is built on.
public enum NGHTTP2Library {
    /// The libnghttp2 headers PushBench was compiled against ("1.52.0").
    public static let builtWith = NGHTTP2_VERSION
}
