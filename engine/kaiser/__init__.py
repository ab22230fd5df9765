"""Kaiser, the arena's first game: four seats in two teams, 32 cards, bids for points
(docs/rules.md).

`engine.kaiser.plugin.GAME` is the game as the runtime and the site see it (engine.games); the
modules here are its parts: `cards` and `rules` (data), `game` (the state machine), `protocol`
and `wire` (the JSON of the bot protocol), `match` (duplicate pairs of games over the same
deals), `builtin`/`greedy`/`mc` (the built-in players), `validate`, `show` and `words`
(replays and the words for people), `boards` and `dealfile` (the board comparison).
"""

KAISER = "kaiser"  # the game's name: what a bot declares and a rules object names
