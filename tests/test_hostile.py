"""Hostile input, case by case: each is one clear line and exit 2 (or a refused
line in the console), and files are written only where the user said."""

import io
import json
import os
import tracemalloc

import pytest

from firmware.board.pc.console import run_console
from firmware.board.pc.script import MAX_ACTIONS, MAX_DETENTS, parse_script
from firmware.board.pc.simulator import write_in
from firmware.cli import main
from firmware.config import ConfigError, load_config
from hardware.errors import LayoutError
from hardware.layout import load_layout
from scorer.errors import RecordSyntaxError
from scorer.record import MAX_LINE, parse_line

from waits import no_hang


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- config and --set ---------------------------------------------------------

@pytest.mark.parametrize("data, message", [
    (b"a = 1\n\xff\xfe = 2\n", "not UTF-8 text (byte 7): save the config as UTF-8"),
    (b"x = " + b"[" * 5000 + b"]" * 5000, "not usable as the config: nested too deeply"),
    (b"#" * (300 * 1024), "the config is larger than 256 KB"),
    (b"[game]\nplayers = [" + b"[" * 200 + b"]" * 200 + b"]", "[game] players = [[[[...]]]]: must be"),
])
def test_config_file_that_cannot_be_used(tmp_path, data, message):
    """A config not UTF-8, nested thousands deep, huge, or with a deep value: a short ConfigError."""
    path = tmp_path / "config.toml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in str(caught.value) and len(str(caught.value)) < 300


def test_config_that_never_ends_is_capped():
    """/dev/zero as the config is refused at the size cap, not read for ever."""
    with pytest.raises(ConfigError, match="larger than 256 KB"):
        load_config("/dev/zero")


@pytest.mark.parametrize("override", [
    "leds.gamma=" + "[" * 400, "leds.gamma=" + "[" * 5000, "game.dealer=\udcff", "leds.gamma=2\nx=1",
    "game.dealer=" + "x" * 100_000,
])
def test_set_values_that_cannot_be_used(override):
    """--set deep, not UTF-8, more than one line, or huge: a ConfigError shorter than 300 characters."""
    with pytest.raises(ConfigError) as caught:
        load_config(None, [override])
    assert len(str(caught.value)) < 300


# ---- records and the console ------------------------------------------------

@pytest.mark.parametrize("line, message", [
    ("peg A 99999999999999999999", "peg: '99999999999999999999' is too large: at most 4 digits"),
    ("peg A " + "9" * 900, "is too large"),
    ("peg A \u0663", "peg: points must be a whole number, not '\u0663'"),
    ("peg A\0 2", "control character U+0000"),
    ("game six-card seats=A\x1b[2J,B", "control character U+001B"),
    ("game six-card seats=A\udcff,B", "control character U+DCFF"),
    ("# " + "x" * MAX_LINE, f"a record line has at most {MAX_LINE}"),
    ("x" * 5000, f"a record line has at most {MAX_LINE}"),
])
def test_record_lines_that_cannot_be_used(line, message):
    """Huge numbers, control characters and huge lines: a short RecordSyntaxError."""
    with pytest.raises(RecordSyntaxError) as caught:
        parse_line(line)
    assert message in str(caught.value) and len(str(caught.value)) < 200


def test_console_refuses_bad_bytes_line_by_line(tmp_path):
    """Bytes that are not UTF-8, a NUL, a huge number and a huge line are refused; the game goes on."""
    typed = (b"game six-card seats=A\xff,B\n" b"game six-card seats=A,Bob\n"
             b"peg Bob 99999999999999999999\n" b"peg A\0 2\n" + b"y" * 50_000 + b"\n" b"peg Bob 2\n")
    stdin = io.TextIOWrapper(io.BytesIO(typed), encoding="utf-8")
    out = io.StringIO()
    assert run_console(str(tmp_path / "l.sqlite3"), stdin, out) == 0
    said = [line for line in out.getvalue().splitlines() if line.startswith("!")]
    assert said == [
        "! that line is not UTF-8 text (byte 22): type it again",
        "! peg: '99999999999999999999' is too large: at most 4 digits",
        "! the line holds the control character U+0000: a record line is plain text",
        f"! that line is too long: a record line has at most {MAX_LINE} characters",
    ]
    assert "ok: Bob peg 2" in out.getvalue()


def test_replay_of_a_file_past_the_size_cap(tmp_path, capsys):
    """A record larger than 2 MB (or /dev/zero) is refused without being read whole."""
    for path in ("/dev/zero", tmp_path / "big.txt"):
        if path != "/dev/zero":
            path.write_bytes(b"game six-card seats=A,B\n" + b"# x\n" * (1024 * 1024 + 1))
        code, out, err = run(capsys, "replay", str(path))
        assert code == 2 and err.strip() == f"cribbage-board: {path} is larger than 2 MB: give a smaller file"


