"""A set-aside -wal read back: ``cribbage-board salvage FILE-wal`` (:func:`salvage_wal`).

The -wal and its base are read as hostile files (:mod:`ledger.untrusted`), within a
time limit, in a scratch folder that goes on every way out (:mod:`ledger.scratch`).
The ledger written is made from the project's own schema (a :class:`Kind`) with only
rows copied in: no trigger, view or index of the file comes along.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from .causes import os_cause
from .errors import LedgerError
from .files import sync_folder
from .paths import WAL_HEADER, WAL_MAGIC
from .schema import APPLICATION_ID, COLUMNS_SINCE_2, NEW, SCHEMA_VERSION, STATUS_OF_SCHEMA_1, prepare, quick_check, uri
from .scratch import Scratch
from .untrusted import Deadline, attach_untrusted, open_untrusted, quote, table_problem

SALVAGED = ".salvaged"  # the output's name: the -wal's, without -wal, and this
LIMIT = 10.0  # seconds the whole read of a -wal and its base may take
META = "meta"  # every ledger's key/value table; its "schema" row is the ledger's own, never copied
FILE = "file"  # the name the file read is attached by, to the new ledger's connection, to copy its rows


class Kind(NamedTuple):
    """A kind of ledger salvage makes: its empty file from the project's own schema, and the tables whose
    rows it copies into it from a file that carries its marker.

    >>> BOARD.name, BOARD.tables[:4], sorted(BOARD.optional)
    ("a board's ledger", ('meta', 'matches', 'games', 'actions'), ['club_games', 'entry_sources'])
    """

    name: str  # as the summary says it: "a board's ledger"
    markers: tuple[int, ...]  # its files' PRAGMA application_id; 0: a ledger from before the marker
    version: int  # the schema version it makes; a file's may not be newer
    build: Callable[[sqlite3.Connection], None]  # its empty ledger (tables, marker, meta), in a transaction
    tables: tuple[str, ...]  # whose rows are copied, in this order (META: all its rows but "schema")
    optional: frozenset[str]  # of those, the ones a file may lack (added to ledgers after their first version)
    counted: tuple[tuple[str, str, str], ...]  # (table, one, many): what the summary counts
    since: Mapping[int, Mapping[str, frozenset[str]]]  # the columns each later schema version added
    upgrade: Callable[[sqlite3.Connection, int], None] | None = None  # rows copied from an older version, made current


def _build_board(conn: sqlite3.Connection) -> None:
    prepare(conn, NEW, int(SCHEMA_VERSION))


def _upgrade_board(conn: sqlite3.Connection, version: int) -> None:
    if version < 2:  # schema 1's games have no status: what it meant, as the writer's migration gives it
        conn.execute(STATUS_OF_SCHEMA_1)


BOARD = Kind(
    name="a board's ledger", markers=(APPLICATION_ID, 0), version=int(SCHEMA_VERSION), build=_build_board,
    tables=(META, "matches", "games", "actions", "club_games", "entry_sources"),  # not the tally: a cache
    optional=frozenset({"club_games", "entry_sources"}),
    counted=(("games", "game", "games"), ("actions", "entry", "entries")),
    since={2: {table: frozenset(columns) for table, columns in COLUMNS_SINCE_2.items()}},
    upgrade=_upgrade_board,
)


def default_output(wal: Path) -> Path:
    """Where the salvage of ``wal`` goes unless told: ``NAME-wal`` gives ``NAME.salvaged``."""
    return wal.with_name(wal.name.removesuffix("-wal") + SALVAGED)


def default_base(wal: Path) -> Path | None:
    """The file a -wal set aside with its ledger belongs to (``NAME`` beside ``NAME-wal``), if there."""
    if wal.name.endswith("-wal"):
        base = wal.with_name(wal.name.removesuffix("-wal"))
        if base.is_file():
            return base
    return None


def salvage_wal(wal: Path, base: Path | None = None, output: Path | None = None,
                kinds: Sequence[Kind] = (BOARD,), limit: float = LIMIT) -> tuple[Path, str]:
    """Fold ``wal`` into a copy of ``base`` (by default the file beside it it was set aside with, or
    nothing), copy the rows of the ledger that gives into a new ledger of its kind (one of ``kinds``) and
    write that to ``output`` (by default :func:`default_output`); the output and what it holds, in a few
    words. LedgerError (one line) if it cannot; ``Stopped`` on SIGTERM or SIGINT.

    A -wal holds pages of the file it was written for, newer than that file's own.
    Folded into a copy of that file (``base``), or into nothing when it holds every
    page (a ledger that was never checkpointed), it gives that ledger as it was
    when its last entry was acknowledged. That is done on copies in a scratch
    folder beside the output (:class:`~ledger.scratch.Scratch`): the -wal and the
    base are only read, through every defence of :func:`~ledger.untrusted.open_untrusted`,
    within ``limit`` seconds in all. The folded file must pass ``quick_check`` and
    carry a kind's marker; a new ledger of that kind is made from its schema and
    given the rows of each of its tables the file holds as that schema has it
    (never a view's, never through a trigger). The new ledger is then linked to
    its own name (never over an existing file) and its folder synced.

    Raises ``LedgerError`` when the -wal holds nothing, its base does not fit it, the result fails its
    check, holds no ledger of a known kind, or the read took longer than ``limit``; nothing is written then.

    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     wal = pathlib.Path(folder, "board.sqlite3-wal")
    ...     _ = wal.write_bytes(b"not a wal")
    ...     try:
    ...         salvage_wal(wal)
    ...     except LedgerError as error:
    ...         print(str(error).endswith("holds nothing (it is not an SQLite -wal with pages in it)"))
    True
    """
    base = base if base is not None else default_base(wal)
    output = output if output is not None else default_output(wal)
    page_size = _wal_page_size(wal)
    if base is not None and not base.is_file():
        raise LedgerError(f"salvage: {base} is not a file: give the ledger the -wal belongs to (--base FILE)")
    if output.exists() or output.is_symlink():
        raise LedgerError(f"salvage: {output} is already there: give another output (-o FILE)")
    with Scratch(output.parent) as scratch:
        deadline = Deadline(limit, scratch.stopped)
        read = scratch.path / "read.sqlite3"  # the copy folded and read; SQLite writes it (its checkpoint)
        made = scratch.path / "ledger.sqlite3"  # the new ledger
        try:
            if base is not None:
                shutil.copyfile(base, read)
            else:  # one blank page: SQLite replays a -wal only into a file that is not empty
                read.write_bytes(bytes(page_size))
            shutil.copyfile(wal, f"{read}-wal")
        except OSError as error:
            raise LedgerError(f"salvage: {error.filename}: {os_cause(error)}") from error
        what = _salvage(read, made, wal, base, kinds, deadline, scratch)
        scratch.hold()
        try:
            os.link(made, output)  # never over a file that appeared meanwhile
            sync_folder(output.parent)
        except OSError as error:
            raise LedgerError(f"salvage: {output} cannot be written: {os_cause(error)}") from error
    return output, what


def _wal_page_size(wal: Path) -> int:
    """The page size a -wal's header gives; LedgerError if it is not an SQLite -wal."""
    try:
        with open(wal, "rb") as file:
            header = file.read(WAL_HEADER)
    except OSError as error:
        raise LedgerError(f"salvage: {wal}: {os_cause(error)}") from error
    if len(header) < WAL_HEADER:
        raise LedgerError(f"salvage: {wal} holds nothing (it is not an SQLite -wal with pages in it)")
    magic, _, page_size = (int(field) for field in struct.unpack(">3I", header[:12]))
    if magic not in WAL_MAGIC or not 512 <= page_size <= 65536 or page_size & (page_size - 1):
        raise LedgerError(f"salvage: {wal} is not an SQLite -wal (a ledger's -wal is named LEDGER-wal)")
    return page_size


def _salvage(read: Path, made: Path, wal: Path, base: Path | None, kinds: Sequence[Kind], deadline: Deadline,
             scratch: Scratch) -> str:
    """The -wal beside ``read`` checkpointed into it, checked, and its rows copied into a new ledger at
    ``made``; what that holds."""
    missing = (f"the -wal does not fit {base}" if base is not None else
               "the -wal holds only part of its ledger: give the file it belongs to (--base FILE)")
    try:
        source = open_untrusted(read, deadline)
        try:
            source.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            problem = quick_check(source)
            if problem:
                raise LedgerError(f"salvage: {wal}: {missing} ({problem})")
            marker = source.execute("PRAGMA application_id").fetchone()[0]
            tables = {name for (name,) in source.execute("SELECT name FROM main.sqlite_master WHERE type='table'")}
            if not tables:
                raise LedgerError(f"salvage: {wal}: {missing} (no tables)")
            kind = _kind(kinds, marker, tables)
            if kind is None:
                shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
                raise LedgerError(f"salvage: {wal} holds no ledger of cribbage-board's "
                                  f"(application_id {marker:#x}, tables: {shown}): nothing was written")
            return _copy(source, read, made, kind, wal, missing, deadline)
        finally:
            source.close()
    except sqlite3.Error as error:
        scratch.check()  # a signal SQLite's progress handler saw
        if deadline.passed():
            raise LedgerError(f"salvage: {wal}: reading it took longer than {deadline.seconds:g} s "
                              "(--time-limit): nothing was written") from error
        raise LedgerError(f"salvage: {wal}: {missing} ({' '.join(str(error).split())})") from error


def _kind(kinds: Sequence[Kind], marker: int, tables: set[str]) -> Kind | None:
    """The kind a file with this marker and these tables is; a file from before the marker (0) only
    when it has the tables that kind cannot lack."""
    for kind in kinds:
        if marker in kind.markers and (marker != 0 or set(kind.tables) - kind.optional <= tables):
            return kind
    return None


def _copy(source: sqlite3.Connection, read: Path, path: Path, kind: Kind, wal: Path, missing: str,
          deadline: Deadline) -> str:
    """A new ledger of ``kind`` at ``path``, made from its schema, with the rows of the tables of
    ``source`` (the file at ``read``) that are as the schema has them; what it holds."""
    made = sqlite3.connect(uri(path, "rwc"), uri=True, isolation_level=None)
    try:
        made.execute("PRAGMA synchronous=FULL")
        made.execute("BEGIN IMMEDIATE")
        kind.build(made)
        made.execute("COMMIT")
        copied, left_out, version = _tables(source, made, kind, wal, missing)
        attach_untrusted(made, read, FILE, deadline)
        made.execute("BEGIN IMMEDIATE")
        for table, columns in copied:
            names = ", ".join(quote(name) for name in columns)
            if table == META:  # the ledger's own schema row stays
                made.execute(f"INSERT OR REPLACE INTO main.meta ({names}) SELECT {names} FROM {FILE}.meta "
                             "WHERE key IS NOT 'schema'")
            else:
                made.execute(f"INSERT INTO main.{quote(table)} ({names}) SELECT {names} FROM {FILE}.{quote(table)}")
        made.execute("COMMIT")
        made.execute(f"DETACH DATABASE {FILE}")
        if kind.upgrade is not None:
            made.execute("BEGIN IMMEDIATE")
            kind.upgrade(made, version)
            made.execute("COMMIT")
        counts = [(made.execute(f"SELECT count(*) FROM {quote(table)}").fetchone()[0], one, many)
                  for table, one, many in kind.counted]
    except sqlite3.IntegrityError as error:
        raise LedgerError(f"salvage: {wal}: its rows break {kind.name}'s rules ({error}): nothing was written") \
            from error
    finally:
        made.close()
    said = ", ".join(f"{count} {one if count == 1 else many}" for count, one, many in counts)
    return f"{kind.name}: {said}" + (f" (left out: {'; '.join(left_out)})" if left_out else "")


def _tables(source: sqlite3.Connection, made: sqlite3.Connection, kind: Kind, wal: Path,
            missing: str) -> tuple[list[tuple[str, list[str]]], list[str], int]:
    """Which tables of ``source`` are copied, with which columns (those of ``made``'s schema the file's
    version has), the optional ones left out and why, and the file's schema version. LedgerError when
    a table the kind cannot lack is missing or not as its schema has it."""
    copied: list[tuple[str, list[str]]] = []
    left_out = []
    version = kind.version
    for table in (META, *(table for table in kind.tables if table != META)):  # meta first: the version
        columns = [row[1] for row in made.execute(f"PRAGMA main.table_xinfo({quote(table)})")]
        columns = [name for name in columns if name not in _newer(kind, version).get(table, ())]
        problem = table_problem(source, table, columns)
        if problem == "missing" and table not in kind.optional:
            raise LedgerError(f"salvage: {wal}: {missing} (no table {table})")
        if problem is not None and problem != "missing" and table not in kind.optional:
            raise LedgerError(f"salvage: {wal}: its {table} is {problem}, not the table {kind.name} has: "
                              "nothing was written")
        if problem is not None and problem != "missing":
            left_out.append(f"{table}: {problem}")
        if problem is None:
            copied.append((table, columns))
        if table == META:
            version = _version(source, kind, wal)
    return copied, left_out, version


def _version(source: sqlite3.Connection, kind: Kind, wal: Path) -> int:
    """The file's schema version (its meta table's "schema" row); LedgerError for none or a newer one."""
    row = source.execute("SELECT value FROM main.meta WHERE key = 'schema'").fetchone()
    value = row[0] if row is not None else None
    if not (isinstance(value, str) and value.isascii() and value.isdigit() and int(value) >= 1):
        raise LedgerError(f"salvage: {wal}: {kind.name} with no schema version ({value!r}): nothing was written")
    if int(value) > kind.version:
        raise LedgerError(f"salvage: {wal}: {kind.name} of schema {value}, newer than this cribbage-board reads "
                          f"({kind.version}): upgrade cribbage-board")
    return int(value)


def _newer(kind: Kind, version: int) -> dict[str, set[str]]:
    """The columns of each table that schema versions after ``version`` added."""
    added: dict[str, set[str]] = {}
    for since, tables in kind.since.items():
        if since > version:
            for table, columns in tables.items():
                added.setdefault(table, set()).update(columns)
    return added
