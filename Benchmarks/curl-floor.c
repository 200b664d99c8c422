// libcurl's own floor for APNs pushes: the least a sender can do with one curl_multi handle and
// still send what PushBench's libcurl transport sends (an HTTP/2 POST over TLS per push, to a
// device path, with the provider token, the push headers, a fresh apns-id and the payload).
//
// Everything that can be made once is made once: one easy handle per stream slot, configured at
// start, a shared header list, one apns-id node per slot rewritten in place. Per push it sets the
// URL, writes the apns-id and adds the handle; the answer's status line, content-length and body
// size are followed by two callbacks. What costs more than this in a libcurl sender is the
// sender's own, not libcurl's.
//
// A server may answer before it has read a request's body and then reset the stream with
// NO_ERROR (RFC 9113 §8.1; nginx's `return 200` does). libcurl 7.88 then either ends the
// transfer with CURLE_HTTP2_STREAM after handing over the whole answer, or leaves it running
// until something else happens on the connection (curl/curl#11165, fixed in 8.1). Like
// PushBench, the loop counts a whole answer (final status, end of headers, body as long as its
// content-length) as answered, and ends such transfers itself after each curl_multi_perform.
//
// Usage: curl-floor URLS REQUESTS CONNECTIONS STREAMS CA_FILE BODY_FILE [HEADER...]
//   URLS: a file of URLs, one per line, sent in turn; REQUESTS: pushes to send in all.
// Prints one line: "sent N answered N ended_by_libcurl N ended_on_whole_answer N failed N
// seconds S req/s R". Exits 1 if any push failed, 2 on bad arguments.
#include <curl/curl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct slot {
    CURL *easy;
    struct curl_slist id_node;
    char id_line[64];
    int in_flight;
    long status;       // of the last status line, 0 before one
    int headers_ended; // a final status's header block has ended
    long length;       // content-length, -1 without one
    long received;     // body bytes
};

// The slots whose answers became whole during one curl_multi_perform, noted by the callbacks.
static struct slot **whole_answers;
static long whole_count;

static int answer_is_whole(const struct slot *slot) {
    return slot->headers_ended && slot->length >= 0 && slot->received == slot->length;
}

static void note_progress(struct slot *slot) {
    if (answer_is_whole(slot)) whole_answers[whole_count++] = slot;
}

static size_t take_header(char *line, size_t size, size_t count, void *userdata) {
    struct slot *slot = userdata;
    size_t length = size * count;
    if (length > 0 && (line[0] == '\r' || line[0] == '\n')) {
        slot->headers_ended = slot->status >= 200;
        note_progress(slot);
    } else if (length > 5 && strncmp(line, "HTTP/", 5) == 0) {
        const char *space = memchr(line, ' ', length);
        slot->status = space ? strtol(space + 1, NULL, 10) : 0;
        slot->length = -1;
    } else if (length > 15 && strncasecmp(line, "content-length:", 15) == 0) {
        slot->length = strtol(line + 15, NULL, 10);
    }
    return length;
}

static size_t take_body(char *buffer, size_t size, size_t count, void *userdata) {
    (void)buffer;
    struct slot *slot = userdata;
    slot->received += size * count;
    note_progress(slot);
    return size * count;
}

