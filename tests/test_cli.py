"""The cribbage-board command line: replay, count, pegging, the terminal board."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from docs_text import doc_text, section
from helpers import LAYOUT_CASES, layout_path

from firmware.board.pc.console import run_console
from firmware.cli import main
from scorer.limits import MAX_LINE

from waits import no_hang

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "tests" / "data" / "example-game.txt"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_json_of_the_readme_example(capsys):
    """docs/record.md's example game replays to a finished game, Alice skunking Bob."""
    code, out, err = run(capsys, "replay", str(EXAMPLE), "--json")
    assert code == 0, err
    state = json.loads(out)
    assert state["winner"] == "Alice" and state["result"] == "skunk"
    assert state["phase"] == "over" and state["next"] is None
    assert [(s["name"], s["score"]) for s in state["sides"]] == [("Alice", 121), ("Bob", 73)]
    assert state["game_points"] == 3
    assert [r["line"] for r in state["rejected"]] == [22, 28, 42]


def test_the_record_page_example_is_the_test_file():
    """The example game in docs/record.md is the one the tests replay."""
    assert EXAMPLE.read_text().strip() in section(doc_text("docs/record.md"), "An example game")


def test_replay_syntax_error_exits_2_with_file_and_line(tmp_path, capsys):
    """A line of bad syntax: exit 2 and file:line: message."""
    record = tmp_path / "bad.txt"
    record.write_text("game six-card seats=A,B\npeg A 2\npeg A two\n")
    code, out, err = run(capsys, "replay", str(record), "--json")
    assert code == 2
    assert err.strip() == f"{record}:3: peg: points must be a whole number, not 'two'"


def test_replay_missing_file_is_a_clear_error(tmp_path, capsys):
    """A file that cannot be read: exit 2 and a one-line message."""
    code, out, err = run(capsys, "replay", str(tmp_path / "nope.txt"))
    assert code == 2 and "cannot read" in err and "Traceback" not in err


def test_replay_summary_and_export(capsys):
    """Without --json a short summary; --export the ledger's record, which replays the same."""
    code, out, _ = run(capsys, "replay", str(EXAMPLE))
    assert code == 0 and "Alice wins by 48, a skunk (3 game points)" in out
    code, exported, _ = run(capsys, "replay", str(EXAMPLE), "--export")
    code, first, _ = run(capsys, "replay", str(EXAMPLE), "--json")
    sys.stdin = io.StringIO(exported)
    try:
        code, again, _ = run(capsys, "replay", "-", "--json")
    finally:
        sys.stdin = sys.__stdin__
    first, again = json.loads(first), json.loads(again)
    first.pop("rejected"), again.pop("rejected")
    assert first == again


def test_count_says_the_29_hand(capsys):
    """count prints the breakdown the way players say it."""
    code, out, _ = run(capsys, "count", "5H", "5D", "5S", "JC", "--starter", "5C")
    assert code == 0 and out.strip().endswith("a double pair royal is 28 and nobs is 29")


def test_count_json_and_crib(capsys):
    """--json gives total and items; --crib applies the crib flush rule."""
    code, out, _ = run(capsys, "count", "2H", "4H", "6H", "8H", "--starter", "QS", "--json")
    data = json.loads(out)
    assert data["total"] == 4 and data["items"] == [
        {"kind": "flush", "points": 4, "cards": ["2H", "4H", "6H", "8H"]}]
    code, out, _ = run(capsys, "count", "2H", "4H", "6H", "8H", "--starter", "QS", "--crib", "--json")
    assert json.loads(out) == {"total": 0, "items": []}


