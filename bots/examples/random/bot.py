"""A random player: any legal action, uniformly. Built on the helper kaiser_protocol.py
(in the same folder)."""

import random

import kaiser_protocol


def decide(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        hand_size = len(message["state"]["hand"])
        return random.sample(legal, hand_size - 8)  # put back as many cards as the kitty held
    return random.choice(legal)


if __name__ == "__main__":
    kaiser_protocol.run(decide, name="random (python)")
