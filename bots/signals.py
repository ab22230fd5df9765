"""What bots tell the apps above them, without importing them.

- bot_retired(bot): sent when a bot is retired (bots.services.bot_retire), in its
  transaction if any; tournaments.receivers withdraws its entries.
"""

from django.dispatch import Signal

bot_retired = Signal()
