"""The split of the tournaments app keeps every row: a database from before the split, filled
through the historical models, migrates to the latest schema and the current models of the
matches, ladder, tournaments and play apps read back the same rows, ids, replay bytes, ratings
and links, and the moved models' content types (so their permissions) keep their ids under
their new app labels.

The migrations it covers are state only (tournaments 0007, ladder 0001 and 0002, matches 0001):
no table is renamed, so what this proves is that the new models point at the old tables and
columns, and that matches 0001 relabels the content types.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE_SPLIT = ("tournaments", "0006_match_stats")
NEW_APPS = ("matches", "ladder")
MOVED = {"match": "matches", "matchattempt": "matches", "playstats": "matches",
         "ladder": "ladder", "ladderentry": "ladder", "ratingchange": "ladder"}
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
REPLAY = {"seed": "seed-1", "games": [{"deal": [3, 1, 4], "actions": [7, 8, 9]}], "score": 1.0}
STATS = {"A": {"bids": 4, "tricks": 9}, "B": {"bids": 2, "tricks": 7}}


def _executor() -> MigrationExecutor:
    # A fresh executor after each migrate, as Django's own migration tests do: the loader
    # caches which migrations are applied.
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


def _targets_before_split(executor: MigrationExecutor) -> list[tuple[str, str | None]]:
    """Every app at its latest migration, except tournaments just before the split and the
    apps the split made not migrated at all."""
    targets: list[tuple[str, str | None]] = []
    for app, name in sorted(executor.loader.graph.leaf_nodes()):
        if app in NEW_APPS:
            targets.append((app, None))
        elif app == BEFORE_SPLIT[0]:
            targets.append(BEFORE_SPLIT)
        else:
            targets.append((app, name))
    return targets


@pytest.fixture
def old_apps(transactional_db: None) -> Iterator[Apps]:
    """The historical models of the database migrated back to just before the split; the
    database is migrated to the latest again afterwards, also when the test fails."""
    try:
        executor = _executor()
        targets = _targets_before_split(executor)
        executor.migrate(targets)
        executor = _executor()
        applied = executor.loader.applied_migrations
        assert BEFORE_SPLIT in applied
        assert not [key for key in applied if key[0] in NEW_APPS], "the new apps stay applied"
        yield executor.loader.project_state([t for t in targets if t[1] is not None]).apps
    finally:
        from django.contrib.contenttypes.models import ContentType

        executor = _executor()
        executor.migrate(executor.loader.graph.leaf_nodes())
        ContentType.objects.clear_cache()  # ids cached under the old labels mean nothing now


def _gz(data: dict[str, Any]) -> bytes:
    return gzip.compress(json.dumps(data, separators=(",", ":"), sort_keys=True).encode())


def _as_before_the_split(apps: Apps) -> dict[str, int]:
    """The content types of the moved models as a database from before the split has them:
    under app_label "tournaments". The test database was built at the latest migration, so
    they existed under their new labels, and migrating back (the reverse of matches 0001's
    RunPython) gave them back the old one, keeping their ids and permissions; any missing is
    made. Returns their ids by model."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    assert not ContentType.objects.filter(app_label__in=NEW_APPS, model__in=MOVED).exists()
    ids = {}
    for model in MOVED:
        content_type, _ = ContentType.objects.get_or_create(app_label="tournaments", model=model)
        Permission.objects.get_or_create(
            content_type=content_type, codename=f"change_{model}",
            defaults={"name": f"Can change {model}"})
        ids[model] = content_type.pk
    # Models added to the new apps after the split (matches.BoardLoss) keep theirs.
    assert not ContentType.objects.filter(app_label__in=NEW_APPS, model__in=MOVED).exists()
    return ids


def _fill_bots(apps: Apps) -> dict[str, Any]:
    User = apps.get_model("auth", "User")
    Bot = apps.get_model("bots", "Bot")
    BotProgram = apps.get_model("bots", "BotProgram")
    BotVersion = apps.get_model("bots", "BotVersion")
    author = User.objects.create(username="split-author")
    rival = User.objects.create(username="split-rival")
    program = BotProgram.objects.create(sha256="ab" * 32, content=b"print('hi')\n", size=12)
    versions = []
    for number, (owner, name) in enumerate([(author, "alpha"), (rival, "beta"),
                                            (rival, "gamma")], start=1):
        bot = Bot.objects.create(owner=owner, name=f"split-{name}")
        versions.append(BotVersion.objects.create(
            bot=bot, number=number, kind="py", program=program, filename="bot.py", size=12,
            status="active"))
    return {"author": author, "versions": versions, "program": program}


