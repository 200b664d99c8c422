// Typed wrappers for libcurl's variadic entry points, which Swift cannot call directly.
// Each wrapper forwards to exactly one libcurl call; nothing else belongs here.
#ifndef PUSHBENCH_CCURL_SHIM_H
#define PUSHBENCH_CCURL_SHIM_H

#include <curl/curl.h>

static inline CURLcode pb_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pb_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pb_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// Sets a blob option (for example `CURLOPT_CAINFO_BLOB`); libcurl copies the bytes.
static inline CURLcode pb_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob = {(void *)data, length, CURL_BLOB_COPY};
    return curl_easy_setopt(handle, option, &blob);
}

typedef size_t (*pb_data_callback)(char *buffer, size_t size, size_t count, void *userdata);

/// Sets `CURLOPT_WRITEFUNCTION` or `CURLOPT_HEADERFUNCTION`.
static inline CURLcode pb_easy_setopt_data_callback(CURL *handle, CURLoption option, pb_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

typedef int (*pb_prereq_callback)(void *userdata, char *primary_ip, char *local_ip, int primary_port, int local_port);

/// Sets `CURLOPT_PREREQFUNCTION`, called before each request is written on its connection.
static inline CURLcode pb_easy_setopt_prereq_callback(CURL *handle, pb_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

static inline CURLcode pb_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pb_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pb_easy_getinfo_ptr(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode pb_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// `CURLVERSION_NOW` is a macro Swift does not import.
static inline const curl_version_info_data *pb_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

#endif
