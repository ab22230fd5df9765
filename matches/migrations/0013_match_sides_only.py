"""A match's players live only in its MatchSide rows (issue 42): the columns that held them
beside the rows (`version_a`/`_b`/`_c`, `games_*`, `stderr_*`, `points`, `ups`,
`forfeit_player`, `forfeit_reason`) are dropped, after every match has its rows (made from
the columns where missing) and each side its ups. Migrated back, the columns are filled again
from the rows (the first three sides: the old schema had no fourth)."""

from django.db import migrations, models
from django.db.models import Prefetch

BATCH = 2000
LETTERS = "ABC"
COLUMNS = ("pk", "version_a_id", "version_b_id", "version_c_id", "games_a", "games_b",
           "games_c", "stderr_a", "stderr_b", "stderr_c", "points", "ups", "forfeit_player",
           "forfeit_reason")


def _batches(queryset):
    """The queryset's rows by primary key, a batch at a time (each batch's prefetch apart)."""
    after = 0
    while rows := list(queryset.filter(pk__gt=after).order_by("pk")[:BATCH]):
        yield rows
        after = rows[-1].pk


def _side_of(match, order, side):
    """The facts of one side from the match's columns, onto `side` (a dict or a row)."""
    letter = LETTERS[order]
    points, ups = match.points or {}, match.ups or {}
    side["games"] = [match.games_a, match.games_b, match.games_c][order]
    side["points"] = float(points[letter]) if letter in points else None
    side["ups"] = float(ups[letter]) if letter in ups else None
    side["stderr"] = [match.stderr_a, match.stderr_b, match.stderr_c][order] or ""
    side["fault"] = match.forfeit_reason if match.forfeit_player == letter else ""
    return side


def columns_to_sides(apps, schema_editor):
    """Rows for every match that has none; each side's ups from the match's."""
    Match = apps.get_model("matches", "Match")
    MatchSide = apps.get_model("matches", "MatchSide")
    for matches in _batches(Match.objects.only(*COLUMNS).prefetch_related("sides")):
        made, changed = [], []
        for match in matches:
            sides = list(match.sides.all())
            if not sides:
                versions = [match.version_a_id, match.version_b_id, match.version_c_id]
                made.extend(MatchSide(match_id=match.pk, order=order, version_id=version,
                                      **_side_of(match, order, {}))
                            for order, version in enumerate(versions) if version is not None)
                continue
            for side in sides:
                if match.ups and side.order < len(LETTERS):
                    side.ups = _side_of(match, side.order, {})["ups"]
                    changed.append(side)
        MatchSide.objects.bulk_create(made)
        MatchSide.objects.bulk_update(changed, ["ups"])


def sides_to_columns(apps, schema_editor):
    """The columns again from the rows (their first three sides)."""
    Match = apps.get_model("matches", "Match")
    MatchSide = apps.get_model("matches", "MatchSide")
    sides = Prefetch("sides", queryset=MatchSide.objects.order_by("order"))
    for matches in _batches(Match.objects.prefetch_related(sides)):
        for match in matches:
            rows = [side for side in match.sides.all() if side.order < len(LETTERS)]
            for side in rows:
                letter = LETTERS[side.order].lower()
                setattr(match, f"version_{letter}_id", side.version_id)
                setattr(match, f"games_{letter}", side.games)
                setattr(match, f"stderr_{letter}", side.stderr)
                if side.fault:
                    match.forfeit_player, match.forfeit_reason = letter.upper(), side.fault
            scored = [side for side in rows if side.points is not None]
            match.points = {LETTERS[s.order]: s.points for s in scored} or None
            upped = [side for side in rows if side.ups is not None]
            match.ups = {LETTERS[s.order]: s.ups for s in upped} or None
        Match.objects.bulk_update(matches, [name for name in COLUMNS if name != "pk"])


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0012_match_times"),
    ]

    operations = [
        migrations.AddField(
            model_name="matchside",
            name="ups",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RemoveConstraint(model_name="match", name="match_not_self"),
        migrations.RemoveConstraint(model_name="match", name="match_c_not_self"),
        migrations.RemoveIndex(model_name="match", name="match_version_a_recent"),
        migrations.RemoveIndex(model_name="match", name="match_version_b_recent"),
        migrations.RemoveIndex(model_name="match", name="match_version_c_newest"),
        # Nullable before the copy, so that migrating back can add them empty, fill them
        # (sides_to_columns) and only then make them required again.
        migrations.AlterField(
            model_name="match", name="version_a",
            field=models.ForeignKey(null=True, on_delete=models.deletion.PROTECT,
                                    related_name="+", to="bots.botversion"),
        ),
        migrations.AlterField(
            model_name="match", name="version_b",
            field=models.ForeignKey(null=True, on_delete=models.deletion.PROTECT,
                                    related_name="+", to="bots.botversion"),
        ),
        migrations.RunPython(columns_to_sides, sides_to_columns),
        migrations.AlterField(
            model_name="matchside", name="match",
            field=models.ForeignKey(db_index=False, on_delete=models.deletion.CASCADE,
                                    related_name="sides", to="matches.match"),
        ),
        migrations.AlterField(
            model_name="matchside", name="version",
            field=models.ForeignKey(db_index=False, on_delete=models.deletion.PROTECT,
                                    related_name="match_sides", to="bots.botversion"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["id"], include=["status", "ladder", "score", "finished",
                                                       "started"], name="match_side_facts"),
        ),
        migrations.RemoveIndex(model_name="matchside", name="matchside_version_recent"),
        migrations.AddIndex(
            model_name="matchside",
            index=models.Index(fields=["version", "-match"], include=["order", "games", "points"],
                               name="matchside_version_recent"),
        ),
        *[migrations.RemoveField(model_name="match", name=name) for name in (
            "version_a", "version_b", "version_c", "games_a", "games_b", "games_c",
            "stderr_a", "stderr_b", "stderr_c", "points", "ups", "forfeit_player",
            "forfeit_reason")],
    ]
