"""Tries to leave something for whoever comes next (issue 31): in every game it writes a file
in its /tmp, sets the times and an extended attribute of that file and of /tmp itself, and
tries the same on its program's folder; at hello and at every decision it looks for what any
other process left there (another game of the match, another match, its partner's seat). At
match_end it leaves /tmp empty with its times set, the mark most likely to survive.

Standard error, one line each:
    LEFT what,what,...       the marks this process managed to leave
    SELF what,what,...       what its own look finds of its own marks (shows the look works)
    FOUND where what         something another process left (must never appear)
    LOOKED n                 how many looks it made, at match_end
"""

import json
import os
import sys

MARK_S = 1_234_567_890  # a time no fresh file or folder has
ATTRIBUTE = "user.kaiser-mark"
own = set()
looks = 0


def report(text):
    print(text, file=sys.stderr, flush=True)


def marked(path):
    """What of a mark this path carries: its times, an extended attribute."""
    found = []
    try:
        st = os.stat(path)
    except OSError:
        return found
    if MARK_S in (int(st.st_mtime), int(st.st_atime)):
        found.append("times")
    try:
        if ATTRIBUTE in os.listxattr(path):
            found.append("xattr")
    except OSError:
        pass
    return found


def look(mine=False):
    """Every mark found in /tmp and the program's folder (this process's own too if mine)."""
    found = []
    for folder in ("/tmp", os.getcwd()):
        found += [f"{folder} {what}" for what in marked(folder)
                  if mine or folder != "/tmp" or "/tmp" not in own]
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if path in own and not mine:
                continue
            if name.startswith("mark-"):
                found.append(f"{path} file")
            found += [f"{path} {what}" for what in marked(path)]
    return found


def attempt(left, what, action):
    try:
        action()
    except OSError:
        return
    left.append(what)


def leave(game, seat):
    left = []
    path = f"/tmp/mark-{game}-{seat}-{os.getpid()}"

    def write():
        with open(path, "w") as handle:
            handle.write(f"game {game} seat {seat}\n")
        own.add(path)

    attempt(left, "tmp-file", write)
    attempt(left, "tmp-file-times", lambda: os.utime(path, (MARK_S, MARK_S)))
    attempt(left, "tmp-file-xattr", lambda: os.setxattr(path, ATTRIBUTE, b"1"))
    own.add("/tmp")
    attempt(left, "tmp-times", lambda: os.utime("/tmp", (MARK_S, MARK_S)))
    attempt(left, "tmp-xattr", lambda: os.setxattr("/tmp", ATTRIBUTE, b"1"))
    here = os.getcwd()
    attempt(left, "bot-file", lambda: open(os.path.join(here, f"mark-{game}-{seat}"), "w").close())
    attempt(left, "bot-times", lambda: os.utime(here, (MARK_S, MARK_S)))
    attempt(left, "bot-xattr", lambda: os.setxattr(here, ATTRIBUTE, b"1"))
    report("LEFT " + ",".join(left))
    report("SELF " + ",".join(look(mine=True)))


def check(when):
    global looks
    looks += 1
    for found in look():
        report(f"FOUND {when} {found}")


check("start")  # before anything: what the last holder of this /tmp left
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        check("hello")
        leave(message["match"].get("game", 0), message["seat"])
        reply = {"id": 0, "type": "ready"}
    elif kind == "act":
        check(f"game={message['state']['game']}")
        legal = message["legal"]
        action = (legal[: len(message["state"]["hand"]) - 8]
                  if message["decision"] == "discard" else legal[0])
        reply = {"id": message["id"], "action": action}
    elif kind == "match_end":
        report(f"LOOKED {looks}")
        # Last of all, the mark for the next holder of this /tmp: its own file gone (so that
        # emptying the folder changes no time of it), the folder's times set.
        for path in own - {"/tmp"}:
            os.unlink(path)
        os.utime("/tmp", (MARK_S, MARK_S))
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
