"""Sergeant Major bot programs of a chosen strength, made from the starter kit: the starter's
decision with probability `skill`, else a random legal action (seeded)."""

from __future__ import annotations

from pathlib import Path

STARTER = Path(__file__).resolve().parents[3] / "bots" / "examples" / "sergeant_major_bot.py"
MIX = '''
import random as _random

_rng = _random.Random({seed})
_starter_decide = decide


def decide(message):
    if _rng.random() < {skill}:
        return _starter_decide(message)
    legal = message["legal"]
    if message["decision"] in ("give", "discard"):
        return _rng.sample(legal, message["count"])
    if message["decision"] == "return":
        return legal
    return _rng.choice(legal)

'''


def skilled_program(skill: float, seed: int = 1) -> bytes:
    source = STARTER.read_text()
    marker = 'if __name__ == "__main__":'
    assert marker in source
    return source.replace(marker, MIX.format(skill=skill, seed=seed) + marker).encode()
