"""firmware.cli.command: the board's options mean the same before or after the command; --version."""

import io
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from firmware.board import loop as app
from firmware.cli import main
from firmware.cli.command import parse_args

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = '["Ann","Ben"]'


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def places(options: list[str], command: list[str]):
    """The options before the command, and after it."""
    return [options + command, command + options]


@pytest.mark.parametrize("where", ["before", "after"])
def test_console_state_config_and_set_anywhere(tmp_path, monkeypatch, capsys, where):
    """console uses --state, and the config's ledger, whichever side of the command they are on."""
    state = tmp_path / "mine.sqlite3"
    config = tmp_path / "config.toml"
    config.write_text(f'state = "{tmp_path / "from-config.sqlite3"}"\n')
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "default"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("game six-card seats=A,B\npeg A 2\n"))
    before, after = places(["--state", str(state)], ["console"])
    code, out, err = run(capsys, *(before if where == "before" else after))
    assert code == 0, err
    assert f"ledger {state}\n" in out and state.exists()
    assert not (tmp_path / "default").exists()
    monkeypatch.setattr(sys, "stdin", io.StringIO("status\n"))
    before, after = places(["--config", str(config)], ["console"])
    code, out, err = run(capsys, *(before if where == "before" else after))
    assert code == 0 and f"ledger {tmp_path / 'from-config.sqlite3'}\n" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("status\n"))
    before, after = places(["--set", f"state={tmp_path / 'from-set.sqlite3'}"], ["console"])
    code, out, err = run(capsys, *(before if where == "before" else after))
    assert code == 0 and f"ledger {tmp_path / 'from-set.sqlite3'}\n" in out


def test_state_written_before_console_reaches_the_ledger(tmp_path):
    """The issue's case, in a real process: --state FILE console writes FILE, not the default ledger."""
    state = tmp_path / "ledger.sqlite3"
    result = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "--state", str(state), "console"],
        input="game six-card seats=A,B\npeg A 3\n", capture_output=True, text=True, cwd=ROOT, timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home")})
    assert result.returncode == 0, result.stderr
    assert state.exists() and not (tmp_path / "home").exists()


@pytest.mark.parametrize("where", ["before", "after", "both"])
def test_simulate_config_set_and_state_anywhere(tmp_path, capsys, where):
    """simulate takes --config, --set and --state on either side; --set from both sides all apply."""
    script = tmp_path / "s.txt"
    script.write_text("click red\n")
    config = tmp_path / "config.toml"
    config.write_text('[game]\nplayers = ["Cat", "Dan"]\n')
    state = tmp_path / "sim.sqlite3"
    options = ["--config", str(config), "--state", str(state), "--set", f"game.players={PLAYERS}"]
    if where == "before":
        argv = options + ["simulate", str(script), "--json"]
    elif where == "after":
        argv = ["simulate", str(script), "--json"] + options
    else:  # the dealer set before, the players after: both kept
        argv = ["--set", "game.dealer=Ben", "simulate", str(script), "--json"] + options
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    result = json.loads(out)
    assert [side["name"] for side in result["sides"]] == ["Ann", "Ben"]
    assert state.exists()
    if where == "both":
        assert result["dealer"] == "Ben"


def test_config_before_simulate_is_not_dropped(tmp_path, capsys):
    """A bad --set before simulate is seen (it used to be dropped)."""
    code, out, err = run(capsys, "--set", "leds.gamma=9", "simulate", "/dev/null")
    assert code == 2 and err.strip() == (
        "cribbage-board: --set leds.gamma=9: [leds] gamma = 9: must be a number from 1 to 3")


def test_after_the_command_wins(tmp_path):
    """The same option on both sides: the one after the command wins; defaults never overwrite."""
    args = parse_args(["--state", "a", "--config", "c1", "simulate", "s", "--state", "b"])
    assert (args.state, args.config, args.set) == ("b", "c1", [])
    args = parse_args(["--backend", "mock", "--headless", "simulate", "s"])
    assert args.backend == "mock" and args.headless
    args = parse_args(["--set", "a.b=1", "console", "--set", "c.d=2"])
    assert args.set == ["a.b=1", "c.d=2"] and not hasattr(args, "set_after")


def test_board_uses_every_option(tmp_path, monkeypatch, capsys):
    """The board (mock, headless) opens the ledger --state names, with the config and --set given."""
    seen = {}

    def run_once(board):
        seen.update(players=board.config.game.players, state=Path(board.store.path),
                    gamma=board.config.leds.gamma)
        return 0
    monkeypatch.setattr(app.Board, "run", run_once)
    config = tmp_path / "config.toml"
    config.write_text('[leds]\ngamma = 2.5\n')
    state = tmp_path / "board.sqlite3"
    code, out, err = run(capsys, "--backend", "mock", "--headless", "--state", str(state),
                         "--config", str(config), "--set", f"game.players={PLAYERS}")
    assert code == 0, err
    assert seen == {"players": ("Ann", "Ben"), "state": state, "gamma": 2.5}