static char *read_file(const char *path, long *length) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        exit(2);
    }
    fseek(file, 0, SEEK_END);
    *length = ftell(file);
    rewind(file);
    char *bytes = malloc(*length + 1);
    if (fread(bytes, 1, *length, file) != (size_t)*length) {
        perror(path);
        exit(2);
    }
    bytes[*length] = 0;
    fclose(file);
    return bytes;
}

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: curl-floor URLS REQUESTS CONNECTIONS STREAMS CA_FILE BODY_FILE [HEADER...]\n");
        return 2;
    }
    long urls_length, body_length;
    char *urls_text = read_file(argv[1], &urls_length);
    long requests = atol(argv[2]), connections = atol(argv[3]), streams = atol(argv[4]);
    const char *ca_file = argv[5];
    char *body = read_file(argv[6], &body_length);

    long url_count = 0;
    for (char *c = urls_text; *c; c++) url_count += *c == '\n';
    char **urls = calloc(url_count + 1, sizeof *urls);
    url_count = 0;
    for (char *line = strtok(urls_text, "\n"); line; line = strtok(NULL, "\n")) urls[url_count++] = line;
    if (url_count == 0 || requests <= 0 || connections <= 0 || streams <= 0) {
        fprintf(stderr, "curl-floor: no URLs, or a count that is not positive\n");
        return 2;
    }

    struct curl_slist *shared = NULL;
    for (int i = 7; i < argc; i++) shared = curl_slist_append(shared, argv[i]);

    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections);
    curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, connections);
    curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, streams);

    long slot_count = connections * streams;
    struct slot *slots = calloc(slot_count, sizeof *slots);
    struct slot **idle = calloc(slot_count, sizeof *idle);
    long idle_count = 0;
    whole_answers = calloc(slot_count * 2, sizeof *whole_answers); // a slot is noted at most twice
    for (long i = 0; i < slot_count; i++) {
        struct slot *slot = &slots[i];
        slot->easy = curl_easy_init();
        slot->id_node.data = slot->id_line;
        slot->id_node.next = shared;
        curl_easy_setopt(slot->easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(slot->easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(slot->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(slot->easy, CURLOPT_POST, 1L);
        curl_easy_setopt(slot->easy, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(slot->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
        curl_easy_setopt(slot->easy, CURLOPT_HTTPHEADER, &slot->id_node);
        curl_easy_setopt(slot->easy, CURLOPT_CAINFO, ca_file);
        curl_easy_setopt(slot->easy, CURLOPT_WRITEFUNCTION, take_body);
        curl_easy_setopt(slot->easy, CURLOPT_WRITEDATA, slot);
        curl_easy_setopt(slot->easy, CURLOPT_HEADERFUNCTION, take_header);
        curl_easy_setopt(slot->easy, CURLOPT_HEADERDATA, slot);
        curl_easy_setopt(slot->easy, CURLOPT_PRIVATE, slot);
        idle[idle_count++] = slot;
    }

    long sent = 0, answered = 0, ended_by_libcurl = 0, ended_on_whole_answer = 0, failed = 0;
    double started = seconds_now();
    while (answered + failed < requests) {
        while (idle_count > 0 && sent < requests) {
            struct slot *slot = idle[--idle_count];
            uint64_t id = (uint64_t)sent;
            snprintf(slot->id_line, sizeof slot->id_line, "apns-id: %08" PRIX64 "-0000-4000-8000-%012" PRIX64,
                     id >> 32 & 0xFFFFFFFF, id & 0xFFFFFFFFFFFF);
            slot->status = 0;
            slot->headers_ended = 0;
            slot->length = -1;
            slot->received = 0;
            slot->in_flight = 1;
            curl_easy_setopt(slot->easy, CURLOPT_URL, urls[sent % url_count]);
            curl_multi_add_handle(multi, slot->easy);
            sent++;
        }
        int running = 0, queued = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            struct slot *slot;
            CURLcode result = message->data.result;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&slot);
            int whole = slot->headers_ended && (slot->length < 0 || slot->received == slot->length);
            if ((result == CURLE_OK || (result == CURLE_HTTP2_STREAM && whole)) && slot->status == 200) {
                answered++;
                ended_by_libcurl++;
            } else if (failed++ < 5) {
                fprintf(stderr, "curl-floor: curl %d, status %ld\n", result, slot->status);
            }
            curl_multi_remove_handle(multi, slot->easy);
            slot->in_flight = 0;
            idle[idle_count++] = slot;
        }
        for (long i = 0; i < whole_count; i++) {
            struct slot *slot = whole_answers[i];
            if (!slot->in_flight || !answer_is_whole(slot)) continue;
            if (slot->status == 200) {
                answered++;
                ended_on_whole_answer++;
            } else if (failed++ < 5) {
                fprintf(stderr, "curl-floor: status %ld\n", slot->status);
            }
            curl_multi_remove_handle(multi, slot->easy);
            slot->in_flight = 0;
            idle[idle_count++] = slot;
        }
        whole_count = 0;
        // Wait for the sockets only when there is nothing to submit, and then at most 20 ms (as
        // PushBench's workers do): libcurl 7.88 can leave bytes it has read unprocessed until a
        // wait times out, which with a one-second wait costs a run 40% of its rate.
        if (idle_count == 0 || sent == requests) curl_multi_poll(multi, NULL, 0, 20, NULL);
    }
    double seconds = seconds_now() - started;
    printf("sent %ld answered %ld ended_by_libcurl %ld ended_on_whole_answer %ld failed %ld seconds %.3f req/s %.0f\n",
           sent, answered, ended_by_libcurl, ended_on_whole_answer, failed, seconds, answered / seconds);
    return failed > 0;
}