def _fill_ladder_and_matches(apps: Apps, bots: dict[str, Any]) -> dict[str, Any]:
    Ladder = apps.get_model("tournaments", "Ladder")
    LadderEntry = apps.get_model("tournaments", "LadderEntry")
    Match = apps.get_model("tournaments", "Match")
    MatchAttempt = apps.get_model("tournaments", "MatchAttempt")
    RatingChange = apps.get_model("tournaments", "RatingChange")
    PlayStats = apps.get_model("tournaments", "PlayStats")
    a, b, c = bots["versions"]
    ladder = Ladder.objects.create(name="Split ladder", slug="split", games_per_match=4,
                                   move_ms=700, queue_depth=3)
    entries = [LadderEntry.objects.create(ladder=ladder, version=v, elo=elo, games=games)
               for v, elo, games in [(a, 1516.25, 1), (b, 1483.75, 1), (c, 1500.0, 0)]]
    common = {"ladder": ladder, "rules": "official", "games_per_match": 4, "move_ms": 700}
    finished = Match.objects.create(
        kind="ladder", version_a=a, version_b=b, seed="seed-1", status="finished", score=0.75,
        games_a=3, games_b=1, replay_gz=_gz(REPLAY), replay_size=77, stats=STATS,
        stats_folded=True, started=T0, finished=T0 + timedelta(seconds=9), play_ms=8123,
        attempts=1, stderr_a="warming up\n", **common)
    queued = Match.objects.create(kind="challenge", version_a=b, version_b=c, seed="seed-2",
                                  rated=False, requested_by=bots["author"], **common)
    void = Match.objects.create(
        kind="ladder", version_a=c, version_b=a, seed="seed-3", status="void", attempts=3,
        forfeit_player="B", forfeit_reason="timeout", forfeit={"seat": 1, "ms": 1200},
        error="retry budget spent", **common)
    attempts = [
        MatchAttempt.objects.create(match=finished, token="tok-finished", worker="w1@host",
                                    started=T0, ended=T0 + timedelta(seconds=9),
                                    outcome="finished"),
        MatchAttempt.objects.create(match=void, token="tok-lost", worker="w2@host",
                                    started=T0, outcome="lost", error="worker died"),
    ]
    changes = [
        RatingChange.objects.create(match=finished, entry=entries[0], before=1500.0,
                                    after=1516.25),
        RatingChange.objects.create(match=finished, entry=entries[1], before=1500.0,
                                    after=1483.75),
    ]
    stats = [PlayStats.objects.create(key=f"version:{a.pk}", version=a, data=STATS["A"]),
             PlayStats.objects.create(key="all", data={"matches": 1})]
    return {"ladder": ladder, "entries": entries, "matches": [finished, queued, void],
            "attempts": attempts, "changes": changes, "stats": stats}


def _fill_tournament(apps: Apps, bots: dict[str, Any], ladder: Any) -> dict[str, Any]:
    Tournament = apps.get_model("tournaments", "Tournament")
    TournamentEntrant = apps.get_model("tournaments", "TournamentEntrant")
    TournamentBye = apps.get_model("tournaments", "TournamentBye")
    Match = apps.get_model("tournaments", "Match")
    a, b, c = bots["versions"]
    tournament = Tournament.objects.create(
        name="Split cup", format="round_robin", status="running", current_round=1,
        ladder=ladder, created_by=bots["author"], started=T0, games_per_match=2)
    entrants = [TournamentEntrant.objects.create(tournament=tournament, version=v, seed=seed)
                for seed, v in enumerate([a, b, c], start=1)]
    bye = TournamentBye.objects.create(tournament=tournament, round=1, version=c)
    match = Match.objects.create(kind="tournament", tournament=tournament, round=1, position=1,
                                 version_a=a, version_b=b, seed="seed-t", rated=False)
    return {"tournament": tournament, "entrants": entrants, "bye": bye, "match": match}


