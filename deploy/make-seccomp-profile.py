"""Writes deploy/seccomp-worker.json: Docker's default seccomp profile plus what bubblewrap needs.

    python3 deploy/make-seccomp-profile.py DOCKER_DEFAULT_JSON > deploy/seccomp-worker.json

DOCKER_DEFAULT_JSON is Docker's own default profile (moby's profiles/seccomp/default.json, the
one the daemon applies when a container names none). Everything it allows stays allowed; this
adds, for every process of the worker container, the system calls that bubblewrap makes to
build each seat's sandbox and that the default allows only with CAP_SYS_ADMIN (or not at all):

- clone, unshare with namespace flags (the seat's user, pid, net, ipc, uts, cgroup and mount
  namespaces), setns;
- mount, umount2 and pivot_root (the seat's root: read-only /usr, its own /proc, /tmp);

The kernel still checks capabilities for each of them: outside a new user namespace a process
without CAP_SYS_ADMIN (the worker drops it, see worker-entrypoint.sh) may not mount or
pivot_root; inside the namespace it owns, it may, which is what unprivileged bubblewrap does
on any Linux host that allows user namespaces.
"""

from __future__ import annotations

import json
import sys
from typing import Any

ADDED = ["clone", "unshare", "setns", "mount", "umount2", "pivot_root"]


def worker_profile(default: dict[str, Any]) -> dict[str, Any]:
    rule = {
        "names": ADDED,
        "action": "SCMP_ACT_ALLOW",
        "comment": "Kaiser Arena: bubblewrap builds each seat's namespaces and root "
        "(deploy/make-seccomp-profile.py)",
    }
    return {**default, "syscalls": [*default["syscalls"], rule]}


if __name__ == "__main__":
    with open(sys.argv[1]) as source:
        print(json.dumps(worker_profile(json.load(source)), indent=1))
