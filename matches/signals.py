"""What a match tells the apps that made it, without importing them (matches.services sends;
ladder.receivers and tournaments.receivers listen, connected in their AppConfig.ready).

- match_finished(match): inside the transaction that stores the result, so what a receiver
  writes (the ladder's rating changes) commits with the result or not at all: exactly once.
- match_ended(match_id, tournament_id): inside the transaction that ends a match any way
  (finished, failed, void); a tournament moves to its next round.
- match_settled(match): after that transaction commits. A receiver that refills the queue for
  the match's maker (the ladder schedules its next matches) returns True; when none does,
  matches.services sends the next waiting matches itself.
"""

from django.dispatch import Signal

match_finished = Signal()
match_ended = Signal()
match_settled = Signal()
