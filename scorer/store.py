"""The durable ledger: every accepted action is in SQLite before it is acknowledged.

The database holds the game record itself (one row an action), so reopening
it is a replay of what was acknowledged, undo and redo stacks included.

Files, for a ledger ``LEDGER``:

- ``LEDGER``: the SQLite database (WAL, synchronous=FULL), marked as ours with
  ``PRAGMA application_id = 0x43524942`` (``APPLICATION_ID``, "CRIB" in ASCII);
  a ledger written before the marker (application_id 0, our ``meta`` table,
  schema "1") is recognised and marked when a writer opens it.
- ``LEDGER-wal``, ``LEDGER-shm``: SQLite's own.
- ``LEDGER.lock``: exists while a writer runs. The writer holds an exclusive
  ``flock`` on it for its lifetime and writes its pid and program into it, so a
  second writer is refused at once and told who holds it. It also holds an
  OFD write lock on it (Linux), which readers test with ``F_OFD_GETLK``
  (``writer_running``): they never take a lock on it. Readers
  (``LedgerReader``) open the database read-only and, WAL being what it is,
  read while the writer writes; in a folder they cannot write, with no writer
  running, they read the file ``immutable`` until one starts.

Schema 2 (``SCHEMA_VERSION``) keeps times, UTC ISO 8601 with milliseconds and a
``Z`` (``2026-12-02T19:48:42.123Z``) from the writer's ``clock``: each action's
``at``, each game's ``started`` and ``finished`` (the winning entry's time, or
when a new game replaced it), and each game's ``status``: NULL while it is live,
"finished", "abandoned" (a ``game`` line came before its end; it is kept and
counts for nobody) or "empty" (replaced before anything was entered in it).
The writer migrates a schema 1 ledger in the transaction that opens it: old
rows get NULL times (none is invented) and the status schema 1 meant.
``LedgerReader`` reads both schemas.

Opening reads only what the board needs, whatever the number of games played:
the last match's row, its ``tallies`` row (the earlier games' wins and game
points, kept by the writer in the transaction that starts each next game; see
``_TALLIES``) and the current game's entries. Each entry is one transaction of
one INSERT (its time one more bound value), plus an UPDATE of the game's outcome,
finish and status only when the entry changes them.

Integrity: SQLite reports damage on the pages it reads; ``PRAGMA quick_check``
reads the whole file, about 9 ms per 1,000 games (4 ms per MB) on the machine
the benchmarks ran on, 8-15x that on a Pi Zero 2 W. ``LedgerStore(check="open")``
(the default) runs it before the first entry; with ``check="later"`` the board
runs it in a thread after READY=1 (:meth:`LedgerStore.check`, on a read-only
connection of its own) and sets a damaged file aside on its next loop step,
carrying over the current match just as an open does.

Only a damaged file is set aside (renamed, never deleted): one SQLite calls not
a database or corrupt, one that fails ``quick_check``, or one that carries our
marker with a schema that is not ours. Every other reason a ledger cannot be
opened (permission, read-only, busy, disk full, a folder or a file in the way,
another program's database, a newer schema) is a ``StoreError`` that names the
path and the cause, and nothing is renamed, created or changed.
"""

from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import sqlite3
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .errors import CribbageError
from .game import Game, LedgerEntry, Match, Outcome, Standing
from .record import Action, GameHeader, Scorebook, parse_line

APPLICATION_ID = 0x43524942  # "CRIB": PRAGMA application_id of every ledger
SCHEMA_VERSION = "2"  # 1: the first release; 2: times (actions.at, games.started/finished) and games.status
BUSY_TIMEOUT_MS = 1000  # how long to wait on another program's SQLite lock
CHECKS = ("open", "later")  # when LedgerStore runs quick_check
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (id INTEGER PRIMARY KEY, started TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    header TEXT NOT NULL,
    outcome TEXT,
    started TEXT,
    finished TEXT,
    status TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    line TEXT NOT NULL,
    at TEXT
);
CREATE INDEX IF NOT EXISTS actions_by_game ON actions (game_id, id);
CREATE INDEX IF NOT EXISTS games_by_match ON games (match_id, id);
"""
# The tally of each match's earlier games, kept by the writer in the transaction
# that starts the next game, so that opening reads one row, not every game. It is
# a cache: valid while ``through`` is the match's last game before the current one.
# Any other change to a counted game (another program's UPDATE, DELETE or INSERT)
# drops the row through these triggers, and the next open counts again; so a
# ledger written without it (schema 1 as first released) reads the same.
_TALLIES = (
    """CREATE TABLE IF NOT EXISTS tallies (
    match_id INTEGER PRIMARY KEY REFERENCES matches(id),
    through INTEGER NOT NULL,
    standing TEXT NOT NULL
)""",
    """CREATE TRIGGER IF NOT EXISTS tallies_stale_on_insert AFTER INSERT ON games
WHEN NEW.id <= (SELECT through FROM tallies WHERE match_id = NEW.match_id)
BEGIN DELETE FROM tallies WHERE match_id = NEW.match_id; END""",
    """CREATE TRIGGER IF NOT EXISTS tallies_stale_on_update AFTER UPDATE ON games
WHEN OLD.id <= (SELECT through FROM tallies WHERE match_id = OLD.match_id)
  OR NEW.id <= (SELECT through FROM tallies WHERE match_id = NEW.match_id)
BEGIN DELETE FROM tallies WHERE match_id IN (OLD.match_id, NEW.match_id); END""",
    """CREATE TRIGGER IF NOT EXISTS tallies_stale_on_delete AFTER DELETE ON games
