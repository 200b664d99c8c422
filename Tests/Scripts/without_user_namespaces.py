"""Runs a command as a user that is not root where the kernel allows no user namespace, as on
a host with user.max_user_namespaces = 0, without changing the host's own setting.

    python3 without_user_namespaces.py COMMAND [ARGS...]   (as root)

It forks a child into a user namespace of its own, in which uids and gids 0-65535 are the
host's, sets that namespace's user.max_user_namespaces to 0 (the limit is per user namespace,
and binds every namespace beneath it), drops to nobody (65534) and runs COMMAND, whose exit
status it exits with.
"""

import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000
libc = ctypes.CDLL(None, use_errno=True)

ready_read, ready_write = os.pipe()
mapped_read, mapped_write = os.pipe()
child = os.fork()
if child == 0:
    if libc.unshare(CLONE_NEWUSER) != 0:
        sys.exit(f"unshare: {os.strerror(ctypes.get_errno())}")
    os.write(ready_write, b"u")
    os.read(mapped_read, 1)
    with open("/proc/sys/user/max_user_namespaces", "w") as limit:
        limit.write("0")
    os.setgroups([])
    os.setresgid(65534, 65534, 65534)
    os.setresuid(65534, 65534, 65534)
    os.execvp(sys.argv[1], sys.argv[1:])
os.read(ready_read, 1)
for name in ("uid_map", "gid_map"):
    with open(f"/proc/{child}/{name}", "w") as ids:
        ids.write("0 0 65536")
os.write(mapped_write, b"m")
_, status = os.waitpid(child, 0)
sys.exit(os.waitstatus_to_exitcode(status))
