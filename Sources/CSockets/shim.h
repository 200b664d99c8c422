// What Swift cannot call directly to run an epoll loop over sockets: `struct epoll_event` is
// packed on x86-64, and Swift's Glibc module does not declare `accept4` (a GNU extension).
#ifndef PUSHBENCH_CSOCKETS_SHIM_H
#define PUSHBENCH_CSOCKETS_SHIM_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// Watches `fd` on `epoll` for `events`, tagged `tag`, or changes what it is watched for (`op`).
static inline int pb_epoll_control(int epoll, int op, int fd, unsigned int events, unsigned long long tag) {
    struct epoll_event event = {.events = events, .data = {.u64 = tag}};
    return epoll_ctl(epoll, op, fd, &event);
}

/// Waits up to `timeout_ms` for up to `capacity` (at most 256) events on `epoll`; their tags and
/// event masks into `tags` and `masks`.
static inline int pb_epoll_wait(int epoll, unsigned long long *tags, unsigned int *masks, int capacity,
                                int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll, events, capacity, timeout_ms);
    for (int index = 0; index < count; index++) {
        tags[index] = events[index].data.u64;
        masks[index] = events[index].events;
    }
    return count;
}

/// `accept4`: a client socket that is non-blocking and closed on exec from the start.
static inline int pb_accept_nonblocking(int listener, struct sockaddr *address, socklen_t *length) {
    return accept4(listener, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

#endif
