"""An SQLite file read as hostile input (:func:`open_untrusted`): what salvage reads a -wal through.

Its schema can hold triggers, views (an endless recursive one among them) and
generated columns, and its pages can be damaged: the connection takes SQLite's
advice for untrusted files (https://sqlite.org/security.html), and rows are
read only from a table whose columns are the ones asked for (:func:`table_problem`).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .schema import uri

PRAGMAS = frozenset({"wal_checkpoint", "quick_check", "application_id", "table_xinfo"})  # all a reader runs
LIMITS = (  # SQLite's run-time limits on a connection that reads one
    (sqlite3.SQLITE_LIMIT_LENGTH, 1_000_000),  # a value longer than any a ledger keeps
    (sqlite3.SQLITE_LIMIT_SQL_LENGTH, 100_000),  # a statement, its schema's included
    (sqlite3.SQLITE_LIMIT_COLUMN, 100),
    (sqlite3.SQLITE_LIMIT_EXPR_DEPTH, 100),
    (sqlite3.SQLITE_LIMIT_COMPOUND_SELECT, 10),
)
# Python 3.12's Connection.setconfig (3.11 has none): defensive on, schema code untrusted; on a
# connection that only reads the file, its triggers and views off too.
DBCONFIG = (("SQLITE_DBCONFIG_DEFENSIVE", True), ("SQLITE_DBCONFIG_TRUSTED_SCHEMA", False))
DBCONFIG_READER = (("SQLITE_DBCONFIG_ENABLE_TRIGGER", False), ("SQLITE_DBCONFIG_ENABLE_VIEW", False))
PROGRESS_STEPS = 1000  # SQLite's virtual machine steps between two looks at the deadline


class Deadline:
    """The time a read may take, from now: ``passed()`` once it is over, or once ``stopped()`` says so.

    >>> Deadline(10).passed(), Deadline(0).passed()
    (False, True)
    """

    def __init__(self, seconds: float, stopped: Callable[[], bool] = lambda: False):
        self.seconds = seconds
        self.stopped = stopped
        self._end = time.monotonic() + seconds

    def passed(self) -> bool:
        return self.stopped() or time.monotonic() >= self._end


def open_untrusted(path: Path, deadline: Deadline) -> sqlite3.Connection:
    """A connection to the file at ``path`` (which it may write: salvage's own copy, for its
    checkpoint), made safe to read; its statements fail with "interrupted" once the deadline has
    passed. sqlite3.Error if it cannot be opened.

    Schema code is not trusted (``PRAGMA trusted_schema=OFF``; where Python has
    ``Connection.setconfig``, 3.12 and later, also ``SQLITE_DBCONFIG_DEFENSIVE`` on
    and triggers and views off), cells are size-checked, no memory map, SQLite's
    lengths and depths are limited (LIMITS) and nothing can be attached, an
    authorizer allows only reading tables from top-level statements and the
    pragmas in PRAGMAS (nothing on behalf of a trigger or view, no write, no
    function), and the progress handler asks the deadline every PROGRESS_STEPS steps."""
    conn = sqlite3.connect(uri(path, "rw"), uri=True, isolation_level=None)
    try:
        _harden(conn, DBCONFIG + DBCONFIG_READER)
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        conn.set_authorizer(_authorize)
        conn.set_progress_handler(deadline.passed, PROGRESS_STEPS)
    except BaseException:
        conn.close()
        raise
    return conn


def attach_untrusted(conn: sqlite3.Connection, path: Path, name: str, deadline: Deadline) -> None:
    """Attach the untrusted file at ``path``, read-only, to ``conn`` (opened with ``uri=True``, outside a
    transaction) as ``name``, for copying rows out of it in SQL. The same defences as
    :func:`open_untrusted`, but for triggers and views, which ``conn``'s own schema may have: its
    authorizer allows nothing on ``name`` but reading tables from top-level statements, and no
    other attach; the deadline ends every statement on ``conn`` from now on."""
    _harden(conn, DBCONFIG)
    conn.execute(f"ATTACH DATABASE ? AS {quote(name)}", (uri(path, "ro"),))

    def authorize(action: int, _arg1: str | None, _arg2: str | None, database: str | None,
                  inner: str | None) -> int:
        if database == name:
            return sqlite3.SQLITE_OK if action == sqlite3.SQLITE_READ and inner is None else sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_ATTACH else sqlite3.SQLITE_OK

    conn.set_authorizer(authorize)
    conn.set_progress_handler(deadline.passed, PROGRESS_STEPS)


def _harden(conn: sqlite3.Connection, config: tuple[tuple[str, bool], ...]) -> None:
    """SQLite's settings for reading an untrusted file on ``conn``, with ``config`` where Python can set it."""
    setconfig = getattr(conn, "setconfig", None)
    if setconfig is not None:
        for name, value in config:
            if hasattr(sqlite3, name):  # each as the SQLite Python was built with has it
                setconfig(getattr(sqlite3, name), value)
    conn.execute("PRAGMA trusted_schema=OFF")
    conn.execute("PRAGMA cell_size_check=ON")
    conn.execute("PRAGMA mmap_size=0")
    for limit, most in LIMITS:
        conn.setlimit(limit, most)


def _authorize(action: int, arg1: str | None, _arg2: str | None, _database: str | None, inner: str | None) -> int:
    """Reading from top-level statements and the pragmas in PRAGMAS; nothing on behalf of a trigger or
    view (``inner``), no writing, no function, no attaching."""
    if inner is not None:
        return sqlite3.SQLITE_DENY
    if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ):
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA and arg1 is not None and arg1.lower() in PRAGMAS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def quote(name: str) -> str:
    """An SQL identifier, quoted.

    >>> quote('games'), quote('a"b')
    ('"games"', '"a""b"')
    """
    return '"' + name.replace('"', '""') + '"'


def table_problem(conn: sqlite3.Connection, table: str, columns: Sequence[str]) -> str | None:
    """Why rows of ``table`` in the untrusted file are not read as ``columns`` (in their order): it is
    missing, a view or a virtual table, has generated or other columns; None when it is that table."""
    row = conn.execute("SELECT type, sql FROM main.sqlite_master WHERE type IN ('table', 'view') "
                       "AND name = ? COLLATE NOCASE", (table,)).fetchone()
    if row is None:
        return "missing"
    kind, sql = row
    if kind != "table":
        return "a view"
    if not isinstance(sql, str) or not sql.upper().lstrip().startswith("CREATE TABLE"):
        return "a virtual table"
    info = conn.execute(f"PRAGMA main.table_xinfo({quote(table)})").fetchall()
    if any(hidden for *_, hidden in info):
        return "a table with generated columns"
    have = [name for _, name, *_ in info]
    if have != list(columns):
        return f"a table of other columns ({', '.join(have)})"
    return None
