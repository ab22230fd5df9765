"""Marks its /tmp's own timestamps (the slot root's) and a file's, for the next seat that gets
the same /tmp: at start it looks for a mark a seat before it left there and says on stderr
what it found ("slot-mark: found ..." or "slot-mark: none ..."), then sets its own mark.

A seat that finds a mark loses on purpose (exits 3 at hello), so the mark shows in the
match's result as well as in its stderr. Otherwise it plays legally."""

import json
import os
import sys

# 2001-09-09 01:46:40.123456789 UTC: no fresh tmpfs, and no clock of this era, gives this.
MARK_NS = 1_000_000_000_123_456_789
TMP = "/tmp"


def reply(message, **fields):
    sys.stdout.write(json.dumps({"id": message["id"], **fields}) + "\n")
    sys.stdout.flush()


def play(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]


def marks_found():
    found = []
    root = os.stat(TMP)
    for name, value in (("atime", root.st_atime_ns), ("mtime", root.st_mtime_ns)):
        if value == MARK_NS:
            found.append(f"{TMP} {name}")
    for name in os.listdir(TMP):
        found.append(f"file {name}")
    return found, root


def mark():
    path = os.path.join(TMP, "slot-mark")
    with open(path, "w") as handle:
        handle.write("left by a seat before you\n")
    os.utime(path, ns=(MARK_NS, MARK_NS))
    os.utime(TMP, ns=(MARK_NS, MARK_NS))  # after the file: its creation moved the mtime


found, root = marks_found()
where = f"ino {root.st_ino} atime {root.st_atime_ns} mtime {root.st_mtime_ns}"
print(f"slot-mark: {'found ' + ', '.join(found) if found else 'none'} ({where})",
      file=sys.stderr, flush=True)
mark()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        if found:
            sys.exit(3)
        reply(message, type="ready")
    elif message["type"] == "act":
        reply(message, action=play(message))
    elif message["type"] == "match_end":
        break
