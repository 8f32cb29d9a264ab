"""The words a casual player reads on the OLED, the terminal board, the controls card and the live web board."""

from __future__ import annotations

import re

from firmware.board.controls import controls_card, game_points_words, skunk_words
from firmware.board.pc.simulator import run_script
from firmware.board.pc.terminal import LEGEND, compose
from firmware.config import load_config
from scorer.variants import GAME_POINT_PRESETS, Options, SkunkLines

JARGON = re.compile(r"\bphase\b|\bacc\b|\bmatch:|\bwin, by\b|\bpts\b")


def test_the_start_of_a_deal_says_the_cut_and_how_to_peg_his_heels(sim):
    """Deal 1 starts at "the cut" (not "phase heels"), the footer says how to peg his heels."""
    screen = sim.board.oled_screen()
    assert screen.lines == ("deal 1, the cut",)
    assert screen.footer in ("New game: six-card, Red deals",)  # said first, for a few seconds
    sim.clock.skip(10)
    screen = sim.board.oled_screen()
    assert screen.footer == "Jack cut? Dial 0, press red: his heels"
    text = "\n".join(compose(sim, 80, 24, colour=False).lines())
    assert "Jack cut? Dial 0, press" in text and "r: his heels" in text and "deal 1, the cut" in text
    assert LEGEND in text and not JARGON.search(text)


def test_a_game_won_says_by_how_much_and_the_games_won(tmp_path):
    """Game over: "Red wins by 53, a skunk" and "Red won 1 game (3 game points)", no "match: Red 3 Blue 0"."""
    from helpers import script_to_win

    result = run_script(script_to_win(), load_config(), tmp_path / "ledger.sqlite3")
    lines = result["screen"]["lines"]
    assert lines[0] == "Red wins by 53, a skunk"
    assert " ".join(lines[1:]) == "Red won 1 game (3 game points)"
    assert not JARGON.search(" ".join(lines))


def test_the_controls_card_says_the_skunk_lines_and_game_points_in_words():
    """The card's options line names each line by the loser's score and each result's game points."""
    card = controls_card(load_config())
    assert card.options == "skunk under 91, double under 61; game points: win 2, skunk 3, double 3"
    assert not JARGON.search(card.options)
    assert skunk_words(121, SkunkLines.LURCH) == "lurch under 61"
    assert skunk_words(61, SkunkLines.NONE) == "no skunks"
    casual = Options(skunk=SkunkLines.TRIPLE, points=GAME_POINT_PRESETS["casual"])
    assert game_points_words(casual) == "game points: win 1, skunk 2, double 3, triple 4"


def test_tones_without_a_buzzer_say_so(sim):
    """The Options menu's Tones item reads "no buzzer", not "on", on a board without one."""
    sim.act("hold", "knob")
    sim.act("turn", "4")  # Options
    sim.act("click", "knob")
    sim.act("turn", "1")  # Tones
    assert "(Tones: no buzzer)" in " ".join(sim.board.oled_screen().lines)


def test_the_live_web_board_speaks_as_the_board_does():
    """The live board: "the cut" with his heels explained, "wins by", games won and game points."""
    from firmware.web.pages import live_html
    from scorer.record import replay

    from test_web import SIX, match_records, state_dict

    html = live_html(state_dict(replay([SIX]).book), None, [])
    assert "<b>the cut</b>" in html and "his heels" in html
    first, second = match_records(2)
    done = state_dict(replay(first + second).book)
    html = live_html(done, None, [])
    assert f'{done["winner"]}</bdi> wins by {done["margin"]}' in html
    assert "won 2 games (4 game points)" in html
    assert not JARGON.search(re.sub(r"<[^>]+>", " ", html))
