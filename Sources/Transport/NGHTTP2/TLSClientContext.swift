import CNGHTTP2

#if canImport(Glibc)
import Glibc
#endif

/// The TLS settings every connection of a client shares: TLS 1.2 or later, ALPN `h2` only, and
/// the certificates it trusts (a test server's own, or the system's).
final class TLSClientContext {
    let context: OpaquePointer

    /// How much one `read` may take from the socket: a loop's answers arrive as many small TLS
    /// records, and without reading ahead each record costs two system calls.
    static let readAheadBytes = 64 * 1024

    init(configuration: TransportConfiguration) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError.setup("SSL_CTX_new failed: \(TLSClientContext.lastError())")
        }
        self.context = context
        guard pb_ssl_ctx_require_tls12(context) == 1 else {
            throw TransportError.setup("libssl refused TLS 1.2 as the minimum")
        }
        pb_ssl_ctx_allow_partial_writes(context)
        pb_ssl_ctx_read_ahead(context, Self.readAheadBytes)
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        guard SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) == 0 else {
            throw TransportError.setup("libssl refused the ALPN list")
        }
        guard configuration.verifyPeer else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
            return
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let pem = configuration.trustedCertificatesPEM {
            try trust(pem)
        } else if SSL_CTX_set_default_verify_paths(context) != 1 {
            throw TransportError.setup("cannot load the system's trusted certificates")
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// Adds every certificate of `pem` to the trusted store.
    private func trust(_ pem: [UInt8]) throws(TransportError) {
        let store = SSL_CTX_get_cert_store(context)
        var added = 0
        pem.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return }
            defer { BIO_free(bio) }
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                if X509_STORE_add_cert(store, certificate) == 1 { added += 1 }
                X509_free(certificate)
            }
        }
        ERR_clear_error()  // the loop ends on "no start line", which is not a failure
        guard added > 0 else { throw TransportError.setup("no PEM certificate found to trust") }
    }

    /// The oldest error on libssl's queue, in its words, and clears the queue.
    package static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no detail from libssl" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
