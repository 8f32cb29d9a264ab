"""firmware.cli.parser: the command line's one argparse parser, its commands, options and defaults."""

import contextlib
import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.cli.command import parse_args
from firmware.cli.parser import BOARD_OPTIONS, COMMANDS, USES, WHERE, build_parser

BOARD_DEFAULTS = {"backend": None, "config": None, "headless": False, "set": [], "state": None}
# Each command's shortest line, and what it parses to beside BOARD_DEFAULTS: every default.
SHORTEST = {
    "console": (["console"], {}),
    "simulate": (["simulate", "x.txt"], {"script": "x.txt", "json": False, "snapshots": None}),
    "replay": (["replay", "x.txt"], {"file": "x.txt", "json": False, "export": False}),
    "salvage": (["salvage", "x.txt"], {"wal": "x.txt", "base": None, "output": None,
                                           "time_limit": 10.0}),
    "count": (["count", "5H"], {"cards": ["5H"], "starter": None, "crib": False, "distribution": False,
                                 "hand_size": 4, "json": False}),
    "coach": (["coach", "5H"], {"cards": ["5H"], "dealer": False, "pone": False, "json": False}),
    "pegging": (["pegging", "5H"], {"cards": ["5H"], "go": False, "json": False}),
    "board-template": (["board-template", "-o", "b.svg"], {"layout": "classic-121", "target": 121,
                                                            "game_counters": 0, "paper": None, "output": "b.svg"}),
    "controls-card": (["controls-card", "-o", "c.pdf"], {"output": "c.pdf"}),
    "wiring": (["wiring", "-o", "w.svg"], {"output": "w.svg"}),
    "web": (["web"], {"host": "0.0.0.0", "port": None}),
    "club-network": (["club-network"], {"drop_in": None}),
    "first-boot": (["first-boot"], {"boot": "/boot/firmware"}),
    "hub": (["hub", "--broker", "mqtt://b", "--club", "c"],
            {"broker": "mqtt://b", "club": "c", "host": "127.0.0.1", "port": 8122, "username": None,
             "password_file": None, "ca_file": None, "night": None, "players": None, "tables": None, "rounds": 9,
             "points": "acc", "skunk": "acc"}),
}
# Each command's own options: (flags, what is given after them, the value parsed).
OPTIONS = {
    "simulate": [(["--json"], [], True), (["--snapshots"], ["d"], "d")],
    "replay": [(["--json"], [], True), (["--export"], [], True)],
    "salvage": [(["--base"], ["b"], "b"), (["-o", "--output"], ["o"], "o"), (["--time-limit"], ["2.5"], 2.5)],
    "count": [(["--starter"], ["5C"], "5C"), (["--crib"], [], True), (["--distribution"], [], True),
              (["--hand-size"], ["5"], 5), (["--json"], [], True)],
    "coach": [(["--dealer"], [], True), (["--pone"], [], True), (["--json"], [], True)],
    "pegging": [(["--go"], [], True), (["--json"], [], True)],
    "board-template": [(["--layout"], ["four-track-121"], "four-track-121"), (["--target"], ["61"], 61),
                       (["--game-counters"], ["3"], 3), (["--paper"], ["letter"], "letter"),
                       (["-o", "--output"], ["b.pdf"], "b.pdf")],
    "controls-card": [(["-o", "--output"], ["x.pdf"], "x.pdf")],
    "wiring": [(["-o", "--output"], ["x.svg"], "x.svg")],
    "web": [(["--host"], ["127.0.0.1"], "127.0.0.1"), (["--port"], ["8000"], 8000)],
    "club-network": [(["--drop-in"], ["d.conf"], "d.conf")],
    "first-boot": [(["--boot"], ["/media/RASPIFIRM"], "/media/RASPIFIRM")],
    "hub": [(["--broker"], ["mqtts://h:8883"], "mqtts://h:8883"), (["--club"], ["x"], "x"),
            (["--host"], ["0.0.0.0"], "0.0.0.0"), (["--port"], ["9000"], 9000), (["--username"], ["u"], "u"),
            (["--password-file"], ["p"], "p"), (["--ca-file"], ["ca"], "ca"), (["--night"], ["n"], "n"),
            (["--players"], ["A,B"], "A,B"), (["--tables"], ["1,2"], "1,2"), (["--rounds"], ["3"], 3),
            (["--points"], ["casual"], "casual"), (["--skunk"], ["none"], "none")],
}
BOARD_GIVEN = {"backend": (["mock"], "mock"), "config": (["c.toml"], "c.toml"), "set": (["a.b=1"], ["a.b=1"]),
               "state": (["l.sqlite3"], "l.sqlite3"), "headless": ([], True)}


