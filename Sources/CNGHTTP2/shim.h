// libnghttp2 (HTTP/2 framing) and libssl (TLS) for PushBench's nghttp2 transport, plus wrappers
// for the libssl macros Swift cannot import.
#ifndef PUSHBENCH_CNGHTTP2_SHIM_H
#define PUSHBENCH_CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/// `SSL_CTX_set_min_proto_version` is a macro over `SSL_CTX_ctrl`.
static inline int pb_ssl_ctx_require_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

/// `SSL_CTX_set_mode` is a macro; partial writes let a non-blocking write report progress.
static inline void pb_ssl_ctx_allow_partial_writes(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/// `SSL_CTX_set_read_ahead` is a macro; reading ahead takes many TLS records per `read` call
/// instead of two calls (header, then body) per record.
static inline void pb_ssl_ctx_read_ahead(SSL_CTX *context, size_t bytes) {
    SSL_CTX_set_read_ahead(context, 1);
    SSL_CTX_set_default_read_buffer_len(context, bytes);
}

/// `SSL_OP_IGNORE_UNEXPECTED_EOF` is a macro Swift cannot import: a peer that closes TCP without
/// close_notify then reads as a clean close, not an error.
static inline void pb_ssl_ctx_ignore_unexpected_eof(SSL_CTX *context) {
    SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF);
}

/// `SSL_set_tlsext_host_name` (SNI) is a macro over `SSL_ctrl`.
static inline int pb_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// `poll` to the nanosecond: Swift's Glibc module does not declare `ppoll` (a GNU extension),
/// and `poll`'s whole milliseconds would make a sender spin for any wait under one.
static inline int pb_poll_nanos(struct pollfd *fds, nfds_t count, unsigned long long nanos) {
    struct timespec timeout = {(time_t)(nanos / 1000000000ULL), (long)(nanos % 1000000000ULL)};
    return (int)syscall(SYS_ppoll, fds, count, &timeout, NULL, 0);
}

#endif
