"""Plain command lines read without argparse, from the declaration argparse's parser is built from.

argparse (with re, gettext, locale and shutil behind it, and a parser built
for every command) costs more than the interpreter's own start-up (issue 11;
the figures below). :func:`quick_args` reads only lines made of exact option
flags and plain values, and gives the namespace argparse would; for anything
else (--help, an abbreviation, ``--opt=value``, a value that starts with
``-``, a line argparse refuses) it returns None and the caller asks argparse,
which then says what argparse says. It knows no option, command or default
of its own: all of them come from :mod:`firmware.cli.declaration`, and
``tests/test_cli_declaration.py`` checks it against argparse on generated lines.
"""

from __future__ import annotations

import sys

from .declaration import BOARD, COMMANDS, TOP_OPTIONS
from .output import VERSION_LINE

# Measured 2026-12-04, installed copy (bench/README.md, "Start-up tricks"): without this reader, count is 3.16x
# python -c pass (bar 1.5x; 1.34x with it), replay 3.60x (bar 2x; 2.00x), READY 1.59x its baseline (bar 1.5x; 1.46x).

# types.SimpleNamespace, as types finds it: importing types takes replay from 2.00x to 2.02x python -c pass (bar 2x).
TYPE_CHECKING = False  # typing not imported: mypy reads it as True
if TYPE_CHECKING:
    from types import SimpleNamespace
else:
    SimpleNamespace = type(sys.implementation)

# flag -> Option: before the command (the program's and the board's options), and after each
# command (its own and the board's, which argparse takes there and parse_args refuses if unused).
_BEFORE = {flag: option for option in (*TOP_OPTIONS, *BOARD) for flag in option.flags}
_AFTER = {command.name: (command, {flag: option for option in (*command.options, *BOARD) for flag in option.flags})
          for command in COMMANDS}
_REFUSED = object()  # a value argparse would refuse


def _plain(token: str) -> bool:
    """A value argparse takes as it is: not an option (``-`` alone is standard input)."""
    return token == "-" or not token.startswith("-")


def _value(option, text: str):
    """``text`` converted and checked as argparse does it, or _REFUSED."""
    try:
        value = text if option.type is None else option.type(text)
    except (TypeError, ValueError):
        return _REFUSED
    if option.choices is not None and value not in option.choices:
        return _REFUSED
    return value


def quick_args(argv: list[str]) -> SimpleNamespace | None:
    """The parsed line when it is plain, as argparse would give it; else None. A plain
    ``--version`` before any command prints the version and exits, as argparse does."""
    values = {option.dest: option.initial() for option in BOARD}
    values["command"] = None
    command, flags = None, _BEFORE
    given: set[str] = set()
    positionals: list[str] = []
    runs = 0  # separate runs of positionals: argparse refuses a second
    version = after_positional = False
    k = 0
    while k < len(argv):
        token = argv[k]
        k += 1
        if _plain(token):
            if command is None:
                if token not in _AFTER:
                    return None
                command, flags = _AFTER[token]
                values["command"] = token
                values.update((option.dest, option.initial()) for option in command.options)
                after_positional = False
            else:
                runs += not after_positional
                positionals.append(token)
                after_positional = True
            continue
        after_positional = False
        option = flags.get(token)
        if option is None:
            return None
        given.add(option.dest)
        if option.action == "version":
            version = True
        elif option.action == "store_true":
            values[option.dest] = True
        else:
            if k >= len(argv) or not _plain(argv[k]):
                return None
            value = _value(option, argv[k])
            k += 1
            if value is _REFUSED:
                return None
            values[option.dest] = (values[option.dest] + [value]) if option.action == "append" else value
    if version:  # argparse acts on it where it stands: what follows is never read
        print(VERSION_LINE)
        raise SystemExit(0)
    if command is None:
        return SimpleNamespace(**values)
    if any(option.required and option.dest not in given for option in command.options):
        return None
    positional = command.positional
    if positional is None:
        return None if positionals else SimpleNamespace(**values)
    if runs > 1 or not positional.takes(len(positionals)):
        return None
    values[positional.name] = positionals[0] if positional.count == 1 else positionals
    return SimpleNamespace(**values)
