"""Every loser's result (three and four sides), the match tally over them, and abandoned games kept."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.board.pc.simulator import run_script
from firmware.config import load_config
from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.game import Outcome
from scorer.record import ABANDONED, parse_line, replay
from scorer.report import state_dict, summary
from scorer.variants import Options, SkunkLines, parse_game_points

ROOT = Path(__file__).resolve().parent.parent


def pegs(seat: str, points: int) -> list[str]:
    """Play lines that peg ``points`` to ``seat`` (15 at a time)."""
    lines = [f"peg {seat} 15"] * (points // 15)
    return lines + ([f"peg {seat} {points % 15}"] if points % 15 else [])


def game(header: str, finals: dict[str, int], winner: str, target: int = 121) -> list[str]:
    """A game record: the losers pegged to their final scores, then the winner to the target."""
    lines = [header]
    for seat, score in finals.items():
        lines += pegs(seat, score)
    return lines + pegs(winner, target)


def state(lines: list[str]) -> dict:
    result = replay(lines)
    assert result.rejected == []
    return state_dict(result.book)


def loser(side, score, result, margin, points):
    return {"side": side, "score": score, "result": result, "margin": margin, "game_points": points}


def test_three_hand_each_loser_against_the_skunk_lines():
    """Three-hand: one loser plain, one skunked; game points are both losers' together."""
    data = state(game("game three-hand seats=A,B,C dealer=A", {"B": 95, "C": 90}, "A"))
    assert data["losers"] == [loser("B", 95, "win", 26, 2), loser("C", 90, "skunk", 31, 3)]
    assert (data["winner"], data["loser"], data["result"], data["margin"], data["game_points"]) == (
        "A", "C", "skunk", 31, 5)
    assert data["match"]["tally"][0] == {"side": "A", "wins": 1, "game_points": 5}


@pytest.mark.parametrize("options, results, points", [
    ("", ["win", "skunk", "double-skunk"], [2, 3, 3]),
    ("points=casual", ["win", "skunk", "double-skunk"], [1, 2, 3]),
    ("skunk=lurch", ["win", "win", "lurch"], [2, 2, 4]),
    ("skunk=triple", ["win", "skunk", "triple-skunk"], [2, 3, 3]),
    ("skunk=none", ["win", "win", "win"], [2, 2, 2]),
])
def test_four_hand_individual_every_loser_per_skunk_lines(options, results, points):
    """Four each alone, losers on 100, 75 and 30: each loser's result under each option."""
    header = f"game four-hand-individual seats=A,B,C,D dealer=A {options}".strip()
    data = state(game(header, {"B": 100, "C": 75, "D": 30}, "A"))
    assert [item["result"] for item in data["losers"]] == results
    assert [item["game_points"] for item in data["losers"]] == points
    assert [item["margin"] for item in data["losers"]] == [21, 46, 91]
    assert (data["loser"], data["result"], data["game_points"]) == ("D", results[-1], sum(points))


def test_two_sides_have_one_loser_and_keep_their_fields():
    """Six-card: losers holds the one loser, with the loser, result, margin and game points of old."""
    data = state(game("game six-card seats=Alice,Bob dealer=Alice", {"Bob": 80}, "Alice"))
    assert data["losers"] == [loser("Bob", 80, "skunk", 41, 3)]
    assert (data["loser"], data["result"], data["margin"], data["game_points"]) == ("Bob", "skunk", 41, 3)


def test_a_partnership_loses_as_one_team():
    """Four-hand partnership: one losing team, its result from the team score."""
    data = state(game("game four-hand seats=A,B,C,D dealer=A", {"B": 40, "D": 20}, "A"))
    assert data["losers"] == [loser("B+D", 60, "double-skunk", 61, 3)]


def test_low_ball_the_side_that_reached_the_target_loses_plainly():
    """Low-ball: the one loser is the side that reached the target, a plain win however low the winner."""
    data = state(game("game low-ball seats=A,B dealer=A", {"B": 10}, "A"))
    assert data["winner"] == "B" and data["losers"] == [loser("A", 121, "win", 111, 2)]


def test_the_tally_counts_each_losers_game_points_over_a_match():
    """Two three-hand games: each winner collects from every loser."""
    first = game("game three-hand seats=A,B,C dealer=A", {"B": 95, "C": 50}, "A")
    second = game("game three-hand seats=A,B,C", {"A": 70, "C": 100}, "B")
    data = state(first + second)
    assert data["match"]["games"] == 2
    assert data["match"]["tally"] == [
        {"side": "A", "wins": 1, "game_points": 2 + 3},
        {"side": "B", "wins": 1, "game_points": 3 + 2},
        {"side": "C", "wins": 0, "game_points": 0},
    ]
    said = summary(replay(first + second).book)
    assert "B wins by 51, a skunk (5 game points)\n  A lost by 51, skunked (3 game points); C lost by 21 (2 game points)" in said
    assert "match after 2 games: A won 1 (5 game points), B won 1 (5 game points), C won 0 (0 game points)" in said


