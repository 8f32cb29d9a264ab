"""The terminal board: fits 80x24, scales up, says the size it needs, redraws only what changed, follows a resize."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from docs_text import doc_text, section

from firmware.board.pc.simulator import Simulator
from firmware.board.pc.terminal import (
    HELP,
    HELP_MIN_WIDTH,
    KEYS,
    Canvas,
    TerminalScreen,
    board_geometry,
    changes,
    choose_plan,
    compose,
    full_paint,
    help_lines,
    key_help,
    run_terminal,
    score_line,
)
from firmware.board.view import GameView, next_text, won_text
from firmware.config import load_config
from hardware.layout import BUNDLED, load_layout
from scorer.game import Entry, Game
from scorer.variants import VARIANTS, find_variant

ROOT = Path(__file__).resolve().parent.parent
CSI = re.compile(r"\x1b\[([?0-9;]*)([A-Za-z])")


class Emulator:
    """Just enough of a terminal to read back what the board wrote: cursor moves, clears, text."""

    def __init__(self, columns: int, rows: int):
        self.columns, self.rows = columns, rows
        self.clear()
        self.row = self.col = 0

    def clear(self) -> None:
        self.grid = [[" "] * self.columns for _ in range(self.rows)]

    def feed(self, text: str) -> None:
        at = 0
        while at < len(text):
            match = CSI.match(text, at)
            if match:
                args, final = match.groups()
                if final == "H":
                    numbers = [int(n) for n in args.split(";") if n] or [1, 1]
                    self.row, self.col = numbers[0] - 1, (numbers[1] - 1 if len(numbers) > 1 else 0)
                elif final == "J" and args == "2":
                    self.clear()
                at = match.end()
                continue
            char = text[at]
            at += 1
            if char == "\n":
                self.row, self.col = min(self.row + 1, self.rows - 1), 0
            elif char == "\r":
                self.col = 0
            elif 0 <= self.row < self.rows and 0 <= self.col < self.columns:
                self.grid[self.row][self.col] = char
                self.col += 1

    def lines(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.grid]


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_layout_fits_80x24(name):
    """Each bundled layout has a way to be drawn within 80x24."""
    plan = choose_plan(load_layout(name), 80, 24)
    assert plan is not None and plan.width <= 80 and plan.height <= 24


def test_larger_terminals_get_wider_holes_and_the_oled_pixels():
    """At 120x40 the holes are wider apart than at 80x24 and the OLED's pixels are shown too."""
    layout = load_layout("classic-121")
    small, large = choose_plan(layout, 80, 24), choose_plan(layout, 120, 40)
    assert not small.pixels and large.pixels and large.hx > small.hx


@pytest.mark.parametrize("size", [(79, 24), (80, 23), (60, 20)])
def test_a_smaller_terminal_is_told_the_size_needed(sim, size):
    """Below 80x24 the screen says the size it needs and the size it has, nothing else."""
    text = " ".join(compose(sim, *size, colour=False).lines())
    assert "needs a terminal of at least 80x24" in text and f"this one is {size[0]}x{size[1]}" in text


def test_the_80x24_screen_has_scores_next_count_oled_and_keys(sim):
    """At 80x24: a score line naming every side and the next count, the OLED as text, the keys; nothing past the edge."""
    sim.act("turn", "3")
    sim.act("click", "red")
    canvas = compose(sim, 80, 24, colour=False)
    lines = canvas.lines()
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
    assert lines[0].startswith("Red 3 (deals) · Blue 0 │ next: Blue hand")
    text = "\n".join(lines)
    assert "┌─ OLED" in text and "Red peg 3" in text and "[ 0] r b g y: play" in text and "space:" in text and "Blue hand" in text
    help_width = choose_plan(sim.devices.layout, 80, 24).help[2]
    assert all(line in text for line in help_lines(help_width)) and "mock board keys:" in text


def test_the_score_line_names_the_dealer_who_deals_now(tmp_path):
    """After the first deal's show, Blue deals, and the score line says so (not the first dealer)."""
    board = Simulator(load_config(), tmp_path / "l.sqlite3")
    try:
        for action in ("turn 4", "click knob", "turn 4", "click knob", "turn 2", "click knob"):
            board.act(*action.split())
        line = compose(board, 80, 24, colour=False).lines()[0]
        assert "Blue 4 (deals)" in line and "Red 6 ·" in line and "deal 2" in line
    finally:
        board.close()