WHEN OLD.id <= (SELECT through FROM tallies WHERE match_id = OLD.match_id)
BEGIN DELETE FROM tallies WHERE match_id = OLD.match_id; END""",
)
_TALLY_OBJECTS = {"tallies", "tallies_stale_on_insert", "tallies_stale_on_update", "tallies_stale_on_delete"}
_COLUMNS = {
    "meta": {"key", "value"},
    "matches": {"id", "started"},
    "games": {"id", "match_id", "header", "outcome"},
    "actions": {"id", "game_id", "line"},
}
_COLUMNS_V2 = {"games": {"started", "finished", "status"}, "actions": {"at"}}
# Schema 1 -> 2, in the writer's opening transaction: new columns are NULL in the
# old rows (no time is invented); a game's status is what schema 1 already meant:
# finished with an outcome; without one when a later game exists, abandoned if
# anything was entered in it, else empty; NULL (live) for the last game while it
# has no outcome.
_MIGRATE_1_TO_2 = (
    "ALTER TABLE actions ADD COLUMN at TEXT",
    "ALTER TABLE games ADD COLUMN started TEXT",
    "ALTER TABLE games ADD COLUMN finished TEXT",
    "ALTER TABLE games ADD COLUMN status TEXT",
    "UPDATE games SET status = CASE WHEN outcome IS NOT NULL THEN 'finished' "
    "WHEN EXISTS (SELECT 1 FROM actions WHERE game_id = games.id) THEN 'abandoned' ELSE 'empty' END "
    "WHERE outcome IS NOT NULL OR id < (SELECT max(id) FROM games)",
    "UPDATE meta SET value = '2' WHERE key = 'schema'",
)
# games.status: NULL while the game is live; "empty": replaced before anything was entered
FINISHED, ABANDONED, EMPTY = "finished", "abandoned", "empty"
_DAMAGED = {sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT}
_OS_CAUSES = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.ENOTDIR: "a file is in the way of its folder",
    errno.EISDIR: "it is a folder, not a file",
    errno.ELOOP: "too many symbolic links",
    errno.ENAMETOOLONG: "the name is too long",
}


class StoreError(CribbageError):
    """The ledger could not be opened or written; nothing was acknowledged."""


class LedgerInUseError(StoreError):
    """Another process is writing this ledger."""


class DiskFullError(StoreError):
    """The disk is full: the entry was not saved."""


class _Damaged(Exception):
    """The file is ours (or claims to be) but cannot be read as a ledger."""


def _code(error: sqlite3.Error) -> int:
    """SQLite's primary result code of an error (0 when it has none)."""
    return getattr(error, "sqlite_errorcode", 0) & 0xFF


def _sqlite_cause(error: sqlite3.Error, folder: Path) -> str:
    """What an SQLite error means for the user, from its result code."""
    code = _code(error)
    name = getattr(error, "sqlite_errorname", "") or type(error).__name__
    if code == sqlite3.SQLITE_FULL or (code == sqlite3.SQLITE_IOERR and _disk_is_full(folder)):
        return "disk full"
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return "locked by another program (a backup? another copy of the board?)"
    if code == sqlite3.SQLITE_READONLY:
        return "read-only: the file or its folder cannot be written"
    if code == sqlite3.SQLITE_PERM or code == sqlite3.SQLITE_AUTH:
        return "permission denied"
    if code == sqlite3.SQLITE_CANTOPEN:
        return "SQLite cannot open it (check the path and its permissions)"
    return f"{error} ({name})"


def _disk_is_full(folder: Path) -> bool:
    try:
        return os.statvfs(folder).f_bavail == 0
    except OSError:
        return False


def _os_cause(error: OSError) -> str:
    return _OS_CAUSES.get(error.errno, error.strerror or str(error))


# ---- the path ----------------------------------------------------------------


def _exists(path: Path) -> bool:
    """Whether a ledger file is there; raises StoreError, changing nothing, if
    the path is not a file this user can write (or a file that could be made)."""
    try:
        path.stat()
    except FileNotFoundError:
        _check_parent(path)
        return False
    except OSError as error:
        if error.errno == errno.ENOTDIR:
            _check_parent(path)
        raise StoreError(f"ledger {path} cannot be opened: {_os_cause(error)}") from error
    if path.is_dir():
        raise StoreError(f"ledger {path} is a folder, not a file: give a file path (--state FILE)")
    if not path.is_file():
        raise StoreError(f"ledger {path} is not a regular file: give a file path (--state FILE)")
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CLOEXEC))
    except OSError as error:
        raise StoreError(f"ledger {path} cannot be written: {_os_cause(error)}") from error
    return True


def _check_parent(path: Path) -> None:
    """The ledger's folder exists or can be made: the nearest existing ancestor is a folder."""
    for ancestor in path.absolute().parents:
        try:
            if ancestor.is_dir():
                return
            if ancestor.exists():
                raise StoreError(
                    f"ledger {path} cannot be created: {ancestor} is a file, not a folder"
                )
        except OSError as error:
            raise StoreError(f"ledger {path} cannot be created: {_os_cause(error)}") from error


# ---- the writer's lock -------------------------------------------------------


class WriterLock:
    """An exclusive ``flock`` on ``LEDGER.lock`` for one writer's lifetime.

    The lock file holds ``PID PROGRAM`` for the refusal message. It is removed
    when released; a lock left by a killed writer is free (the kernel drops a
    dead process's flock) and is simply taken.
    """

    def __init__(self, ledger: Path, holder: str):
        self.ledger = ledger
        real = Path(os.path.realpath(ledger))  # one lock whatever symlink leads to the ledger
        self.path = real.with_name(real.name + ".lock")
        self.created = False
        self._fd: int | None = None
        for _ in range(10):  # another writer may remove the file between our open and flock
            fd, created = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                who = self._holder(fd)
                os.close(fd)
                raise LedgerInUseError(
                    f"ledger {ledger} is in use by {who}: stop it first"
                ) from None
            except OSError as error:
                os.close(fd)
                raise StoreError(f"ledger {ledger} cannot be locked: {_os_cause(error)}") from error
            if self._same_file(fd):
                self._fd, self.created = fd, created
                _mark_held(fd)
                break
            os.close(fd)
        else:
            raise StoreError(f"ledger {ledger} cannot be locked: its lock file keeps changing")
        try:  # best effort: a full disk must not stop the lock itself
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {holder}\n".encode(), 0)
        except OSError:
            pass

    def _open(self) -> tuple[int, bool]:
        flags = os.O_RDWR | os.O_CLOEXEC
        while True:
            try:
                return os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
            except FileExistsError:
                pass
            except OSError as error:
                raise StoreError(
                    f"ledger {self.ledger} cannot be written: no file can be made in its folder "
                    f"{self.path.parent} for the writer's lock ({_os_cause(error)})"
                ) from error
            try:
                return os.open(self.path, flags), False
            except FileNotFoundError:
                continue
            except OSError as error:
                raise StoreError(
                    f"ledger {self.ledger} cannot be written: its lock {self.path} "
                    f"cannot be opened ({_os_cause(error)})"
                ) from error

    def _same_file(self, fd: int) -> bool:
        try:
            here, there = os.fstat(fd), os.stat(self.path)
        except FileNotFoundError:
            return False
        return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)

    @staticmethod
    def _holder(fd: int) -> str:
        try:
            text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
        except OSError:
            text = ""
        pid, _, program = text.partition(" ")
        if not pid.isdigit():
            return "another process"
        return f"{program or 'a process'} (pid {pid})"

    def release(self, remove: bool = True) -> None:
        """Let the lock go (removing the lock file first, while it is still ours)."""
        if self._fd is None:
            return
        if remove and self._same_file(self._fd):
            try:
                self.path.unlink()
            except OSError:
                pass
        os.close(self._fd)
        self._fd = None


