"""The console: keep score by typing game-record lines in a terminal.

Every accepted line is saved in the ledger before the board answers, so
quitting (or a power cut) loses nothing: the next start resumes the game.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TextIO

from ledger.errors import LedgerError
from ledger.writer import LedgerWriter
from scorer.errors import CribbageError
from scorer.limits import MAX_LINE
from scorer.record import parse_line
from scorer.report import summary

from ...config import ClubConfig
from .console_help import CONSOLE_HELP

HELP = CONSOLE_HELP


KEPT_ABANDONED = "the unfinished game is kept in the ledger as abandoned"
EMPTY_DROPPED = "the game before had no entries: it is not kept, and counts for nobody"

MAX_LINE_BYTES = MAX_LINE * 4  # UTF-8 takes at most 4 bytes a character
MAX_MESSAGE = 300
CLUB_FLUSH_S = 5.0  # at the end of input: how long the club link may take to send what is left


def read_line(stdin) -> tuple[str | None, str | None]:
    """(line, refusal) from ``stdin``: ("", None) at end of input; (None, why)
    for a line that is too long or not UTF-8, which is read to its end and dropped."""
    source = getattr(stdin, "buffer", stdin)  # bytes from a terminal or pipe, text from tests
    raw = source.readline(MAX_LINE_BYTES + 1)
    newline = b"\n" if isinstance(raw, bytes) else "\n"
    if len(raw) > MAX_LINE_BYTES and not raw.endswith(newline):
        while True:  # skip the rest of the line, a piece at a time
            rest = source.readline(MAX_LINE_BYTES)
            if not rest or rest.endswith(newline):
                break
        return None, f"that line is too long: a record line has at most {MAX_LINE} characters"
    if isinstance(raw, bytes):
        try:
            return raw.decode("utf-8"), None
        except UnicodeDecodeError as error:
            return None, f"that line is not UTF-8 text (byte {error.start + 1}): type it again"
    return raw, None


def _said(message) -> str:
    text = " ".join(str(message).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."


def run_console(state: str | Path, stdin: TextIO | None = None, stdout: TextIO | None = None,
                club: ClubConfig | None = None) -> int:
    """Keep the ledger at ``state``: read record lines until quit or end of input; the exit status.
    With a ``club`` that names a broker, every line kept is published to it too (firmware.board.club)."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    path = Path(state)
    store = LedgerWriter(path, holder="cribbage-board console")
    written = threading.Lock()  # the club link's thread says the pairing between the console's lines

    def out(text: str) -> None:
        with written:
            stdout.write(text)

    link = None
    said = 0  # messages of the ledger shown
    shown = [""]

    def pairing_changed() -> None:
        """The hub's pairing for this table, as the board's OLED shows it: one line when it changes; and
        what the hub refused, as the board's OLED says it."""
        now = link.next_game() if link is not None else ""
        if now and now != shown[0]:
            shown[0] = now
            out(f"club: {now}\n")
        refused: list[str] = link.refusals() if link is not None else []
        for notice in refused:
            out(f"! club: {notice}\n")
        stdout.flush()

    try:
        if club is not None and club.enabled:
            from ..club.link import open_link

            link = open_link(club, store, changed=pairing_changed)
            pairing_changed()  # one that came before open_link returned
        for message in store.messages:
            out(f"! {message}\n")
        said = len(store.messages)
        out(f"cribbage-board: ledger {path}\n")
        if store.game is None:
            out(HELP + "\n")
        else:
            out(summary(store.book) + "\n")
        interactive = stdin.isatty()
        while True:
            if interactive:
                out("> ")
            stdout.flush()  # every answer out before the next line is awaited: a program on a pipe reads it now
            line, refused = read_line(stdin)
            if refused:
                out(f"! {refused}\n")
                continue
            if not line:
                break
            command = line.strip().lower()
            if command in ("quit", "exit"):
                break
            if command in ("help", "?"):
                out(HELP + "\n")
                continue
            if command == "status":
                out(summary(store.book) + "\n")
                continue
            if command == "export":
                out("\n".join(store.export()) + "\n")
                continue
            try:
                action = parse_line(line)
                if action is None:
                    continue
                game = store.game
                unfinished = game is not None and not game.is_over
                played = game is not None and unfinished and bool(game.history)
                result = store.apply(action)
            except (CribbageError, LedgerError) as error:
                out(f"! {_said(error)}\n")
                continue
            if unfinished and not hasattr(result, "describe"):  # a game line replaced a live game
                # As the ledger does: a game with entries is kept as abandoned; one with
                # none was never played, and is neither listed nor counted.
                out(f"  {KEPT_ABANDONED if played else EMPTY_DROPPED}\n")
            describe = getattr(result, "describe", None)
            if describe:
                out(f"  {command.split()[0] if command in ('undo', 'redo') else 'ok'}: {describe()}\n")
            out(summary(store.book) + "\n")
    finally:
        if link is not None:
            link.close(flush_s=CLUB_FLUSH_S)
        store.close()
        for message in store.messages[said:]:  # what closing did (a ledger moved meanwhile: where it is kept)
            out(f"! {message}\n")
    return 0
