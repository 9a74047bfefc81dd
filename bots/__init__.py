"""The Python bot SDK (``bots.sdk``) and example bots (``python -m bots.random_bot`` …)."""