@pytest.mark.parametrize("argv, message", [
    (["count", "5H", "5D", "5S", "JC", "--starter", "5H"], "5H is given twice"),
    (["count", "5H", "5D", "5S", "XC", "--starter", "5C"], "'XC' is not a card"),
    (["pegging", "KH", "KS", "KD", "KC"], "KC makes 40, past 31"),
])
def test_card_errors_exit_2_with_a_message(capsys, argv, message):
    """Bad cards exit 2 with a one-line message naming the card."""
    code, out, err = run(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_count_distribution_json(capsys):
    """--distribution prints every total 0-29 with its exact count."""
    code, out, _ = run(capsys, "count", "--distribution", "--json")
    data = json.loads(out)
    assert list(data) == [str(n) for n in range(30)]
    assert sum(data.values()) == 12_994_800
    assert data["19"] == data["25"] == data["26"] == data["27"] == 0
    assert data["29"] == 4


def test_pegging_json(capsys):
    """pegging prints the points for the last card played."""
    code, out, _ = run(capsys, "pegging", "10H", "5S", "--json")
    assert json.loads(out) == {
        "points": 2, "items": [{"kind": "fifteen", "points": 2, "cards": ["10H", "5S"]}]}
    code, out, _ = run(capsys, "pegging", "10H", "5S", "5D")
    assert out.strip() == "a pair is 2"


def test_console_keeps_score_and_resumes(tmp_path):
    """The terminal board takes record lines, refuses bad ones, and resumes after quitting."""
    state = tmp_path / "ledger.sqlite3"
    out = io.StringIO()
    run_console(str(state), io.StringIO("game six-card seats=Alice,Bob\npeg Bob 2\nhand Alice 4\nhand Bob 19\nhand Bob 4\n"), out)
    text = out.getvalue()
    assert "! Bob counts next" in text and "! 19 is not a possible hand" in text
    out = io.StringIO()
    run_console(str(state), io.StringIO("status\nundo\nquit\n"), out)
    text = out.getvalue()
    assert "  Bob      6  (back 2)" in text  # resumed: Bob's peg 2 and hand 4 are still there
    assert "undo: Bob hand 4" in text
    assert text.rstrip().endswith("show: Bob hand > Alice hand > Alice crib")


def test_console_command_runs_with_no_input(tmp_path):
    """The installed command starts the terminal board and exits cleanly at end of input."""
    result = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "console", "--state", str(tmp_path / "l.sqlite3")],
        input="game six-card seats=A,B\npeg A 3\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "ok: A peg 3" in result.stdout and "A    3  (back 0)" in result.stdout


def test_ci_runs_the_readme_test_command():
    """.ci/run calls exactly the test command the README gives."""
    readme = (ROOT / "README.md").read_text()
    command = readme.split("Run the tests:")[1].split("```sh\n")[1].split("\n```")[0]
    assert command in (ROOT / ".ci" / "run").read_text()


def test_count_and_pegging_load_only_the_counting():
    """count and pegging import neither the config, nor the ledger, nor the game, nor the other
    commands' modules and error classes."""
    import subprocess
    import sys

    probe = (
        "import sys; from firmware.cli import main; "
        "main(['count', '5H', '5D', '5S', 'JC', '--starter', '5C']); main(['pegging', '10H', '5S']); "
        "heavy = ('firmware.config', 'ledger.writer', 'ledger.reader', 'scorer.game', 'scorer.record', 'tomllib', 'sqlite3', 'PIL', "
        "'hardware.errors', 'ledger.errors', 'firmware.errors', 'firmware.cli.drawings', 'firmware.cli.card', "
        "'scorer.distribution', 'json'); "
        "print('LOADED', sorted(m for m in sys.modules if m in heavy))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert "LOADED []" in out, out


def _loaded_without_site(code: str) -> tuple[str, set[str]]:
    """What ``code`` prints and the modules it loads, in a fresh python without ``site``:
    this venv's editable finder imports re and more at start."""
    probe = f"import sys; before = set(sys.modules); {code}; print('LOADED', sorted(set(sys.modules) - before))"
    out = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT)}).stdout
    printed, loaded = out.split("LOADED ", 1)
    return printed, set(json.loads(loaded.replace("'", '"')))


def test_count_and_replay_start_without_dataclasses():
    """replay loads no dataclasses (nor the inspect and ast it pulls in), nor the board's config
    or the ledger, and without --json no json; count not even the game."""
    _, replay = _loaded_without_site(f"from firmware.cli import main; main(['replay', {str(EXAMPLE)!r}, '--json'])")
    assert "scorer.record" in replay and "json" in replay  # the probe ran the replay
    heavy = replay & {"dataclasses", "inspect", "ast", "firmware.config", "ledger.writer", "sqlite3"}
    assert not heavy, heavy
    _, summary = _loaded_without_site(f"from firmware.cli import main; main(['replay', {str(EXAMPLE)!r}])")
    assert "scorer.record" in summary
    heavy = summary & {"dataclasses", "inspect", "ast", "json"}
    assert not heavy, heavy
    _, count = _loaded_without_site("from firmware.cli import main; main(['count', '5H', '5D', '5S', 'JC', '--starter', '5C'])")
    assert "scorer.counting" in count
    heavy = count & {"dataclasses", "inspect", "ast", "json", "scorer.game", "scorer.distribution"}
    assert not heavy, heavy


