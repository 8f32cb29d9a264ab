"""What every command says and reads: its name, one-line errors, and file arguments read safely."""

from __future__ import annotations

import os
import sys

from .. import __version__

PROG = "cribbage-board"
VERSION_LINE = f"{PROG} {__version__}"  # what --version prints
MAX_INPUT_BYTES = 2 * 1024 * 1024  # a game record or a simulate script (a 1,000-game match fits)
MAX_MESSAGE = 400  # characters of an error line


def one_line(message: str) -> str:
    """An error message as one line of bounded length."""
    text = " ".join(str(message).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "\u2026"


def fail(message: str) -> int:
    """Print one error line on standard error; returns the exit status 2."""
    print(one_line(message), file=sys.stderr)
    return 2


def drop_stdout() -> None:
    """Point standard output at /dev/null, so what is left unwritten is not
    written (and complained about) again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # not a real file (tests)
        pass


def read_source(path: str, limit: int = MAX_INPUT_BYTES) -> tuple[str, str | None]:
    """(name, text) of a file argument, ``-`` for standard input; text None
    (and a one-line message printed) when it cannot be read, is larger than
    ``limit`` bytes or is not UTF-8."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", sys.stdin)
            data = stream.read(limit + 1)
        else:
            with open(path, "rb") as file:
                data = file.read(limit + 1)
    except (OSError, ValueError) as error:
        fail(f"{PROG}: cannot read {name}: {getattr(error, 'strerror', None) or error}")
        return name, None
    if len(data) > limit:
        fail(f"{PROG}: {name} is larger than {limit // (1024 * 1024)} MB: give a smaller file")
        return name, None
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8").removeprefix("\ufeff")  # a BOM is no text (utf-8-sig, without loading it)
        except UnicodeDecodeError as error:
            fail(f"{PROG}: {name} is not UTF-8 text (byte {error.start + 1}): save it as UTF-8")
            return name, None
    return name, data