# ---- simulate scripts ---------------------------------------------------------

@pytest.mark.parametrize("script, line, message", [
    (["turn 1000000000"], 1, "use turn N, N from -1000 to 1000 detents"),
    (["click red", "turn -1001"], 2, "use turn N, N from -1000 to 1000 detents"),
    (["wait 61"], 1, "use wait SECONDS, from 0 to 60"),
    (["wait inf"], 1, "use wait SECONDS"),
    (["wait 60"] * 5 + ["wait 0.5"], 6, "the script waits more than 300 seconds in all: split it"),
    (["turn 1000"] * (MAX_DETENTS // 1000) + ["turn -1"], MAX_DETENTS // 1000 + 1,
     f"the script turns more than {MAX_DETENTS} detents in all: split it"),
    (["click red"] * (MAX_ACTIONS + 1), MAX_ACTIONS + 1, f"the script has more than {MAX_ACTIONS} actions"),
])
def test_script_bounds(script, line, message):
    """Each line and the whole script are bounded; past a bound, the line that passes it."""
    with pytest.raises(RecordSyntaxError, match=message) as caught:
        parse_script(script)
    assert caught.value.line == line


def test_script_at_the_bounds_is_accepted():
    """Exactly at the bounds is fine."""
    assert len(parse_script(["turn 1000", "turn -1000", "wait 60", "wait 0"])) == 4


def test_simulate_huge_turn_exits_2_with_file_and_line(tmp_path, capsys):
    """turn 1000000000 (which ran for ever): file:line: message, exit 2."""
    script = tmp_path / "s.txt"
    script.write_text("click red\nturn 1000000000\n")
    code, out, err = run(capsys, "simulate", str(script))
    assert code == 2 and err == f"{script}:2: use turn N, N from -1000 to 1000 detents (negative turns back)\n"


# ---- snapshots ----------------------------------------------------------------

def test_snapshots_never_follow_a_symlink(tmp_path, capsys):
    """A symlink planted as step-0001-leds.png: replaced by the PNG, the file it pointed at unchanged."""
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    folder = tmp_path / "snaps"
    folder.mkdir()
    (folder / "step-0001-leds.png").symlink_to(outside)
    (folder / "step-0000-oled.png").symlink_to(tmp_path / "not-there.png")
    script = tmp_path / "s.txt"
    script.write_text("click red\n")
    code, out, err = run(capsys, "simulate", str(script), "--snapshots", str(folder))
    assert code == 0, err
    assert outside.read_text() == "keep me" and not (tmp_path / "not-there.png").exists()
    shot = folder / "step-0001-leds.png"
    assert not shot.is_symlink() and shot.read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in folder.iterdir()) == [
        "step-0000-leds.png", "step-0000-oled.png", "step-0001-leds.png", "step-0001-oled.png"]