@pytest.mark.parametrize("argv, name", [
    (["count", "5H", "5D", "5S", "JC", "--starter", "5C", "--state", "x"], "state"),
    (["--state", "x", "count", "5H", "5D", "5S", "JC", "--starter", "5C"], "state"),
    (["--config", "c", "pegging", "5H"], "config"),
    (["replay", "r.txt", "--set", "a.b=1"], "set"),
    (["--backend", "mock", "console"], "backend"),
    (["console", "--headless"], "headless"),
])
def test_an_option_the_command_does_not_use_is_refused(capsys, argv, name):
    """Refused in one line naming the option and where it works, exit 2."""
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and f"does not use --{name}: --{name} is used by" in err


def test_simulate_refuses_the_real_backend(capsys):
    """simulate always runs the mock board: --backend real is refused in one line."""
    for argv in (["--backend", "real", "simulate", "s"], ["simulate", "s", "--backend", "real"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and err.strip() == "cribbage-board: simulate always runs the mock board: leave out --backend real"


def test_help_shows_the_options_where_they_work(capsys):
    """--help lists the board's options at the top and on the commands that use them only."""
    for argv, shown, hidden in (
        (["--help"], ["--state", "--config", "--set", "--backend", "--headless", "--version"], []),
        (["console", "--help"], ["--state", "--config", "--set"], ["--backend", "--headless"]),
        (["simulate", "--help"], ["--state", "--config", "--set", "--backend", "--headless"], []),
        (["count", "--help"], [], ["--state", "--config", "--set", "--backend", "--headless"]),
    ):
        code, out, _ = run(capsys, *argv)
        assert code == 0
        assert all(option in out for option in shown) and not any(option in out for option in hidden)


def test_version(capsys):
    """--version prints the installed package version."""
    code, out, err = run(capsys, "--version")
    assert code == 0 and out == f"cribbage-board {version('cribbage-board')}\n"


def test_usage_errors_are_one_line(capsys):
    """argparse's own errors are one line too, exit 2."""
    code, out, err = run(capsys, "count", "--bogus")
    assert code == 2 and err.count("\n") == 1 and "unrecognized arguments: --bogus" in err


VALUES = {"--state": ("state", "l.sqlite3"), "--config": ("config", "c.toml"), "--set": ("set", "a.b=1"),
          "--backend": ("backend", "mock"), "--headless": ("headless", None)}
USED = {"console": {"--state", "--config", "--set"}, "simulate": set(VALUES)}


@pytest.mark.parametrize("command", ["console", "simulate"])
@pytest.mark.parametrize("option", list(VALUES))
@pytest.mark.parametrize("where", ["before", "after"])
def test_every_option_on_either_side(capsys, command, option, where):
    """Each option before or after console and simulate: the same value, or the same one-line refusal."""
    dest, value = VALUES[option]
    given = [option] + ([value] if value else [])
    rest = [command] + (["s.txt"] if command == "simulate" else [])
    argv = given + rest if where == "before" else rest + given
    if option in USED[command]:
        args = parse_args(argv)
        assert getattr(args, dest) == ([value] if dest == "set" else value or True)
    else:
        with pytest.raises(SystemExit) as stop:
            parse_args(argv)
        assert stop.value.code == 2
        assert capsys.readouterr().err == (
            f"cribbage-board: {command} does not use {option}: {option} is used by "
            + ("the board and simulate (mock only)\n" if option == "--backend"
               else "the board with --backend mock, and simulate\n"))


@pytest.mark.parametrize("option", list(VALUES))
def test_every_option_for_the_board(option):
    """The board (no command) takes every option."""
    dest, value = VALUES[option]
    args = parse_args([option] + ([value] if value else []))
    assert args.command is None and getattr(args, dest) == ([value] if dest == "set" else value or True)


def test_the_console_on_a_pipe_answers_each_line_before_the_next_is_sent(tmp_path):
    """A program driving `console` through pipes, with Python's output buffered as it is by default
    (no PYTHONUNBUFFERED), reads each line's answer before it sends the next: nothing waits in a buffer."""
    import os
    import selectors

    from waits import CEILING_S

    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    env["PYTHONPATH"] = str(ROOT)
    console = subprocess.Popen([sys.executable, "-m", "firmware.cli", "console", "--state", str(tmp_path / "l.sqlite3")],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    selector = selectors.DefaultSelector()
    selector.register(console.stdout, selectors.EVENT_READ)

    def read_until(marker: bytes) -> bytes:
        got = b""
        while marker not in got:
            assert selector.select(CEILING_S), f"no {marker!r} within {CEILING_S} s: {got!r}"
            chunk = os.read(console.stdout.fileno(), 4096)
            assert chunk, f"the console ended: {got!r}"
            got += chunk
        return got

    try:
        read_until(b"status  export  help  quit")  # its help, before it waits for the first line
        for line, answer in ((b"game six-card seats=Ann,Bob dealer=Ann\n", b"show: Bob hand"),
                             (b"peg Bob 2\n", b"ok: Bob peg 2")):
            console.stdin.write(line)
            console.stdin.flush()
            read_until(answer)
    finally:
        console.stdin.close()
        console.wait(CEILING_S)
