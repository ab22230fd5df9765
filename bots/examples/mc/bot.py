"""builtin:mc as an uploadable bot: the same Monte Carlo player, over the JSON-lines protocol.

Upload mc.zip, not this folder: the zip also carries the engine modules the player needs
(build_zips.py packs them from engine/ as the package mc_engine), because a sandboxed bot sees
only its own files.
It knows only what the protocol tells its seat: each `act` message's state and legal actions,
plus the cards it discarded itself. When its time bank runs low it samples fewer deals.
"""

import os
import sys
from itertools import combinations

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kaiser_protocol  # noqa: E402
from mc_engine.cards import parse_bid, parse_card  # noqa: E402
from mc_engine.mc import MCPlayer  # noqa: E402
from mc_engine.players import TimeControl  # noqa: E402
from mc_engine.protocol import action_to_wire  # noqa: E402
from mc_engine.rules import Rules  # noqa: E402

SUITS = "CDHS"
player = MCPlayer()
setup = {}


def on_hello(message):
    rules = Rules.from_dict(message["rules"])
    setup["rules"] = rules
    known = ("move_ms", "bank_ms", "startup_ms")  # strict time adds keys it does not need
    time = TimeControl(**{k: v for k, v in message["time"].items() if k in known})
    setup["move_ms"] = time.move_ms
    # The player's own seed: the protocol has no match seed, and the play need not vary.
    player.start(seat=message["seat"], rules=rules, games=message["match"]["games"],
                 time=time, seed=f"bot/{message['seat']}")


def legal_actions(decision, legal, rules):
    """The protocol's `legal` list as engine actions (for discard: every allowed set)."""
    if decision == "play":
        return [parse_card(c) for c in legal]
    if decision == "bid":
        return [parse_bid(b) for b in legal]
    if decision == "trump":
        return [SUITS.index(s) for s in legal]
    if decision == "discard":
        return list(combinations(sorted(parse_card(c) for c in legal), rules.kitty))
    return list(legal)


def effort(state):
    """Full effort while the bank holds more than two moves' worth, then less."""
    bank = state.get("bank_ms")
    if bank is None:
        return 1.0
    return 1.0 if bank > 2 * setup["move_ms"] else 0.25


def decide(message):
    rules = setup["rules"]
    decision = message["decision"]
    legal = legal_actions(decision, message["legal"], rules)
    action = player.decide(message["state"], decision, legal, rules=rules,
                           effort=effort(message["state"]))
    return action_to_wire(decision, action)


if __name__ == "__main__":
    kaiser_protocol.run(decide, name="mc (Monte Carlo)", on_hello=on_hello)
