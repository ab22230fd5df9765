"""Sergeant Major (9-5-2), the arena's second game: three players, no partners, 52 cards,
targets by seat, and the card exchange (docs/rules-sergeant-major.md).

`engine.sergeant_major.plugin.GAME` is the game as the runtime and the site see it
(engine.games); the modules here are its parts: `cards` and `rules` (data), `game`
(the state machine), `protocol` (the JSON of the bot protocol), `match` (matches of three
games over the same deals, seats rotated), `players` (the built-in players), `validate` and
`show` (replays).
"""

SERGEANT_MAJOR = "sergeant-major"  # the game's name: what a bot declares and a replay names
