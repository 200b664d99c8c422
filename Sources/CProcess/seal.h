// A sealed network for a child, set up between its fork and its exec, where only C may run:
// network and mount namespaces of its own (and a user namespace, for a caller that is not root),
// its loopback up with the addresses it is given, files bound over the system's (/etc/hosts and
// the like), and listening sockets made inside and sent to the parent, which serves them from
// outside. Nothing but those sockets connects the inside to anything.
#ifndef PUSHBENCH_CPROCESS_SEAL_H
#define PUSHBENCH_CPROCESS_SEAL_H

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

extern int unshare(int flags);
extern int close_range(unsigned int first, unsigned int last, int flags);

// One listening socket to make inside: an IPv4 address and port, in host byte order.
struct pb_seal_listener {
    uint32_t address;
    uint16_t port;
};

// What the child's sealed network holds. Besides the listening sockets, it keeps a doorman: a
// process inside that makes a new, unconnected TCP socket there whenever the parent asks (one
// byte on `control`: 4 for IPv4, 6 for IPv6) and sends it back, so that the parent can dial what
// listens inside, such as the service's own API. The doorman dies with the child.
struct pb_seal {
    // 1: also a user namespace, in which the caller's uid and gid are root (a caller that is not root).
    int user_namespace;
    uid_t uid;
    gid_t gid;
    // Files bound over others, pairwise: sources[i] is seen at targets[i] inside.
    const char *const *bind_sources;
    const char *const *bind_targets;
    int binds;
    // Addresses outside 127.0.0.0/8 that the loopback also answers (host byte order).
    const uint32_t *addresses;
    int address_count;
    // The listening sockets, sent in that order, in one message, on `control`.
    const struct pb_seal_listener *listeners;
    int listener_count;
    int control;
};

// Which step of the setup failed, for the parent to name.
enum pb_seal_step {
    PB_SEAL_EXEC = 0,
    PB_SEAL_UNSHARE = 1,
    PB_SEAL_ID_MAPS = 2,
    PB_SEAL_LOOPBACK = 3,
    PB_SEAL_MOUNTS = 4,
    PB_SEAL_LISTEN = 5,
    PB_SEAL_SEND = 6,
};

// Writes `text` to the file at `path`; 0 or errno.
static inline int pb_seal_write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    size_t length = strlen(text);
    ssize_t written = write(fd, text, length);
    int failure = written == (ssize_t)length ? 0 : (written < 0 ? errno : EIO);
    close(fd);
    return failure;
}

// "0 <id> 1\n" into `line` (24 bytes): the id is root inside, itself outside.
static inline void pb_seal_map_line(char *line, unsigned id) {
    char digits[12];
    int count = 0;
    do { digits[count++] = (char)('0' + id % 10); id /= 10; } while (id != 0);
    int at = 0;
    line[at++] = '0';
    line[at++] = ' ';
    while (count > 0) line[at++] = digits[--count];
    line[at++] = ' ';
    line[at++] = '1';
    line[at++] = '\n';
    line[at] = 0;
}

// Brings the loopback up and gives it `seal`'s extra addresses (as aliases lo:1, lo:2...).
static inline int pb_seal_loopback(const struct pb_seal *seal) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    struct ifreq request;
    memset(&request, 0, sizeof request);
    strcpy(request.ifr_name, "lo");
    int failure = 0;
    if (ioctl(fd, SIOCGIFFLAGS, &request) != 0) failure = errno;
    request.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (failure == 0 && ioctl(fd, SIOCSIFFLAGS, &request) != 0) failure = errno;
    for (int i = 0; failure == 0 && i < seal->address_count && i < 99; i++) {
        memset(&request, 0, sizeof request);
        memcpy(request.ifr_name, "lo:", 3);
        int at = 3;
        if (i + 1 >= 10) request.ifr_name[at++] = (char)('0' + (i + 1) / 10);
        request.ifr_name[at] = (char)('0' + (i + 1) % 10);
        struct sockaddr_in *address = (struct sockaddr_in *)&request.ifr_addr;
        address->sin_family = AF_INET;
        address->sin_addr.s_addr = htonl(seal->addresses[i]);
        if (ioctl(fd, SIOCSIFADDR, &request) != 0) { failure = errno; break; }
        address = (struct sockaddr_in *)&request.ifr_netmask;
        address->sin_family = AF_INET;
        address->sin_addr.s_addr = 0xFFFFFFFFu;
        if (ioctl(fd, SIOCSIFNETMASK, &request) != 0) failure = errno;
    }
    close(fd);
    return failure;
}