def test_the_command_is_the_packages_entry_point():
    """pip installs the cribbage-board command from [project.scripts]: firmware.cli's main, whose
    return is the exit status (one line on standard error and 2 for a line it refuses)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["scripts"] == {"cribbage-board": "firmware.cli:main"}
    assert "script-files" not in project["tool"]["setuptools"] and not (ROOT / "bin").exists()
    launch = "import sys; from firmware.cli import main; sys.exit(main())"  # what pip's wrapper does
    done = subprocess.run([sys.executable, "-c", launch, "count", "5H", "5D", "5S", "JC", "--starter", "5C"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip().endswith("is 28 and nobs is 29"), done.stderr
    failed = subprocess.run([sys.executable, "-c", launch, "count", "5H"], capture_output=True, text=True)
    assert failed.returncode == 2 and failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr


def test_version_is_the_packages_without_metadata():
    """--version prints firmware.__version__, which pyproject.toml gives the package, and loads
    no importlib.metadata."""
    import tomllib

    import firmware

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["dynamic"] == ["version"] and "version" not in project["project"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "firmware.__version__"}
    printed, loaded = _loaded_without_site("from firmware.cli import main; main(['--version'])")
    assert printed == f"cribbage-board {firmware.__version__}\n"
    assert "importlib.metadata" not in loaded, loaded


def _help(capsys, *argv) -> str:
    assert main([*argv, "--help"]) == 0
    return capsys.readouterr().out


def test_only_the_boards_own_help_lists_the_mock_boards_keys(capsys):
    """cribbage-board --help ends with the mock board's keys; no command's --help does."""
    from firmware.board.pc.terminal import key_help
    from firmware.cli.parser import COMMANDS

    heading = "keys of the mock board in the terminal:"
    top = _help(capsys)
    assert heading in top and all(does in top for _, does in key_help())
    for command in COMMANDS:
        text = _help(capsys, command)
        assert text.startswith(f"usage: cribbage-board {command}")
        assert heading not in text and "muggins: hold" not in text, command


def test_console_help_says_what_to_type_with_an_example(capsys):
    """console --help gives the record's lines with examples, as the console's own help does,
    and names target=, skunk=none, numeric points= and new-match."""
    from firmware.board.pc.console import HELP

    text = _help(capsys, "console")
    assert HELP in text and "game six-card seats=Alice,Bob dealer=Alice" in text
    for named in ("target=N", "skunk=acc|lurch|triple|none", "points=acc|casual", "2/3/3", "new-match",
                  "exact-out", "muggins", "undo", "redo", "status", "export", "quit"):
        assert named in HELP, named
    assert max(len(line) for line in HELP.splitlines()) <= 80


def test_every_line_the_console_help_shows_is_taken():
    """The console's help documents only what the record takes: its example lines replay, each
    option it names is accepted in a game line, and each variant it lists is a variant."""
    import re

    from firmware.board.pc.console import HELP
    from scorer.record import parse_line, replay
    from scorer.variants import VARIANTS

    examples = [line.strip().split("  ")[0] for line in HELP.splitlines() if line.strip().startswith("game ")]
    assert len(examples) == 2
    for header in examples:
        result = replay([header, "heels", "peg Alice 2", "go Bob", "31 Alice", "hand Bob 8", "hand Alice 4",
                         "crib 4", "undo", "redo"])
        assert result.rejected == [], (header, result.rejected)
    game = replay([examples[1]]).book.game
    assert game.variant.target == 61 and game.options.skunk.value == "none"
    assert (game.options.points.win, game.options.points.skunk, game.options.points.double_skunk) == (2, 3, 3)
    for skunk in re.search(r"skunk=(\S+)", HELP).group(1).split("|"):
        for points in ("acc", "casual", "2/3/3", "1/2/3/4/2"):
            assert parse_line(f"game six-card seats=A,B skunk={skunk} points={points} target=31 exact-out muggins "
                              "new-match").new_match
    listed = HELP.split("variants:", 1)[1].split("heels", 1)[0].split()
    assert sorted(listed) == sorted(VARIANTS)


def test_count_with_nothing_names_every_missing_argument(capsys):
    """count alone names the cards and --starter; with one of them, the other."""
    for argv, missing in ((["count"], "the hand's CARDS (3, 4 or 5) and --starter CARD"),
                          (["count", "--starter", "5C"], "the hand's CARDS (3, 4 or 5),"),
                          (["count", "5H", "5D", "5S", "JC"], "--starter CARD,")):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert err.startswith(f"cribbage-board count: count needs {missing}")
        assert "e.g. count 5H 5D 5S JC --starter 5C" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("command, kind", [("controls-card", "a PDF"), ("wiring", "an SVG")])
def test_drawings_refuse_a_file_name_of_another_kind(capsys, tmp_path, command, kind):
    """controls-card -o x.txt (and wiring -o x.txt) refuse, and write nothing: no PDF named .txt."""
    out_file = tmp_path / "x.txt"
    code, out, err = run(capsys, command, "-o", str(out_file))
    assert code == 2 and not out_file.exists()
    assert err == f"cribbage-board: {command} writes {kind}: name it .{kind.split()[1].lower()}, not {out_file}\n"


def _readme_command(heading: str) -> str:
    readme = (ROOT / "README.md").read_text()
    return readme.split(heading)[1].split("```sh\n")[1].split("\n```")[0]


@pytest.mark.slow
def test_readme_plays_without_the_test_extra_and_tests_with_it():
    """The README's command to run the board installs the project alone; the test command the test
    extra; and nothing the board runs imports a package of the test extra."""
    import ast
    import tomllib

    play = _readme_command("Run the board")
    assert ".venv/bin/pip install -q -e . &&" in play and "[test]" not in play
    assert play.endswith(".venv/bin/cribbage-board --backend mock")
    assert ".venv/bin/pip install -q -e '.[test]' &&" in _readme_command("Run the tests:")
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    modules = {"zxingcpp" if name.startswith("zxing") else name
               for name in (spec.split(">")[0].split("=")[0].replace("-", "_") for spec in extra)}
    assert {"pytest", "hypothesis", "selenium", "zxingcpp"} <= modules
    sources = [p for room in ("scorer", "ledger", "hardware", "firmware") for p in (ROOT / room).rglob("*.py")]
    offenders = []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            offenders += [f"{path.relative_to(ROOT)}: {name}" for name in names if name.split(".")[0] in modules]
    assert not offenders, offenders


def test_coach_ranks_the_fifteen_discards(capsys):
    """coach --pone: the verdict in one line, a table of 15 throws, best first, every figure named and
    every minus sign U+2212, and a line that says what net is and what it assumes."""
    code, out, err = run(capsys, "coach", "5H", "5D", "JC", "6S", "7S", "KD", "--pone")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Throw JC KD: 8.2 net on average (hand 12.2, crib \u22124.0), 1.2 better than the next"
    assert lines[1].split() == ["throw", "keep", "net", "hand", "avg", "min", "max", "crib", "avg"]
    assert lines[2].split() == ["JC", "KD", "5D", "5H", "6S", "7S", "8.22", "12.22", "8", "17", "\u22124.00"]
    assert len(lines) == 18 and "pegging is not counted" in lines[17] and "six-card two-player" in lines[17]
    assert lines[17].startswith("Net: the hand's average less the crib's (the opponent's).")
    assert "-" not in "".join(lines[2:17]) and out.count("\u2212") >= 15


def test_coach_json_adds_the_crib_for_the_dealer(capsys):
    """coach --dealer --json: the crib's average is added; the assumptions are in the answer."""
    code, out, _ = run(capsys, "coach", "5H", "5D", "JC", "6S", "7S", "KD", "--dealer", "--json")
    data = json.loads(out)
    assert data["dealer"] is True and (data["starters"], data["cribs_per_starter"]) == (46, 990)
    assert "uniform" not in data["assumes"] and "each pair as likely" in data["assumes"]
    assert data["verdict"] == "Throw 6\u2660 7\u2660: 17.8 net on average (hand 12.4, crib +5.4), 1.6 better than the next"
    best = data["discards"][0]
    assert best["throw"] == ["6S", "7S"] and best["expected"] == pytest.approx(
        best["hand"]["average"] + best["crib"]["average"], abs=0.002)
    assert len(data["discards"]) == 15


