"""Every match's side facts on its rows (issue 42, the step between 0013 and 0015): rows
made from the columns for any match without them, each side's ups from the match's; migrated
back, the columns filled again from the rows (the first three sides: the old schema had no
fourth)."""

from django.db import migrations
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
        ("matches", "0013_match_sides_only"),
    ]

    operations = [
        migrations.RunPython(columns_to_sides, sides_to_columns),
    ]