# The flock above is what excludes writers; readers cannot test a flock without
# taking it (and a reader's brief shared flock would make a board starting at that
# moment fail "in use"). So the writer also holds an open-file-description write
# lock (Linux F_OFD_SETLK, whole file) on the same file, which a reader tests with
# F_OFD_GETLK: a query that takes nothing and blocks nobody (see ``writer_running``).
_OFD_GETLK = getattr(fcntl, "F_OFD_GETLK", None)
_OFD_SETLK = getattr(fcntl, "F_OFD_SETLK", None)
_FLOCK = "@hhqqi"  # struct flock: l_type, l_whence, l_start, l_len (0: to the end), l_pid


def _mark_held(fd: int) -> None:
    """Best effort: the flock alone keeps other writers out; readers then fall back on the files."""
    if _OFD_SETLK is not None:
        try:
            fcntl.fcntl(fd, _OFD_SETLK, struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0))
        except OSError:
            pass


def writer_running(ledger: str | os.PathLike) -> bool | None:
    """Whether a writer (the board) holds the ledger's lock now: True, False, or None
    where this system cannot tell (no OFD locks). It only asks the kernel (F_OFD_GETLK
    on ``LEDGER.lock`` opened read-only): it takes no lock, so it never makes a
    starting writer fail, and works in a folder this process cannot write."""
    return _lock_held(_lock_path(ledger))


def _lock_path(ledger: str | os.PathLike) -> str:
    """``LEDGER.lock`` beside the real file, as ``WriterLock`` names it."""
    return os.path.realpath(ledger) + ".lock"


def _lock_held(lock: str) -> bool | None:
    if _OFD_GETLK is None:
        return None
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False  # a writer makes the file before it locks it, and removes it last
    except OSError:
        return None
    try:
        probe = struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
        return struct.unpack(_FLOCK, fcntl.fcntl(fd, _OFD_GETLK, probe))[0] != fcntl.F_UNLCK
    except OSError:
        return None
    finally:
        os.close(fd)


def _default_holder() -> str:
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name and name not in ("-c", "-m", "__main__.py") else "python"


# ---- reading a ledger --------------------------------------------------------


def _uri(path: Path, mode: str) -> str:
    return f"{path.absolute().as_uri()}?mode={mode}"


def _inspect(conn: sqlite3.Connection, path: Path) -> tuple[str, int]:
    """What the open database is, and its schema version: "new" (empty), "ours",
    or "unmarked" (a ledger from before the marker, schema 1). Raises StoreError
    for another program's database or a newer schema, _Damaged for our marker on
    a schema that is not ours."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        if app_id in (0, APPLICATION_ID):
            return "new", int(SCHEMA_VERSION)
    if app_id == 0:
        if "meta" not in tables or _schema_row(conn) != "1":  # the marker came with schema 1
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(
                f"ledger {path} is another program's SQLite database (tables: {shown}): "
                "give another path (--state FILE)"
            )
    elif app_id != APPLICATION_ID:
        raise StoreError(
            f"ledger {path} is another program's SQLite database (application_id {app_id:#x}): "
            "give another path (--state FILE)"
        )
    version = _schema_row(conn) if "meta" in tables else None
    if version is None or not version.isdigit() or int(version) < 1:
        raise _Damaged(f"it carries the ledger marker but has no schema version ({version!r})")
    if int(version) > int(SCHEMA_VERSION):
        raise StoreError(
            f"ledger {path} has schema {version}, newer than this cribbage-board reads "
            f"({SCHEMA_VERSION}): upgrade cribbage-board or give another path (--state FILE)"
        )
    for table, columns in _COLUMNS.items():
        if int(version) >= 2:
            columns = columns | _COLUMNS_V2.get(table, set())
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not columns <= have:
            raise _Damaged(f"its table {table} is missing or lacks columns")
    return ("ours" if app_id == APPLICATION_ID else "unmarked"), int(version)


def _schema_row(conn: sqlite3.Connection) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:  # a "meta" table of another shape
        return None
    return row[0] if row and isinstance(row[0], str) else None


def _parse(line) -> Action:
    if not isinstance(line, str):
        raise ValueError(f"not text: {line!r}")
    action = parse_line(line)
    if action is None:
        raise ValueError("an empty line")
    return action


@dataclass
class _Tally:
    """The match's games before the current one, as the ``tallies`` row holds them."""

    match_id: int
    through: int  # the last game counted (0: none yet)
    standing: Standing = field(default_factory=Standing)
    damaged: tuple[tuple[int, str], ...] = ()  # (game, why) of results left out

    def add(self, game_id: int, outcome: Outcome | None, damage: str | None = None,
            empty: bool = False) -> "_Tally":
        """This tally with one more game counted (abandoned: ``outcome`` None; a
        ``damage``d result, or an ``empty`` game, counts for nobody, not even as abandoned)."""
        standing = self.standing if damage or empty else self.standing.add(outcome)
        damaged = self.damaged + (((game_id, damage),) if damage else ())
        return _Tally(self.match_id, game_id, standing, damaged)

    def to_json(self) -> str:
        return json.dumps({
            "games": self.standing.games, "wins": [list(w) for w in self.standing.wins],
            "abandoned": self.standing.abandoned, "damaged": [list(d) for d in self.damaged],
        })

    @classmethod
    def from_row(cls, match_id: int, through, text) -> "_Tally":
        """A tallies row; raises ValueError (or KeyError, TypeError) if it does not read."""
        data = json.loads(text)
        wins = tuple((str(side), int(won), int(points)) for side, won, points in data["wins"])
        damaged = tuple((int(game), str(why)) for game, why in data["damaged"])
        standing = Standing(int(data["games"]), wins, int(data["abandoned"]))  # none: counted again
        return cls(match_id, int(through), standing, damaged)


@dataclass
class _Current:
    """What opening reads: the scorebook, the current game and match, their tally."""

    book: Scorebook
    game_id: int | None = None
    match_id: int | None = None
    tally: _Tally | None = None
    counted: bool = False  # the tally was counted from the games: worth saving
    outcome: str | None = None  # the current game's outcome as stored


