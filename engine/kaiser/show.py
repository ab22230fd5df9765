"""A Kaiser replay as text: `show` (deal by deal), the local runner's summary of a match, and
of a deal file's board played again (`deal`), in the words of the site's pages."""

from __future__ import annotations

from typing import Any

from engine import words
from engine.kaiser import words as kaiser_words
from engine.kaiser.match import seat_sides


def summary(replay: dict[str, Any], seconds: float) -> str:
    result = replay["result"]
    names = side_names(replay)
    total = len(replay["games"])
    points = {"A": 0, "B": 0}
    deals = 0
    for game in replay["games"]:
        for deal in game["deals"]:
            if deal.get("points") is None:
                continue
            deals += 1
            for team in (0, 1):
                points[game["seats"][team]] += deal["points"][team]
    draws = total - result["games"]["A"] - result["games"]["B"]
    lines = [
        f"A = {names['A']}, B = {names['B']}, rules {replay['rules']['preset']}, "
        f"seed {replay['seed']}, {seconds:.2f} s",
        f"games won: A {result['games']['A']}, B {result['games']['B']}"
        + (f", drawn {draws}" if draws > 0 else "") + f"; A's score {result['score']:.3f}",
        f"average points a deal: A {points['A'] / max(deals, 1):.2f}, "
        f"B {points['B'] / max(deals, 1):.2f} ({deals} deals)",
    ]
    lines.append(words.faults_text(result["forfeit"]))
    return "\n".join(lines)


def render(replay: dict[str, Any], only_game: int | None = None) -> str:
    """A Kaiser replay deal by deal, in the words of the site's pages (engine.words)."""
    out: list[str] = []
    names = side_names(replay)
    out.append(f"{names['A']} (A) against {names['B']} (B), rules "
               f"{replay['rules']['preset']}, seed {replay['seed']}")
    for number, game in enumerate(replay["games"]):
        if only_game is not None and number != only_game:
            continue
        seats = game["seats"]
        out.append(f"\n=== Game {number}: A at seats "
                   f"{', '.join(_seat(s) for s in range(4) if seats[s] == 'A')} ===")
        for index, deal in enumerate(game["deals"]):
            out.extend(_render_deal(index, deal, seats))
        result = game["result"]
        winner = "draw" if result["winner"] is None else \
            f"team {result['winner']} ({seats[result['winner']]}) wins"
        out.append(f"Game {number}: {winner}, score {words.score_text(result['score'])}")
        if result["forfeit"]:
            f = result["forfeit"]
            out.append(f"  forfeit by seat {f['seat']} ({f['player']}): {f['reason']}, "
                       f"message {f['message_id']}: {f['detail']}")
    result = replay["result"]
    out.append(f"\nMatch: A {result['games']['A']} games, B {result['games']['B']}; "
               f"A's score {result['score']}")
    return "\n".join(out)


def side_names(replay: dict[str, Any]) -> dict[str, str]:
    """"greedy v3" for a side one program played; for a game with a person, whose
    `seat_players` name each seat, the side's seats in order: "ada (person) & greedy v1"."""
    seat_players = replay.get("seat_players")
    if not seat_players or not replay["games"]:
        return {side: words.player_name(p) for side, p in replay["players"].items()}
    seats = replay["games"][0]["seats"]
    return {side: " & ".join(words.player_name(p) for s, p in enumerate(seat_players)
                             if seats[s] == side) for side in ("A", "B")}


def _seat(seat: int) -> str:
    """'2 (North)': the protocol's seat number and the pages' name for it."""
    return f"{seat} ({kaiser_words.SEATS[seat]})"


def _render_deal(index: int, deal: dict[str, Any], seats: list[str]) -> list[str]:
    lines = [f"-- Deal {index}, dealer seat {_seat(deal['dealer'])}"]
    for seat, hand in enumerate(deal["hands"]):
        lines.append(f"   seat {_seat(seat)}, {seats[seat]}: {words.cards_text(hand)}")
    if deal["kitty"]:
        lines.append(f"   kitty: {words.cards_text(deal['kitty'])}")
    if deal["misdeal"]:
        lines.append(f"   seat {_seat(deal['misdeal']['seat'])} throws the hand in")
        return lines
    lines.append("   bids: " + ", ".join(f"{kaiser_words.SEATS[b['seat']]} "
                                         f"{kaiser_words.bid_text(b['bid'])}"
                                         for b in deal["bids"]))
    contract = deal["contract"]
    if contract:
        who = f"seat {_seat(contract['seat'])}"
        lines.append(f"   contract: {kaiser_words.contract_text(contract, who)}, trump: "
                     f"{words.trump_text(contract['trump'])}")
    if deal["discards"]:
        lines.append(f"   discards: {words.cards_text(deal['discards'])}")
    lines += words.trick_lines(deal["tricks"], 4)
    if deal.get("points") is not None:
        lines.append(f"   points {words.score_text(deal['points'])}, change "
                     f"{words.changes_text(deal['delta'])}, score "
                     f"{words.score_text(deal['score'])}")
    return lines


def deal_summary(data: dict[str, Any], played: dict[str, Any], names: dict[str, str]) -> str:
    """Each table's contract and change of score, and A's swing (and the site's, if given)."""
    lines = [f"board: game {data['game'] + 1} and {data['game'] + 2}, deal {data['deal'] + 1} "
             f"(rules {data['rules']['preset']}, seed {data['seed']}, dealer seat "
             f"{data['dealer']}); A = {names['A']}, B = {names['B']}"]
    for table, (record, fault) in enumerate(zip(played["tables"], played["forfeits"],
                                                strict=True)):
        seats = seat_sides(data["game"] + table)
        head = f"table {table + 1} (A at seats {'0, 2' if seats[0] == 'A' else '1, 3'}, " \
               f"score before {words.score_text(data['scores'][table])}): "
        if fault:
            lines.append(head + f"fault: {fault['player']} {fault['reason']}: {fault['detail']}")
        elif record is None or record.get("misdeal"):
            lines.append(head + "thrown in (misdeal): no score")
        else:
            c = record["contract"]
            who = f"seat {_seat(c['seat'])}, {seats[c['seat']]}"
            lines.append(head + f"contract {kaiser_words.contract_text(c, who)}, points "
                         f"{words.score_text(record['points'])}, change "
                         f"{words.changes_text(record['delta'])}")
    swing = played["swing"]
    lines.append("swing: none (a table did not finish the deal)" if swing is None
                 else f"swing: {words.signed(swing)} for A ({names['A']})")
    site = (data.get("played") or {}).get("swing")
    if isinstance(site, int):
        lines.append(f"on the site: {words.signed(site)} for A ({_site_player(data, 'A')}), "
                     f"against {_site_player(data, 'B')}")
    return "\n".join(lines)


def _site_player(data: dict[str, Any], side: str) -> str:
    """The player the site's match had on that side (a deal file's `players`: not checked,
    only shown)."""
    player = (data.get("players") or {}).get(side)
    if not isinstance(player, dict):
        return side
    return words.player_name(player)
