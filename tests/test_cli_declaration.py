"""One declaration of the command line: argparse's parser and the quick reader of plain lines agree."""

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.cli import command as command_line
from firmware.cli import quick
from firmware.cli.command import build_parser, parse_args
from firmware.cli.declaration import BOARD, COMMANDS, TOP_OPTIONS, WHERE
from firmware.cli.quick import quick_args


@pytest.fixture(scope="module", autouse=True)
def one_parser():
    """argparse's parser built once for these tests, not once a line: building it is nearly all
    of a line's time, and parsing leaves it as it was (each parse makes its own namespace)."""
    parser = build_parser()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command_line, "build_parser", lambda: parser)
        yield parser


def outcome(argv: list[str], quick: bool):
    """What parse_args makes of a line: its namespace, or the exit status and what was printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            return vars(parse_args(argv, quick=quick))
        except SystemExit as stop:
            return stop.code, out.getvalue(), err.getvalue()


def read_quickly(argv: list[str]) -> bool:
    """Whether the quick reader takes the line (a namespace, or --version done) rather than leave it to argparse."""
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            return quick_args(argv) is not None
        except SystemExit:
            return True


def sample(option) -> str:
    """A value the option takes."""
    if option.choices:
        return str(option.choices[-1])
    return "7" if option.type is int else "v.txt"


def given_option(option, flag: str) -> list[str]:
    """The flag, with a value if it takes one."""
    return [flag, sample(option)] if option.takes_value else [flag]


def shortest(command) -> list[str]:
    """The command with its positionals and required options, nothing else."""
    line = [command.name]
    if command.positional is not None:
        line.append("5H" if command.positional.count != 1 else "x.txt")
    for option in command.options:
        if option.required:
            line += given_option(option, option.flags[0])
    return line


def declared_lines():
    """Every command's shortest line, then with each flag of each of its options and of the
    board's (after the command, and before it), and the board's line with each of its options."""
    for command in COMMANDS:
        line = shortest(command)
        yield line
        for option in (*command.options, *BOARD):
            for flag in option.flags:
                yield line + given_option(option, flag)
                if option in BOARD:
                    yield given_option(option, flag) + line
    for option in (*TOP_OPTIONS, *BOARD):
        for flag in option.flags:
            yield given_option(option, flag)


@pytest.mark.parametrize("argv", list(declared_lines()), ids=" ".join)
def test_every_declared_option_is_read_quickly_as_argparse_reads_it(argv):
    """Each option of each command, and each of the board's on either side, takes the quick
    reader, and the line comes out as argparse reads it (or is refused the same way)."""
    assert read_quickly(argv)
    assert outcome(argv, quick=True) == outcome(argv, quick=False)


PLAIN = [
    [], ["--backend", "real"], ["--backend", "mock", "--headless", "--state", "l.sqlite3"],
    ["--config", "c.toml", "--set", "a.b=1", "--set", "c.d=2"], ["--version"],
    ["count", "5H", "5D", "5S", "JC", "--starter", "5C"], ["count", "--starter", "5C", "--crib", "--json", "5H"],
    ["count", "--distribution", "--hand-size", "5", "--json"], ["pegging", "10H", "5S", "--go"],
    ["coach", "5H", "5D", "JC", "6S", "7S", "KD", "--pone", "--json"],
    ["replay", "game.txt", "--json"], ["replay", "-", "--export"],
    ["--set", "a.b=1", "console", "--set", "c.d=2", "--state", "l.sqlite3"],
    ["--state", "a", "simulate", "s.txt", "--state", "b", "--json"],
    ["board-template", "--paper", "letter", "-o", "board.pdf", "--target", "61"],
    ["web", "--port", "8000", "--host", "127.0.0.1"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_everyday_lines_are_read_quickly_as_argparse_reads_them(argv):
    """The everyday lines take the quick reader, and it gives argparse's namespace."""
    assert read_quickly(argv)
    assert outcome(argv, quick=True) == outcome(argv, quick=False)


