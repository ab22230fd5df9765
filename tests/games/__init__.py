"""Games that exist only in the tests: each is a plugin (engine.games.Game) registered by the
test that plays it, so that the runtime is checked against a game shaped unlike the real ones."""
