"""Quartet, a test game of four players, each for itself: a 16-card pack, tricks without
trumps, no partners, no boards and no person's table.

Four seats; 4 cards each a deal (the whole pack). The dealer's left (the next seat) leads, the
others follow suit if they can, the highest card of the suit led wins and leads next. A game
is a fixed number of deals (2 in "standard"); the most tricks wins it, a tie for the most is
a draw. A match plays sets of four games over the same deals, the players' seats rotated.
"""

QUARTET = "quartet"
