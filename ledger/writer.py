"""The one writer of a ledger: every accepted action is in SQLite before it is acknowledged.

:class:`LedgerWriter` is the board's ledger on the single writer (:mod:`ledger.single_writer`), which
opens, locks and sets a damaged file aside; what is the board's own is here: its schema
(:mod:`ledger.schema`), the current match read back and carried over from a damaged file, its
entries, and the integrity check that may run after opening.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from typing import Any, Callable

from scorer.game import Game, OptionChange, PeggedEntry
from scorer.record import Action, GameHeader, Scorebook

from . import schema
from .book import CurrentMatch, StandingCache, export_game, game_ids, read_current_match
from .causes import is_damage, sqlite_cause
from .errors import Damaged, LedgerError
from .schema import ABANDONED, BUSY_TIMEOUT_MS, CHECKS, EMPTY, FINISHED, roll_back, uri
from .single_writer import Clock, SingleWriter
from .sources import BOARD, EntrySource

CHECK_STOP_SECONDS = 2.0  # how long close() waits for an interrupted check to let its connection go

# ---- the writer --------------------------------------------------------------


class LedgerWriter(SingleWriter):
    """A scorebook kept in an SQLite file (WAL, synchronous=FULL), by its one writer.

    Opening takes the writer's lock (``LedgerInUseError`` if another process
    holds it) and raises ``LedgerError``, changing nothing, when the file cannot
    be used; only a damaged file is set aside. ``messages`` tells what happened
    on opening (a file set aside, what was salvaged, a line that no longer
    replays), for the board to show. ``holder`` names this program in the lock.
    ``clock`` gives the time of each entry and game: seconds since the epoch
    (the default, ``time.time``), a datetime (naive: UTC) or the ISO 8601 string.

    ``check`` is when SQLite's ``quick_check`` reads the whole file: ``"open"``
    (before the first entry; it costs time in proportion to the file: see
    "Integrity" below, and bench/README.md for the figures) or ``"later"``:
    not at open, but when the caller runs :meth:`check` (the board does, in a
    thread of its own after READY=1) and, if it finds damage, :meth:`set_aside`,
    which does what an open would have done. Either way opening reads only the
    pages it needs (the last match's row, its tally, the current game), and
    SQLite reports damage on those as it reads them.

    The database holds the game record itself (one row an action), so reopening
    it is a replay of what was acknowledged, undo and redo stacks included
    (:mod:`ledger.book`). The files, for a ledger ``LEDGER``: ``LEDGER`` itself
    (WAL, synchronous=FULL; see :mod:`ledger.schema`), SQLite's ``LEDGER-wal``
    and ``LEDGER-shm``, and ``LEDGER.lock`` while a writer runs
    (:mod:`ledger.lock`). Each entry is one transaction of one INSERT (its time
    one more bound value), plus an UPDATE of the game's outcome, finish and
    status only when the entry changes them.

    Integrity: SQLite reports damage on the pages it reads; ``PRAGMA quick_check``
    reads the whole file, so its time grows with the ledger (``bench/ledger.py``).
    ``LedgerWriter(check="open")``
    (the default) runs it before the first entry; with ``check="later"`` the board
    runs it in a thread after READY=1 (:meth:`LedgerWriter.check`, on a read-only
    connection of its own) and sets a damaged file aside on its next loop step,
    carrying over the current match just as an open does.

    Opening, the lock, setting a damaged file aside and saying why a file cannot be
    used are the single writer's (:mod:`ledger.single_writer`, the club hub's ledger
    is one too): only a damaged file is set aside (renamed, never deleted); every
    other reason a ledger cannot be opened (permission, read-only, busy, disk full,
    a folder or a file in the way, another program's database, a newer schema) is a
    ``LedgerError`` that names the path and the cause, and nothing is renamed,
    created or changed. What is the board's own is here: its schema
    (:mod:`ledger.schema`), the current match read back and carried over from a
    damaged file, its entries, and the check that may run after opening.

    Raises ``LedgerError`` (``LedgerInUseError`` when another writer holds the file) when the file
    cannot be used, changing nothing.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> writer.export()
    ['game six-card seats=Ann,Bob dealer=Ann', 'peg Bob 2', 'hand Bob 8']
    >>> writer.game.score("Bob")
    10
    >>> from ledger.errors import LedgerInUseError
    >>> try:
    ...     LedgerWriter(path)
    ... except LedgerInUseError as error:
    ...     print("refused:", type(error).__name__)
    refused: LedgerInUseError
    >>> writer.close(); folder.cleanup()
    """

    UNSAVED = "entry not saved"
    AGAIN = "start again to open a ledger there"

    def __init__(
        self, path: str | os.PathLike[str], clock: Clock = time.time, holder: str | None = None, check: str = "open",
    ):
        if check not in CHECKS:
            raise ValueError(f"check={check!r}: use one of {', '.join(CHECKS)}")
        self.check_pending = check == "later"  # check() has yet to run
        self._checking: sqlite3.Connection | None = None
        self._checked = threading.Event()  # no check is running
        self._stopping = False  # close() has begun: a check is interrupted, none is begun
        self._checked.set()
        self._current = CurrentMatch(Scorebook())
        self._outcome: str | None = None
        self._game_id: int | None = None
        self._replaced_played = False  # whether the game a game line replaces had entries
        self._club: tuple[str, str] | None = None  # (club, table) new games are played for (join_club)
        # Called, with nothing, after every entry is durable and after a damaged file was
        # replaced: the club link's wake-up (firmware.board.club.link). It must only signal.
        self.on_commit: Callable[[], None] | None = None
        super().__init__(path, clock, holder, check_at_open=check == "open")

    # ---- the board's ledger in the single writer's open (ledger.single_writer) ----

    def _inspect(self, conn: sqlite3.Connection) -> tuple[bool, tuple[str, int]]:
        kind, version = schema.inspect(conn, self.path)
        return kind == schema.NEW, (kind, version)

    def _prepare(self, conn: sqlite3.Connection, new: bool, found: tuple[str, int]) -> None:
        schema.prepare(conn, *found)

    def _opened(self) -> None:
        self._resume(read_current_match(self._connection(), self.path, self.messages))

    def _replace_damaged(self, error: Exception) -> None:
        """Set the damaged file aside, start a new ledger, and carry over what of
        the current match still reads (see SingleWriter._replace_damaged)."""
        super()._replace_damaged(error)
        self._committed()

    def _carry_over(self, salvage: tuple[Any, ...] | None) -> str:
        if salvage and self._restore(salvage):
            _, games, actions, *_ = salvage
            return (f"the current match was carried over ({len(games)} games, "
                    f"{len(actions)} entries of the current one)")
        return "nothing of it could be carried over"

    def _unsaved(self, said: str) -> str:
        """A refused entry's line as the board shows it, on its footer: without the path."""
        return said

    def _salvage(self) -> tuple[Any, ...] | None:
        """The latest match's row, games and current game's actions, and the ledger's id,
        if they still read (read-only: the damaged file is kept as it is)."""
        try:
            conn = sqlite3.connect(uri(self.path, "ro"), uri=True, isolation_level=None)
        except sqlite3.Error:
            return None
        try:
            match = conn.execute("SELECT id, started FROM matches ORDER BY id DESC LIMIT 1").fetchone()
            if match is None:
                return None
            try:
                games = conn.execute(
                    "SELECT id, match_id, header, outcome, started, finished, status FROM games "
                    "WHERE match_id=? ORDER BY id", (match[0],)
                ).fetchall()
            except sqlite3.OperationalError:  # schema 1: no times, status as it meant then
                games = conn.execute(
                    "SELECT id, match_id, header, outcome FROM games WHERE match_id=? ORDER BY id", (match[0],)
                ).fetchall()
                games = [(*row, None, None, FINISHED if row[3] is not None else ABANDONED) for row in games]
                if games and games[-1][3] is None:
                    games[-1] = (*games[-1][:6], None)
            if not games:
                return None
            try:
                actions = conn.execute(
                    "SELECT id, game_id, line, at FROM actions WHERE game_id=? ORDER BY id", (games[-1][0],)
                ).fetchall()
            except sqlite3.OperationalError:
                actions = [(*row, None) for row in conn.execute(
                    "SELECT id, game_id, line FROM actions WHERE game_id=? ORDER BY id", (games[-1][0],))]
            old_id = schema.ledger_id(conn)
            clubs = []
            if schema.has_club_games(conn):
                clubs = conn.execute(
                    "SELECT c.game_id, c.club, c.tbl FROM club_games c JOIN games g ON g.id = c.game_id "
                    "WHERE g.match_id=? ORDER BY c.game_id", (match[0],)).fetchall()
            sources = []
            if schema.has_entry_sources(conn):
                sources = conn.execute(
                    "SELECT s.action_id, s.via, s.seat, s.request FROM entry_sources s "
                    "JOIN actions a ON a.id = s.action_id WHERE a.game_id=? ORDER BY s.action_id",
                    (games[-1][0],)).fetchall()
        except sqlite3.Error:
            return None
        finally:
            conn.close()
        return [tuple(match)], games, actions, old_id, clubs, sources

    def _restore(self, salvage: tuple[Any, ...]) -> bool:
        """The salvage in the new file, with the old ledger's id: the club link's names
        for its games (ledger, game, entry) stay what they were."""
        matches, games, actions, old_id, clubs, sources = salvage
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            if old_id is not None:
                conn.execute("UPDATE meta SET value=? WHERE key='ledger_id'", (old_id,))
            conn.executemany("INSERT INTO matches (id, started) VALUES (?, ?)", matches)
            conn.executemany(
                "INSERT INTO games (id, match_id, header, outcome, started, finished, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", games)
            conn.executemany("INSERT INTO actions (id, game_id, line, at) VALUES (?, ?, ?, ?)", actions)
            conn.executemany("INSERT INTO club_games (game_id, club, tbl) VALUES (?, ?, ?)", clubs)
            conn.executemany("INSERT INTO entry_sources (action_id, via, seat, request) VALUES (?, ?, ?, ?)", sources)
            conn.execute("COMMIT")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return False
        return True

    # ---- writing ---------------------------------------------------------

    @property
    def game(self) -> Game | None:
        return self.book.game

    @property
    def ledger_id(self) -> str | None:
        """The ledger's id (see :func:`ledger.schema.ledger_id`)."""
        return schema.ledger_id(self._conn) if self._conn is not None else None

    def apply(self, action: Action, source: EntrySource | None = None) -> PeggedEntry | OptionChange | Game:
        """Apply an action and make it durable; only then return (acknowledge). ``source``: where
        an entry not made on the board's controls came from, kept beside it (:mod:`ledger.sources`).

        A refused action raises and nothing is written. If the write fails the
        in-memory state is rebuilt from the database and LedgerError is raised
        (``DiskFullError``, "disk full: entry not saved", when the disk is full).
        """
        self._require()
        self._require_in_place()
        if isinstance(action, GameHeader):  # a new game: its names as the rule for names given now says
            action = action.with_names_checked()
            replaced = self.book.game  # does it replace a game anything was entered in?
            self._replaced_played = replaced is not None and replaced.played
        result = self.book.apply(action)
        try:
            self._write(action, source)
        except (sqlite3.Error, LedgerError) as error:
            failure = error if isinstance(error, LedgerError) else self._write_failure(error)
            cause = error.__cause__ if failure is error else error  # what SQLite said, if it did
            try:
                self._resume(self._read_back())
            except sqlite3.Error as reread:
                self._broken = f"ledger {self.path} cannot be read back ({reread}): restart the board"
                raise LedgerError(f"{failure}; {self._broken}") from cause
            raise failure from cause
        return result

    def _read_back(self) -> CurrentMatch:
        """The current match as the ledger holds it after a refused write: from the writer's own
        connection, or from the file written whole once its -wal could not be trusted."""
        if self.wal_kept is None:
            return read_current_match(self._connection(), self.path, [])
        conn = sqlite3.connect(uri(self.wal_kept, "ro"), uri=True, isolation_level=None)
        try:
            current = read_current_match(conn, self.path, [])
        finally:
            conn.close()
        current.counted = False  # nothing more is written into the file it cannot trust
        return current

    def entry_of_request(self, seat: str, request: str) -> str | None:
        """The record line of the entry a seat's phone made with the id ``request``, None if none did."""
        row = self._require().execute(
            "SELECT a.line FROM entry_sources s JOIN actions a ON a.id = s.action_id WHERE s.seat=? AND s.request=?",
            (seat, request)).fetchone()
        return row[0] if row else None

    def _write(self, action: Action, source: EntrySource | None = None) -> None:
        """One durable entry. Everything but SQLite's work is done before the
        transaction; an entry is one INSERT, and an UPDATE of the game's stored
        outcome only when that changes (the winning entry, its undo and redo)."""
        game = self.book.game
        assert game is not None, "the book has the game the action was applied to"
        if isinstance(action, GameHeader):
            self._write_header(game)
            return
        line = game.history[-1].record()  # as the game recorded it, seat resolved
        outcome = json.dumps(game.outcome.to_dict()) if game.outcome is not None else None
        game_id = self._game_id
        at = self.now()
        with self._transaction() as conn:
            action_id = conn.execute(
                "INSERT INTO actions (game_id, line, at) VALUES (?, ?, ?)", (game_id, line, at)).lastrowid
            if source is not None and source.via != BOARD:
                conn.execute("INSERT INTO entry_sources (action_id, via, seat, request) VALUES (?, ?, ?, ?)",
                             (action_id, source.via, source.seat, source.request))
            if outcome != self._outcome:  # the game ends here, or its end is undone
                conn.execute(
                    "UPDATE games SET outcome=?, finished=?, status=? WHERE id=?",
                    (outcome, at if outcome else None, FINISHED if outcome else None, game_id),
                )
        self._outcome = outcome
        self._committed()

    def _write_header(self, game: Game) -> None:
        """A new game: the next of the match (its predecessor joins the match's
        standing row in the same transaction) or the first of a new match. A game
        it replaces before its end is marked abandoned, never dropped."""
        header = game.header()
        previous = self._game_id
        same_match = previous is not None and bool(self.book.games)
        abandoned = self._game_id if self._game_id is not None and self._outcome is None else None
        status = ABANDONED if self._replaced_played else EMPTY
        standing = None
        if previous is not None and same_match:
            current = self._current.standing
            if current is not None and current.match_id == self._current.match_id:
                outcome = self.book.games[-1].outcome
                standing = current.add(previous, outcome, empty=outcome is None and status == EMPTY)
        now = self.now()
        with self._transaction() as conn:
            if abandoned is not None:  # before the standing row: its trigger watches counted games
                conn.execute("UPDATE games SET status=?, finished=? WHERE id=?", (status, now, abandoned))
            if same_match:
                match_id = self._current.match_id
            else:
                match_id = conn.execute("INSERT INTO matches (started) VALUES (?)", (now,)).lastrowid
                assert match_id is not None, "an INSERT gives its row's id"
                standing = StandingCache(match_id, 0)
            game_id = conn.execute(
                "INSERT INTO games (match_id, header, started) VALUES (?, ?, ?)", (match_id, header, now)
            ).lastrowid
            if self._club is not None:
                conn.execute("INSERT INTO club_games (game_id, club, tbl) VALUES (?, ?, ?)", (game_id, *self._club))
            if standing is not None:
                standing.save(conn)
        self._current = CurrentMatch(self.book, game_id, match_id, standing)
        self._game_id = game_id
        self._outcome = None
        self._committed()

    def join_club(self, club: str, table: str) -> None:
        """Every game begun from now on is played for ``club``'s ``table`` (the club link sends those
        games, and only those), whether its broker can be reached or not; so is the game on the board
        if it is still being played and belongs to no club yet. LedgerError if that cannot be written."""
        self._require()
        self._club = (club, table)
        if self._game_id is None or self._outcome is not None:
            return
        with self._transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO club_games (game_id, club, tbl) SELECT id, ?, ? FROM games "
                "WHERE id=? AND status IS NULL AND outcome IS NULL", (club, table, self._game_id))
        self._committed()

    def _committed(self) -> None:
        if self.on_commit is not None:
            self.on_commit()

    def _resume(self, current: CurrentMatch) -> None:
        """Take what was read as the state; save a standing that had to be counted (best
        effort: if it cannot be saved now, the next open counts again)."""
        self._current = current
        self.book, self._game_id, self._outcome = current.book, current.game_id, current.outcome
        if current.counted and current.standing is not None:
            try:
                current.standing.save(self._connection())
            except sqlite3.Error:
                roll_back(self._connection())
            else:
                current.counted = False

    # ---- checking --------------------------------------------------------

    def check(self) -> str | None:
        """Run SQLite's quick_check over the whole file on a read-only connection of
        its own (safe in another thread while this writer writes); the damage found,
        or None if the file is sound or the check could not finish (closed meanwhile)."""
        self.check_pending = False
        self._checked.clear()
        try:
            conn = sqlite3.connect(uri(self.path, "ro"), uri=True, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as error:
            self._checked.set()
            return str(error) if is_damage(error) else None
        self._checking = conn
        try:
            if self._stopping:
                return None  # closing: no check is begun
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            return schema.quick_check(conn)
        except sqlite3.Error as error:
            return f"integrity check failed: {error}" if is_damage(error) else None
        finally:
            self._checking = None
            conn.close()
            self._checked.set()

    def set_aside(self, problem: str) -> None:
        """Damage found by :meth:`check`: set the file aside and start a new ledger with
        what of the current match still reads, as opening would have; ``messages``
        says so. Raises LedgerError if that cannot be done (the ledger is then unusable)."""
        try:
            self._replace_damaged(Damaged(problem))
        except (LedgerError, sqlite3.Error) as error:
            self._close_quietly()
            cause = error if isinstance(error, LedgerError) else sqlite_cause(error, self.path.parent)
            self._broken = f"ledger {self.path} is damaged and could not be replaced ({cause}): restart the board"
            raise LedgerError(self._broken) from error

    # ---- reading ---------------------------------------------------------

    def game_ids(self) -> list[int]:
        """Every game in the ledger, oldest first."""
        return game_ids(self._connection())

    def export(self, game_id: int | None = None) -> list[str]:
        """A game (the current one by default) as game-record lines."""
        game_id = self._game_id if game_id is None else game_id
        if game_id is None:
            return []
        return export_game(self._connection(), self.path, game_id)

    def close(self) -> None:
        """Stop a running check and let its connection close, then close the ledger (see SingleWriter.close)."""
        # An interrupt lands only on a statement that is running: one sent between two of
        # the check's statements is lost, so it is sent again until the check has ended.
        self._stopping = True
        deadline = time.monotonic() + CHECK_STOP_SECONDS
        while not self._checked.wait(0.01) and time.monotonic() < deadline:
            checking = self._checking
            if checking is not None:
                try:
                    checking.interrupt()
                except sqlite3.Error:
                    pass
        super().close()
