import COpenSSL

/// Facts about OpenSSL, which signs the provider tokens and carries the TLS.
public enum OpenSSLLibrary {
    /// The OpenSSL headers PushBench was compiled against ("3.0.19").
    public static let builtWith = OPENSSL_FULL_VERSION_STR
}
