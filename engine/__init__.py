"""The Kaiser Arena engine: the runtime (matches, the bot protocol, the clock, the sandbox)
and one package per game (engine/<game>/). Standard library only."""