def test_every_fifth_hole_is_labelled_over_its_hole():
    """Each label is a multiple of 5, written centred over the column of that hole on the row above its band."""
    layout = load_layout("classic-121")
    geometry = board_geometry(layout, 2)
    labels = {text for _, _, text in geometry.labels}
    assert labels == {str(n) for n in range(5, 121, 5)}
    for row, col, text in geometry.labels:
        hole = layout.tracks[0][int(text) - 1]
        hole_row, hole_col = geometry.cells[hole.led]
        assert col <= hole_col < col + len(text) and row < hole_row


def test_only_changed_cells_are_sent_and_they_rebuild_the_screen(sim):
    """After one score changes the update is a small part of a full repaint, and applied to the old screen gives the new."""
    sim.act("turn", "3")
    sim.act("click", "red")
    before = compose(sim, 80, 24, colour=True)
    sim.act("turn", "2")
    sim.act("click", "blue")
    after = compose(sim, 80, 24, colour=True)
    update = changes(before, after)
    assert 0 < len(update.encode()) * 10 < len(full_paint(after).encode())
    terminal = Emulator(80, 24)
    terminal.feed(full_paint(before))
    terminal.feed(update)
    assert terminal.lines() == after.lines()
    assert changes(after, after) == ""


def test_a_new_size_repaints_everything(sim):
    """The screen repaints whole after a resize, sends nothing when nothing changed, and fits the new size."""
    sizes = iter([(80, 24), (80, 24), (120, 40)])
    out = io.StringIO()
    screen = TerminalScreen(out, lambda: next(sizes), colour=True)
    screen.paint(sim)
    screen.paint(sim)
    screen.paint(sim)
    assert screen.written[1] == 0
    assert out.getvalue().count("\x1b[2J") == 2 and screen.last.width == 120


def test_the_canvas_cuts_text_at_its_edges():
    """Text past the right or bottom edge is dropped, not wrapped."""
    canvas = Canvas(5, 2)
    canvas.text(0, 3, "abcdef")
    canvas.text(2, 0, "xyz")
    assert canvas.lines() == ["   ab", ""]


def test_help_readme_and_screen_show_the_same_keys(capsys):
    """docs/mock-board.md's key table, --help and the screen's help list the same keys for the same things."""
    from firmware.cli import main

    keys_section = section(doc_text("docs/mock-board.md"), "The terminal board")
    rows = [line.strip("|").split("|") for line in keys_section.splitlines() if line.startswith("| ")][1:]
    table = [(" ".join(cell.replace("`", "").split()), does.strip()) for cell, does in rows]
    assert [keys for keys, _ in table] == [keys for keys, _ in key_help()]
    assert all(does.startswith(short) for (_, does), (_, short) in zip(table, key_help()))
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for keys, does in key_help():
        assert re.search(rf"^  {re.escape(keys)} +{re.escape(does)}$", out, re.M), keys
        assert f"{keys} {does}" in HELP
    named = {key for keys, _ in key_help() for key in keys.split()}
    assert {"space" if k == " " else k for k in KEYS if k not in "\r\n="} <= named


def test_non_interactive_input_prints_the_final_board(tmp_path, monkeypatch):
    """Keys from a pipe: the board is printed plainly (no escapes) before and after."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    out = io.StringIO()
    assert run_terminal(load_config(), tmp_path / "l.sqlite3", stdin=io.StringIO("..rr"), stdout=out) == 0
    text = out.getvalue()
    assert "\x1b" not in text and "Red 2 (deals) · Blue 0" in text


# ---- through a pseudo-terminal, as a person would run it ---------------------

def _set_size(fd: int, columns: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def _read_until(fd: int, terminal: Emulator, wanted, seconds: float = 20.0) -> list[str]:
    """Feed the board's output to the emulator until ``wanted(lines)`` holds."""
    end = time.monotonic() + seconds
    pending = b""
    while time.monotonic() < end:
        if wanted(terminal.lines()):
            return terminal.lines()
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                pending += os.read(fd, 65536)
            except OSError:
                break
            text = pending.decode("utf-8", "ignore")
            cut = len(text.encode("utf-8"))
            pending = pending[cut:]
            terminal.feed(text)
    pytest.fail("the board did not show it in time:\n" + "\n".join(terminal.lines()))


