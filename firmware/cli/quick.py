"""The plainest command lines of the board, ``count``, ``pegging`` and ``replay``, read without argparse.

argparse (with re, gettext, locale and shutil behind it, and a parser built
for every command) was a third of what ``count`` cost and 7% of the
board's start-up (issue 11). :func:`quick_args` reads only lines made of the
exact option names and plain values, and gives the namespace argparse would;
for anything else (--help, an abbreviation, ``--opt=value``, a value that
starts with ``-``, an error of any kind) it returns None and the caller asks
argparse, which then says what argparse says. ``tests/test_cli.py`` checks
it against argparse on generated lines.
"""

from __future__ import annotations

from types import SimpleNamespace

# The board's own options: (destination, takes a value). Only the board
# (no command) reads them here; with a command argparse refuses or takes them.
BOARD = {"--backend": ("backend", True), "--config": ("config", True), "--set": ("set", True),
         "--state": ("state", True), "--headless": ("headless", False)}
BACKENDS = ("real", "mock")
# Per command: its options, the defaults argparse gives, where its positionals go
# and how many it needs ("*" any number, "+" one or more, 1 exactly one).
COMMANDS = {
    "count": ({"--starter": ("starter", True), "--crib": ("crib", False), "--json": ("json", False),
               "--distribution": ("distribution", False), "--hand-size": ("hand_size", True)},
              {"starter": None, "crib": False, "distribution": False, "hand_size": 4, "json": False},
              "cards", "*"),
    "pegging": ({"--go": ("go", False), "--json": ("json", False)},
                {"go": False, "json": False}, "cards", "+"),
    "replay": ({"--json": ("json", False), "--export": ("export", False)},
               {"json": False, "export": False}, "file", 1),
}
HAND_SIZES = {"3": 3, "4": 4, "5": 5}


def _plain(token: str) -> bool:
    """A value argparse takes as it is: not an option (``-`` alone is standard input)."""
    return token == "-" or not token.startswith("-")


def quick_args(argv: list[str]) -> SimpleNamespace | None:
    """The parsed line when it is plain, as argparse (and ``parse_args``) would give it; else None."""
    values = {"backend": None, "config": None, "set": [], "state": None, "headless": False, "command": None}
    options, board_given = BOARD, False
    positionals: list[str] = []
    runs = 0  # separate runs of positionals: argparse refuses a second
    previous_positional = False
    k = 0
    while k < len(argv):
        token = argv[k]
        if _plain(token):
            if values["command"] is None:
                if token not in COMMANDS or board_given:
                    return None  # another command, or the board's options before a command
                values["command"] = token
                command_options, defaults, _, _ = COMMANDS[token]
                options = command_options
                values.update(defaults)
                previous_positional = False
            else:
                runs += not previous_positional
                positionals.append(token)
                previous_positional = True
            k += 1
            continue
        previous_positional = False
        known = options.get(token)
        if known is None:
            return None
        dest, takes_value = known
        if not takes_value:
            values[dest] = True
        else:
            if k + 1 >= len(argv) or not _plain(argv[k + 1]):
                return None
            value = argv[k + 1]
            if dest == "set":
                values["set"] = values["set"] + [value]
            elif dest == "backend" and value not in BACKENDS:
                return None
            elif dest == "hand_size":
                if value not in HAND_SIZES:
                    return None
                values[dest] = HAND_SIZES[value]
            else:
                values[dest] = value
            k += 1
        board_given = board_given or options is BOARD
        k += 1
    command = values["command"]
    if command is None:
        return SimpleNamespace(**values)
    _, _, dest, needed = COMMANDS[command]
    if runs > 1 or (needed == "+" and not positionals) or (needed == 1 and len(positionals) != 1):
        return None
    values[dest] = positionals[0] if needed == 1 else positionals
    return SimpleNamespace(**values)
