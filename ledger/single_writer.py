"""The one writer of an SQLite ledger file: what the board's ledger (:mod:`ledger.writer`) and the club
hub's (:mod:`firmware.hub.ledger`) both are. Each keeps only what is its own (its schema, its rows, its queries)
and says it through the hooks of :class:`SingleWriter`, which opens, locks, sets damage aside, writes
and keeps a file moved while open; :func:`stamp` is how every ledger keeps a time.
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from . import schema
from .causes import error_code, is_damage, os_cause, sqlite_cause
from .errors import Damaged, DiskFullError, LedgerError
from .files import sync_folder
from .lock import WriterLock, default_holder
from .memory import memory_warning
from .paths import foreign_wal, free_name, set_aside, writable_file
from .schema import BUSY_TIMEOUT_MS, close_connection, roll_back, uri
from .wal_guard import WalGuard

Clock = Callable[[], float | str | datetime]  # what a ledger takes the time from

# ---- times ---------------------------------------------------------------------


def stamp(value: float | str | datetime) -> str:
    """A clock reading as every ledger keeps a time: UTC ISO 8601 with milliseconds and a Z
    (``2026-12-02T19:48:42.123Z``). The reading may be seconds since the epoch, a datetime
    (naive: UTC) or that ISO string itself (kept as it is).

    Rounding: down to the millisecond (floor), after a nudge of a millionth of one, so that a
    reading written as a whole millisecond but held as a float a hair below it (1.005 is
    1.00499...) keeps the millisecond it was written with. Floor never carries into the next
    second and never stamps a moment the clock has not reached, so stamps sort as the readings
    do. The stored text is always these 24 characters: readers take it as it is, and the
    club's payloads accept it (:data:`firmware.wire.schema.STAMP`).

    >>> stamp(1_796_238_001.005)
    '2026-12-02T19:00:01.005Z'
    >>> from datetime import datetime
    >>> stamp(datetime(2026, 12, 2, 19, 0, 1, 5000))
    '2026-12-02T19:00:01.005Z'
    """
    if isinstance(value, str):
        return value
    if not isinstance(value, (int, float)):  # a datetime; imported only by clocks that give one
        offset = value.utcoffset()
        if offset is not None:
            value = value.replace(tzinfo=None) - offset
        return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    global _second
    whole, millis = divmod(math.floor(float(value) * 1000 + 1e-6), 1000)  # 1e-6: 0.005 may be 0.00499..
    second = _second  # one tuple, replaced whole: safe from any thread
    if second[0] != whole:  # strftime costs more than the rest: once a second
        second = _second = (whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)))
    return f"{second[1]}.{millis:03d}Z"


_second: tuple[int | None, str] = (None, "")  # the last second stamped, and its text


def epoch(value: float | str | datetime) -> float:
    """Seconds since the epoch of a clock reading (any form :func:`stamp` takes)."""
    if isinstance(value, (int, float)):
        return float(value)
    from datetime import datetime, timezone

    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.utcoffset() is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


# ---- the writer ----------------------------------------------------------------


class SingleWriter:
    """The one writer of a ledger file; a subclass is one kind of ledger.

    Opening raises ``LedgerError`` (``LedgerInUseError`` for another writer), changing nothing,
    when the file cannot be used; only a damaged file is set aside, and ``messages`` says so.
    ``clock`` gives the time (any form :func:`stamp` takes); ``holder`` names this program in
    the lock; ``check_at_open``: whether ``quick_check`` reads the whole file before the first
    write (else the ledger checks later itself).

    >>> import os, tempfile
    >>> from ledger.writer import LedgerWriter
    >>> folder = tempfile.TemporaryDirectory()
    >>> writer = LedgerWriter(os.path.join(folder.name, "board.sqlite3"), clock=lambda: 0.0)
    >>> isinstance(writer, SingleWriter), writer.messages
    (True, [])
    >>> writer.close()
    >>> folder.cleanup()

    A subclass sets its own fields before calling this constructor (it opens the file) and says:
    :meth:`_inspect` and :meth:`_prepare` (its schema), and may add :meth:`_opened` (read what
    it needs), :meth:`_salvage` and :meth:`_carry_over` (what of a damaged file it keeps).

    Opening, changing nothing until the file is known to be ours and writable:

    1. the path is checked (:func:`ledger.paths.writable_file`: a folder, a file in the way, no
       permission are refused) and a missing state folder is made;
    2. the writer's lock is taken (``LEDGER.lock``, :class:`~ledger.lock.WriterLock`: a second writer
       is a ``LedgerInUseError`` naming the holder) and an existing file is held before SQLite opens it;
    3. SQLite opens it, the ledger says what the file is in a read transaction (:meth:`~SingleWriter._inspect`:
       new, or ours and its schema; a ``LedgerError`` for another program's database or a newer schema;
       ``Damaged``), then WAL, ``synchronous=FULL``, foreign keys, and ``quick_check`` of a file that is
       not new (unless the ledger checks later, as the board may);
    4. ``BEGIN IMMEDIATE`` (a read-only file or another program's lock is found here) and the ledger makes
       or migrates its schema in that transaction (:meth:`~SingleWriter._prepare`): all of it or nothing.

    Only real damage (SQLite says not a database or corrupt, ``quick_check`` fails, or ``Damaged``) sets the
    file aside: renamed with its -wal and -shm (:func:`ledger.paths.set_aside`), never deleted, a new file
    begun and ``messages`` says so in one line. Before SQLite opens the file, a -wal beside it that is not
    its own (:func:`ledger.paths.foreign_wal`: no database beside it, an empty file, another kind of
    database) is set aside too, with the -shm, and said: SQLite would delete it unread, or write its pages
    over the file's (``cribbage-board salvage`` reads its entries back). Any other SQLite error is one ``LedgerError`` line naming
    the path and its cause (:func:`ledger.causes.sqlite_cause`), and what the failed open made is removed.

    Writing (:meth:`~SingleWriter._transaction`): ``BEGIN IMMEDIATE``, the ledger's statements, a last look
    that the file at the ledger's path is still the one held (moved, deleted or replaced while open: refused,
    and every later write too), then COMMIT; a failure rolls it all back. Times are kept as :func:`stamp` says.

    A file moved, deleted or replaced while open (:meth:`~SingleWriter._keep_held`): what it saved is still
    partly in the -wal at the old path, which SQLite finds by name and neither folds in nor removes once the
    file has moved. So the writer folds it in through the connection it holds (a TRUNCATE checkpoint reaches
    the moved file through its open descriptor), and says where the file is now; a deleted file (or one it
    cannot find) is copied whole through that connection (SQLite's backup) to ``PATH.kept-<UTC moment>``
    beside the old path. Either way it happens at the first refused write, or at close.

    A -wal changed while open (:meth:`~SingleWriter._require_wal`, before and after each COMMIT and at close):
    truncated, written over, replaced or removed (:class:`~ledger.wal_guard.WalGuard`). The writer writes the
    ledger whole from the file and its copy of the frames it wrote, sets the untrusted files aside, puts the
    whole file at the path, says so in one line and refuses every later write.
    """

    KIND = "ledger"  # what a new file is called in the message that a damaged one was set aside
    UNSAVED = "nothing saved"  # what a refused write lost, as this ledger's users read it
    AGAIN = "restart to open a ledger there"  # what to do once the file was moved or deleted
    ANY_THREAD = False  # whether its connection may be used by threads other than the one that opened it

    def __init__(self, path: str | os.PathLike[str], clock: Clock = time.time, holder: str | None = None,
                 check_at_open: bool = True):
        self.path = Path(path)
        self.messages: list[str] = []
        self._clock = clock
        self._conn: sqlite3.Connection | None = None
        self._broken: str | None = None
        self._kept: str | None = None  # where the file moved, deleted or replaced while open was kept, said
        self._old_wal_empty = False  # the -wal at the old path holds nothing more (all of it is in the kept file)
        self._wal_said: str | None = None  # a -wal set aside before opening, said
        self._guard: WalGuard | None = None  # the watch on the -wal SQLite writes (see _require_wal)
        self.wal_kept: Path | None = None  # where the ledger was written whole after its -wal changed
        self.wal_changed: str | None = None  # that, said in one line
        self._check_at_open = check_at_open
        exists = writable_file(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise LedgerError(f"ledger {self.path} cannot be created: {os_cause(error)}") from error
        self._lock = WriterLock(self.path, holder or default_holder())
        try:
            self._open(fresh=not exists)
        except BaseException as error:
            self._close_quietly()
            self._lock.release(remove=self._lock.created)
            if isinstance(error, LedgerError) and self._wal_said:  # a refusal says what was set aside before it
                error.args = (f"{error}; {self._wal_said}",)
            raise
        self._watch_wal()
        if self._wal_said:
            self.messages.insert(0, self._wal_said)
        self.in_memory = memory_warning(self.path)  # a folder in RAM: said, and the game goes on
        if self.in_memory:
            self.messages.append(self.in_memory)

    # ---- what each ledger says ------------------------------------------

    def _inspect(self, conn: sqlite3.Connection) -> tuple[bool, Any]:
        """In a read transaction: whether the file is new (empty), and what :meth:`_prepare` needs to
        know of it. LedgerError if it is not this ledger's (another program's, a newer schema);
        Damaged for its marker on a schema that is not its own."""
        raise NotImplementedError

    def _prepare(self, conn: sqlite3.Connection, new: bool, found: Any) -> None:
        """In the opening write transaction: make a new file's schema, or migrate an older one
        (``new`` and ``found``: what :meth:`_inspect` said)."""
        raise NotImplementedError

    def _opened(self) -> None:
        """After the file is open and held: read what the ledger needs (damage found here sets it aside too)."""

    def _salvage(self) -> Any:
        """Before a damaged file is set aside: what of it still reads (read-only), for :meth:`_carry_over`."""
        return None

    def _carry_over(self, salvage: Any) -> str | None:
        """Into the new file that replaced a damaged one: the salvage; what was kept, said in a few words."""
        return None

    # ---- opening ---------------------------------------------------------

    def _open(self, fresh: bool) -> None:
        self._set_aside_foreign_wal()
        before = {suffix: Path(f"{self.path}{suffix}").exists() for suffix in ("", "-wal", "-shm")}
        if not fresh:
            self._hold()  # before SQLite opens it: a second writer never reaches the file
        try:
            try:
                self._conn = self._connect(fresh)
                if fresh:
                    self._hold()
                self._opened()
            except (sqlite3.DatabaseError, Damaged) as error:
                if not is_damage(error):
                    raise
                self._replace_damaged(error)
        except sqlite3.Error as error:
            self._close_quietly()
            cause = sqlite_cause(error, self.path.parent)
            self._tidy_failed_open(before, fresh, cause == "disk full")
            what = "cannot be created" if fresh else "cannot be opened"
            raise LedgerError(f"ledger {self.path} {what}: {cause}") from error

    def _set_aside_foreign_wal(self) -> None:
        """A -wal beside the file that is not its own (:func:`ledger.paths.foreign_wal`): renamed with
        the -shm (never removed) before SQLite can delete it or replay it into the wrong file; said."""
        why = foreign_wal(self.path)
        if why is None:
            return
        moved = set_aside(self.path, epoch(self._clock()), LedgerError(f"its -wal is {why}"), parts=("-wal", "-shm"))
        self._wal_said = (f"ledger {self.path}: a -wal {why} was kept as {moved}-wal: "
                          f"cribbage-board salvage {moved}-wal reads back what it holds")

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
        conn = sqlite3.connect(uri(self.path, "rwc" if fresh else "rw"), uri=True, isolation_level=None,
                               check_same_thread=not self.ANY_THREAD)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("BEGIN")  # reading what the file is changes nothing
            new, found = self._inspect(conn)
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            if not new and self._check_at_open:
                problem = schema.quick_check(conn)
                if problem:
                    raise Damaged(problem)
            conn.execute("BEGIN IMMEDIATE")  # can we write? (read-only file, another program's lock)
            self._prepare(conn, new, found)  # in this transaction: all of it or nothing
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            raise
        return conn

    def _replace_damaged(self, error: Exception) -> None:
        """Set the damaged file aside (renamed with its -wal and -shm, never deleted), begin a new
        one with what of the old one the ledger carries over, and say so first in ``messages``."""
        self._close_quietly()
        self.messages.clear()
        salvage = self._salvage()
        moved = set_aside(self.path, epoch(self._clock()), error)
        self._conn = self._connect(fresh=True)
        self._hold()  # the new file is the ledger now
        kept = self._carry_over(salvage)
        self._opened()
        if self._guard is not None:  # a check found the damage: the new file's -wal is the one to watch
            self._watch_wal()
        reason = " ".join(str(error).split())  # one line, whatever SQLite said
        self.messages.insert(0, f"ledger {self.path} could not be read ({reason}); it was kept as {moved} "
                                f"and a new {self.KIND} started" + (f": {kept}" if kept else ""))

    def _hold(self) -> None:
        """Hold the ledger file itself (see WriterLock.hold); an OSError is said as the lock's are."""
        try:
            self._lock.hold()
        except LedgerError:  # an OSError too: LedgerInUseError as it is
            raise
        except OSError as error:
            raise LedgerError(f"ledger {self.path} cannot be locked: {os_cause(error)}") from error

    # ---- writing ---------------------------------------------------------

    def now(self) -> str:
        """The clock's time now, as the ledger keeps it (:func:`stamp`)."""
        return stamp(self._clock())

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the writer's connection (yielded): durable when the block ends,
        or rolled back and nothing of it kept; an SQLite error is said as :meth:`_write_failure` says."""
        conn = self._require()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise self._write_failure(error) from error
        try:
            yield conn
            self._require_in_place()  # the last look before it is durable
            self._require_wal()
            conn.execute("COMMIT")
            self._require_wal(committed=True)  # what changed while it was written: not acknowledged
        except sqlite3.Error as error:
            roll_back(conn)
            raise self._write_failure(error) from error
        except BaseException:
            roll_back(conn)
            raise

    def _connection(self) -> sqlite3.Connection:
        """The writer's connection, usable or not (to read back after a failed write); LedgerError once closed."""
        if self._conn is None:
            raise LedgerError(f"ledger {self.path} is closed")
        return self._conn

    def _require(self) -> sqlite3.Connection:
        """The writer's connection; LedgerError once it is closed or unusable."""
        if self._conn is None or self._broken:
            raise LedgerError(self._broken or f"ledger {self.path} is closed")
        return self._conn

    def _require_in_place(self) -> None:
        """LedgerError, and every later write refused, once the file at the ledger's path is not
        the one this writer writes (moved, deleted or replaced while it was open): a write is
        acknowledged only when it is in the file at the ledger's path."""
        if not self._lock.holds_ledger():
            if self._conn is not None and self._conn.in_transaction:
                roll_back(self._conn)  # nothing of the refused write reaches the file kept
            self._broken = f"ledger {self.path} {self._keep_held()}; {self.UNSAVED}; {self.AGAIN}"
            raise LedgerError(self._broken)

    def _watch_wal(self) -> None:
        """Watch the -wal SQLite holds open from now on (:class:`~ledger.wal_guard.WalGuard`)."""
        if self._guard is not None:
            self._guard.close()
            self._guard = None
        try:
            self._guard = WalGuard(self.path)
        except OSError as error:
            raise LedgerError(f"ledger {self.path}: its -wal cannot be watched: {os_cause(error)}") from error

    def _require_wal(self, committed: bool = False) -> None:
        """LedgerError, and every later write refused, once the -wal beside the ledger is not the one
        SQLite writes, or it shrank or was written over (:meth:`WalGuard.changed`): what was acknowledged
        is written whole at the ledger's path again (:meth:`_keep_whole`), and said. ``committed``:
        the look after a commit, whose entry is then not acknowledged."""
        if self._guard is None:
            return
        changed = self._guard.changed(committed)
        if changed is None:
            return
        if self._conn is not None and self._conn.in_transaction:
            roll_back(self._conn)
        self.wal_changed = f"ledger {self.path}: its -wal {changed} while it was open: {self._keep_whole()}"
        self._broken = f"{self.wal_changed}; {self.UNSAVED}; {self.AGAIN}"
        raise LedgerError(self._broken)

    def _keep_whole(self) -> str:
        """The ledger as this writer acknowledged it (the file with the frames it wrote, which the guard
        copied as SQLite wrote them), written whole to ``PATH.kept-<moment>``, then put at the ledger's
        path in place of the files it can no longer trust (set aside as ``PATH.corrupt-<moment>``, with
        their -wal and -shm): where it is, said. SQLite may still fold the changed -wal into the file set
        aside when it closes; the ledger's path is not that file any more."""
        guard, held = self._guard, self._lock.ledger_fd
        assert guard is not None and held is not None, "a watched -wal is a held ledger's"
        self._guard = None
        moment = epoch(self._clock())
        kept = free_name(self.path, "kept", moment)
        try:
            guard.write_whole(held, kept)
        except (sqlite3.Error, OSError) as error:
            cause = sqlite_cause(error, self.path.parent) if isinstance(error, sqlite3.Error) else os_cause(error)
            self._kept = f"what it saved could not be kept ({cause})"
            return self._kept
        finally:
            guard.close()
        try:
            aside = set_aside(self.path, moment, LedgerError("its -wal changed"))
            os.replace(kept, self.path)
            sync_folder(self.path.parent)
        except (LedgerError, OSError) as error:
            self.wal_kept = kept
            self._kept = f"what it saved is whole at {kept} ({error})"
            return self._kept
        self.wal_kept = self.path
        try:
            self._hold()
        except LedgerError:
            pass  # the lock file still keeps other writers out
        self._kept = f"what it saved is whole there again (what it could not trust was kept as {aside})"
        return self._kept

    def _keep_held(self) -> str:
        """The file this writer holds, no longer at its path, made whole where it is now (its -wal, at
        the old path, checkpointed into it through the open connection), or copied whole beside the
        old path (``PATH.kept-<moment>``) when it was deleted or cannot be found or checkpointed; what
        happened, said after the path ("was moved while it was open: ...")."""
        if self._kept is not None:
            return self._kept
        conn = self._connection()
        where = self._lock.held_path()
        how = "moved" if where is not None else "deleted"
        try:
            if where is not None and not conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]:
                self._kept = f"was moved while it was open: what it saved is whole at {where}"
                self._old_wal_empty = True
                return self._kept
            kept = free_name(self.path, "kept", epoch(self._clock()))
            self._copy_to(conn, kept)
            self._kept = f"was {how} while it was open: what it saved is kept at {kept}"
            # The -wal at the old path, folded into the deleted file: nothing in it for a later writer there.
            self._old_wal_empty = not conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        except (sqlite3.Error, OSError) as error:
            cause = sqlite_cause(error, self.path.parent) if isinstance(error, sqlite3.Error) else os_cause(error)
            self._kept = f"was {how} while it was open, and what it saved could not be kept ({cause})"
        return self._kept

    @staticmethod
    def _copy_to(conn: sqlite3.Connection, target: Path) -> None:
        """The database as ``conn`` reads it, -wal and all, copied whole to a new file ``target``
        (written beside it, then renamed, its folder synced)."""
        spare = target.with_name(target.name + ".new")
        if spare.exists():
            raise FileExistsError(f"{spare} is in the way")
        copy = sqlite3.connect(spare, isolation_level=None)
        try:
            copy.execute("PRAGMA synchronous=FULL")
            conn.backup(copy)
        finally:
            copy.close()
        os.replace(spare, target)
        sync_folder(target.parent)

    def _write_failure(self, error: sqlite3.Error) -> LedgerError:
        """A write SQLite refused, said in one line: DiskFullError for a full disk."""
        if error_code(error) == sqlite3.SQLITE_FULL:
            return DiskFullError(self._unsaved(f"disk full: {self.UNSAVED}"))
        return LedgerError(self._unsaved(f"{self.UNSAVED}: {sqlite_cause(error, self.path.parent)}"))

    def _unsaved(self, said: str) -> str:
        """A refused write's line as its users see it: with the ledger's path."""
        return f"ledger {self.path}: {said}"

    # ---- closing ---------------------------------------------------------

    def close(self) -> None:
        """Close the database (the last connection: SQLite then folds the -wal into the file and
        removes it), then let the writer's lock go. A file moved, deleted or replaced while open is
        made whole first (:meth:`_keep_held`, said in ``messages``), and the emptied -wal and the
        -shm it leaves at the old path are removed when no file is there."""
        if self._conn is not None and self._kept is None and self._guard is not None and not self._broken:
            try:
                self._require_wal()
            except LedgerError:
                self.messages.append(self.wal_changed or "")
        if self._conn is not None and self._kept is None and not self._lock.holds_ledger():
            self.messages.append(f"ledger {self.path} {self._keep_held()}")
        if self._guard is not None:
            self._guard.close()
            self._guard = None
        self._close_quietly()
        if self._old_wal_empty:
            self._tidy_old_path()
        self._lock.release()

    def _tidy_old_path(self) -> None:
        """Remove the empty -wal (and the -shm) a kept file left at the old path, if no file is there."""
        wal, shm = Path(f"{self.path}-wal"), Path(f"{self.path}-shm")
        try:
            if self.path.exists() or (wal.exists() and wal.stat().st_size):
                return
            wal.unlink(missing_ok=True)
            shm.unlink(missing_ok=True)
        except OSError:
            pass

    def _close_quietly(self) -> None:
        close_connection(self._conn)
        self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