@pytest.mark.slow
def test_the_board_at_80x24_through_a_pseudo_terminal(tmp_path):
    """The real command in a pseudo-terminal at 80x24: pegs show on the score line, a resize to 60x20 asks for 80x24, q quits."""
    main_fd, child_fd = pty.openpty()
    _set_size(child_fd, 80, 24)
    env = {**os.environ, "TERM": "xterm-256color"}
    board = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli", "--backend", "mock", "--state", str(tmp_path / "l.sqlite3")],
        stdin=child_fd, stdout=child_fd, stderr=subprocess.DEVNULL, cwd=ROOT, env=env, start_new_session=True,
    )
    os.close(child_fd)
    try:
        terminal = Emulator(80, 24)
        _read_until(main_fd, terminal, lambda lines: lines[0].startswith("Red 0 (deals)"))
        os.write(main_fd, b"...")
        time.sleep(0.3)
        os.write(main_fd, b"b")
        lines = _read_until(main_fd, terminal, lambda lines: lines[0].startswith("Red 0 (deals) · Blue 3"))
        assert any("Blue peg 3" in line for line in lines) and all(len(line) <= 80 for line in lines)
        _set_size(main_fd, 60, 20)
        os.kill(board.pid, signal.SIGWINCH)
        terminal = Emulator(60, 20)
        _read_until(main_fd, terminal, lambda lines: "at least 80x24" in " ".join(lines))
        os.write(main_fd, b"q")
        assert board.wait(timeout=20) == 0
    finally:
        if board.poll() is None:
            board.kill()
            board.wait()
        os.close(main_fd)


@pytest.mark.parametrize("width", range(HELP_MIN_WIDTH, 201))
def test_the_key_help_breaks_lines_between_items_only(width):
    """At any width the help is given (beside the OLED, or 80 and more below it) each item of the key help ("r b g y peg points; heels: dealer at 0") is on one line,
    no line is wider than the room, and the lines read as the one-paragraph help."""
    lines = help_lines(width)
    assert all(len(line) <= width for line in lines)
    assert " ".join(lines) == f"mock board {HELP}"
    for keys, does in key_help():
        assert any(f"{keys} {does}" in line for line in lines), (width, keys)


def test_the_80x24_key_help_keeps_every_item_whole(sim):
    """On the 80x24 screen itself every key and what it does are on the same line."""
    lines = compose(sim, 80, 24, colour=False).lines()
    for keys, does in key_help():
        assert any(f"{keys} {does}" in line for line in lines), keys


def test_the_game_hole_is_drawn_apart_from_the_skunk_lines(sim):
    """At 80x24 the game hole is ◦, as docs/mock-board.md says, and the skunk lines' marks are •; a peg
    in the game hole is drawn as a peg."""
    from firmware.board.pc.terminal import led_cell

    layout = sim.devices.layout
    plan = choose_plan(layout, 80, 24)
    geometry = board_geometry(layout, plan.hx)
    canvas = compose(sim, 80, 24, colour=True)
    row, col = geometry.cells[layout.game_hole.led]
    assert canvas.rows[1 + row][col][0] == "◦"  # the board starts below the score line
    faint = [canvas.rows[1 + r][c][0] for led, (r, c) in geometry.cells.items() if led != layout.game_hole.led]
    assert faint.count("•") >= 2 and "◦" not in faint  # the skunk and double skunk lines
    page = doc_text("docs/mock-board.md")
    assert "• a faint mark such as a skunk line" in page and "◦ the game hole" in page
    assert led_cell((0, 0, 0), True, game_hole=True)[0] == "◦"
    assert led_cell((255, 0, 0), True, game_hole=True)[0] == "●"


# ---- the key help follows the screen ------------------------------------------

def _to_screen(sim, where):
    """Drive the mock board to a screen: the game's own, the menu, check my count (cards, or the
    count checked), naming a player, the phone view or game over."""
    from scorer.game import Entry

    if where == "menu":
        sim.act("hold", "knob")
    elif where == "check my count":
        sim.act("hold", "menu")
    elif where == "count checked":
        sim.act("hold", "menu")
        for button in ("red", "blue", "green", "yellow", "red"):  # 5C 5D 5H 5S, then 6C
            sim.act("click", button)
            sim.act("turn", "1")
    elif where == "naming a player":
        sim.act("hold", "knob")
        sim.act("turn", "8")  # Players
        sim.act("click", "knob")
        sim.act("click", "knob")  # red's name
    elif where == "phone view":
        sim.act("hold", "knob")
        sim.act("turn", "9")  # Phones
        sim.act("click", "knob")
        sim.act("turn", "-1")  # Phone view
        sim.act("click", "knob")
    elif where == "game over":
        for _ in range(9):
            sim.store.apply(Entry.peg("Red", 15))
        assert sim.board.controller.game.is_over


