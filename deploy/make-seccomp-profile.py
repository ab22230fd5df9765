"""Writes deploy/seccomp-worker.json: Docker's default seccomp profile plus what the seats need.

    python3 deploy/make-seccomp-profile.py DOCKER_DEFAULT_JSON > deploy/seccomp-worker.json

DOCKER_DEFAULT_JSON is Docker's own default profile (moby's profiles/seccomp/default.json, the
one the daemon applies when a container names none; the profile this writes also does, its
own rule is replaced). Everything it allows stays allowed; this adds, for every process of the
worker container, the system calls that the seats' sandboxes (bubblewrap, and gVisor's runsc
in rootless mode) make without any capability, and that the default allows only to a
container granted CAP_SYS_ADMIN or CAP_SYS_CHROOT (the worker has neither):

- clone, unshare with namespace flags (the seat's user, pid, net, ipc, uts, cgroup and mount
  namespaces), setns;
- mount, umount2, pivot_root and chroot (the seat's root: read-only /usr, its own /proc and
  /tmp; runsc's gofer and Sentry chroot into theirs: "failed to chroot to "/root": operation
  not permitted" without it).

ptrace (gVisor's ptrace platform traces its own stub processes) and process_vm_readv/writev
are allowed by the default to every container on Linux 4.8 and later.

The kernel still checks capabilities for each of them: outside a new user namespace a process
without CAP_SYS_ADMIN may not mount, pivot_root or chroot; inside the namespace it owns, it
may, which is what unprivileged bubblewrap and rootless runsc do on any Linux host that allows
user namespaces.
"""

from __future__ import annotations

import json
import sys
from typing import Any

ADDED = ["clone", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot"]
COMMENT = "Kaiser Arena: the seats' sandboxes build their namespaces and roots"


def worker_profile(default: dict[str, Any]) -> dict[str, Any]:
    rule = {
        "names": ADDED,
        "action": "SCMP_ACT_ALLOW",
        "comment": f"{COMMENT} (deploy/make-seccomp-profile.py)",
    }
    rules = [r for r in default["syscalls"] if not r.get("comment", "").startswith("Kaiser Arena")]
    return {**default, "syscalls": [*rules, rule]}


if __name__ == "__main__":
    with open(sys.argv[1]) as source:
        print(json.dumps(worker_profile(json.load(source)), indent=1))