def outcome(argv: list[str]):
    """What parse_args makes of a line: its namespace, or the exit status and what was printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            return vars(parse_args(argv))
        except SystemExit as stop:
            return stop.code, out.getvalue(), err.getvalue()


def test_every_command_is_declared_and_has_its_defaults():
    """The commands, in the order the help lists them, and each one's shortest line with every default."""
    assert list(COMMANDS) == list(SHORTEST)
    for name, (line, values) in SHORTEST.items():
        assert outcome(line) == {**BOARD_DEFAULTS, "command": name, **values}, name
    assert outcome([]) == {**BOARD_DEFAULTS, "command": None}


@pytest.mark.parametrize("name", list(OPTIONS))
def test_every_option_of_every_command_is_read(name):
    """Each flag of each command's own options, after the command, takes its value as typed."""
    line, values = SHORTEST[name]
    for flags, typed, value in OPTIONS[name]:
        for flag in flags:
            parsed = outcome(line + [flag, *typed])
            assert isinstance(parsed, dict), (flag, parsed)
            assert parsed == {**BOARD_DEFAULTS, "command": name, **values, flags[-1].lstrip("-").replace("-", "_"): value}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_board_options_before_and_after_each_command(name):
    """Each board option before or after a command: taken where the command uses it, else refused in one line."""
    line, values = SHORTEST[name]
    for option in BOARD_OPTIONS:
        given, value = BOARD_GIVEN[option]
        for argv in ([f"--{option}", *given, *line], [*line, f"--{option}", *given]):
            parsed = outcome(argv)
            if option in USES[name]:
                assert parsed == {**BOARD_DEFAULTS, "command": name, **values, option: value}, argv
            else:
                assert parsed == (2, "", f"cribbage-board: {name} does not use --{option}: --{option} is used by "
                                         f"{WHERE[option]}\n"), argv


@pytest.mark.parametrize("argv, message", [
    (["count", "5H", "--json", "5D"], "unrecognized arguments: 5D"),
    (["replay", "a.txt", "b.txt"], "unrecognized arguments: b.txt"),
    (["replay"], "cribbage-board replay: the following arguments are required: file"),
    (["pegging", "--go"], "cribbage-board pegging: the following arguments are required: cards"),
    (["wiring"], "the following arguments are required: -o/--output"),
    (["bogus"], "argument COMMAND: invalid choice: 'bogus' (choose from 'console', 'simulate', "),
    (["--state"], "argument --state: expected one argument"),
    (["--backend", "bogus"], "argument --backend: invalid choice: 'bogus' (choose from 'real', 'mock')"),
    (["count", "--hand-size", "6"], "argument --hand-size: invalid choice: 6 (choose from 3, 4, 5)"),
    (["web", "--port", "x"], "argument --port: invalid int value: 'x'"),
    (["count", "--starter", "--json"], "argument --starter: expected one argument"),
    (["--s", "x"], "ambiguous option: --s could match --set, --state"),
    (["count", "--version"], "unrecognized arguments: --version"),
])
def test_lines_argparse_refuses_are_one_line(argv, message):
    """A line argparse refuses: exit 2, one line on standard error that says why and where to look."""
    code, out, err = outcome(argv)
    assert (code, out) == (2, "") and err.count("\n") == 1 and message in err, err
    assert err.rstrip().endswith("--help)")


@pytest.mark.parametrize("argv, values", [
    (["--st", "l.sqlite3"], {"state": "l.sqlite3"}),
    (["--state=l.sqlite3", "console", "--set=a.b=1"], {"command": "console", "state": "l.sqlite3", "set": ["a.b=1"]}),
    (["count", "--star", "5C", "--", "5H"], {"command": "count", "starter": "5C", "cards": ["5H"]}),
    (["replay", "-", "--export"], {"command": "replay", "file": "-", "export": True}),
])
def test_argparses_own_spellings_are_taken(argv, values):
    """Abbreviations, --option=value, -- and - (standard input) read as argparse reads them."""
    parsed = outcome(argv)
    assert isinstance(parsed, dict) and {key: parsed[key] for key in values} == values, parsed


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["count", "-h"], ["hub", "--help"], ["--version"]])
def test_help_and_version_exit_0_on_standard_output(argv):
    """--help (the program's or a command's) and --version print on standard output and exit 0."""
    code, out, err = outcome(argv)
    assert code == 0 and out and err == ""


