"""Readers of a ledger: read-only, never in the writer's way (export, replay, the web view).

A reader never takes the writer's lock and never writes the ledger. In a folder
it cannot write, with no writer running, it reads the file ``immutable`` until
a writer starts (see :class:`LedgerReader`).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from scorer.record import Scorebook

from . import schema
from .book import CurrentMatch, export_game, game_ids, read_current_match
from .causes import error_code, is_damage, sqlite_cause
from .errors import Damaged, LedgerError
from .lock import lock_held, lock_path
from .rows import GamePage, GameRow, GameTimes, game_page, game_rows, game_times, listed_game, listed_games, newest_game
from .schema import BUSY_TIMEOUT_MS, close_connection

T = TypeVar("T")

WAL_HEADER = 32  # bytes: a -wal no longer than its header holds no frame (no entry)
RETRY_LIVE_SECONDS = 1.0  # an immutable reader that could not go live tries again this often (or when a file changes)


@dataclass(frozen=True)
class _Files:
    """What a reader sees of a ledger's files, to tell that a writer started or the file changed."""

    db: tuple[int, ...]  # the database: (st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)
    wal: int | None  # size of LEDGER-wal, None when there is none
    shm: bool  # whether LEDGER-shm is there
    writer: bool | None  # writer_running()

    @classmethod
    def look(cls, path: str, lock: str) -> "_Files":
        """The files of the ledger at ``path`` (a str: this runs at every poll) with lock ``lock``."""
        try:
            st = os.stat(path)
            db: tuple[int, ...] = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        except OSError:
            db = ()
        try:
            wal = os.stat(path + "-wal").st_size
        except OSError:
            wal = None
        return cls(db, wal, os.path.exists(path + "-shm"), lock_held(lock))

    @property
    def has_frames(self) -> bool:
        return self.wal is not None and self.wal > WAL_HEADER


