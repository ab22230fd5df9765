"""A complete Sergeant Major bot: declares its game, answers every decision with legal cards,
and logs each message it receives (one JSON line each) to standard error for the tests."""

import json
import sys

WRONG_RETURN = False  # tests/engine/test_sm_protocol.py runs a copy with True
keys = None  # the state's keys as last logged: logged again only when they change

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    logged = message
    if kind == "act":  # a summary: standard error keeps 64 KiB a game
        state = message["state"]
        logged = {k: message.get(k) for k in ("type", "decision", "count", "legal")}
        logged["state"] = {"seat": state["seat"], "dealer": state["dealer"],
                           "hand": len(state["hand"]),
                           "exchange": (state["exchanges"] or [None])[-1]}
        if sorted(state) != keys:
            keys = logged["state"]["keys"] = sorted(state)
    elif kind == "deal_end":
        logged = {"type": kind, "hands": len(message["deal_record"]["hands"])}
    print(json.dumps({"type": kind, "message": logged}), file=sys.stderr, flush=True)
    if kind == "hello":
        reply = {"id": 0, "type": "ready", "game": "sergeant-major", "name": "sm bot"}
    elif kind == "act":
        decision, legal = message["decision"], message["legal"]
        if decision in ("give", "discard"):
            action = legal[: message["count"]]  # any `count` of the cards listed
        elif decision == "return":
            action = legal  # the cards the rules send back
            if WRONG_RETURN:
                action = message["state"]["hand"][: message["count"]]
        else:  # trump, play: any one of the list
            action = legal[0]
        reply = {"id": message["id"], "action": action}
    elif kind == "match_end":
        break
    else:
        continue  # deal_end, game_end: notifications, no reply
    print(json.dumps(reply), flush=True)
