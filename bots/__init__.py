"""The arena's example bots (``python -m bots.house_bot`` …), written on the Python bot SDK,
the ``arena-bot`` distribution (sdk/python): they import ``arena_bot`` as any bot does. The
simplest, the random bot, ships with the SDK: ``arena-random-bot``."""
