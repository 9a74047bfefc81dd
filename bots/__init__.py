"""The arena's example bots (``python -m bots.random_bot`` …). The Python bot SDK itself is the
``arena-bot`` distribution (sdk/python, ``arena_bot``); ``bots.sdk``, ``bots.aio`` and
``bots.cli`` re-export it."""
