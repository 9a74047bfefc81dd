"""Example bots: ``arena-random-bot`` (``python -m arena_bot.examples.random_bot``)."""