// Sends `count` descriptors and `data` (an int) to the parent in one message on `control`.
static inline int pb_seal_send(int control, const int *fds, int count, int data) {
    enum { most = 64 };
    char space[CMSG_SPACE(sizeof(int) * most)];
    memset(space, 0, sizeof space);
    struct iovec payload = {&data, sizeof data};
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &payload;
    message.msg_iovlen = 1;
    if (count > 0) {
        message.msg_control = space;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
        memcpy(CMSG_DATA(header), fds, sizeof(int) * (size_t)count);
    }
    return sendmsg(control, &message, MSG_NOSIGNAL) == (ssize_t)sizeof data ? 0 : errno;
}

// Forks the doorman: it serves `control` until the parent closes its end, and is killed when
// `child` (its parent, which goes on to exec the command) is gone. Its pid, or -1.
static inline pid_t pb_seal_doorman(int control, pid_t child) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL) != 0 || getppid() != child) _exit(0);
    struct sigaction ignore = {0};
    ignore.sa_handler = SIG_IGN;
    int ignored[] = {SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTERM};
    for (unsigned i = 0; i < sizeof ignored / sizeof ignored[0]; i++) sigaction(ignored[i], &ignore, 0);
    if (control > 0) close_range(0, (unsigned)control - 1, 0);
    close_range((unsigned)control + 1, ~0U, 0);
    for (;;) {
        char family = 0;
        ssize_t got = recv(control, &family, 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) _exit(0);
        int fd = socket(family == 6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (pb_seal_send(control, &fd, fd >= 0 ? 1 : 0, fd >= 0 ? 0 : errno) != 0) _exit(0);
        if (fd >= 0) close(fd);
    }
}

// Makes the listening sockets and the doorman, and sends the sockets and the doorman's pid to
// the parent in one message, then closes the sockets here: the parent's copies keep them open,
// and the child's program never holds them.
static inline int pb_seal_listen_and_send(const struct pb_seal *seal, int *step) {
    enum { most = 64 };
    int fds[most];
    int count = seal->listener_count < most ? seal->listener_count : most;
    int failure = 0;
    int made = 0;
    *step = PB_SEAL_LISTEN;
    for (; made < count; made++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) { failure = errno; break; }
        fds[made] = fd;
        int on = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        struct sockaddr_in address;
        memset(&address, 0, sizeof address);
        address.sin_family = AF_INET;
        address.sin_port = htons(seal->listeners[made].port);
        address.sin_addr.s_addr = htonl(seal->listeners[made].address);
        if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 4096) != 0) {
            failure = errno;
            made++;
            break;
        }
    }
    if (failure == 0) {
        *step = PB_SEAL_SEND;
        pid_t doorman = pb_seal_doorman(seal->control, getpid());
        if (doorman < 0) failure = errno;
        else failure = pb_seal_send(seal->control, fds, count, (int)doorman);
    }
    for (int i = 0; i < made; i++) close(fds[i]);
    close(seal->control);
    return failure;
}

// In a forked child, before its exec (only async-signal-safe calls): seals its network as
// `seal` says. 0, or an errno with the failed step in `*step`.
static inline int pb_seal_network(const struct pb_seal *seal, int *step) {
    *step = PB_SEAL_UNSHARE;
    if (unshare(CLONE_NEWNET | CLONE_NEWNS | (seal->user_namespace ? CLONE_NEWUSER : 0)) != 0) return errno;
    if (seal->user_namespace) {
        *step = PB_SEAL_ID_MAPS;
        char line[24];
        int failure = pb_seal_write_file("/proc/self/setgroups", "deny");
        pb_seal_map_line(line, (unsigned)seal->uid);
        if (failure == 0) failure = pb_seal_write_file("/proc/self/uid_map", line);
        pb_seal_map_line(line, (unsigned)seal->gid);
        if (failure == 0) failure = pb_seal_write_file("/proc/self/gid_map", line);
        if (failure != 0) return failure;
    }
    *step = PB_SEAL_LOOPBACK;
    int failure = pb_seal_loopback(seal);
    if (failure != 0) return failure;
    *step = PB_SEAL_MOUNTS;
    // Private first, so the binds below stay in this namespace and never reach the host's.
    if (mount(0, "/", 0, MS_REC | MS_PRIVATE, 0) != 0) return errno;
    for (int i = 0; i < seal->binds; i++) {
        if (mount(seal->bind_sources[i], seal->bind_targets[i], 0, MS_BIND, 0) != 0) return errno;
    }
    return pb_seal_listen_and_send(seal, step);
}

#endif