def _read_tally(conn: sqlite3.Connection, path: Path, match_id: int, game_id: int,
                messages: list[str]) -> tuple[_Tally, bool]:
    """The tally of the match's games before ``game_id``: its tallies row while that
    is valid (one indexed read), else counted from the games after what the row
    counted (or all of them); True when anything had to be counted."""
    last = conn.execute(
        "SELECT max(id) FROM games WHERE match_id=? AND id<?", (match_id, game_id)
    ).fetchone()[0] or 0
    tally = None
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='tallies'").fetchone():
        row = conn.execute("SELECT through, standing FROM tallies WHERE match_id=?", (match_id,)).fetchone()
        if row is not None:
            try:
                tally = _Tally.from_row(match_id, *row)
            except (ValueError, KeyError, TypeError, AttributeError):
                tally = None
            if tally is not None and not 0 <= tally.through <= last:
                tally = None
    counted = tally is None or tally.through != last
    tally = tally or _Tally(match_id, 0)
    if counted:
        rows = conn.execute(
            "SELECT id, outcome, outcome IS NULL AND NOT EXISTS (SELECT 1 FROM actions WHERE game_id = games.id) "
            "FROM games WHERE match_id=? AND id>? AND id<? ORDER BY id",
            (match_id, tally.through, game_id),
        )
        for earlier_id, outcome, empty in rows:
            if outcome is None:  # abandoned (or empty): it counts for nobody
                tally = tally.add(earlier_id, None, empty=bool(empty))
                continue
            try:
                tally = tally.add(earlier_id, Outcome.from_dict(json.loads(outcome)))
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                tally = tally.add(earlier_id, None, repr(error))
    for earlier_id, why in tally.damaged:
        messages.append(
            f"ledger {path}: the result of game {earlier_id} is damaged ({why}); "
            "it stays in the ledger but is left out of the match tally"
        )
    return tally, counted


def _read_book(conn: sqlite3.Connection, path: Path, messages: list[str]) -> _Current:
    """The current match from the ledger, in one read snapshot: its earlier games'
    tally (one row, see ``_TALLIES``) and the current game replayed. What no longer
    reads is skipped and said in ``messages``; it stays in the file."""
    conn.execute("BEGIN")
    try:
        row = conn.execute("SELECT max(id) FROM matches").fetchone()
        if row[0] is None:
            return _Current(Scorebook())
        match_id = row[0]
        last = conn.execute(
            "SELECT id, header, outcome FROM games WHERE match_id=? ORDER BY id DESC LIMIT 1", (match_id,)
        ).fetchone()
        if last is None:
            return _Current(Scorebook())
        game_id, header_line, stored_outcome = last
        try:
            header = _parse(header_line)
            if not isinstance(header, GameHeader):
                raise ValueError(f"not a game line: {header_line!r}")
        except ValueError as error:
            messages.append(
                f"ledger {path}: game {game_id} cannot be resumed, its game line is damaged ({error}); "
                "it stays in the ledger and a new game starts"
            )
            return _Current(Scorebook())
        tally, counted = _read_tally(conn, path, match_id, game_id, messages)
        try:
            match = Match(header.variant, header.seats, header.dealer, header.options, earlier=tally.standing)
            book = Scorebook(match)
        except CribbageError as error:
            messages.append(
                f"ledger {path}: game {game_id} cannot be resumed ({error}); "
                "it stays in the ledger and a new game starts"
            )
            return _Current(Scorebook())
        lines = conn.execute(
            "SELECT id, line FROM actions WHERE game_id=? ORDER BY id", (game_id,)
        ).fetchall()
        for action_id, line in lines:
            try:
                book.apply(_parse(line))
            except ValueError as error:  # CribbageError included
                messages.append(f"ledger action {action_id} ({line}) no longer replays: {error}")
        return _Current(book, game_id, match_id, tally, counted, stored_outcome)
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def _export(conn: sqlite3.Connection, path: Path, game_id: int) -> list[str]:
    conn.execute("BEGIN")
    try:
        row = conn.execute("SELECT header FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in {path}")
        lines = conn.execute(
            "SELECT line FROM actions WHERE game_id=? ORDER BY id", (game_id,)
        ).fetchall()
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
    return [row[0]] + [line for (line,) in lines]


def _quick_check(conn: sqlite3.Connection) -> str | None:
    """SQLite's quick_check of the whole file: what is wrong, or None."""
    check = conn.execute("PRAGMA quick_check").fetchone()[0]
    if check == "ok":
        return None
    problems = [line for line in check.splitlines() if not line.startswith("***")] or [check]
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    return f"integrity check failed: {problems[0]}{more}"


