"""Each ladder's rated results added up per pair of versions (PairTally), which the fitted
ratings read instead of every match (issue 21), filled from the matches already rated."""

from typing import Any

import django.db.models.deletion
from django.db import connections, migrations, models, transaction
from django.db.models import Case, F, FloatField, Q, QuerySet, Value, When
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, Exp, Greatest, Least
from django.db.models.lookups import GreaterThan

# ladder.services.pair_tallies_rebuild as it was at this schema (the match's sides in its
# columns), frozen here: the live one reads MatchSide rows, which come later.
UPS_SCALE = 10.0
UPS_WEIGHT = 1.0


def pair_tallies_rebuild(*, match_model: Any, tally_model: Any,
                         using: str = "default") -> int:
    """Every ladder's pair tallies made again from its rated results, in the database: one
    INSERT ... SELECT ... GROUP BY, no match read into Python. The migration that made the
    table runs it on a populated site (with its historical models), bench/scale_sim.py after
    its bulk load, `manage.py pair_tallies_rebuild` on demand. The table is locked against
    writes first: a match finishing meanwhile waits, then adds itself to the new tallies
    (its result was not committed when they were counted). Returns the pairs written."""
    compiled = [rows.query.get_compiler(using=using).as_sql()
                for rows in _pair_rows(match_model.objects.using(using))]
    table = tally_model._meta.db_table
    sql = (f"INSERT INTO {table} (ladder_id, low_id, high_id, games, low_wins) "
           f"SELECT t_ladder, t_low, t_high, SUM(t_games), SUM(t_wins) FROM ("
           + " UNION ALL ".join(part for part, _ in compiled)
           + ") AS pairs GROUP BY t_ladder, t_low, t_high")
    with transaction.atomic(using=using), connections[using].cursor() as cursor:
        if connections[using].vendor == "postgresql":  # (SQLite: one writer at a time anyway)
            cursor.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
        cursor.execute(f"DELETE FROM {table}")
        cursor.execute(sql, [p for _, params in compiled for p in params])
        return int(cursor.rowcount)


def _pair_rows(matches: QuerySet[Any]) -> list[QuerySet[Any]]:
    """The rows (ladder, low, high, games, low's wins) that the rated results add to the
    tallies, as _tallies_add adds them: a two-player match one row, a three-player match one
    a pair, scored by the pair's points (0.5 each when neither took any)."""
    rated = matches.filter(rated=True, status="finished", ladder__isnull=False,
                           games_per_match__gt=0).order_by()
    two = rated.filter(Q(version_c__isnull=True) | Q(points__isnull=True), score__isnull=False)
    # The rated outcome where the ladder stored one; the games won before it had the column
    # (ladder's migration 0006 runs this with the historical Match, which has none).
    has_outcome = any(f.name == "outcome" for f in matches.model._meta.get_fields())
    score = Coalesce("outcome", "score") if has_outcome else F("score")
    parts = [_pair_row(two, "version_a_id", "version_b_id", score)]
    three = rated.filter(version_c__isnull=False, points__isnull=False)
    for x, y in (("A", "B"), ("A", "C"), ("B", "C")):
        px = Cast(KT(f"points__{x}"), FloatField())
        py = Cast(KT(f"points__{y}"), FloatField())
        share = Case(When(GreaterThan(px + py, 0.0), then=px / (px + py)), default=Value(0.5),
                     output_field=FloatField())
        if has_outcome:  # (the ups came with the outcome: ratings.pairwise_scores)
            gap = (Cast(KT(f"ups__{x}"), FloatField())
                   - Cast(KT(f"ups__{y}"), FloatField())) / UPS_SCALE
            mixed = ((1.0 - UPS_WEIGHT) * share
                     + UPS_WEIGHT / (1.0 + Exp(-gap)))
            share = Case(When(ups__isnull=True, then=share), default=mixed,
                         output_field=FloatField())
        parts.append(_pair_row(three, f"version_{x.lower()}_id", f"version_{y.lower()}_id",
                               share))
    return parts


def _pair_row(matches: QuerySet[Any], x: str, y: str, score: Any) -> QuerySet[Any]:
    games = F("games_per_match")
    wins = score * games
    return matches.annotate(
        t_ladder=F("ladder_id"), t_low=Least(x, y), t_high=Greatest(x, y), t_games=games,
        t_wins=Case(When(Q(**{f"{x}__lt": F(y)}), then=wins), default=games - wins,
                    output_field=FloatField()),
    ).values_list("t_ladder", "t_low", "t_high", "t_games", "t_wins")


def fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    pair_tallies_rebuild(match_model=apps.get_model("matches", "Match"),
                         tally_model=apps.get_model("ladder", "PairTally"),
                         using=schema_editor.connection.alias)


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0003_bot_game'),
        ('ladder', '0005_board_indexes'),
        ('matches', '0007_stderr_c_db_default'),
    ]

    operations = [
        migrations.CreateModel(
            name='PairTally',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('games', models.PositiveIntegerField(default=0)),
                ('low_wins', models.FloatField(default=0.0)),
                ('high', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='bots.botversion')),
                ('ladder', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='ladder.ladder')),
                ('low', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='bots.botversion')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('ladder', 'low', 'high'), name='pair_tally_once'), models.CheckConstraint(condition=models.Q(('low__lt', models.F('high'))), name='pair_tally_low_first')],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
