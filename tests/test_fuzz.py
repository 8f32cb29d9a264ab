"""Property-based fuzzing of the command line's entry points: whatever the input,
exit 0, or exit 2 with one line on standard error; never a traceback, never a hang."""

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from firmware.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "tests" / "data" / "example-game.txt"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))  # more for a deeper search, e.g. 2000
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
FEW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def invoke(argv, stdin: bytes = b""):
    """main(argv) in this process with the standard streams captured: (code, out, err)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def check(code, err):
    """Exit 0, or 2 with exactly one line on standard error; no traceback either way."""
    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err


def argument(data: bytes) -> str:
    """Bytes as the program sees a command-line argument (no NUL; not UTF-8 escaped)."""
    return data.replace(b"\0", b"").decode("utf-8", "surrogateescape")


# ---- strategies -------------------------------------------------------------

arguments = st.binary(max_size=40).map(argument) | st.text(max_size=40).map(lambda t: t.replace("\0", ""))
numbers = st.one_of(
    st.integers(-5, 40).map(str),
    st.integers().map(str),
    st.just("9" * 30),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["1e400", "nan", "-0", "+3", "1_000", "\u0663", "0x10", ""]),
)
seats = st.sampled_from(["A", "B", "Bob", "a", "C", "x" * 50, "A\0", "A\x1b[2J", "\u00e9"])
record_lines = st.one_of(
    st.builds(
        lambda variant, names, extra: f"game {variant} seats={','.join(names)} {extra}",
        st.sampled_from(["six-card", "five-card", "three-hand", "four-hand", "low-ball", "bogus"]),
        st.lists(seats, min_size=0, max_size=5),
        st.sampled_from(["", "dealer=A", "target=61", "target=99999999999999", "muggins", "skunk=x", "points=1/2/3"]),
    ),
    st.builds(lambda verb, seat, n: f"{verb} {seat} {n}",
              st.sampled_from(["peg", "hand", "muggins", "crib"]), seats, numbers),
    st.builds(lambda verb, seat: f"{verb} {seat}", st.sampled_from(["go", "31", "heels"]), seats),
    st.sampled_from(["undo", "redo", "heels", "crib 4", "# comment", "", "status", "quit"]),
    st.text(max_size=30),
)


def record(lines) -> bytes:
    return "\n".join(lines).encode("utf-8", "surrogatepass")


records = st.one_of(
    st.lists(record_lines, max_size=12).map(record),
    st.binary(max_size=200),
    st.builds(lambda head, junk: head + junk, st.just(b"game six-card seats=A,B\n"), st.binary(max_size=100)),
)
# Waits really sleep: valid ones stay short, the rest are out of range or not numbers.
waits = st.one_of(
    st.floats(0, 0.005).map(repr),
    st.floats().filter(lambda f: not 0 <= f <= 60).map(repr),
    st.integers(61).map(str),
    st.sampled_from(["0", "1e400", "nan", "inf", "-0.5", "x", "", "1_0", "\u0663"]),
)
script_lines = st.one_of(
    st.builds(lambda verb, button: f"{verb} {button}",
              st.sampled_from(["click", "press", "hold", "down", "up", "tap"]),
              st.sampled_from(["red", "blue", "knob", "undo", "menu", "purple", ""])),
    st.builds(lambda n: f"turn {n}", st.one_of(st.integers(-4, 4).map(str), numbers)),
    st.builds(lambda n: f"wait {n}", waits),
    st.text(max_size=20),
)
scripts = st.one_of(
    st.lists(script_lines, max_size=6).map(record),
    st.binary(max_size=100),
)
toml_junk = st.one_of(
    st.binary(max_size=200),
    st.lists(st.sampled_from(["[", "]", "{", "}", "=", '"', "'", ".", ",", "\n", " ", "a", "1", "#",
                              "[game]", "[leds]", "gamma", "players", "pin", "\xff"]), max_size=60)
    .map(lambda parts: "".join(parts).encode("utf-8")),
    st.builds(lambda depth, key: f"{key} = {'[' * depth}{']' * depth}\n".encode(),
              st.integers(1, 3000), st.sampled_from(["x", "backend", "[leds]\ngamma"])),
)


# ---- the fuzz tests ---------------------------------------------------------

@pytest.mark.slow
@FUZZ
@given(data=records)
@example(data=b"game six-card seats=A\xff,B\n")  # not UTF-8
@example(data=b"game six-card seats=A,B\npeg A 99999999999999999999\n")  # a huge number
@example(data=b"game six-card seats=A,B\npeg A " + b"9" * 5000 + b"\n")  # past int's digit limit
@example(data=b"game six-card seats=A\0,B\n")  # a NUL
@example(data=b"game six-card seats=A,B\n# " + b"x" * (5 * 1024 * 1024))  # past the size cap
def test_replay_any_record(data):
    """replay - : any bytes on standard input give a state or one line and exit 2."""
    code, out, err = invoke(["replay", "-", "--json"], data)
    check(code, err)


@pytest.mark.slow
@FUZZ
@given(data=records)
@example(data=b"game six-card seats=A,Bob\npeg Bob 99999999999999999999\npeg Bob \xff\xfe 2\n")
@example(data=b"game six-card seats=A,B\npeg A\0 2\n\0\0\0")
@example(data=b"x" * 100_000 + b"\nstatus\n")  # a huge line, then a good one
def test_console_any_lines(data, tmp_path_factory):
    """console: any bytes as typed lines are refused line by line; the session ends cleanly."""
    state = tmp_path_factory.mktemp("console") / "ledger.sqlite3"
    code, out, err = invoke(["console", "--state", str(state)], data)
    check(code, err)
    assert code == 0, err  # a bad line is refused in the session, not fatal


@pytest.mark.slow
@FUZZ
@given(data=scripts)
@example(data=b"turn 1000000000\n")  # ran for ever
@example(data=b"turn -1000000000\n")
@example(data=b"wait 1e400\n")
@example(data=b"wait nan\n")
@example(data=b"turn 1001\n")
@example(data=b"wait 60\n" * 6)  # 360 s in all, past the total
@example(data=b"click red\xff\n")
def test_simulate_any_script(data, tmp_path_factory):
    """simulate: any script runs (briefly) or is refused with file:line and exit 2."""
    script = tmp_path_factory.mktemp("script") / "s.txt"
    script.write_bytes(data)
    code, out, err = invoke(["simulate", str(script), "--json"])
    check(code, err)
    if code == 2 and "larger than" not in err and "not UTF-8" not in err:
        assert err.startswith(f"{script}:"), err


@pytest.mark.slow
@FUZZ
@given(data=toml_junk)
@example(data=b"x = " + b"[" * 5000 + b"]" * 5000)  # nested thousands deep
@example(data=b"[game]\nplayers = [" + b"[" * 200 + b'"a"' + b"]" * 200 + b"]")
@example(data=b"a = 1\n\xff\xfe = 2\n")  # not UTF-8
@example(data=b"#" * (300 * 1024))  # past the size cap
def test_config_any_file(data, tmp_path_factory):
    """--config: any file is a working config or one line and exit 2."""
    folder = tmp_path_factory.mktemp("config")
    path = folder / "config.toml"
    path.write_bytes(data)
    code, out, err = invoke(["--config", str(path), "console", "--state", str(folder / "l.sqlite3")])
    check(code, err)


@pytest.mark.slow
@FUZZ
@given(key=st.sampled_from(["leds.gamma", "game.players", "game.dealer", "inputs.red", "x", "", "leds"]),
       value=arguments | st.integers(1, 3000).map(lambda n: "[" * n))
@example(key="leds.gamma", value="[" * 400)
@example(key="game.dealer", value="\udcff")
@example(key="leds.gamma", value="2\nx = 1")
def test_set_any_value(key, value, tmp_path_factory):
    """--set: any value is used or refused in one line, before or after the command."""
    state = tmp_path_factory.mktemp("set") / "l.sqlite3"
    for argv in (["--set", f"{key}={value}", "console", "--state", str(state)],
                 ["console", "--state", str(state), "--set", f"{key}={value}"]):
        code, out, err = invoke(argv)
        check(code, err)


@pytest.mark.slow
@FUZZ
@given(cards=st.lists(arguments | st.sampled_from(["5H", "10D", "TD", "js", "AS", "KC", "5H"]), max_size=8),
       starter=arguments | st.sampled_from(["5C", "JH", "5H"]), crib=st.booleans())
@example(cards=["5" * 100_000], starter="5H", crib=False)
@example(cards=["5\udcff"], starter="5H", crib=False)
def test_count_and_pegging_any_cards(cards, starter, crib):
    """count and pegging: any card arguments give points or one line and exit 2."""
    code, _, err = invoke(["count", *cards, "--starter", starter] + (["--crib"] if crib else []))
    check(code, err)
    code, _, err = invoke(["pegging", *cards, "--go"])
    check(code, err)


@FEW
@given(options=st.lists(st.sampled_from(["--state", "--config", "--set", "--backend", "--headless"]),
                        min_size=1, max_size=3, unique=True),
       command=st.sampled_from(["count", "pegging", "replay", "board-template"]), before=st.booleans())
def test_options_a_command_does_not_use_are_refused(options, command, before, tmp_path_factory):
    """An option the command does not use is refused in one line, wherever it is written."""
    values = {"--state": ["x.sqlite3"], "--config": ["c.toml"], "--set": ["leds.gamma=2"],
              "--backend": ["mock"], "--headless": []}
    words = [word for option in options for word in (option, *values[option])]
    rest = {"count": ["5H", "5D", "5S", "JC", "--starter", "5C"], "pegging": ["5H"],
            "replay": [str(EXAMPLE)], "board-template": ["-o", str(tmp_path_factory.mktemp("t") / "b.svg")]}
    argv = words + [command] + rest[command] if before else [command] + rest[command] + words
    code, out, err = invoke(argv)
    check(code, err)
    assert code == 2 and f"{command} does not use" in err and out == ""


# ---- real processes ---------------------------------------------------------

def command(*argv, **kwargs):
    return subprocess.run([sys.executable, "-m", "firmware.cli", *argv], capture_output=True,
                          cwd=ROOT, timeout=60, **kwargs)


def test_closed_pipe_is_quiet():
    """replay --json into a reader that has gone: no BrokenPipeError, exit 141 as cat does."""
    reader = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    reader.wait()
    result = subprocess.run([sys.executable, "-m", "firmware.cli", "replay", str(EXAMPLE), "--json"],
                            stdout=reader.stdin, stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    reader.stdin.close()
    assert result.returncode == 141 and result.stderr == b""


def test_head_of_the_output_is_quiet():
    """A closed pipe, ``... | head -1``, through a shell: the first line and nothing on stderr."""
    result = subprocess.run(f"{sys.executable} -m firmware.cli replay {EXAMPLE} --json | head -1",
                            shell=True, capture_output=True, cwd=ROOT, timeout=60)
    assert result.stdout == b"{\n" and result.stderr == b""


@pytest.mark.slow
def test_real_process_hostile_inputs(tmp_path):
    """Bytes that are not UTF-8 on a real standard input, a huge turn and a deep config: one line, exit 2."""
    console = command("console", "--state", str(tmp_path / "l.sqlite3"),
                      input=b"game six-card seats=A\xff,B\ngame six-card seats=A,B\npeg A 2\n")
    assert console.returncode == 0 and b"not UTF-8" in console.stdout and b"ok: A peg 2" in console.stdout
    (tmp_path / "turn.txt").write_text("turn 1000000000\n")
    simulate = command("simulate", str(tmp_path / "turn.txt"))
    assert simulate.returncode == 2 and simulate.stderr.decode().strip() == (
        f"{tmp_path / 'turn.txt'}:1: use turn N, N from -1000 to 1000 detents (negative turns back)")
    (tmp_path / "deep.toml").write_text("x = " + "[" * 5000 + "]" * 5000)
    deep = command("--config", str(tmp_path / "deep.toml"), "simulate", str(tmp_path / "turn.txt"))
    assert deep.returncode == 2 and deep.stderr.decode().count("\n") == 1
    assert b"nested too deeply" in deep.stderr and b"Traceback" not in deep.stderr


@pytest.mark.parametrize("arg", ["5\udcff", "\udcff" * 3])
def test_real_process_card_argument_not_utf8(arg):
    """A card argument that is not UTF-8 (as a shell passes it): one line, exit 2."""
    result = command("pegging", arg)
    assert result.returncode == 2 and result.stderr.count(b"\n") == 1 and b"is not a card" in result.stderr