def _fill_play(apps: Apps, bots: dict[str, Any]) -> dict[str, Any]:
    Table = apps.get_model("play", "Table")  # play at its latest: the split is older
    Seat = apps.get_model("play", "Seat")
    Move = apps.get_model("play", "Move")
    game = Table.objects.create(owner=bots["author"], seed="seed-g", status="running",
                                move_seconds=60, seq=2, view={"hand": [1, 2, 3]})
    seats = [Seat.objects.create(game=game, seat=1, version=bots["versions"][1]),
             Seat.objects.create(game=game, seat=2, builtin="builtin:greedy"),
             Seat.objects.create(game=game, seat=3, version=bots["versions"][2])]
    moves = [Move.objects.create(game=game, seq=seq, action={"bid": seq + 6})
             for seq in (1, 2)]
    return {"game": game, "seats": seats, "moves": moves}


def _grant(apps: Apps, user: Any) -> None:
    """A group allowed to change matches, with the author in it: the grant must follow."""
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.create(name="split-referees")
    group.permissions.add(Permission.objects.get(content_type__app_label="tournaments",
                                                 content_type__model="match",
                                                 codename="change_match"))
    user.groups.add(group)


def _assert_ladder_and_matches(old: dict[str, Any]) -> None:
    from ladder.models import Ladder, LadderEntry, RatingChange
    from matches.models import Match, MatchAttempt, PlayStats

    ladder = Ladder.objects.get(pk=old["ladder"].pk)
    assert (ladder.slug, ladder.name, ladder.games_per_match, ladder.move_ms,
            ladder.queue_depth) == ("split", "Split ladder", 4, 700, 3)
    for entry in old["entries"]:
        now = LadderEntry.objects.get(pk=entry.pk)
        assert (now.ladder_id, now.version_id, now.elo, now.games) == (
            ladder.pk, entry.version_id, entry.elo, entry.games)
    finished, queued, void = (Match.objects.get(pk=m.pk) for m in old["matches"])
    # The columns of then are the sides of now (matches 0009, 0013 to 0015).
    assert (finished.status, finished.score, [s.games for s in finished.side_list]) == (
        "finished", 0.75, [3, 1])
    assert bytes(finished.replay_gz) == bytes(old["matches"][0].replay_gz)
    assert finished.replay() == REPLAY
    assert finished.replay_text() == json.dumps(REPLAY, separators=(",", ":"), sort_keys=True)
    # Folded, its statistics are emptied on the way to the latest (issue 42).
    assert (finished.stats, finished.stats_folded, finished.play_ms,
            finished.side_list[0].stderr) == (None, True, 8123, "warming up\n")
    assert (finished.started, finished.finished) == (T0, T0 + timedelta(seconds=9))
    assert (queued.status, queued.kind, queued.rated, queued.replay_gz, queued.replay()) == (
        "queued", "challenge", False, None, None)
    assert queued.requested_by_id == old["matches"][1].requested_by_id
    fault = void.fault_side
    assert (void.status, void.attempts, fault and fault.letter, fault and fault.fault,
            void.forfeit, void.error) == (
        "void", 3, "B", "timeout", {"seat": 1, "ms": 1200}, "retry budget spent")
    for now, was in zip((finished, queued, void), old["matches"], strict=True):
        assert (now.ladder, now.version_ids, now.seed, now.created) == (
            ladder, [was.version_a_id, was.version_b_id], was.seed, was.created)
    assert set(ladder.matches.values_list("pk", flat=True)) == {m.pk for m in old["matches"]}
    attempts = {a.token: a for a in MatchAttempt.objects.filter(
        pk__in=[a.pk for a in old["attempts"]])}
    assert (attempts["tok-finished"].match, attempts["tok-finished"].outcome) == (
        finished, "finished")
    assert (attempts["tok-lost"].match, attempts["tok-lost"].error) == (void, "worker died")
    changes = list(finished.rating_changes.order_by("id"))
    assert [(c.pk, c.entry_id, c.before, c.after) for c in changes] == [
        (c.pk, c.entry_id, c.before, c.after) for c in old["changes"]]
    assert [c.entry.ladder for c in changes] == [ladder, ladder]
    assert [c.match for c in RatingChange.objects.filter(pk__in=[c.pk for c in changes])] == [
        finished, finished]
    stats = PlayStats.objects.get(pk=old["stats"][0].pk)
    assert (stats.key, stats.version_id, stats.data) == (
        old["stats"][0].key, old["stats"][0].version_id, STATS["A"])
    assert PlayStats.objects.get(key="all").data == {"matches": 1}


