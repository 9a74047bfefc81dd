"""`arena play GAME --bot FILE.py:CLASS`: a bot written with the SDK plays in-process against
house bots, with no server, on the Turns it would get over the wire (forced decisions
included); a bot that raises or answers an illegal action is one line naming the turn."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from arena.cli import main
from tests.support.grpc import GAME

# Writes what each Turn showed it to turns.jsonl beside itself; plays the last legal action.
BOT = textwrap.dedent("""
    import json
    from pathlib import Path

    from arena_bot.aio import AsyncBot
    from arena_bot.sdk import Bot

    LOG = Path(__file__).with_name("turns.jsonl")


    def record(turn):
        with LOG.open("a") as out:
            out.write(json.dumps({"game": turn.match.game, "seat": turn.match.seat, "turn_id": turn.turn_id,
                                  "legal": turn.legal_actions, "forced": turn.forced,
                                  "observed_seat": turn.observation["seat"], "sample": turn.sample_state is not None,
                                  "deadline_ms": turn.deadline_ms}) + "\\n")


    class MyBot(Bot):
        def act(self, turn):
            record(turn)
            return turn.legal_actions[-1]


    class EveryDecision(MyBot):
        every_decision = True


    class Searching(MyBot):
        want_sample_state = True


    class ByIndex(AsyncBot):
        async def act(self, turn):
            record(turn)
            return 0


    class Broken(Bot):
        def act(self, turn):
            return {}["no such key"]


    class Cheat(Bot):
        def act(self, turn):
            return "take every card"
""")


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_bot.py"
    path.write_text(BOT)
    return path


def turns(bot_file: Path) -> list[dict]:
    return [json.loads(line) for line in bot_file.with_name("turns.jsonl").read_text().splitlines()]


def play(capsys, bot_file: Path, name: str, *extra: str) -> tuple[int, str, str]:
    code = main(["play", GAME, "--bot", f"{bot_file}:{name}", "--bots", "heuristic", "--seed", "3", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_an_sdk_bot_plays_offline_and_is_not_asked_forced_decisions(bot_file, capsys) -> None:
    code, out, _ = play(capsys, bot_file, "MyBot", "--json")
    assert code == 0
    result = json.loads(out)
    assert [s["bot"] for s in result["seats"]] == ["MyBot (--bot)", "heuristic"]
    assert sorted(s["rank"] for s in result["seats"])[0] == 1 and result["moves"] > 0
    seen = turns(bot_file)
    assert seen and all(t["game"] == GAME and t["seat"] == t["observed_seat"] == 0 for t in seen)
    assert all(len(t["legal"]) > 1 for t in seen), "a single legal action is applied without asking"
    assert any(t["forced"] for t in seen), "the forced decisions come in the next turn"
    assert [t["turn_id"] for t in seen] == sorted(t["turn_id"] for t in seen)
    assert all(not t["sample"] and t["deadline_ms"] == 2000 for t in seen)


def test_every_decision_and_sample_states_as_on_the_wire(bot_file, capsys) -> None:
    assert play(capsys, bot_file, "EveryDecision", "--quiet")[0] == 0
    seen = turns(bot_file)
    assert any(len(t["legal"]) == 1 for t in seen) and not any(t["forced"] for t in seen)
    bot_file.with_name("turns.jsonl").unlink()
    assert play(capsys, bot_file, "Searching", "--quiet", "--bot-seat", "1")[0] == 0
    seen = turns(bot_file)
    assert all(t["sample"] and t["seat"] == 1 for t in seen)
    bot_file.with_name("turns.jsonl").unlink()
    code, out, _ = play(capsys, bot_file, "ByIndex")
    assert code == 0 and "seat 0 (ByIndex (--bot)): rank" in out
    assert turns(bot_file)


def test_a_bot_that_raises_or_cheats_is_one_line_naming_the_turn(bot_file, capsys) -> None:
    code, _, err = play(capsys, bot_file, "Broken")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("arena: turn ") and "(decision " in err
    assert "Broken.act raised KeyError: 'no such key' (my_bot.py:" in err
    code, _, err = play(capsys, bot_file, "Cheat")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "Cheat.act returned 'take every card', not one of the" in err


@pytest.mark.parametrize("spec, says", [
    ("{file}", "expected path/to/file.py:ClassName"),
    ("{file}.missing:MyBot", "no file"),
    ("{file}:Nobody", "has no class Nobody subclassing arena_bot.sdk.Bot"),
    ("{file}:json", "has no class json"),
])
def test_a_bot_that_cannot_be_loaded_is_one_line(bot_file, capsys, spec: str, says: str) -> None:
    assert main(["play", GAME, "--bot", spec.format(file=bot_file)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and says in err, err