def test_snapshot_folder_that_is_a_symlink_or_a_file(tmp_path, capsys):
    """The folder itself a symlink or a file: one line, exit 2, nothing written."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "file").write_text("x")
    script = tmp_path / "s.txt"
    script.write_text("click red\n")
    for name, reason in (("link", "is a symbolic link"), ("file", "is not a folder")):
        code, out, err = run(capsys, "simulate", str(script), "--snapshots", str(tmp_path / name))
        assert code == 2 and err == f"cribbage-board: {tmp_path / name}: {reason}: " + (
            "give the folder itself\n" if name == "link" else "give a folder for the snapshots\n")
    assert list((tmp_path / "real").iterdir()) == [] and (tmp_path / "file").read_text() == "x"


def test_write_in_leaves_no_temporary_file_on_failure(tmp_path):
    """A name that is a folder cannot be replaced: the error shows and no temporary file is left."""
    (tmp_path / "shot.png").mkdir()
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(OSError):
            write_in(folder, "shot.png", b"data")
    finally:
        os.close(folder)
    assert [p.name for p in tmp_path.iterdir()] == ["shot.png"]


# ---- layout files ---------------------------------------------------------------

LAYOUT_CASES = {  # name: (what to put at the path, a piece of the one line said)
    "not UTF-8": (b'name = "\xff"\n', "not UTF-8 text (byte 9): save the layout as UTF-8"),
    "50 MB": (50 * 1024 * 1024, "the layout is larger than 256 KB: is it the right file?"),
    "nested 5,000 deep": (b"x = " + b"[" * 5000 + b"]" * 5000, "not usable as the layout: nested too deeply"),
    "/dev/zero": ("/dev/zero", "the layout is larger than 256 KB"),
    "a folder": ("folder", "cannot read the layout: it is a folder, not a file"),
    "missing": ("missing", "cannot read the layout: No such file or directory"),
    "a FIFO": ("fifo", "cannot read the layout: it is a pipe, not a file"),
}


def layout_path(tmp_path, case):
    """The path of a hostile layout case, made in tmp_path."""
    what = LAYOUT_CASES[case][0]
    path = tmp_path / "layout.toml"
    if what == "/dev/zero":
        return "/dev/zero"
    if isinstance(what, bytes):
        path.write_bytes(what)
    elif isinstance(what, int):
        with open(path, "wb") as file:  # really written, not sparse: 50 MB of TOML comments
            line = b"#" * 1023 + b"\n"
            for _ in range(what // 1024):
                file.write(line)
    elif what == "folder":
        path.mkdir()
    elif what == "fifo":
        os.mkfifo(path)  # no writer: a blocking open would wait for ever
    return str(path)



@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_load_layout_refuses_a_hostile_file(tmp_path, case):
    """load_layout itself: a LayoutError of one line naming the file, the reason and the
    bundled layouts; a huge file is not read whole, a FIFO or /dev/zero does not block."""
    path = layout_path(tmp_path, case)
    tracemalloc.start()
    try:
        with no_hang(), pytest.raises(LayoutError) as caught:
            load_layout(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and LAYOUT_CASES[case][1] in message
    assert message.endswith("(bundled layouts: classic-121, three-track-121, four-track-121)")
    assert "\n" not in message and len(message) < 300
    assert peak < 4 * 1024 * 1024, peak  # at most the 256 KB cap (and a little) was read


@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_layout_file_that_cannot_be_used(tmp_path, capsys, case):
    """The same files through the command line: board-template --layout, and --set leds.layout
    on the board and on simulate: one line naming the file, exit 2, nothing written."""
    path = layout_path(tmp_path, case)
    state = tmp_path / "ledger.sqlite3"
    for argv in (["board-template", "--layout", path, "-o", str(tmp_path / "b.svg")],
                 ["--backend", "mock", "--headless", "--state", str(state), "--set", f"leds.layout={path}"],
                 ["simulate", "/dev/null", "--set", f"leds.layout={path}"]):
        with no_hang():
            code, out, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1, (argv, err)
        assert f"{path}: " in err and LAYOUT_CASES[case][1] in err and "bundled layouts: classic-121" in err, err
        if "--set" in argv:
            assert err.startswith("cribbage-board: --set leds.layout=") and ": [leds] layout: " in err, err
    assert not (tmp_path / "b.svg").exists() and not state.exists()


@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_web_view_reads_the_layout_through_the_config(tmp_path, capsys, case):
    """The web view takes the board's layout from the config, read as the board reads it:
    the same one line and exit 2 for the config's hostile layout file, nothing blocks."""
    path = layout_path(tmp_path, case)
    config = tmp_path / "config.toml"
    config.write_text(f"[leds]\nlayout = {json.dumps(path)}\n")
    with no_hang():
        code, out, err = run(capsys, "web", "--config", str(config), "--state", str(tmp_path / "l.sqlite3"))
    assert code == 2 and err.count("\n") == 1 and not out, err
    assert f"{config}: [leds] layout: {path}: " in err and LAYOUT_CASES[case][1] in err, err


@pytest.mark.parametrize("make, message", [
    (os.mkfifo, "cannot read the config: it is a pipe, not a file: give the file itself"),
    (os.mkdir, "cannot read the config: it is a folder, not a file"),
])
def test_config_that_is_a_pipe_or_a_folder(tmp_path, make, message):
    """A FIFO with no writer (which blocked for ever) or a folder as the config: one ConfigError."""
    path = tmp_path / "config.toml"
    make(path)
    with no_hang(), pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: {message}"


def test_board_template_target_out_of_range(tmp_path, capsys):
    """--target past any game: one line, exit 2, nothing written."""
    code, out, err = run(capsys, "board-template", "--target", "99999999999999999999", "-o", str(tmp_path / "b.svg"))
    assert code == 2 and "use 31 to 1000" in err and not (tmp_path / "b.svg").exists()


def test_replay_gives_up_on_a_record_of_refusals(tmp_path, capsys):
    """Thousands of refused entries (not a game record): one line at the entry past the limit, exit 2."""
    record = tmp_path / "r.txt"
    record.write_text("game six-card seats=A,B\n" + "hand A 19\n" * 5000)
    code, out, err = run(capsys, "replay", str(record), "--json")
    assert code == 2 and err == f"{record}:1002: more than 1000 entries refused: is this the record of a game?\n"