def _assert_tournament(old: dict[str, Any], ladder_id: int) -> None:
    from matches.models import Match
    from tournaments.models import Tournament, TournamentBye, TournamentEntrant

    tournament = Tournament.objects.get(pk=old["tournament"].pk)
    assert (tournament.name, tournament.status, tournament.current_round, tournament.started,
            tournament.created_by_id) == (
        "Split cup", "running", 1, T0, old["tournament"].created_by_id)
    assert tournament.ladder is not None and tournament.ladder.pk == ladder_id
    assert [(e.pk, e.version_id, e.seed) for e in TournamentEntrant.objects.filter(
        tournament=tournament).order_by("seed")] == [
        (e.pk, e.version_id, e.seed) for e in old["entrants"]]
    bye = TournamentBye.objects.get(pk=old["bye"].pk)
    assert (bye.tournament, bye.round, bye.version_id) == (tournament, 1, old["bye"].version_id)
    match = Match.objects.get(pk=old["match"].pk)
    assert (match.tournament, match.ladder_id, match.round, match.position, match.kind) == (
        tournament, None, 1, 1, "tournament")
    assert list(tournament.matches.all()) == [match]


def _assert_play(old: dict[str, Any]) -> None:
    from play.models import Table

    game = Table.objects.get(pk=old["game"].pk)
    assert (game.owner_id, game.status, game.seq, game.view) == (
        old["game"].owner_id, "running", 2, {"hand": [1, 2, 3]})
    assert [(s.pk, s.seat, s.version_id, s.builtin) for s in game.seats.all()] == [
        (s.pk, s.seat, s.version_id, s.builtin) for s in old["seats"]]
    assert [(m.pk, m.seq, m.action) for m in game.moves.all()] == [
        (m.pk, m.seq, m.action) for m in old["moves"]]


def _assert_bots(old: dict[str, Any]) -> None:
    from bots.models import BotVersion

    versions = BotVersion.objects.filter(pk__in=[v.pk for v in old["versions"]])
    assert sorted((v.pk, v.bot.name, v.program_id) for v in versions) == sorted(
        (v.pk, v.bot.name, old["program"].pk) for v in old["versions"])
    assert bytes(versions[0].program.content) == b"print('hi')\n"


def _assert_content_types(content_type_ids: dict[str, int], author_id: int) -> None:
    from django.contrib.auth.models import User
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.clear_cache()
    for model, label in MOVED.items():
        content_type = ContentType.objects.get(pk=content_type_ids[model])
        assert (content_type.app_label, content_type.model) == (label, model)
        assert content_type.permission_set.filter(codename=f"change_{model}").exists()
    assert not ContentType.objects.filter(app_label="tournaments", model__in=MOVED).exists()
    assert User.objects.get(pk=author_id).has_perm("matches.change_match")


@pytest.mark.django_db(transaction=True)
def test_split_keeps_every_row_link_and_content_type(old_apps: Apps) -> None:
    content_type_ids = _as_before_the_split(old_apps)
    bots = _fill_bots(old_apps)
    ladder_and_matches = _fill_ladder_and_matches(old_apps, bots)
    tournament = _fill_tournament(old_apps, bots, ladder_and_matches["ladder"])
    play = _fill_play(old_apps, bots)
    _grant(old_apps, bots["author"])

    executor = _executor()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert not _executor().migration_plan(executor.loader.graph.leaf_nodes())

    _assert_bots(bots)
    _assert_ladder_and_matches(ladder_and_matches)
    _assert_tournament(tournament, ladder_and_matches["ladder"].pk)
    _assert_play(play)
    _assert_content_types(content_type_ids, bots["author"].pk)
