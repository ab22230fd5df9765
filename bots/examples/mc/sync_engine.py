"""Refresh the engine copy inside this bot's folder: python bots/examples/mc/sync_engine.py

A bot in the sandbox sees only its own files, so the modules builtin:mc needs travel with it.
tests/engine/test_mc.py fails when the copy of the player's own modules (mc, sampling, greedy)
is out of date, and plays a match with the bot in the sandbox to check the rest still works.
"""

import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENGINE = HERE.parent.parent.parent / "engine"
MODULES = ("__init__.py", "cards.py", "rules.py", "game.py", "players.py", "builtin.py",
           "greedy.py", "protocol.py", "sampling.py", "mc.py")


def sync():
    target = HERE / "engine"
    target.mkdir(exist_ok=True)
    for name in MODULES:
        shutil.copyfile(ENGINE / name, target / name)
    return target


if __name__ == "__main__":
    print(sync())
