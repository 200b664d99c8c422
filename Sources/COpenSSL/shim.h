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
#include <openssl/pkcs12.h>
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

/// A PKCS#12 truststore the JVM reads (`javax.net.ssl.trustStore`): every certificate of the PEM
/// `pem` as a trusted certificate entry, which is a certificate bag carrying Oracle's
/// trusted-key-usage attribute (2.16.840.1.113894.746875.1.1, anyExtendedKeyUsage) as keytool
/// writes it: the JVM ignores a bag without it. The store's MAC is keyed with `password`. Its DER
/// in `*der` (freed with `pb_openssl_free`), and its length; 0 on failure.
static inline int pb_pkcs12_truststore(const unsigned char *pem, int length, const char *password, unsigned char **der) {
    int written = 0;
    BIO *input = BIO_new_mem_buf(pem, length);
    STACK_OF(PKCS12_SAFEBAG) *bags = NULL;
    STACK_OF(PKCS7) *safes = NULL;
    PKCS12 *store = NULL;
    ASN1_OBJECT *anyUsage = OBJ_txt2obj("2.5.29.37.0", 1);
    X509 *certificate;
    int certificates = 0;
    while (input && anyUsage && (certificate = PEM_read_bio_X509(input, NULL, NULL, NULL)) != NULL) {
        PKCS12_SAFEBAG *bag = PKCS12_add_cert(&bags, certificate);
        X509_free(certificate);
        char alias[] = "pushbench-ca-0";
        alias[sizeof alias - 2] = (char)('0' + certificates % 10);
        if (!bag || !PKCS12_add_friendlyname_asc(bag, alias, -1) ||
            !PKCS12_add1_attr_by_txt(bag, "2.16.840.1.113894.746875.1.1", V_ASN1_OBJECT,
                                     (const unsigned char *)anyUsage, -1)) goto done;
        certificates++;
    }
    ERR_clear_error();
    if (certificates == 0 || !PKCS12_add_safe(&safes, bags, -1, 0, NULL)) goto done;
    store = PKCS12_add_safes(safes, 0);
    if (!store || !PKCS12_set_mac(store, password, -1, NULL, 0, 10000, NULL)) goto done;
    *der = NULL;
    written = i2d_PKCS12(store, der);
    if (written < 0) written = 0;
done:
    PKCS12_free(store);
    sk_PKCS7_pop_free(safes, PKCS7_free);
    sk_PKCS12_SAFEBAG_pop_free(bags, PKCS12_SAFEBAG_free);
    ASN1_OBJECT_free(anyUsage);
    BIO_free(input);
    return written;
}

#endif
