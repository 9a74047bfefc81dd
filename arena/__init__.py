"""arena: a tournament and bot arena for travel-themed card and board games."""

__version__ = "0.1.0"
