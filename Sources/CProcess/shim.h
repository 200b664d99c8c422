// What Swift cannot call directly to watch another program: prctl is variadic.
#ifndef PUSHBENCH_CPROCESS_SHIM_H
#define PUSHBENCH_CPROCESS_SHIM_H

#include <sys/prctl.h>

// Makes the calling process the reaper of its orphaned descendants, so a grandchild that
// outlives its parent is still waited for, and its CPU time counted, by the caller.
static inline int pb_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
}

#endif
