"""The benchmark's trivial bot: the first legal action. With a think.txt beside it ("ROUNDS
DECISIONS") it first computes ROUNDS rounds of a fixed loop at each of its first DECISIONS
decisions. At match_end it logs its own CPU time: in all, and, if it thinks, within the
decisions it thought at, from the message read to the reply written, by its kernel's CPU clock
(under gVisor, the Sentry's account of the bot's task, in ticks of 10 ms). The bot that does
not think reads no clock while it plays: under gVisor each read of a CPU clock is a system
call, which would be timed into the round trip."""

import json
import sys
import time
from pathlib import Path

THINK = Path(__file__).resolve().with_name("think.txt")


def work(rounds: int) -> int:
    acc = 0
    for i in range(rounds):
        acc = (acc * 31 + i) & 0xFFFF
    return acc


def main() -> None:
    rounds, thinking = map(int, THINK.read_text().split()) if THINK.exists() else (0, 0)
    acts, own = 0, 0
    for line in sys.stdin:
        started = time.process_time_ns() if thinking else 0
        message = json.loads(line)
        if message["type"] == "hello":
            reply = {"id": message["id"], "type": "ready"}
        elif message["type"] == "act":
            acts += 1
            if acts <= thinking:
                work(rounds)
            legal = message["legal"]
            action = legal[: len(message["state"]["hand"]) - 8] \
                if message["decision"] == "discard" else legal[0]
            reply = {"id": message["id"], "action": action}
        elif message["type"] == "match_end":
            print(f"cpu {time.process_time():.6f} acts {acts} own {own / 1e9:.6f}",
                  file=sys.stderr, flush=True)
            break
        else:
            continue
        print(json.dumps(reply), flush=True)
        if message["type"] == "act" and thinking and acts <= thinking:
            own += time.process_time_ns() - started


if __name__ == "__main__":
    main()