LEFT_TO_ARGPARSE = [
    ["count", "5H", "--json", "5D"], ["replay", "a.txt", "b.txt"], ["replay"], ["pegging", "--go"],
    ["console", "x.txt"], ["wiring"], ["board-template", "--paper", "a4"], ["bogus"], ["--state"],
    ["--backend", "bogus"], ["count", "--hand-size", "6"], ["web", "--port", "x"], ["count", "--starter", "--json"],
    ["--st", "x"], ["--state=x"], ["count", "-h"], ["--help"], ["count", "--", "5H"], ["count", "--version"],
]


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE, ids=" ".join)
def test_lines_that_are_not_plain_are_left_to_argparse(argv):
    """A line argparse refuses, or reads in its own ways (abbreviations, ``=``, ``--``, --help),
    is left to argparse, so it says what it says."""
    assert quick_args(argv) is None
    assert outcome(argv, quick=True) == outcome(argv, quick=False)


OPTIONS = [*TOP_OPTIONS, *BOARD, *(option for command in COMMANDS for option in command.options)]
VALUES = sorted({"-", "", "-5", "04", "x", "bogus", "a.b=1", "7", "5H", "x.txt"}
                | {str(choice) for option in OPTIONS for choice in option.choices or ()})
# Pieces of lines: the commands; every flag alone (a flag, or an option missing its value) and
# with each value, good or bad; values and positionals alone; and tokens argparse reads in its
# own ways (abbreviations, ``=``, ``--``, -h).
NAMES = [[command.name] for command in COMMANDS]
FLAGS = [[flag] + value for option in OPTIONS for flag in option.flags
         for value in ([[]] + [[value] for value in VALUES] if option.takes_value else [[]])]
OTHERS = [[value] for value in VALUES] + [
    [token] for token in ("--", "--star", "--js", "--hand-size=4", "--state=x", "--s", "--h", "-h", "--help", "-ox.pdf")]


@pytest.mark.slow  # 3 s serially at load 5 with one_parser (20 s building one a line): near 4 s at load 8
@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(NAMES), st.sampled_from(FLAGS), st.sampled_from(OTHERS)), max_size=8)
       .map(lambda pieces: [token for piece in pieces for token in piece]))
def test_quick_reader_agrees_with_argparse(argv):
    """Any line built from the declared names, flags and values, good and bad: the same
    namespace, or the same exit with the same words, with the quick reader or without it."""
    assert outcome(argv, quick=True) == outcome(argv, quick=False)


def test_the_quick_reader_has_no_table_of_its_own():
    """quick.py names no command, option, destination or choice: all it knows it reads from the
    declaration, so it cannot disagree with the argparse parser built from the same."""
    tree = ast.parse(Path(quick.__file__).read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef)) and ast.get_docstring(node)}
    strings = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
               and isinstance(node.value, str) and id(node) not in docstrings}
    declared = {command.name for command in COMMANDS} | {option.dest for option in OPTIONS} - {None}
    declared |= {flag for option in OPTIONS for flag in option.flags}
    declared |= {str(choice) for option in OPTIONS for choice in option.choices or ()}
    assert not strings & declared, strings & declared
    assert not [text for text in strings if text.startswith("-") and text != "-"]


def test_every_declared_command_has_a_function_to_run_it():
    """A command declared without its own function would start the board: only simulate (the
    board on a script) is run by the board's."""
    from firmware.cli.command import _board, _runner

    assert [command.name for command in COMMANDS if _runner(command.name) is _board] == ["simulate"]


def test_where_names_the_commands_that_use_each_board_option():
    """The help and refusals say where each board option works: exactly the commands that use it."""
    for option in BOARD:
        named = set(re.findall(r"[a-z][a-z-]*", WHERE[option.dest]))
        for command in COMMANDS:
            assert (command.name in named) == (option.dest in command.board), (option.dest, command.name)


def test_the_hubs_skunk_choices_are_the_scorers():
    """hub --skunk offers exactly SkunkLines' values: spelled out in the declaration, which imports
    no scorer module (``count`` starts without them), and held to its owner here."""
    from scorer.variants import SkunkLines

    options = {flag: option for command in COMMANDS for option in command.options for flag in option.flags}
    assert sorted(options["--skunk"].choices) == sorted(lines.value for lines in SkunkLines)
    assert options["--skunk"].default in options["--skunk"].choices
