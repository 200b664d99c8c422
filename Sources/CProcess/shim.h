// What Swift cannot call directly to start and watch another program or name a thread: prctl is
// variadic, and only C may run between a fork and its exec.
#ifndef PUSHBENCH_CPROCESS_SHIM_H
#define PUSHBENCH_CPROCESS_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "seal.h"

// glibc 2.34 and later; declared only under _GNU_SOURCE, which a module's users do not set.
extern int execvpe(const char *file, char *const argv[], char *const envp[]);
extern int pipe2(int fds[2], int flags);
extern int close_range(unsigned int first, unsigned int last, int flags);

// Makes the calling process the reaper of its orphaned descendants, so a grandchild that
// outlives its parent is still waited for, and its CPU time counted, by the caller.
static inline int pb_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
}

// Names the calling thread (Linux keeps 15 bytes and a NUL), as `top -H`, gdb and perf show it.
static inline int pb_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

// The calling thread's name into `name`, which holds at least 16 bytes.
static inline int pb_get_thread_name(char *name) {
    return prctl(PR_GET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

// In a forked child, before its exec: only async-signal-safe calls. Puts it in a process group
// of its own, gives the signals a terminal or a trap may have changed their default action with
// none blocked, reads standard input from `in`, appends its output to `out` and `err`, and
// closes every other descriptor but `keep`. With `tie`, the kernel kills it (SIGKILL) when the
// thread that forked it ends; 0, or an errno when the parent was gone already.
static inline int pb_prepare_child(pid_t parent, int tie, const char *in, const char *out, const char *err, int keep) {
    setpgid(0, 0);
    if (tie && (prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL) != 0 || getppid() != parent)) return ESRCH;
    struct sigaction defaults = {0};
    defaults.sa_handler = SIG_DFL;
    int reset[] = {SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP, SIGQUIT};
    for (unsigned i = 0; i < sizeof reset / sizeof reset[0]; i++) sigaction(reset[i], &defaults, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, 0);
    const char *paths[] = {in, out, err};
    int flags[] = {O_RDONLY, O_WRONLY | O_CREAT | O_APPEND, O_WRONLY | O_CREAT | O_APPEND};
    for (int target = 0; target < 3; target++) {
        int fd = open(paths[target], flags[target], 0644);
        if (fd < 0) return errno;
        if (fd != target) {
            if (dup2(fd, target) < 0) return errno;
            close(fd);
        }
    }
    if (keep > 3) close_range(3, (unsigned)keep - 1, 0);
    close_range((unsigned)keep + 1, ~0U, 0);
    return 0;
}

// Starts `file` (found on PATH) with `argv` and `envp` as a child prepared as
// `pb_prepare_child` says, in the sealed network `seal` describes when it is not null: its pid,
// or -1 with the reason in `*error` (ENOENT: not found) and the step that failed in `*step`
// (`pb_seal_step`; PB_SEAL_EXEC for the exec itself).
// Built on fork, not posix_spawn, because only a child's own code can ask the kernel to kill it
// when its parent dies; a pipe closed by the exec tells the parent the exec worked.
static inline pid_t pb_spawn(const char *file, char *const argv[], char *const envp[], int tie, const char *in,
                             const char *out, const char *err, const struct pb_seal *seal, int *error,
                             int *step) {
    *step = PB_SEAL_EXEC;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        *error = errno;
        return -1;
    }
    // Above the standard three: with one of those closed here, the pipe would take its number
    // and the child's own standard input or output would replace it.
    for (int end = 0; end < 2; end++) {
        if (report[end] > 2) continue;
        int moved = fcntl(report[end], F_DUPFD_CLOEXEC, 3);
        close(report[end]);
        if (moved < 0) {
            *error = errno;
            close(report[1 - end]);
            return -1;
        }
        report[end] = moved;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        // Its own process group first, so that a sealed network's doorman, forked below, is in it.
        setpgid(0, 0);
        int failure[2] = {0, PB_SEAL_EXEC};
        if (seal) failure[0] = pb_seal_network(seal, &failure[1]);
        if (failure[0] == 0) {
            failure[1] = PB_SEAL_EXEC;
            failure[0] = pb_prepare_child(parent, tie, in, out, err, report[1]);
        }
        if (failure[0] == 0) {
            execvpe(file, argv, envp);
            failure[0] = errno;
        }
        while (write(report[1], failure, sizeof failure) < 0 && errno == EINTR) {}
        _exit(127);
    }
    int forkError = errno;
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        *error = forkError;
        return -1;
    }
    setpgid(pid, pid);  // As the child does: whichever runs first, a signal to the group finds it.
    int failure[2] = {0, PB_SEAL_EXEC};
    ssize_t got;
    do { got = read(report[0], failure, sizeof failure); } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof failure) {
        waitpid(pid, 0, 0);
        *error = failure[0];
        *step = failure[1];
        return -1;
    }
    return pid;
}

// Forks a watchdog that kills process group `group` (SIGKILL) as soon as the calling process is
// gone, however it went (a crash, a SIGKILL), so that a child's own children go with it; it
// exits by itself once the group is empty. It holds none of its parent's descriptors and ignores
// a terminal's signals. Its pid, or -1 with errno set.
static inline pid_t pb_spawn_group_watchdog(pid_t group) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    struct sigaction ignore = {0};
    ignore.sa_handler = SIG_IGN;
    int ignored[] = {SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP};
    for (unsigned i = 0; i < sizeof ignored / sizeof ignored[0]; i++) sigaction(ignored[i], &ignore, 0);
    close_range(0, ~0U, 0);
    struct timespec tick = {0, 50 * 1000 * 1000};
    while (getppid() == parent) {
        if (kill(-group, 0) != 0 && errno == ESRCH) _exit(0);
        nanosleep(&tick, 0);
    }
    kill(-group, SIGKILL);
    _exit(0);
}

// Forks a watchdog that removes the file `file` and then the folder `folder` once the calling
// process is gone, however it went (a crash, a SIGKILL), and exits: a private key made for one
// run never outlives it. It waits, costing nothing, on the read end of a pipe whose write end only
// the caller holds (close-on-exec, so no program the caller starts holds it too), which ends when
// the caller does; the caller closes `*keep_open` to let it go early. Its pid, or -1 with errno.
static inline pid_t pb_spawn_removal_watchdog(const char *file, const char *folder, int *keep_open) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
        return -1;
    }
    if (pid != 0) {
        close(fds[0]);
        *keep_open = fds[1];
        return pid;
    }
    struct sigaction ignore = {0};
    ignore.sa_handler = SIG_IGN;
    int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP};
    for (unsigned i = 0; i < sizeof ignored / sizeof ignored[0]; i++) sigaction(ignored[i], &ignore, 0);
    setsid();
    dup2(fds[0], 0);
    close_range(1, ~0U, 0);
    char byte;
    for (;;) {
        ssize_t got = read(0, &byte, 1);
        if (got == 0 || (got < 0 && errno != EINTR)) break;
    }
    unlink(file);
    rmdir(folder);
    _exit(0);
}

#endif
