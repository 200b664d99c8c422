// What Swift cannot call directly to watch another program or name a thread: prctl is variadic.
#ifndef PUSHBENCH_CPROCESS_SHIM_H
#define PUSHBENCH_CPROCESS_SHIM_H

#include <spawn.h>
#include <sys/prctl.h>

// glibc 2.34 and later; declared only under _GNU_SOURCE, which a module's users do not set.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

// Closes every descriptor from `lowest` up in a spawned child, so it inherits none of its
// parent's sockets and pipes: a sampler or a sender holding one open would keep a reader of that
// pipe (a test harness watching its child) waiting, and a listening socket bound.
static inline int pb_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

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

#endif
