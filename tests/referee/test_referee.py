"""The match runner: transcripts replay exactly for every game; clock, strikes and forfeits."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import games
from arena.referee import Clock, HousePlayer, play_match, replay
from arena.referee.match import final_ranks
from arena.referee.transcript import CODES, FORCED, FORFEITED, OK
from tests.support.platform import ScriptedPlayer, fast_games, table_sizes


def house_players(game: str, n: int, seed: int) -> list[HousePlayer]:
    # Random house bots: every game has them and they are the quickest to decide.
    return [HousePlayer(game, "random", s, seed) for s in range(n)]


@pytest.mark.parametrize("game", games.names())
def test_transcript_replay_reproduces_every_game(game):
    for n, seed in [(size, 1) for size in table_sizes(game)] + [(table_sizes(game)[0], 2)]:
        result = play_match(game, house_players(game, n, seed), seed, match_id=f"{game}-{n}-{seed}")
        transcript = result.transcript()
        state = replay(transcript)
        assert state.outcome().scores == result.scores
        assert state.moves == len(transcript["decisions"])
        # The same seed and players give the same match, decision for decision.
        again = play_match(game, house_players(game, n, seed), seed, match_id=f"{game}-{n}-{seed}")
        assert [d.action for d in again.decisions] == [d.action for d in result.decisions]


@pytest.mark.parametrize("key", ["scores", "game_ranks", "ranks"])
def test_replay_detects_a_tampered_transcript(key):
    game = fast_games(1)[0]
    result = play_match(game, house_players(game, 2, 5), 5)
    transcript = result.transcript()
    assert transcript["ranks"] != transcript["ranks"][::-1]
    transcript[key] = [s + 1 for s in transcript["scores"]] if key == "scores" else transcript[key][::-1]
    with pytest.raises(ValueError):
        replay(transcript)


def asked_codes(result, seat):
    """The codes of the decisions ``seat`` was asked for (a forced one never is)."""
    return [d.code for d in result.decisions if d.seat == seat and d.code != FORCED]


def test_faults_get_strikes_codes_and_a_forfeit():
    game = fast_games(1)[0]
    clock = Clock(move=0.01, bank=0.02, strikes=3)
    bad = ScriptedPlayer(["illegal", "malformed", "ok", "slow", "ok"], slow=0.1)
    good = ScriptedPlayer()
    result = play_match(game, [bad, good], seed=3, clock=clock)
    codes = asked_codes(result, 0)
    assert codes[:4] == ["illegal", "malformed", "ok", "timeout"]
    assert result.strikes[0] == 3 and result.forfeited == [True, False]
    assert all(code == FORFEITED for code in codes[4:])
    assert result.ranks == [2, 1]
    replay(result.transcript())


def test_disconnected_player_is_played_for_and_forfeits():
    game = fast_games(1)[0]
    gone = ScriptedPlayer(["disconnect"] * 100)
    result = play_match(game, [ScriptedPlayer(), gone], seed=4)
    assert asked_codes(result, 1)[:3] == ["disconnected"] * 3
    assert result.forfeited == [False, True] and result.ranks == [1, 2]


def test_time_bank_absorbs_overage_before_a_timeout():
    game = fast_games(1)[0]
    clock = Clock(move=0.01, bank=1.0)
    result = play_match(game, [ScriptedPlayer(["slow"] * 3, slow=0.03), ScriptedPlayer()], seed=2, clock=clock)
    assert asked_codes(result, 0)[:3] == [OK] * 3
    assert result.strikes == [0, 0]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31),
    scripts=st.lists(
        st.lists(st.sampled_from(["ok", "ok", "illegal", "malformed", "crash", "disconnect"]), max_size=8),
        min_size=2,
        max_size=2,
    ),
)
def test_runner_properties(seed, scripts):
    game = fast_games(1)[0]
    players = [ScriptedPlayer(script) for script in scripts]
    result = play_match(game, players, seed, clock=Clock(move=1.0, bank=1.0, strikes=3))
    # Every applied action was legal and the match is reproducible from its transcript.
    replay(result.transcript())
    for seat in range(2):
        codes = [d.code for d in result.decisions if d.seat == seat]
        assert set(codes) <= set(CODES)
        strikes = sum(1 for c in codes if c not in (OK, FORCED, FORFEITED))
        assert strikes == result.strikes[seat]
        assert result.forfeited[seat] == (strikes >= 3)
        if result.forfeited[seat]:
            assert result.ranks[seat] == max(result.ranks)


@given(
    game_ranks=st.lists(st.integers(1, 4), min_size=2, max_size=6),
    data=st.data(),
)
def test_final_ranks_put_forfeits_last_and_keep_order(game_ranks, data):
    forfeited = data.draw(st.lists(st.booleans(), min_size=len(game_ranks), max_size=len(game_ranks)))
    ranks = final_ranks(game_ranks, forfeited)
    alive = [s for s, out in enumerate(forfeited) if not out]
    for a in alive:
        for b in range(len(ranks)):
            if forfeited[b]:
                assert ranks[a] < ranks[b]
            elif game_ranks[a] < game_ranks[b]:
                assert ranks[a] < ranks[b]
            elif game_ranks[a] == game_ranks[b]:
                assert ranks[a] == ranks[b]