@pytest.mark.parametrize("where", ["", "menu", "check my count", "count checked", "naming a player",
                                   "phone view", "game over"])
def test_the_key_help_follows_the_screen_at_80x24(sim, where):
    """At 80x24 the help names the screen and lists its keys whole, each on one line, under 80 columns;
    the game's keys (dial ±1) are only on the game's own screen."""
    from firmware.board.pc.terminal import SCREEN_KEYS, screen_keys

    _to_screen(sim, where)
    assert screen_keys(sim.board.look())[0] == where
    lines = compose(sim, 80, 24, colour=False).lines()
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
    text = "\n".join(lines)
    keys = SCREEN_KEYS[where] if where else tuple(key_help())
    assert f"mock board {where + ' ' if where else ''}keys:" in text
    for item_keys, does in keys:
        assert any(f"{item_keys} {does}" in line for line in lines), (where, item_keys)
    assert ("dial ±1" in text) == (where == "")


def test_the_menus_help_says_how_to_leave(sim):
    """In the menu the help says what leaves it: m or u back, M (hold the knob) out of the menus."""
    _to_screen(sim, "menu")
    text = "\n".join(compose(sim, 80, 24, colour=False).lines())
    assert "m u back" in text and "M leave the menu" in text and "move (it wraps)" in text
    sim.act("hold", "knob")
    assert sim.board.controller.panels == []


@pytest.mark.parametrize("oled, terminal", [
    ("hold knob: new game", "press M: new game"),
    ("Game over: hold the knob for a new game", "Game over: press M for a new game"),
    ("knob: crib, undo: del", "space: crib, u: del"),
    ("knob: Red hand > Red crib", "space: Red hand > Red crib"),
    ("turn: rank; button: suit", ", .: rank; r b g y: suit"),
    ("turn: items, knob: done", ", .: items, space: done"),
    ("colour: claim 2", "r b g y: claim 2"),
    ("red:C, blue:D, green:H, yellow:S", "r:C, b:D, g:H, y:S"),
    ("undo: del, menu: cancel", "u: del, m: cancel"),
    ("turn to a letter, then press the knob", "press , . to a letter, then press space"),
    ("Dial the missed points first, then hold the button", "Dial the missed points first, then press R B G Y"),
    ("A crib has 4 cards: undo one first", "A crib has 4 cards: take one back first (u)"),
    ("The starter is 5H already: undo takes cards back", "The starter is 5H already: u takes cards back"),
    ("red: Ann", "red: Ann"),  # a button's name in the Players menu stays
    ("Undone: Red peg 2", "Undone: Red peg 2"),
])
def test_oled_texts_name_the_keys_on_the_terminal(oled, terminal):
    """A text of the OLED that names a physical control names the key that does it on the terminal board."""
    from firmware.board.pc.terminal import on_keys

    assert on_keys(oled) == terminal


@pytest.mark.parametrize("where, shown, hidden", [
    ("game over", "press M: new game", "hold knob"),
    ("check my count", "space: crib, u: del", "knob:"),
    ("naming a player", "u: del, m: cancel", "undo:"),
    ("", "[ 0] r b g y: play", "knob:"),
])
def test_the_oled_box_says_the_keys_at_80x24(sim, where, shown, hidden):
    """The OLED's box on the 80x24 terminal says the keys, not the knob and buttons; the board's OLED keeps its words."""
    _to_screen(sim, where)
    text = "\n".join(compose(sim, 80, 24, colour=False).lines())
    assert shown in text and hidden not in text
    screen = sim.board.oled_screen()
    assert hidden in " ".join((screen.big_caption, screen.footer))


# ---- the dial: its steps on screen, and typed numbers ---------------------------