@pytest.mark.parametrize("argv, message", [
    (["coach", "5H", "5D", "JC", "6S", "7S", "--dealer"],
     "cribbage-board coach: give the 6 cards dealt, not 5, e.g. coach 5H 5D JC 6S 7S KD --dealer"),
    (["coach", "5H", "5D", "JC", "6S", "7S", "KD", "2C", "--pone"],
     "cribbage-board coach: give the 6 cards dealt, not 7, e.g. coach 5H 5D JC 6S 7S KD --dealer"),
    (["coach", "5H", "5D", "JC", "6S", "7S", "5H", "--dealer"],
     "cribbage-board: 5H is given twice: each card is in the pack once"),
    (["coach", "5H", "5D", "JC", "6S", "7S", "KD"],
     "cribbage-board coach: say whose crib it is: --dealer (yours) or --pone (the opponent's)"),
    (["coach", "5H", "5D", "JC", "6S", "7S", "KD", "--dealer", "--pone"],
     "cribbage-board coach: say whose crib it is: --dealer (yours) or --pone (the opponent's)"),
])
def test_coach_refuses_in_one_line(capsys, argv, message):
    """Wrong card count, a card given twice, no side or both: one line, exit 2, nothing printed."""
    code, out, err = run(capsys, *argv)
    assert (code, out, err) == (2, "", message + "\n")


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



def test_simulate_huge_turn_exits_2_with_file_and_line(tmp_path, capsys):
    """turn 1000000000 (which ran for ever): file:line: message, exit 2."""
    script = tmp_path / "s.txt"
    script.write_text("click red\nturn 1000000000\n")
    code, out, err = run(capsys, "simulate", str(script))
    assert code == 2 and err == f"{script}:2: use turn N, N from -1000 to 1000 detents (negative turns back)\n"



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
