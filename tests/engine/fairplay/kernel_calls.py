"""Tries the system calls the sandbox must refuse, once, and reports each one's outcome as a
JSON object on standard error; plays legally throughout."""

import ctypes
import json
import os

from _play import report, run

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# x86_64 numbers
CALLS = {
    "ptrace": (101, 16, 1, 0, 0),  # PTRACE_ATTACH to pid 1
    "process_vm_readv": (310, 1, 0, 0, 0, 0, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "bpf": (321, 0, 0, 0),
    "userfaultfd": (323, 0),
    "unshare": (272, 0x10000000),
    "setns": (308, 0, 0),
    "mount": (165, 0, 0, 0, 0, 0),
    "umount2": (166, 0, 0),
    "pivot_root": (155, 0, 0),
    "kexec_load": (246, 0, 0, 0, 0),
    "init_module": (175, 0, 0, 0),
    "finit_module": (313, -1, 0, 0),
    "delete_module": (176, 0, 0),
    "keyctl": (250, 0, -3),
    "add_key": (248, 0, 0, 0, 0, -3),
    "io_uring_setup": (425, 1, 0),
    "inotify_init1": (294, 0),
    "fanotify_init": (300, 0, 0),
    "name_to_handle_at": (303, 0, 0, 0, 0, 0),
    "open_by_handle_at": (304, 0, 0, 0),
    "mincore": (27, 0, 0, 0),
    "sysinfo": (99, 0),
    "pidfd_getfd": (438, 0, 0, 0),
    "kcmp": (312, 1, 1, 0, 0, 0),
    "personality_no_aslr": (135, 0x0040000),
    "clone_newuser": (56, 0x10000000 | 17, 0, 0, 0, 0),
    "clone_newnet": (56, 0x40000000 | 17, 0, 0, 0, 0),
    "flock": (73, 0, 2),
    "fcntl_setlk": (72, 0, 6, 0),
    "fcntl_ofd_setlk": (72, 0, 37, 0),
    "fcntl_setlease": (72, 0, 1024, 0),
    "kill_sigcont": (62, 1, 18),
}
results = {}


def on_hello(seat):
    for name, (number, *args) in CALLS.items():
        answer = libc.syscall(number, *args)
        results[name] = "ok" if answer >= 0 else os.strerror(ctypes.get_errno())
    results["personality_query"] = "ok" if libc.syscall(135, 0xFFFFFFFF) >= 0 else "refused"
    results["getpid"] = "ok" if libc.syscall(39) > 0 else "refused"


run(on_hello=on_hello, on_end=lambda seat: report(json.dumps(results)))