def test_typed_digits_dial_the_number_they_make(sim):
    """1 then 4 dials 14; a number past the dial's top starts again from its last digit; any
    other key, or a dial changed since, starts a new number."""
    from firmware.board.pc.terminal import TypedDial

    typed = TypedDial()
    controller = sim.board.controller
    for key in "14":
        assert typed.key(key, sim)
    assert controller.dial == 14
    typed.key("7", sim)
    assert controller.dial == 7  # 147 is past 60: the 7 alone
    assert not typed.key("r", sim)
    typed.key("3", sim)
    assert controller.dial == 3
    sim.act("turn", "1")
    typed.key("2", sim)
    assert controller.dial == 2  # the knob turned since: a new number, not 42
    typed.key("0", sim)
    assert controller.dial == 20


def test_digits_do_nothing_in_the_menu(sim):
    """In the menu a digit neither moves the cursor nor dials."""
    from firmware.board.pc.terminal import TypedDial

    sim.act("hold", "knob")
    before = sim.board.oled_screen()
    assert TypedDial().key("5", sim)
    assert sim.board.oled_screen() == before and sim.board.controller.dial == 0


def test_typed_points_are_pegged_from_the_terminal(tmp_path, monkeypatch):
    """Typing 1 4 then r on the terminal board pegs 14 to Red."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    out = io.StringIO()
    assert run_terminal(load_config(), tmp_path / "l.sqlite3", stdin=io.StringIO("14r"), stdout=out) == 0
    assert "Red 14 (deals) · Blue 0" in out.getvalue()


def test_the_help_gives_the_dial_steps_and_typing(sim):
    """The game's key help says what a step of each dial key is, and that digits type a number."""
    text = "\n".join(compose(sim, 80, 24, colour=False).lines())
    for item in (", . - + arrows dial ±1", "< > dial ±5", "0-9 type the number"):
        assert item in text


def test_check_my_count_gives_one_instruction_for_the_suits(sim):
    """Check my count names the suits' buttons once (in the OLED box), not again beside it."""
    sim.act("hold", "menu")
    lines = compose(sim, 80, 24, colour=False).lines()
    text = "\n".join(lines)
    assert text.count("r:C") == 1 and "r C" not in text and "starter's suit" not in text


LAYOUT_GAMES = {"classic-121": (), "three-track-121": ("game.variant=three-hand",),
                "four-track-121": ("game.variant=four-hand",)}


@pytest.mark.parametrize("name", sorted(LAYOUT_GAMES))
@pytest.mark.parametrize("size", [(80, 24), (110, 36)])
def test_the_board_s_marks_have_a_legend(tmp_path, name, size):
    """Beside the board, in words: what a peg, a back peg, a skunk line and the game hole look like."""
    from firmware.board.pc.terminal import LEGEND

    board = Simulator(load_config(overrides=[*LAYOUT_GAMES[name], f'leds.layout="{name}"']), tmp_path / "l.sqlite3")
    try:
        lines = compose(board, *size, colour=False).lines()
        assert any(LEGEND in line for line in lines)
        assert len(lines) == size[1] and all(len(line) <= size[0] for line in lines)
    finally:
        board.close()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_score_line_is_shortened_on_purpose_never_cut_at_80_columns(variant):
    """Every variant with its seats' names 9 letters long, at the cut and at game over: the line fits 80
    columns and ends in a whole word: the variant and deal shortened first ("4-hand, deal 1, cut"), then
    the dealer's mark, the tail, and last the names ("Alexa.")."""
    rules = find_variant(variant)
    names = ["Alexandra", "Bartholom", "Cassandra", "Demetrius"][:rules.players]
    played = Game(rules, names, dealer=names[0])
    views = [GameView.of(played)]
    while not played.is_over:
        played.push(Entry.peg(played.seats[1], 12))
    views.append(GameView.of(played))
    for view in views:
        line = score_line(view, 80)
        middle = won_text(view) if view.outcome is not None else next_text(view)
        endings = ("the cut", "cut", "game over", "over", middle, middle.rpartition(" wins ")[2])
        assert len(line) <= 80 and not line.endswith("…") and line.endswith(endings), line
        if len(score_line(view)) > 80:
            short = {"three": "3", "four": "4", "five": "5", "six": "6", "seven": "7"}
            tail = "-".join(short.get(word, word) for word in variant.split("-"))
            assert f" │ {tail}, deal 1, " in line or line.endswith(endings), line