class LedgerReader:
    """A read-only view of a ledger, for export, replay and the web view.

    It never takes the writer's lock and never writes the ledger: it opens the
    database with ``mode=ro`` and reads each answer in one snapshot while the
    writer goes on. (With no writer running, SQLite itself may leave empty
    ``-wal``/``-shm`` files beside the ledger; the next writer tidies them.)
    It reads schema 1 (no times: they read as None) and schema 2. One reader
    may be used from several threads: its calls take turns on its connection.
    Raises LedgerError if there is no ledger at ``path`` or it is not one of ours.

    In a folder it cannot write (the web unit's), ``mode=ro`` needs the -wal and
    -shm a running board keeps; with the board stopped SQLite cannot make them.
    Then, if no writer holds the lock (``writer_running``; where the system
    cannot tell, the files alone decide) and no -wal holds frames, the file
    alone is the whole ledger and it is opened ``immutable=1``
    (``immutable`` is then True). SQLite neither locks nor looks for changes in
    such a file, so the reader does, before and after each read: once the board
    runs again (its lock, a -wal or -shm appears) it reopens with ``mode=ro``;
    an answer read while the file changed is read again once, or LedgerError.
    A -wal with frames but no -shm (a board killed, the -shm then removed)
    cannot be read read-only: that is a LedgerError that says so, never the
    file without those entries. (With both files left by a killed board,
    ``mode=ro`` reads them: SQLite rebuilds the index in memory.)

    Raises ``LedgerError`` when the file cannot be read.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> reader.export()[1:], reader.times(reader.current_game_id()).started
    (['peg Bob 2', 'hand Bob 8'], '1970-01-01T00:00:00.000Z')
    >>> reader.close()
    >>> writer.close(); folder.cleanup()
    """

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.messages: list[str] = []
        if not self.path.is_file():
            raise LedgerError(f"no ledger at {self.path}")
        self._conn: sqlite3.Connection | None = None
        self._turn = threading.Lock()
        self.immutable = False
        self._seen: _Files | None = None  # the files as they were when opened immutable
        self._tried: tuple[_Files | None, float] = (None, 0.0)  # the last failed try to go live
        self._opened = 0  # connections opened: part of data_version
        self._where, self._lock = str(self.path), lock_path(self.path)
        self._conn, self.immutable, self._seen = self._connect()

    def _connect(self) -> tuple[sqlite3.Connection, bool, _Files | None]:
        """A connection with ``mode=ro``, else (see the class) ``immutable=1``; LedgerError if neither."""
        try:
            conn = self._open_checked("ro")
        except LedgerError as error:
            cause = error.__cause__
            if not (isinstance(cause, sqlite3.Error) and _cannot_make_wal(cause, self.path)):
                raise
            files = self._files()
            if files.writer:
                raise LedgerError(f"ledger {self.path} cannot be read yet: the board holds it but has "
                                 "not opened it (starting?); it is read again in a moment") from cause
            if files.has_frames:
                raise LedgerError(
                    f"ledger {self.path} cannot be read: {self.path.name}-wal holds entries of a board "
                    f"that stopped without closing the ledger, and without {self.path.name}-shm they "
                    "cannot be read read-only; start the board to bring them in") from cause
            conn = self._open_checked("ro&immutable=1")
            if self._files().db != files.db:  # changed while we opened it
                close_connection(conn)
                raise LedgerError(f"ledger {self.path} changed while it was opened: try again") from cause
            self._opened += 1
            return conn, True, files
        self._opened += 1
        return conn, False, None

    def _open_checked(self, params: str) -> sqlite3.Connection:
        """A connection with these URI parameters to one of our ledgers (not an empty one)."""
        conn = None
        try:
            conn = sqlite3.connect(schema.uri(self.path, params), uri=True, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("BEGIN")
            kind, _ = schema.inspect(conn, self.path)
            conn.execute("COMMIT")
        except (sqlite3.Error, Damaged) as error:
            close_connection(conn)
            if is_damage(error):
                raise LedgerError(f"ledger {self.path} is damaged ({error})") from error
            raise LedgerError(
                f"ledger {self.path} cannot be read: {sqlite_cause(error, self.path.parent)}"
            ) from error
        except LedgerError:
            close_connection(conn)
            raise
        if kind == schema.NEW:
            close_connection(conn)
            raise LedgerError(f"no ledger at {self.path} (an empty database)")
        return conn

    def _files(self) -> _Files:
        return _Files.look(self._where, self._lock)

    def _reopen(self) -> None:
        conn, immutable, seen = self._connect()
        close_connection(self._conn)
        self._conn, self.immutable, self._seen = conn, immutable, seen

    def _still(self, files: _Files) -> bool:
        """Whether the immutable connection still reads the whole ledger: same file, no frames."""
        return self._seen is not None and files.db == self._seen.db and not files.has_frames

    def _follow(self) -> None:
        """An immutable reader: reopen (live) once anything moved; keep it while it still holds."""
        files = self._files()
        if files == self._seen:
            return
        still = self._still(files)
        tried, when = self._tried
        if still and tried == files and time.monotonic() - when < RETRY_LIVE_SECONDS:
            return
        try:
            self._reopen()
        except LedgerError:
            if not still:
                self.close()
                raise
            self._tried = (files, time.monotonic())  # the board is starting: the file still holds

    def _require(self) -> sqlite3.Connection:
        """The reader's connection; LedgerError once it is closed."""
        if self._conn is None:
            raise LedgerError(f"ledger {self.path} is closed")
        return self._conn

    def _reading(self, read: Callable[[sqlite3.Connection], T]) -> T:
        """``read(connection)``, once more if the file changed under it (see the class)."""
        with self._turn:
            self._require()
            if self.immutable:
                self._follow()
            for _ in range(2):
                failure: sqlite3.Error | None = None
                try:
                    result = read(self._require())
                except sqlite3.Error as error:
                    failure = error
                if not self.immutable or self._still(self._files()):
                    if failure is not None:
                        raise LedgerError(
                            f"ledger {self.path} cannot be read: {sqlite_cause(failure, self.path.parent)}"
                        ) from failure
                    return result
                self._reopen()  # the file changed under the read: read again, live if the board runs
            self.close()
            raise LedgerError(f"ledger {self.path} kept changing while it was read: try again")

    def game_ids(self) -> list[int]:
        """Every game in the ledger, oldest first."""
        return self._reading(game_ids)

    def current_game_id(self) -> int | None:
        """The game the writer is playing (the newest), None if there is none."""
        return self._reading(_newest_game)

    def export(self, game_id: int | None = None) -> list[str]:
        """A game (the current one by default) as game-record lines."""
        game_id = self.current_game_id() if game_id is None else game_id
        if game_id is None:
            return []
        return self._reading(lambda conn: export_game(conn, self.path, game_id))

    def games(self) -> list[GameRow]:
        """Every game but the live one (and those replaced before anything was entered
        in them), newest first, from the stored game rows (no replay): see
        :class:`~ledger.rows.GameRow`. A game whose stored lines no longer read is
        left out and said in ``messages``."""
        rows = self._reading(game_rows)
        listed, self.messages = listed_games(rows, self.path)
        return listed

    def games_page(self, count: int, before: int | None = None, after: int | None = None) -> GamePage:
        """A page of at most ``count`` of the games :meth:`games` lists, newest first: the newest, those
        before game ``before``, or the oldest after game ``after`` (:func:`~ledger.rows.game_page`); its
        cost does not grow with the ledger."""
        return self._reading(lambda conn: game_page(conn, self.path, count, before, after))

    def game(self, game_id: int) -> GameRow | None:
        """Game ``game_id`` as :meth:`games` lists it; None if it lists no such game (the live game too)."""
        return self._reading(lambda conn: listed_game(conn, self.path, game_id))

    def has_game(self, game_id: int) -> bool:
        """Whether the ledger has game ``game_id`` (listed or live)."""
        return self._reading(lambda conn: conn.execute("SELECT 1 FROM games WHERE id=?", (game_id,)).fetchone()
                             is not None)

    def newest_game(self) -> tuple[int, bool] | None:
        """The newest game's id and whether it has a result (:func:`~ledger.rows.newest_game`)."""
        return self._reading(newest_game)

    def times(self, game_id: int) -> GameTimes:
        """When a game happened (:class:`~ledger.rows.GameTimes`): its start, its end
        and each entry's time, aligned with ``export(game_id)[1:]``."""
        return self._reading(lambda conn: game_times(conn, self.path, game_id))

    def ledger_id(self) -> str | None:
        """The ledger's id (see :func:`ledger.schema.ledger_id`)."""
        return self._reading(schema.ledger_id)

    def feed(self, read: Callable[[sqlite3.Connection], T]) -> T:
        """``read(connection)`` (one of :mod:`ledger.feed`'s functions) in one snapshot."""
        return self._reading(lambda conn: _snapshot(conn, read))

    def data_version(self) -> int:
        """A change token: SQLite's ``PRAGMA data_version`` on this reader's
        connection, which differs from the last value read whenever another
        connection (the writer) has committed since. It reads no table (one
        look at the WAL index), so it is cheap enough to poll every 50 ms; only
        a change, not its value, means anything. It also counts the connections
        opened, so it changes when an immutable reader reopens (a few stats and
        one lock query each call while immutable: that is how it sees the board
        start)."""

        def read(conn: sqlite3.Connection) -> int:
            version: int = conn.execute("PRAGMA data_version").fetchone()[0]
            return self._opened << 32 | version  # after a reopen in _reading: counted

        return self._reading(read)

    @property
    def book(self) -> Scorebook:
        """The current match as it stands now (read afresh at each use); what does
        not replay is said in ``messages``."""
        messages: list[str] = []

        def read(conn: sqlite3.Connection) -> CurrentMatch:
            messages.clear()
            return read_current_match(conn, self.path, messages)

        current = self._reading(read)
        self.messages = messages
        return current.book

    def close(self) -> None:
        close_connection(self._conn)
        self._conn = None

    def __enter__(self) -> "LedgerReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _newest_game(conn: sqlite3.Connection) -> int | None:
    newest: int | None = conn.execute("SELECT max(id) FROM games").fetchone()[0]
    return newest


def _snapshot(conn: sqlite3.Connection, read: Callable[[sqlite3.Connection], T]) -> T:
    """``read(conn)`` inside one read transaction: every query it makes sees the same ledger."""
    conn.execute("BEGIN")
    try:
        return read(conn)
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")


def _cannot_make_wal(error: sqlite3.Error, path: Path) -> bool:
    """Whether ``mode=ro`` failed because SQLite cannot make the -wal or -shm: read-only or
    cannot-open, in a folder this process cannot write (EACCES, EROFS), one of them missing."""
    if error_code(error) not in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN):
        return False
    folder = path.absolute().parent
    missing = not (os.path.exists(f"{path}-wal") and os.path.exists(f"{path}-shm"))
    return missing and not os.access(folder, os.W_OK)
