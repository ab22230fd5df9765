"""The system-call filter of every sandboxed seat (a seccomp program handed to bwrap --seccomp).

Bubblewrap's namespaces keep a bot from seeing the host's files, network and processes. They do
not keep two sandboxes on one host from meeting in the kernel's shared objects: the keyrings,
file locks on shared files, the page cache, inotify watches on the read-only system folders.
Partners (the two seats of one bot) could pass their hands through any of them. This filter
refuses the calls that reach such shared objects, and the calls that only serve to attack the
kernel, in the manner of Flatpak's filter: a list of refusals (EPERM, or ENOSYS where a C
library falls back to an older call) over a default of "allowed", so that Python, Node and
static executables run unchanged. docs/sandbox.md gives the list with a reason for each.

The filter is built with libseccomp's Python bindings (Debian's python3-seccomp): never
hand-written BPF. Where the bindings are not installed the filter is None; the worker's
sandbox probe reports it, and the local runner says that it plays without the filter.

`one_process=True` also refuses every new process (fork, vfork, clone without CLONE_THREAD):
the sandbox uses it when no per-seat cgroup holds the seat's memory, so that the address-space
rlimit of the one process is the memory of the whole seat.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import signal
import tempfile
from typing import Any

try:  # the one import outside the standard library, optional by design (see above)
    import seccomp  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - depends on the machine
    seccomp = None

# Each refused call with the reason it is refused (docs/sandbox.md is written from this).
REFUSED: dict[str, str] = {
    # Shared kernel objects two sandboxes could meet in.
    "add_key": "kernel keyrings are shared by every process of a uid and listed in /proc/keys",
    "keyctl": "kernel keyrings (as add_key)",
    "request_key": "kernel keyrings (as add_key)",
    "flock": "a lock on a shared file (/usr, a program's files) is seen by every sandbox",
    "inotify_init": "a watch on a shared file sees another sandbox open or read it",
    "inotify_init1": "as inotify_init",
    "inotify_add_watch": "as inotify_init",
    "fanotify_init": "as inotify_init, for a whole mount",
    "fanotify_mark": "as fanotify_init",
    "mincore": "tells which pages of a shared file are cached: a page-cache channel",
    "cachestat": "page-cache state of a shared file, as mincore",
    "io_uring_setup": "a second system-call interface that this filter would not see",
    "io_uring_enter": "as io_uring_setup",
    "io_uring_register": "as io_uring_setup",
    "sysinfo": "host-wide free memory, load and process count: a counter partners could share",
    # Reaching into another process.
    "ptrace": "reading or steering another process",
    "process_vm_readv": "reading another process's memory",
    "process_vm_writev": "writing another process's memory",
    "pidfd_getfd": "taking another process's file descriptor",
    "kcmp": "comparing kernel objects across processes",
    "perf_event_open": "performance counters: a precise timing and cache side channel",
    "move_pages": "moving another process's memory between NUMA nodes",
    "migrate_pages": "as move_pages",
    # Namespaces and mounts: the sandbox's walls.
    "unshare": "new namespaces inside the sandbox",
    "setns": "joining another namespace",
    "mount": "mounting file systems",
    "umount2": "unmounting the sandbox's own mounts",
    "pivot_root": "changing the root",
    "chroot": "changing the root",
    "open_tree": "the new mount interface",
    "move_mount": "the new mount interface",
    "fsopen": "the new mount interface",
    "fsconfig": "the new mount interface",
    "fsmount": "the new mount interface",
    "fspick": "the new mount interface",
    "mount_setattr": "the new mount interface",
    "name_to_handle_at": "file handles reach files outside the sandbox's mounts",
    "open_by_handle_at": "as name_to_handle_at",
    # The kernel itself.
    "bpf": "loading programs into the kernel",
    "userfaultfd": "stalling the kernel at will, a favourite of kernel exploits",
    "kexec_load": "replacing the kernel",
    "kexec_file_load": "replacing the kernel",
    "init_module": "loading kernel modules",
    "finit_module": "loading kernel modules",
    "delete_module": "unloading kernel modules",
    "acct": "process accounting",
    "swapon": "swap",
    "swapoff": "swap",
    "reboot": "rebooting",
    "syslog": "the kernel's log",
    "quotactl": "disk quotas",
    "quotactl_fd": "disk quotas",
    "lookup_dcookie": "kernel profiling",
    "iopl": "hardware I/O ports",
    "ioperm": "hardware I/O ports",
    "vhangup": "terminals",
    "uselib": "an obsolete loader call",
    "nfsservctl": "an obsolete NFS call",
    "personality": "flags that weaken address-space randomisation (the query and other "
                   "values pass)",
}

# fcntl commands that take or query a lock or lease on a file, or watch a folder (dnotify):
# all visible to another sandbox holding the same (read-only, shared) file.
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
REFUSED_FCNTL = (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW,
                 F_SETLEASE, F_GETLEASE, F_NOTIFY)
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME
CLONE_NEW_FLAGS = (0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000,
                   0x40000000, 0x80)
CLONE_THREAD = 0x00010000
TIOCSTI, TIOCLINUX = 0x5412, 0x541C  # pushing input into a terminal
# ADDR_NO_RANDOMIZE, MMAP_PAGE_ZERO, ADDR_COMPAT_LAYOUT, READ_IMPLIES_EXEC, ADDR_LIMIT_32BIT,
# ADDR_LIMIT_3GB
PERSONALITY_REFUSED = (0x0040000, 0x0100000, 0x0200000, 0x0400000, 0x0800000, 0x8000000)
PERSONALITY_TOP = 0x80000000  # no personality uses it: it marks the query
RWF_NOWAIT = 0x8  # preadv2 that fails unless the page is cached: a page-cache probe
# The kernel reads fcntl's and ioctl's command as an unsigned int and a signal as an int: the
# upper half of the 64-bit register is ignored. A rule on such an argument compares the low
# 32 bits only, or fcntl(fd, F_OFD_SETLK | 1 << 32) and kill(pid, SIGCONT | 1 << 32) would
# pass it and do what the plain call does.
LOW_32 = 0xFFFFFFFF
# Calls that send a signal, with the position of the signal's argument. SIGCONT is refused:
# the engine stops the seats that are not on move with SIGSTOP, and no process of a seat may
# wake another one up (nor would it be of any other use in a sandbox).
SIGNAL_CALLS = {"kill": 1, "tkill": 1, "tgkill": 2, "rt_sigqueueinfo": 1,
                "rt_tgsigqueueinfo": 2, "pidfd_send_signal": 1}


def available() -> bool:
    return seccomp is not None


@functools.cache
def filter_program(*, one_process: bool) -> bytes | None:
    """The BPF program of the filter (built once a process), or None without libseccomp."""
    if seccomp is None:
        return None
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    # A 32-bit or x32 call would go round the rules: the process is killed instead.
    rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    _add_rules(rules, one_process=one_process)
    with tempfile.TemporaryFile() as handle:
        rules.export_bpf(handle)
        handle.seek(0)
        return handle.read()


def _add_rules(rules: Any, *, one_process: bool) -> None:
    deny = seccomp.ERRNO(errno.EPERM)
    for name in REFUSED:
        if name == "personality":
            continue
        _rule(rules, deny, name)
    _add_personality_rules(rules, deny)
    for command in REFUSED_FCNTL:
        rules.add_rule(deny, "fcntl", seccomp.Arg(1, seccomp.MASKED_EQ, LOW_32, command))
    for request in (TIOCSTI, TIOCLINUX):
        rules.add_rule(deny, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, LOW_32, request))
    # One-bit masks (RWF_NOWAIT, the CLONE_* flags below) never look at the upper half. clone's
    # flags are an unsigned long, of which the kernel keeps the low 32 bits (kernel/fork.c).
    rules.add_rule(deny, "preadv2", seccomp.Arg(5, seccomp.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    for name, position in SIGNAL_CALLS.items():
        rules.add_rule(deny, name,
                       seccomp.Arg(position, seccomp.MASKED_EQ, LOW_32, int(signal.SIGCONT)))
    # clone3 passes its flags in memory, out of a filter's reach: ENOSYS makes the C library
    # (glibc, Node's libuv) fall back to clone, whose flags the rules below can see.
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in CLONE_NEW_FLAGS:  # a rule a flag: any one of them refuses the call
        rules.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    if one_process:
        # Threads (clone with CLONE_THREAD) still run; no new process does.
        rules.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
        rules.add_rule(deny, "fork")
        rules.add_rule(deny, "vfork")


def _add_personality_rules(rules: Any, deny: Any) -> None:
    """The flags that weaken the address space are refused; 0, the other flags and the query
    (0xffffffff) pass. The kernel sets any value but the query, so "top bit set" alone does
    not mark the query: 0x80040000 would set ADDR_NO_RANDOMIZE. A rule compares one pattern
    of bits, so the query's "every low bit set" takes a rule a bit: the top bit set and one
    other bit clear is refused (no personality uses the top bit), and so is a weakening flag
    with the top bit clear. The masks keep to the low 32 bits (the kernel's unsigned int)."""
    for flag in PERSONALITY_REFUSED:
        rules.add_rule(deny, "personality",
                       seccomp.Arg(0, seccomp.MASKED_EQ, flag | PERSONALITY_TOP, flag))
    for bit in range(31):
        rules.add_rule(deny, "personality", seccomp.Arg(
            0, seccomp.MASKED_EQ, PERSONALITY_TOP | 1 << bit, PERSONALITY_TOP))


def _rule(rules: Any, action: Any, name: str) -> None:
    # A call this libseccomp does not know (a newer kernel's) has nothing to refuse.
    with contextlib.suppress(RuntimeError, ValueError):
        rules.add_rule(action, name)


def oci_rules(*, one_process: bool = False) -> dict[str, Any]:
    """The same refusals as an OCI seccomp section, for gVisor (runsc --oci-seccomp), which
    applies it inside its own kernel: a seat there has no host kernel state to reach, but
    namespaces, mounts and the like stay out of the bot's reach (and the Sentry's code out of
    the reach of its stranger calls). No libseccomp is needed for this form."""
    def deny(names: list[str], *args: dict[str, Any], code: int = errno.EPERM
             ) -> dict[str, Any]:
        rule: dict[str, Any] = {"names": names, "action": "SCMP_ACT_ERRNO", "errnoRet": code}
        if args:
            rule["args"] = list(args)
        return rule

    # By name only: the rules on arguments are for the host's kernel's shared objects, and
    # gVisor's Sentry (release 20221219) mis-reads masked rules (a rule on clone's flags
    # refused every new thread).
    rules = [deny(sorted(name for name in REFUSED if name != "personality"))]
    if one_process:
        rules.append(deny(["fork", "vfork"]))
    return {"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
            "syscalls": rules}