def test_an_outcome_stored_before_losers_gets_them_from_its_scores():
    """A stored outcome without losers: two sides from its own fields; more sides from the game's rules."""
    old = {"winner": "A", "loser": "C", "result": "skunk", "margin": 31, "game_points": 3,
           "scores": {"A": 121, "B": 95, "C": 90}, "lowball": False}
    rules = Options(skunk=SkunkLines.ACC, points=parse_game_points("acc"))
    derived = Outcome.from_dict(old, 121, rules)
    assert [item.to_dict() for item in derived.losers] == [loser("B", 95, "win", 26, 2),
                                                            loser("C", 90, "skunk", 31, 3)]
    assert derived.game_points == 3  # as it was stored: the tally it was counted in does not change
    assert [item.side for item in Outcome.from_dict(old).losers] == ["C"]
    two = {"winner": "A", "loser": "B", "result": "win", "margin": 20, "game_points": 2,
           "scores": {"A": 121, "B": 101}}
    assert [item.to_dict() for item in Outcome.from_dict(two).losers] == [loser("B", 101, "win", 20, 2)]


def test_the_ledger_keeps_every_losers_result_and_the_tally(tmp_path):
    """A three-hand win in the ledger: the listing and a reopened tally carry every loser."""
    path = tmp_path / "ledger.sqlite3"
    lines = game("game three-hand seats=A,B,C dealer=A", {"B": 95, "C": 90}, "A") + ["game three-hand seats=A,B,C"]
    with LedgerWriter(path) as store:
        for line in lines:
            store.apply(parse_line(line))
    with LedgerWriter(path) as store:
        assert state_dict(store.book)["match"]["tally"][0] == {"side": "A", "wins": 1, "game_points": 5}
    with LedgerReader(path) as reader:
        [listed] = reader.games()
    assert listed.to_dict()["losers"] == [loser("B", 95, "win", 26, 2), loser("C", 90, "skunk", 31, 3)]
    assert listed.game_points == 5


def test_a_game_replaced_before_its_end_is_abandoned_in_the_match_and_the_export():
    """A game line mid-game: the game is counted as abandoned (never a win) and marked in the export."""
    first = ["game six-card seats=A,B dealer=A", "peg A 5", "peg B 3"]
    lines = first + ["game six-card seats=A,B dealer=B", "peg B 2"]
    book = replay(lines).book
    data = state_dict(book)
    assert data["match"]["games"] == 0 and data["match"]["abandoned"] == 1
    assert all(t["wins"] == 0 and t["game_points"] == 0 for t in data["match"]["tally"])
    exported = book.record_lines()
    assert exported == first + [ABANDONED, "game six-card seats=A,B dealer=B", "peg B 2"]
    again = replay(exported).book
    assert state_dict(again) == data and again.record_lines() == exported
    assert "1 game abandoned" in summary(book)


def test_the_ledger_keeps_an_abandoned_game_across_a_reopen(tmp_path):
    """The writer marks the replaced game abandoned; reopened, the match still counts it as abandoned."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        for line in ["game six-card seats=A,B dealer=A", "peg A 5", "game six-card seats=A,B", "peg B 1"]:
            store.apply(parse_line(line))
    with LedgerWriter(path) as store:
        assert state_dict(store.book)["match"]["abandoned"] == 1
        assert store.export(1) == ["game six-card seats=A,B dealer=A", "peg A 5"]
    with LedgerReader(path) as reader:
        assert [(g.id, g.status, g.winner) for g in reader.games()] == [(1, "abandoned", None)]
        assert state_dict(reader.book)["match"] == {
            "games": 0, "abandoned": 1,
            "tally": [{"side": "A", "wins": 0, "game_points": 0}, {"side": "B", "wins": 0, "game_points": 0}]}


def test_a_new_match_mid_game_keeps_the_unfinished_game(tmp_path):
    """Other seats start a new match: the unfinished game of the old one is kept, abandoned."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        for line in ["game six-card seats=A,B dealer=A", "peg A 5", "game three-hand seats=A,B,C"]:
            store.apply(parse_line(line))
    with LedgerReader(path) as reader:
        assert [(g.id, g.match_id, g.status) for g in reader.games()] == [(1, 1, "abandoned")]
        assert reader.export(1) == ["game six-card seats=A,B dealer=A", "peg A 5"]


