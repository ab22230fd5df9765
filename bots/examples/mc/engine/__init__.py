"""The Kaiser engine: rules, games, matches, replays. Standard library only."""