def _roll_back(conn: sqlite3.Connection) -> None:
    """Roll back what is open after a failed write. SQLite may already have rolled
    back (a failed COMMIT on a full disk does): never hide the first error."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass


def _stamp(value) -> str:
    """A clock reading as UTC ISO 8601 with milliseconds and a Z: the clock may give
    seconds since the epoch, a datetime (naive: UTC) or the ISO string itself."""
    if isinstance(value, str):
        return value
    if hasattr(value, "utcoffset"):  # a datetime; imported only by clocks that give one
        offset = value.utcoffset()
        if offset is not None:
            value = value.replace(tzinfo=None) - offset
        return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    global _second
    whole, millis = divmod(math.floor(float(value) * 1000 + 1e-6), 1000)  # 1e-6: 0.005 may be 0.00499..
    second = _second
    if second[0] != whole:  # strftime costs more than the rest: once a second
        second = _second = (whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)))
    return f"{second[1]}.{millis:03d}Z"


_second: tuple[int | None, str] = (None, "")  # the last second stamped, and its text


def _epoch(value) -> float:
    """Seconds since the epoch of a clock reading (see ``_stamp``)."""
    if isinstance(value, (int, float)):
        return float(value)
    from datetime import datetime, timezone

    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.utcoffset() is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


def _game_ids(conn: sqlite3.Connection) -> list[int]:
    return [row[0] for row in conn.execute("SELECT id FROM games ORDER BY id")]


# ---- the writer --------------------------------------------------------------


class LedgerStore:
    """A scorebook kept in an SQLite file (WAL, synchronous=FULL), by its one writer.

    Opening takes the writer's lock (``LedgerInUseError`` if another process
    holds it) and raises ``StoreError``, changing nothing, when the file cannot
    be used; only a damaged file is set aside. ``messages`` tells what happened
    on opening (a file set aside, what was salvaged, a line that no longer
    replays), for the board to show. ``holder`` names this program in the lock.
    ``clock`` gives the time of each entry and game: seconds since the epoch
    (the default, ``time.time``), a datetime (naive: UTC) or the ISO 8601 string.

    ``check`` is when SQLite's ``quick_check`` reads the whole file: ``"open"``
    (before the first entry; it costs time in proportion to the file, about
    10 ms per 1,000 games here, 8-15x that on a Pi Zero 2 W) or ``"later"``:
    not at open, but when the caller runs :meth:`check` (the board does, in a
    thread of its own after READY=1) and, if it finds damage, :meth:`set_aside`,
    which does what an open would have done. Either way opening reads only the
    pages it needs (the last match's row, its tally, the current game), and
    SQLite reports damage on those as it reads them.
    """

    def __init__(
        self, path: str | os.PathLike, clock=time.time, holder: str | None = None, check: str = "open",
    ):
        if check not in CHECKS:
            raise ValueError(f"check={check!r}: use one of {', '.join(CHECKS)}")
        self.path = Path(path)
        self.messages: list[str] = []
        self._clock = clock
        self._conn: sqlite3.Connection | None = None
        self._broken: str | None = None
        self._check_at_open = check == "open"
        self.check_pending = check == "later"  # check() has yet to run
        self._checking: sqlite3.Connection | None = None
        self._current = _Current(Scorebook())
        self._outcome: str | None = None
        self._replaced_played = False  # whether the game a game line replaces had entries
        exists = _exists(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)  # a missing state folder is made
        except OSError as error:
            raise StoreError(f"ledger {self.path} cannot be created: {_os_cause(error)}") from error
        self._lock = WriterLock(self.path, holder or _default_holder())
        try:
            self._open(fresh=not exists)
        except BaseException:
            self._close_quietly()
            self._lock.release(remove=self._lock.created)
            raise

    # ---- opening ---------------------------------------------------------

    def _open(self, fresh: bool) -> None:
        before = {suffix: Path(str(self.path) + suffix).exists() for suffix in ("", "-wal", "-shm")}
        try:
            try:
                self._conn = self._connect(fresh)
                self._resume(_read_book(self._conn, self.path, self.messages))
            except (sqlite3.DatabaseError, _Damaged) as error:
                if isinstance(error, sqlite3.Error) and _code(error) not in _DAMAGED:
                    raise
                self._replace_damaged(error)
        except sqlite3.Error as error:
            self._close_quietly()
            cause = _sqlite_cause(error, self.path.parent)
            self._tidy_failed_open(before, fresh, cause == "disk full")
            what = "cannot be created" if fresh else "cannot be opened"
            raise StoreError(f"ledger {self.path} {what}: {cause}") from error

    def _tidy_failed_open(self, before: dict[str, bool], fresh: bool, disk_full: bool) -> None:
        """Remove what a failed open made: a ledger we began to create, or the empty
        -wal and the -shm SQLite began on a full disk (nobody else had them open, or
        they would have been there before)."""
        wal = Path(f"{self.path}-wal")
        if not fresh and not (disk_full and wal.exists() and wal.stat().st_size == 0):
            return
        for suffix, existed in before.items():
            if not existed:
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def _connect(self, fresh: bool) -> sqlite3.Connection:
        conn = sqlite3.connect(_uri(self.path, "rwc" if fresh else "rw"), uri=True, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("BEGIN")  # reading what the file is changes nothing
            kind, version = _inspect(conn, self.path)
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            if kind != "new" and self._check_at_open:
                problem = _quick_check(conn)
                if problem:
                    raise _Damaged(problem)
            conn.execute("BEGIN IMMEDIATE")  # can we write? (read-only file, another writer)
            if kind != "ours":
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
            if kind != "new" and version < 2:  # in this transaction: all of it or nothing
                for statement in _MIGRATE_1_TO_2:
                    conn.execute(statement)
            have = conn.execute(
                f"SELECT count(*) FROM sqlite_master WHERE name IN ({','.join('?' * len(_TALLY_OBJECTS))})",
                tuple(_TALLY_OBJECTS),
            ).fetchone()[0]
            if have != len(_TALLY_OBJECTS):  # a ledger from before the tally: add it
                for statement in _TALLIES:
                    conn.execute(statement)
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            raise
        return conn

    def _replace_damaged(self, error: Exception) -> None:
        """Set the damaged file aside, start a new ledger, and carry over what of
        the current match still reads."""
        self._close_quietly()
        self.messages.clear()
        salvage = self._salvage()
        moved = self._set_aside(error)
        self._conn = self._connect(fresh=True)
        kept = "nothing of it could be carried over"
        if salvage and self._restore(salvage):
            _, games, actions = salvage
            kept = (f"the current match was carried over ({len(games)} games, "
                    f"{len(actions)} entries of the current one)")
        self._resume(_read_book(self._conn, self.path, self.messages))
        reason = " ".join(str(error).split())  # one line, whatever SQLite said
        self.messages.insert(0,
            f"ledger {self.path} could not be read ({reason}); it was kept as {moved} "
            f"and a new ledger started: {kept}"
        )

    def _salvage(self) -> tuple[list, list, list] | None:
        """The latest match's row, games and current game's actions, if they still read
        (read-only: the damaged file is kept as it is)."""
        try:
            conn = sqlite3.connect(_uri(self.path, "ro"), uri=True, isolation_level=None)
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
        except sqlite3.Error:
            return None
        finally:
            conn.close()
        return [tuple(match)], games, actions

    def _restore(self, salvage: tuple[list, list, list]) -> bool:
        matches, games, actions = salvage
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT INTO matches (id, started) VALUES (?, ?)", matches)
            conn.executemany(
                "INSERT INTO games (id, match_id, header, outcome, started, finished, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", games)
            conn.executemany("INSERT INTO actions (id, game_id, line, at) VALUES (?, ?, ?, ?)", actions)
            conn.execute("COMMIT")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return False
        return True

    def _set_aside(self, error: Exception) -> Path:
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(_epoch(self._clock())))
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        counter = 1
        while target.exists():
            counter += 1
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{counter}")
        try:
            for suffix in ("", "-wal", "-shm"):
                part = Path(str(self.path) + suffix)
                if part.exists():
                    os.replace(part, str(target) + suffix)
        except OSError as move_error:
            raise StoreError(
                f"ledger {self.path} is damaged ({error}) and cannot be moved aside "
                f"({_os_cause(move_error)}): check the state folder's permissions"
            ) from move_error
        return target

    # ---- writing ---------------------------------------------------------

    @property
    def game(self) -> Game | None:
        return self.book.game

    def apply(self, action: Action) -> LedgerEntry | Game:
        """Apply an action and make it durable; only then return (acknowledge).

        A refused action raises and nothing is written. If the write fails the
        in-memory state is rebuilt from the database and StoreError is raised
        (``DiskFullError``, "disk full: entry not saved", when the disk is full).
        """
        if self._conn is None or self._broken:
            raise StoreError(self._broken or f"ledger {self.path} is closed")
        if isinstance(action, GameHeader):  # does it replace a game anything was entered in?
            replaced = self.book.game
            self._replaced_played = replaced is not None and bool(replaced.history)
        result = self.book.apply(action)
        try:
            self._write(action)
        except sqlite3.Error as error:
            failure = self._write_failure(error)
            try:
                self._resume(_read_book(self._conn, self.path, []))
            except sqlite3.Error as reread:
                self._broken = f"ledger {self.path} cannot be read back ({reread}): restart the board"
                raise StoreError(f"{failure}; {self._broken}") from error
            raise failure from error
        return result

    def _write_failure(self, error: sqlite3.Error) -> StoreError:
        if _code(error) == sqlite3.SQLITE_FULL:
            return DiskFullError("disk full: entry not saved")
        return StoreError(f"entry not saved: {_sqlite_cause(error, self.path.parent)}")

    def _write(self, action: Action) -> None:
        """One durable entry. Everything but SQLite's work is done before the
        transaction; an entry is one INSERT, and an UPDATE of the game's stored
        outcome only when that changes (the winning entry, its undo and redo)."""
        conn = self._conn
        game = self.book.game
        if isinstance(action, GameHeader):
            self._write_header(game)
            return
        line = game.history[-1].record()  # as the game recorded it, seat resolved
        outcome = json.dumps(game.outcome.to_dict()) if game.outcome is not None else None
        game_id = self._game_id
        at = _stamp(self._clock())
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("INSERT INTO actions (game_id, line, at) VALUES (?, ?, ?)", (game_id, line, at))
            if outcome != self._outcome:  # the game ends here, or its end is undone
                conn.execute(
                    "UPDATE games SET outcome=?, finished=?, status=? WHERE id=?",
                    (outcome, at if outcome else None, FINISHED if outcome else None, game_id),
                )
            conn.execute("COMMIT")
        except BaseException:
            _roll_back(conn)
            raise
        self._outcome = outcome

    def _write_header(self, game: Game) -> None:
        """A new game: the next of the match (its predecessor joins the match's
        tally row in the same transaction) or the first of a new match. A game
        it replaces before its end is marked abandoned, never dropped."""
        conn = self._conn
        header = game.header()
        same_match = self._game_id is not None and bool(self.book.games)
        abandoned = self._game_id if self._game_id is not None and self._outcome is None else None
        status = ABANDONED if self._replaced_played else EMPTY
        tally = None
        if same_match:
            current = self._current.tally
            if current is not None and current.match_id == self._current.match_id:
                outcome = self.book.games[-1].outcome
                tally = current.add(self._game_id, outcome, empty=outcome is None and status == EMPTY)
        now = _stamp(self._clock())
        conn.execute("BEGIN IMMEDIATE")
        try:
            if abandoned is not None:  # before the tally row: its trigger watches counted games
                conn.execute("UPDATE games SET status=?, finished=? WHERE id=?", (status, now, abandoned))
            if same_match:
                match_id = self._current.match_id
            else:
                match_id = conn.execute("INSERT INTO matches (started) VALUES (?)", (now,)).lastrowid
                tally = _Tally(match_id, 0)
            game_id = conn.execute(
                "INSERT INTO games (match_id, header, started) VALUES (?, ?, ?)", (match_id, header, now)
            ).lastrowid
            if tally is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO tallies (match_id, through, standing) VALUES (?, ?, ?)",
                    (match_id, tally.through, tally.to_json()),
                )
            conn.execute("COMMIT")
        except BaseException:
            _roll_back(conn)
            raise
        self._current = _Current(self.book, game_id, match_id, tally)
        self._game_id = game_id
        self._outcome = None

    def _resume(self, current: _Current) -> None:
        """Take what was read as the state; save a tally that had to be counted (best
        effort: if it cannot be saved now, the next open counts again)."""
        self._current = current
        self.book, self._game_id, self._outcome = current.book, current.game_id, current.outcome
        if current.counted and current.tally is not None:
            try:
                self._conn.execute(
                    "INSERT OR REPLACE INTO tallies (match_id, through, standing) VALUES (?, ?, ?)",
                    (current.match_id, current.tally.through, current.tally.to_json()),
                )
            except sqlite3.Error:
                _roll_back(self._conn)
            else:
                current.counted = False

    # ---- checking --------------------------------------------------------

    def check(self) -> str | None:
        """Run SQLite's quick_check over the whole file on a read-only connection of
        its own (safe in another thread while this writer writes); the damage found,
        or None if the file is sound or the check could not finish (closed meanwhile)."""
        self.check_pending = False
        try:
            conn = sqlite3.connect(_uri(self.path, "ro"), uri=True, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as error:
            return str(error) if _code(error) in _DAMAGED else None
        self._checking = conn
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            return _quick_check(conn)
        except sqlite3.Error as error:
            return f"integrity check failed: {error}" if _code(error) in _DAMAGED else None
        finally:
            self._checking = None
            conn.close()

    def set_aside(self, problem: str) -> None:
        """Damage found by :meth:`check`: set the file aside and start a new ledger with
        what of the current match still reads, as opening would have; ``messages``
        says so. Raises StoreError if that cannot be done (the ledger is then unusable)."""
        try:
            self._replace_damaged(_Damaged(problem))
        except (StoreError, sqlite3.Error) as error:
            self._close_quietly()
            cause = error if isinstance(error, StoreError) else _sqlite_cause(error, self.path.parent)
            self._broken = f"ledger {self.path} is damaged and could not be replaced ({cause}): restart the board"
            raise StoreError(self._broken) from error

    # ---- reading ---------------------------------------------------------

    def game_ids(self) -> list[int]:
        """Every game in the ledger, oldest first."""
        return _game_ids(self._conn)

    def export(self, game_id: int | None = None) -> list[str]:
        """A game (the current one by default) as game-record lines."""
        game_id = self._game_id if game_id is None else game_id
        if game_id is None:
            return []
        return _export(self._conn, self.path, game_id)

    def close(self) -> None:
        """Close the database (stopping a running check), then let the writer's lock go."""
        checking = self._checking
        if checking is not None:
            try:
                checking.interrupt()
            except sqlite3.Error:
                pass
        self._close_quietly()
        self._lock.release()

    def _close_quietly(self) -> None:
        _close_connection(self._conn)
        self._conn = None

    def __enter__(self) -> "LedgerStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---- the reader --------------------------------------------------------------


WAL_HEADER = 32  # bytes: a -wal no longer than its header holds no frame (no entry)
RETRY_LIVE_SECONDS = 1.0  # an immutable reader that could not go live tries again this often (or when a file changes)


@dataclass(frozen=True)
class _Files:
    """What a reader sees of a ledger's files, to tell that a writer started or the file changed."""

    db: tuple  # the database: (st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)
    wal: int | None  # size of LEDGER-wal, None when there is none
    shm: bool  # whether LEDGER-shm is there
    writer: bool | None  # writer_running()

    @classmethod
    def look(cls, path: str, lock: str) -> "_Files":
        """The files of the ledger at ``path`` (a str: this runs at every poll) with lock ``lock``."""
        try:
            st = os.stat(path)
            db = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        except OSError:
            db = ()
        try:
            wal = os.stat(path + "-wal").st_size
        except OSError:
            wal = None
        return cls(db, wal, os.path.exists(path + "-shm"), _lock_held(lock))

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
    Raises StoreError if there is no ledger at ``path`` or it is not one of ours.

    In a folder it cannot write (the web unit's), ``mode=ro`` needs the -wal and
    -shm a running board keeps; with the board stopped SQLite cannot make them.
    Then, if no writer holds the lock (``writer_running``; where the system
    cannot tell, the files alone decide) and no -wal holds frames, the file
    alone is the whole ledger and it is opened ``immutable=1``
    (``immutable`` is then True). SQLite neither locks nor looks for changes in
    such a file, so the reader does, before and after each read: once the board
    runs again (its lock, a -wal or -shm appears) it reopens with ``mode=ro``;
    an answer read while the file changed is read again once, or StoreError.
    A -wal with frames but no -shm (a board killed, the -shm then removed)
    cannot be read read-only: that is a StoreError that says so, never the
    file without those entries. (With both files left by a killed board,
    ``mode=ro`` reads them: SQLite rebuilds the index in memory.)
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.messages: list[str] = []
        if not self.path.is_file():
            raise StoreError(f"no ledger at {self.path}")
        self._conn: sqlite3.Connection | None = None
        self._turn = threading.Lock()
        self.immutable = False
        self._seen: _Files | None = None  # the files as they were when opened immutable
        self._tried: tuple[_Files | None, float] = (None, 0.0)  # the last failed try to go live
        self._opened = 0  # connections opened: part of data_version
        self._where, self._lock = str(self.path), _lock_path(self.path)
        self._conn, self.immutable, self._seen = self._connect()

    def _connect(self) -> tuple[sqlite3.Connection, bool, _Files | None]:
        """A connection with ``mode=ro``, else (see the class) ``immutable=1``; StoreError if neither."""
        try:
            conn = self._open_checked("ro")
        except StoreError as error:
            cause = error.__cause__
            if not (isinstance(cause, sqlite3.Error) and _cannot_make_wal(cause, self.path)):
                raise
            files = self._files()
            if files.writer:
                raise StoreError(f"ledger {self.path} cannot be read yet: the board holds it but has "
                                 "not opened it (starting?); it is read again in a moment") from cause
            if files.has_frames:
                raise StoreError(
                    f"ledger {self.path} cannot be read: {self.path.name}-wal holds entries of a board "
                    f"that stopped without closing the ledger, and without {self.path.name}-shm they "
                    "cannot be read read-only; start the board to bring them in") from cause
            conn = self._open_checked("ro&immutable=1")
            if self._files().db != files.db:  # changed while we opened it
                _close_connection(conn)
                raise StoreError(f"ledger {self.path} changed while it was opened: try again") from cause
            self._opened += 1
            return conn, True, files
        self._opened += 1
        return conn, False, None

    def _open_checked(self, params: str) -> sqlite3.Connection:
        """A connection with these URI parameters to one of our ledgers (not an empty one)."""
        conn = None
        try:
            conn = sqlite3.connect(f"{self.path.absolute().as_uri()}?mode={params}", uri=True,
                                   isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("BEGIN")
            kind, _ = _inspect(conn, self.path)
            conn.execute("COMMIT")
        except (sqlite3.Error, _Damaged) as error:
            _close_connection(conn)
            if isinstance(error, _Damaged) or _code(error) in _DAMAGED:
                raise StoreError(f"ledger {self.path} is damaged ({error})") from error
            raise StoreError(
                f"ledger {self.path} cannot be read: {_sqlite_cause(error, self.path.parent)}"
            ) from error
        except StoreError:
            _close_connection(conn)
            raise
        if kind == "new":
            _close_connection(conn)
            raise StoreError(f"no ledger at {self.path} (an empty database)")
        return conn

    def _files(self) -> _Files:
        return _Files.look(self._where, self._lock)

    def _reopen(self) -> None:
        conn, immutable, seen = self._connect()
        _close_connection(self._conn)
        self._conn, self.immutable, self._seen = conn, immutable, seen

    def _still(self, files: _Files) -> bool:
        """Whether the immutable connection still reads the whole ledger: same file, no frames."""
        return files.db == self._seen.db and not files.has_frames

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
        except StoreError:
            if not still:
                self.close()
                raise
            self._tried = (files, time.monotonic())  # the board is starting: the file still holds

    def _reading(self, read):
        with self._turn:
            if self._conn is None:
                raise StoreError(f"ledger {self.path} is closed")
            if self.immutable:
                self._follow()
            for _ in range(2):
                try:
                    result, failure = read(), None
                except sqlite3.Error as error:
                    result, failure = None, error
                if not self.immutable or self._still(self._files()):
                    if failure is not None:
                        raise StoreError(
                            f"ledger {self.path} cannot be read: {_sqlite_cause(failure, self.path.parent)}"
                        ) from failure
                    return result
                self._reopen()  # the file changed under the read: read again, live if the board runs
            self.close()
            raise StoreError(f"ledger {self.path} kept changing while it was read: try again")

    def game_ids(self) -> list[int]:
        """Every game in the ledger, oldest first."""
        return self._reading(lambda: _game_ids(self._conn))

    def current_game_id(self) -> int | None:
        """The game the writer is playing (the newest), None if there is none."""
        return self._reading(lambda: self._conn.execute("SELECT max(id) FROM games").fetchone()[0])

    def export(self, game_id: int | None = None) -> list[str]:
        """A game (the current one by default) as game-record lines."""
        game_id = self.current_game_id() if game_id is None else game_id
        if game_id is None:
            return []
        return self._reading(lambda: _export(self._conn, self.path, game_id))

    def games(self) -> list[dict]:
        """Every game but the live one (and those replaced before anything was
        entered in them), newest first, from the stored game rows (no replay): ``id``, ``match_id``, ``variant``, ``seats``, ``target``, ``status``
        ("finished" or "abandoned"), ``winner``, ``loser``, ``losers`` (each losing
        side's ``side``, ``score``, ``result``, ``margin``, ``game_points``),
        ``result``, ``margin``, ``game_points``, ``scores`` (side: final score),
        ``started`` and ``finished`` (UTC ISO 8601, None when not known). An
        abandoned game has no winner, loser or result (None) and no scores; its
        ``finished`` is when the next game replaced it. A game whose stored lines
        no longer read is left out and said in ``messages``."""
        messages: list[str] = []
        rows = self._reading(lambda: _game_rows(self._conn))
        listed = []
        last = rows[0][0] if rows else None
        for game_id, match_id, header_line, outcome_text, started, finished, status in rows:
            if outcome_text is not None:
                status = FINISHED
            elif status == EMPTY:
                continue  # replaced before anything was entered: no game to list
            elif status != ABANDONED:
                if game_id == last:
                    continue  # the live game
                status = ABANDONED  # replaced by a later game (schema 1 did not say so)
            header = _header(header_line)
            if header is None:
                messages.append(f"ledger {self.path}: game {game_id} is left out: its game line is damaged")
                continue
            result = _NO_RESULT
            if status == FINISHED:
                try:
                    result = _listed_result(outcome_text, header)
                except (ValueError, KeyError, TypeError, AttributeError) as error:
                    messages.append(f"ledger {self.path}: game {game_id} is left out: its result is damaged ({error!r})")
                    continue
            listed.append({
                "id": game_id,
                "match_id": match_id,
                "variant": header.variant.name,
                "seats": list(header.seats),
                "target": header.variant.target,
                "status": status,
                **result,
                "started": started,
                "finished": finished,
            })
        self.messages = messages
        return listed

    def times(self, game_id: int) -> dict:
        """When a game happened: ``started``, ``finished`` (None while it is live,
        or when not known) and ``entries``, the time of each action line of
        ``export(game_id)`` after its header, in order (None for lines written
        before the ledger kept times)."""
        return self._reading(lambda: _times(self._conn, self.path, game_id))

    def data_version(self) -> int:
        """A change token: SQLite's ``PRAGMA data_version`` on this reader's
        connection, which differs from the last value read whenever another
        connection (the writer) has committed since. It reads no table (one
        look at the WAL index), so it is cheap enough to poll every 50 ms; only
        a change, not its value, means anything. It also counts the connections
        opened, so it changes when an immutable reader reopens (a few stats and
        one lock query each call while immutable: that is how it sees the board
        start)."""
        return self._reading(
            lambda: self._opened << 32 | self._conn.execute("PRAGMA data_version").fetchone()[0])

    @property
    def book(self) -> Scorebook:
        """The current match as it stands now (read afresh at each use); what does
        not replay is said in ``messages``."""
        messages: list[str] = []
        current = self._reading(lambda: messages.clear() or _read_book(self._conn, self.path, messages))
        self.messages = messages
        return current.book

    def close(self) -> None:
        _close_connection(self._conn)
        self._conn = None

    def __enter__(self) -> "LedgerReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cannot_make_wal(error: sqlite3.Error, path: Path) -> bool:
    """Whether ``mode=ro`` failed because SQLite cannot make the -wal or -shm: read-only or
    cannot-open, in a folder this process cannot write (EACCES, EROFS), one of them missing."""
    if _code(error) not in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN):
        return False
    folder = path.absolute().parent
    missing = not (os.path.exists(f"{path}-wal") and os.path.exists(f"{path}-shm"))
    return missing and not os.access(folder, os.W_OK)


def _has_times(conn: sqlite3.Connection) -> bool:
    """Whether the ledger is of schema 2 or later (it keeps times and status)."""
    version = _schema_row(conn)
    return version is not None and version.isdigit() and int(version) >= 2


def _game_rows(conn: sqlite3.Connection) -> list[tuple]:
    """(id, match_id, header, outcome, started, finished, status) of every game, newest first."""
    conn.execute("BEGIN")
    try:
        extra = "started, finished, status" if _has_times(conn) else (
            "NULL, NULL, CASE WHEN outcome IS NULL AND NOT EXISTS "
            f"(SELECT 1 FROM actions WHERE game_id = games.id) THEN '{EMPTY}' END")
        return conn.execute(
            f"SELECT id, match_id, header, outcome, {extra} FROM games ORDER BY id DESC"
        ).fetchall()
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def _times(conn: sqlite3.Connection, path: Path, game_id: int) -> dict:
    conn.execute("BEGIN")
    try:
        if not _has_times(conn):
            row = conn.execute("SELECT NULL, NULL FROM games WHERE id=?", (game_id,)).fetchone()
            at = "NULL"
        else:
            row = conn.execute("SELECT started, finished FROM games WHERE id=?", (game_id,)).fetchone()
            at = "at"
        if row is None:
            raise StoreError(f"no game {game_id} in {path}")
        entries = [when for (when,) in conn.execute(
            f"SELECT {at} FROM actions WHERE game_id=? ORDER BY id", (game_id,))]
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
    return {"started": row[0], "finished": row[1], "entries": entries}


_NO_RESULT = {"winner": None, "loser": None, "losers": [], "result": None, "margin": None,
              "game_points": None, "scores": None}
_decode = json.JSONDecoder().decode


def _listed_result(text: str, header: GameHeader) -> dict:
    """The result keys of ``games()`` from a stored outcome, read as stored (no
    objects built: a listing of 1,000 games stays cheap); an outcome stored
    before ``losers`` was kept gets them from its scores and the game's rules."""
    data = _decode(text)
    losers = data.get("losers")
    if losers is None:
        outcome = Outcome.from_dict(data, header.variant.target, header.options)
        losers = [loser.to_dict() for loser in outcome.losers]
    result = {key: data[key] for key in ("winner", "loser", "result", "margin", "game_points", "scores")}
    if not isinstance(result["scores"], dict) or not all(isinstance(item, dict) for item in losers):
        raise TypeError("scores or losers are not a mapping")
    result["losers"] = losers
    return result


@lru_cache(maxsize=256)
def _header(line) -> GameHeader | None:
    """A stored game line parsed (a match's games share theirs), None if it does not read."""
    try:
        header = _parse(line)
    except ValueError:
        return None
    return header if isinstance(header, GameHeader) else None


def _close_connection(conn: sqlite3.Connection | None) -> None:
    """Close a connection, if any; a failing close has nothing left to lose."""
    if conn is not None:
        try:
            conn.close()
        except sqlite3.Error:
            pass
