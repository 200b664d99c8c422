import CNGHTTP2
import Wire

/// A TLS server's context on the system's OpenSSL: an identity's certificate and key, TLS 1.2 or
/// later, and ALPN that picks `h2` from a client's list and acknowledges nothing else, so a
/// client that offers no `h2` shakes hands with no protocol chosen and the server decides (the
/// mock looks for HTTP/2's preface, as APNs serves prior knowledge).
///
/// The in-memory peer and the mock make their connections' `SSL`s from one.
package final class TLSServerContext: @unchecked Sendable {
    /// The `SSL_CTX`, freed with this object; `SSL_new` on it from any thread is safe.
    package let context: OpaquePointer

    /// A context serving `identity`; throws when OpenSSL cannot read or use its certificate and key.
    package init(identity: TLSIdentity) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TransportError.setup("SSL_CTX_new failed: \(TLSClientContext.lastError())")
        }
        self.context = context
        _ = pb_ssl_ctx_require_tls12(context)
        pb_ssl_ctx_allow_partial_writes(context)
        // A client that closes TCP without close_notify has done nothing wrong: HTTP/2 frames say
        // where each message ends. Most clients (curl, h2load, PushBench's own) close so.
        pb_ssl_ctx_ignore_unexpected_eof(context)
        SSL_CTX_set_alpn_select_cb(context, selectHTTP2, nil)
        try Self.use(identity, in: context)
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// Loads `identity`'s certificate chain and key into `context`.
    private static func use(_ identity: TLSIdentity, in context: OpaquePointer) throws(TransportError) {
        /// The first object `read` finds in `pem`.
        func parse(_ pem: [UInt8], _ read: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
            pem.withUnsafeBytes { bytes in
                guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
                defer { BIO_free(bio) }
                return read(bio)
            }
        }
        let certificate = parse(identity.certificatePEM) { PEM_read_bio_X509($0, nil, nil, nil) }
        let key = parse(identity.privateKeyPEM) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
        defer {
            X509_free(certificate)
            EVP_PKEY_free(key)
        }
        guard let certificate, let key, SSL_CTX_use_certificate(context, certificate) == 1,
            SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1
        else {
            throw TransportError.setup(
                "the certificate and key are not a usable PEM pair: \(TLSClientContext.lastError())"
            )
        }
    }
}

/// Picks `h2` from the client's ALPN list, as APNs does; with no `h2` on it, chooses nothing.
private func selectHTTP2(
    _ ssl: OpaquePointer?,
    _ selected: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ selectedLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?,
    _ offeredLength: UInt32,
    _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    var chosen: UnsafeMutablePointer<UInt8>?
    var chosenLength: UInt8 = 0
    // 1 when "h2" is on the client's list (0 is HTTP/1.1 only, -1 neither).
    guard nghttp2_select_next_protocol(&chosen, &chosenLength, offered, offeredLength) == 1 else {
        return SSL_TLSEXT_ERR_NOACK
    }
    selected?.pointee = UnsafePointer(chosen)
    selectedLength?.pointee = chosenLength
    return SSL_TLSEXT_ERR_OK
}
