"""The ledger as the web view reads it: read-only, reopened after any failure.

Every read goes through :class:`LedgerFollower`, which opens a ``LedgerReader``
when it needs one and drops it when a read fails, so a ledger that is missing,
locked or damaged is said on the page and read again once it is back. A file
put in the ledger's place (archived and started afresh) is told by its identity
(st_dev, st_ino): the follower reads the new file and counts a new ``generation``,
so whoever keeps what it read drops it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from ledger.errors import LedgerError
from ledger.reader import LedgerReader
from ledger.rows import GamePage, GameRow, GameTimes
from scorer.errors import CribbageBoardError
from scorer.record import source_of
from scorer.report import state_dict

from .records import spoken, taken_back

RECENT = 8  # the last actions the live board shows
RETRY_SECONDS = 2.0  # a ledger that cannot be read (locked, damaged) is tried again this often


class LedgerUnavailable(CribbageBoardError, OSError):
    """The ledger cannot be read now; the message says why, for the page."""


@dataclass(frozen=True)
class Snapshot:
    """The current game as the page and ``/api/state`` show it."""

    token: object
    state: dict | None  # state_dict of the current match, None when the ledger cannot be read
    problem: str | None  # why the ledger cannot be read
    messages: tuple[str, ...] = ()  # what of the ledger no longer replays
    # the current game's last actions, newest first: {"action", "text", "undone", "n" (its place in the
    # game's history), "seat", "said" (the sentence a screen reader says)}
    recent: tuple[dict, ...] = ()


class LedgerFollower:
    """Read-only access to the ledger at ``path``, for the server's loop (one thread)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._reader: LedgerReader | None = None
        self._identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file the reader reads
        self._last_identity: tuple[int, int] | None = None  # of the file read last, None once it was gone
        self.generation = 0  # counts the files read: a new file (or one back after it was gone) adds one
        self._opened = 0  # readers opened so far: a new reader's data_version starts afresh
        self._failed_at = -RETRY_SECONDS
        self._failures = 0
        self._snapshot: Snapshot | None = None
        self._cache: dict[str, tuple[object, object]] = {}

    # ---- the reader ------------------------------------------------------

    def _open(self) -> LedgerReader:
        if self._reader is None:
            try:
                before = _identity(os.stat(self.path))
                reader = LedgerReader(self.path)
                if _identity(os.stat(self.path)) != before:  # replaced while it was opened
                    reader.close()
                    raise LedgerError(f"ledger {self.path} was replaced while it was opened: it is read again in a moment")
            except (LedgerError, OSError) as error:
                self._failed_at = time.monotonic()
                self._failures += 1
                raise LedgerUnavailable(_problem(self.path, error)) from None
            self._reader, self._identity = reader, before
            if before != self._last_identity:
                self._last_identity = before
                self.generation += 1
            self._opened += 1
        return self._reader

    def read(self, what):
        """``what(reader)``; LedgerUnavailable (the reader dropped) if it cannot be read."""
        reader = self._open()
        try:
            return what(reader)
        except (LedgerError, OSError) as error:
            self.close()
            self._failed_at = time.monotonic()
            self._failures += 1
            raise LedgerUnavailable(_problem(self.path, error)) from None

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def token(self) -> object:
        """A value that changes when the ledger does: the reader's ``data_version`` (one look
        at SQLite's WAL index, cheap enough to poll), a new file in its place (its identity:
        the reader is dropped and the new file read), or, while it cannot be read, each
        retry (every RETRY_SECONDS)."""
        try:
            identity = _identity(os.stat(self.path))
        except OSError:
            self.close()
            self._last_identity = None  # gone: a file that comes back is read as a new one
            return ("missing",)
        if self._reader is not None and identity != self._identity:
            self.close()  # archived and started afresh, or a damaged file set aside
        if self._reader is None and time.monotonic() - self._failed_at < RETRY_SECONDS:
            return ("failed", self._failures)
        try:
            version = self.read(lambda reader: reader.data_version())  # may open a reader: count it first
            return (self._opened, version)
        except LedgerUnavailable:
            return ("failed", self._failures)

    def cached(self, name: str, compute):
        """``compute()`` once per state of the ledger (its token).

        The value is kept under the token read before computing it: a write that
        lands while it is computed changes the token, so the next look computes
        again rather than keeping an old value under the new token. A read that
        failed is kept under the token it left (the failure's), so a ledger that
        cannot be read is tried again every RETRY_SECONDS, not at every look."""
        token = self.token()
        hit = self._cache.get(name)
        if hit is not None and hit[0] == token:
            return hit[1]
        failures = self._failures
        value = compute()
        self._cache[name] = (self.token() if self._failures != failures else token, value)
        return value

    # ---- what the pages show ---------------------------------------------

    def snapshot(self) -> Snapshot:
        """The current match's state (``replay --json`` of it), read afresh when the ledger changed."""
        token = self.token()
        if self._snapshot is not None and self._snapshot.token == token:
            return self._snapshot

        def current(reader: LedgerReader):
            book = reader.book
            history = book.game.history if book.game else []
            undone = taken_back([event.action for event in history])
            first = max(len(history) - RECENT, 0)
            recent = tuple({"action": event.action, "text": event.entry.describe(), "undone": n in undone,
                            "n": n, "seat": event.entry.seat, "said": spoken(event.action, event.entry)}
                           for n, event in reversed(list(enumerate(history[first:], start=first))))
            record = reader.export() if book.game is not None else []
            sources = [{"line": n, **source} for n, text in enumerate(record, start=1)
                       if (source := source_of(text)) is not None]
            return state_dict(book, (), sources), tuple(reader.messages), recent

        try:
            state, messages, recent = self.read(current)
        except LedgerUnavailable as error:
            self._snapshot = Snapshot(self.token(), None, str(error))
        else:
            self._snapshot = Snapshot(token, state, None, messages, recent)
        return self._snapshot

    def export(self, game_id: int) -> list[str]:
        """A game's record lines; KeyError if there is no such game."""
        def lines(reader: LedgerReader):
            if not reader.has_game(game_id):
                raise KeyError(game_id)
            return reader.export(game_id)

        return self.read(lines)

    def game_ids(self) -> list[int]:
        return self.read(lambda reader: reader.game_ids())

    def current_game_id(self) -> int | None:
        return self.read(lambda reader: reader.current_game_id())

    def games(self) -> list[GameRow]:
        """Finished and abandoned games, newest first, as the ledger lists them."""
        return self.read(lambda reader: reader.games())

    def games_page(self, count: int, before: int | None = None, after: int | None = None) -> GamePage:
        """A page of the games listed, newest first (``LedgerReader.games_page``)."""
        return self.read(lambda reader: reader.games_page(count, before, after))

    def game(self, game_id: int) -> GameRow | None:
        """Game ``game_id`` as listed; None if the ledger lists no such game."""
        return self.read(lambda reader: reader.game(game_id))

    def history(self) -> tuple:
        """A value that changes when the games listed may have: the file read (its generation) and the
        newest game, with whether it has a result. A game listed is over and never changes, so a
        page of them needs making again only when this changes, not at every entry of the game in play."""
        newest = self.read(lambda reader: reader.newest_game())  # may open a new file: read first
        return (self.generation, newest)

    def times(self, game_id: int) -> GameTimes:
        """When a game and each of its entries happened (None where not known)."""
        return self.read(lambda reader: reader.times(game_id))


def _identity(st: os.stat_result) -> tuple[int, int]:
    """Which file this is, whatever its name: (st_dev, st_ino)."""
    return st.st_dev, st.st_ino


def _problem(path: Path, error: Exception) -> str:
    """What the page says when the ledger cannot be read."""
    text = " ".join(str(error).split())
    if isinstance(error, FileNotFoundError):
        text = f"no ledger at {path}"
    elif isinstance(error, OSError) and not isinstance(error, LedgerError):  # a LedgerError says it all
        text = f"ledger {path} cannot be read: {error.strerror or error}"
    if text.startswith("no ledger"):
        return f"{text}: the board has not started a game yet (or --state names another file)"
    return text
