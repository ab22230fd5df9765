"""Dies on the first message, saying why on stderr."""
import sys

sys.stdin.readline()
print("Traceback: KeyError: 'hand' (this bot was written for another game)", file=sys.stderr)
sys.exit(3)