def test_the_board_keeps_a_game_abandoned_from_the_menu(tmp_path):
    """simulate: peg, then Menu > New game > Yes: the first game is in the ledger as abandoned."""
    path = tmp_path / "ledger.sqlite3"
    script = ["turn 3", "click red", "click menu", "click knob", "turn 1", "click knob"]
    result = run_script(script, load_config(), path)
    assert result["rejected"] == [] and result["match"]["abandoned"] == 1 and result["match"]["games"] == 0
    with LedgerReader(path) as reader:
        [listed] = reader.games()
        assert listed.status == "abandoned" and reader.export(listed.id)[1:] == ["peg Red 3"]
        assert reader.current_game_id() == 2


def test_the_console_says_the_unfinished_game_is_kept(tmp_path):
    """console: a game line mid-game answers that the game is kept as abandoned, and it is."""
    path = tmp_path / "ledger.sqlite3"
    result = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "console", "--state", str(path)], cwd=ROOT,
        input="game six-card seats=A,B\npeg A 3\ngame six-card seats=A,B\n", capture_output=True, text=True,
        timeout=60, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("the unfinished game is kept in the ledger as abandoned") == 1
    with LedgerReader(path) as reader:
        assert [g.status for g in reader.games()] == ["abandoned"]


def test_the_console_says_an_empty_game_is_not_kept(tmp_path):
    """console: a game line after a game with no entries says that game is not kept, and it is not."""
    path = tmp_path / "ledger.sqlite3"
    result = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "console", "--state", str(path)], cwd=ROOT,
        input="game six-card seats=A,B\ngame six-card seats=A,B\npeg A 3\n", capture_output=True, text=True,
        timeout=60, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert "abandoned" not in result.stdout
    assert result.stdout.count("the game before had no entries: it is not kept, and counts for nobody") == 1
    with LedgerReader(path) as reader:
        assert reader.games() == [] and state_dict(reader.book)["match"]["abandoned"] == 0


def test_the_listing_gives_losers_to_a_result_stored_before_they_were_kept(tmp_path):
    """A three-hand result stored without losers (schema 1): games() works them out from its scores."""
    import json
    import sqlite3

    path = tmp_path / "ledger.sqlite3"
    lines = game("game three-hand seats=A,B,C dealer=A", {"B": 95, "C": 90}, "A") + ["game three-hand seats=A,B,C"]
    with LedgerWriter(path) as store:
        for line in lines:
            store.apply(parse_line(line))
    conn = sqlite3.connect(path)
    stored = json.loads(conn.execute("SELECT outcome FROM games WHERE id=1").fetchone()[0])
    del stored["losers"]
    stored["game_points"] = 3  # as the first release counted it: the lowest loser's only
    conn.execute("UPDATE games SET outcome=? WHERE id=1", (json.dumps(stored),))
    conn.commit()
    conn.close()
    with LedgerReader(path) as reader:
        [listed] = reader.games()
        assert listed.to_dict()["losers"] == [loser("B", 95, "win", 26, 2), loser("C", 90, "skunk", 31, 3)]
        assert listed.game_points == 3
        assert state_dict(reader.book)["match"]["tally"][0] == {"side": "A", "wins": 1, "game_points": 3}


def test_a_game_replaced_before_any_entry_is_not_counted_as_abandoned(tmp_path):
    """A game line straight after another: the empty game is neither listed nor counted (kept or
    counted again from the ledger); the ledger keeps its row, as empty."""
    import sqlite3

    path = tmp_path / "ledger.sqlite3"
    lines = ["game six-card seats=A,B dealer=A", "game six-card seats=A,B", "peg A 2", "undo",
             "game six-card seats=A,B", "game six-card seats=A,B"]
    with LedgerWriter(path) as store:
        for line in lines:
            store.apply(parse_line(line))
        assert state_dict(store.book)["match"]["abandoned"] == 1
    with LedgerReader(path) as reader:
        assert [(g.id, g.status) for g in reader.games()] == [(2, "abandoned")]
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT id, status FROM games ORDER BY id").fetchall() == [
        (1, "empty"), (2, "abandoned"), (3, "empty"), (4, None)]
    conn.execute("DELETE FROM tallies")  # the next open counts the match from its games
    conn.commit()
    conn.close()
    with LedgerWriter(path) as store:
        assert state_dict(store.book)["match"]["abandoned"] == 1
    book = replay(lines).book
    assert state_dict(book)["match"]["abandoned"] == 1
    exported = book.record_lines()
    assert exported.count(ABANDONED) == 1 and exported[exported.index(ABANDONED) - 1] == "undo"
