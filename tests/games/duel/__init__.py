"""Duel, a test game: two players, each for itself, a 12-card pack, tricks without trumps.

Two seats; 4 cards each a deal (4 of the 12 stay undealt). The dealer's opponent leads, the
others follow suit if they can, the higher card of the suit led wins and leads next. A game is
a fixed number of deals (3 in "standard"); more tricks wins it, equal tricks is a draw. A match
plays sets of two games over the same deals, the players' seats swapped (duplicate).
"""

DUEL = "duel"
