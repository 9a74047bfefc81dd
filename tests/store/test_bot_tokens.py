"""Bot tokens as the store issues them: secret, distinct, and never read as an option on a
command line (``--token VALUE`` with a value that begins with ``-``)."""

from __future__ import annotations

from arena.store import bot_tokens, db


def test_tokens_never_begin_with_a_dash_and_each_names_its_bot(sqlite_url: str) -> None:
    # One URL-safe token in 64 began with '-': among 600 the chance that none would is 1e-4.
    with db.transaction(sqlite_url) as connection:
        bot_id = bot_tokens.register(connection, "dash").bot_id
        tokens = [bot_tokens.issue(connection, bot_id) for _ in range(600)]
    assert not [token for token in tokens if token.startswith("-")]
    assert len(set(tokens)) == len(tokens) and {len(token) for token in tokens} == {43}
    with db.transaction(sqlite_url) as connection:
        assert {bot_tokens.authenticate(connection, token) for token in tokens[:20]} == {(bot_id, "dash")}
