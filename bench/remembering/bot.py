"""The remembering greedy as a bot program, for Kaiser and Sergeant Major (hello says which).

Not an example to upload: bench/duplicate_memory.py builds this folder (bench/remembering/
build.py) to show that a seat can no longer carry a game's hands into the next game. It keeps
every deal_end's hands in memory and in /tmp (read back at start, in case a /tmp outlived its
game) and, on recognising its hand among them, decides knowing every hand
(remembering.py). Standard error: "RECOGNISED n of m deals" after each deal and at the end.
"""

import json
import os
import sys
from itertools import combinations

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from mc_engine import cards as kaiser_cards  # noqa: E402
from mc_engine import protocol as kaiser_protocol  # noqa: E402
from mc_engine.sergeant_major import cards as sm_cards  # noqa: E402
from mc_engine.sergeant_major import protocol as sm_protocol  # noqa: E402
from mc_engine.sergeant_major.game import CardSets  # noqa: E402
from remembering import Memory, rememberer  # noqa: E402


def memory_file():
    """/tmp/remembered-layouts.json, or the path the builder wrote in memory-file (the bench's
    unsandboxed control, whose processes share the host's /tmp, takes a name of its own)."""
    try:
        with open(os.path.join(HERE, "memory-file")) as named:
            return named.read().strip()
    except OSError:
        return "/tmp/remembered-layouts.json"


def kaiser_legal(message, rules):
    decision, legal = message["decision"], message["legal"]
    if decision == "play":
        return [kaiser_cards.parse_card(c) for c in legal]
    if decision == "bid":
        return [kaiser_cards.parse_bid(b) for b in legal]
    if decision == "trump":
        return [kaiser_cards.SUITS.index(s) for s in legal]
    if decision == "discard":
        return list(combinations(sorted(kaiser_cards.parse_card(c) for c in legal),
                                 rules["kitty"]))
    return list(legal)


def sm_legal(message, rules):
    decision, legal = message["decision"], message["legal"]
    if decision == "play":
        return [sm_cards.parse_card(c) for c in legal]
    if decision == "trump":
        return [sm_cards.SUITS.index(s) for s in legal]
    cards = tuple(sorted(sm_cards.parse_card(c) for c in legal))
    if decision == "return":
        return [cards]  # the cards the rules send back
    return CardSets(cards, message["count"])  # give, discard


def main():
    path = memory_file()
    memory = Memory(path)
    print(f"MEMORY {memory.load()} layouts found in {path}", file=sys.stderr, flush=True)
    player, game, rules = None, "kaiser", {}
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            game, rules = message.get("game", "kaiser"), message["rules"]
            player = rememberer(game, memory, rules)
            reply = {"id": message["id"], "type": "ready", "name": "remembering greedy"}
            if game != "kaiser":
                reply["game"] = game
        elif kind == "act":
            sm = game == "sergeant-major"
            legal = (sm_legal if sm else kaiser_legal)(message, rules)
            action = player.decide(message["state"], message["decision"], legal)
            to_wire = (sm_protocol if sm else kaiser_protocol).action_to_wire
            reply = {"id": message["id"], "action": to_wire(message["decision"], action)}
        elif kind == "deal_end":
            player.deal_end(message["deal_record"])
            print(player.report(), file=sys.stderr, flush=True)
            continue
        elif kind == "match_end":
            break
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    if player is not None:
        print(player.report(), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
