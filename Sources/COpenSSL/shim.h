// The libcrypto headers PushBench uses (ES256 signing and verification, key and certificate
// handling), plus wrappers for the few libcrypto macros Swift cannot import.
#ifndef PUSHBENCH_COPENSSL_SHIM_H
#define PUSHBENCH_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// `OPENSSL_free` is a macro.
static inline void pb_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

/// `MBSTRING_ASC` is a macro built from other macros.
static inline int pb_x509_name_add_text(X509_NAME *name, const char *field, const char *value) {
    return X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC, (const unsigned char *)value, -1, -1, 0);
}

#endif