def test_a_line_builds_only_the_command_it_names(monkeypatch):
    """A command's arguments are added when argparse picks it, or shows its help: no other command's."""
    built = []
    for name, (help, uses, arguments) in COMMANDS.items():
        def recorded(parser, name=name, arguments=arguments):
            built.append(name)
            arguments(parser)
        monkeypatch.setitem(COMMANDS, name, (help, uses, recorded))
    assert outcome(["count", "5H", "--starter", "5C"])["starter"] == "5C" and built == ["count"]
    built.clear()
    assert outcome(["--state", "l.sqlite3"])["command"] is None and built == []
    assert outcome(["--help"])[0] == 0 and built == []
    assert outcome(["replay", "--help"])[0] == 0 and built == ["replay"]


def test_the_top_level_help_lists_every_command_and_where_board_options_work():
    """cribbage-board --help lists each command with its line, and says where each board option works."""
    text = " ".join(build_parser().format_help().split())
    for name, (help, _, _) in COMMANDS.items():
        assert f"{name} {' '.join(help.split())}" in text, name
    for option in BOARD_OPTIONS:
        assert f"used by {' '.join(WHERE[option].split())}" in text, option


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_commands_help_shows_the_board_options_it_uses_and_no_other(name):
    """A command's --help shows the board options it takes, and hides the others."""
    code, out, _ = outcome([name, "--help"])
    assert code == 0
    for option in BOARD_OPTIONS:
        listed = re.search(rf"^ +--{option}\b", out, re.MULTILINE) is not None
        assert listed == (option in USES[name]), (name, option)


def test_every_declared_command_has_a_function_to_run_it():
    """A command declared without its own function would start the board: only simulate (the
    board on a script) is run by the board's."""
    from firmware.cli.command import _board, _runner

    assert [name for name in COMMANDS if _runner(name) is _board] == ["simulate"]


def test_where_names_the_commands_that_use_each_board_option():
    """The help and refusals say where each board option works: exactly the commands that use it."""
    for option in BOARD_OPTIONS:
        named = set(re.findall(r"[a-z][a-z-]*", WHERE[option]))
        for name in COMMANDS:
            assert (name in named) == (option in USES[name]), (option, name)


def test_the_hubs_skunk_choices_are_the_scorers():
    """hub --skunk offers exactly SkunkLines' values: spelled out in the parser, which imports no
    scorer module, and held to its owner here."""
    from scorer.variants import SkunkLines

    for value in (lines.value for lines in SkunkLines):
        assert outcome(["hub", "--broker", "b", "--club", "c", "--skunk", value])["skunk"] == value
    code, _, err = outcome(["hub", "--broker", "b", "--club", "c", "--skunk", "bogus"])
    choices = re.search(r"choose from (.*)\)", err).group(1)
    assert code == 2 and sorted(re.findall(r"'([^']*)'", choices)) == sorted(lines.value for lines in SkunkLines)


NAMES = [[name] for name in COMMANDS]
FLAGS = sorted({flag for options in OPTIONS.values() for flags, _, _ in options for flag in flags}
               | {f"--{option}" for option in BOARD_OPTIONS} | {"--version"})
VALUES = ["-", "", "-5", "04", "x", "bogus", "a.b=1", "7", "5H", "x.txt", "mock", "real", "a4", "none"]
OTHERS = ["--", "--star", "--js", "--hand-size=4", "--state=x", "--s", "--h", "-h", "--help", "-ox.pdf"]


@pytest.mark.slow  # a few hundred lines, each parsed by a parser built for it
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(NAMES), st.sampled_from([[flag] for flag in FLAGS]),
                          st.sampled_from([[flag, value] for flag in FLAGS for value in VALUES]),
                          st.sampled_from([[token] for token in VALUES + OTHERS])), max_size=8)
       .map(lambda pieces: [token for piece in pieces for token in piece]))
def test_any_line_is_a_namespace_or_a_clean_exit(argv):
    """Any line built from the commands, flags and values, good and bad: a namespace with a known
    command, or exit 0 with output (help, version), or exit 2 with one line on standard error."""
    parsed = outcome(argv)
    if isinstance(parsed, dict):
        assert parsed["command"] in (None, *COMMANDS)
        assert {key: parsed[key] for key in BOARD_DEFAULTS}.keys() == BOARD_DEFAULTS.keys()
    else:
        code, out, err = parsed
        assert (code == 0 and out and not err) or (code == 2 and not out and err.count("\n") == 1), parsed


def test_the_parser_module_names_what_it_builds():
    """COMMANDS and USES agree: every command has its board options, the board uses them all."""
    assert USES[None] == BOARD_OPTIONS and set(USES) == {None, *COMMANDS}
    assert all(set(USES[name]) <= set(BOARD_OPTIONS) for name in COMMANDS)
