"""The ledger's schema: its tables, its marker, its version, and the migration of older ledgers.

The file is marked as ours with ``PRAGMA application_id = 0x43524942``
(``APPLICATION_ID``, "CRIB" in ASCII); a ledger written before the marker
(application_id 0, our ``meta`` table, schema "1") is recognised and marked
when a writer opens it. Schema 2 (``SCHEMA_VERSION``) keeps times and each
game's status; :func:`prepare` migrates schema 1, and readers read both.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .errors import Damaged, LedgerError

APPLICATION_ID = 0x43524942  # "CRIB": PRAGMA application_id of every ledger
HUB_APPLICATION_ID = 0x434C5542  # "CLUB": a club hub's ledger (firmware.hub.ledger)
SCHEMA_VERSION = "2"  # 1: the first release; 2: times (actions.at, games.started/finished) and games.status
BUSY_TIMEOUT_MS = 1000  # how long to wait on another program's SQLite lock
CHECKS = ("open", "later")  # when the writer runs quick_check
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
# Which games were played for a club (firmware.board.club): a game begun while the board's
# [club] names a club and table is that table's, whether the broker could be reached
# or not, and the club link sends exactly these. Added to a ledger from before it,
# once; a writer that does not know it leaves it alone (its new games are nobody's).
_CLUB_GAMES = (
    """CREATE TABLE IF NOT EXISTS club_games (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    club TEXT NOT NULL,
    tbl TEXT NOT NULL
)""",
    "CREATE INDEX IF NOT EXISTS club_games_by_table ON club_games (club, tbl, game_id)",
)
# Where an entry not made on the board's own controls came from (ledger.sources): one row
# beside its action. Added to a ledger from before it, once; a writer that does not know
# it writes no rows, and every entry without one reads as the board's.
_ENTRY_SOURCES = (
    """CREATE TABLE IF NOT EXISTS entry_sources (
    action_id INTEGER PRIMARY KEY REFERENCES actions(id),
    via TEXT NOT NULL,
    seat TEXT,
    request TEXT
)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS entry_sources_by_request ON entry_sources (seat, request) "
    "WHERE request IS NOT NULL",
)
_COLUMNS = {
    "meta": {"key", "value"},
    "matches": {"id", "started"},
    "games": {"id", "match_id", "header", "outcome"},
    "actions": {"id", "game_id", "line"},
}
COLUMNS_SINCE_2 = {"games": {"started", "finished", "status"}, "actions": {"at"}}
# Schema 1 -> 2, in the writer's opening transaction: new columns are NULL in the
# old rows (no time is invented); a game's status is what schema 1 already meant:
# finished with an outcome; without one when a later game exists, abandoned if
# anything was entered in it, else empty; NULL (live) for the last game while it
# has no outcome.
STATUS_OF_SCHEMA_1 = (
    "UPDATE games SET status = CASE WHEN outcome IS NOT NULL THEN 'finished' "
    "WHEN EXISTS (SELECT 1 FROM actions WHERE game_id = games.id) THEN 'abandoned' ELSE 'empty' END "
    "WHERE outcome IS NOT NULL OR id < (SELECT max(id) FROM games)"
)
MIGRATE_1_TO_2 = (
    "ALTER TABLE actions ADD COLUMN at TEXT",
    "ALTER TABLE games ADD COLUMN started TEXT",
    "ALTER TABLE games ADD COLUMN finished TEXT",
    "ALTER TABLE games ADD COLUMN status TEXT",
    STATUS_OF_SCHEMA_1,
    "UPDATE meta SET value = '2' WHERE key = 'schema'",
)
# games.status: NULL while the game is live; "empty": replaced before anything was entered
FINISHED, ABANDONED, EMPTY = "finished", "abandoned", "empty"
NEW, OURS, UNMARKED = "new", "ours", "unmarked"  # what inspect() finds


def uri(path: Path, mode: str) -> str:
    """The SQLite URI of a ledger file with ``mode`` (and any more parameters after it).

    >>> from pathlib import Path
    >>> uri(Path("/var/lib/cribbage-board/ledger.sqlite3"), "ro")
    'file:///var/lib/cribbage-board/ledger.sqlite3?mode=ro'
    """
    return f"{path.absolute().as_uri()}?mode={mode}"


def inspect(conn: sqlite3.Connection, path: Path) -> tuple[str, int]:
    """What the open database is, and its schema version: "new" (empty), "ours",
    or "unmarked" (a ledger from before the marker, schema 1). Raises LedgerError
    for another program's database or a newer schema, Damaged for our marker on
    a schema that is not ours."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        if app_id in (0, APPLICATION_ID):
            return NEW, int(SCHEMA_VERSION)
    if app_id == 0:
        if "meta" not in tables or schema_row(conn) != "1":  # the marker came with schema 1
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise LedgerError(
                f"ledger {path} is another program's SQLite database (tables: {shown}): "
                "give another path (--state FILE)"
            )
    elif app_id != APPLICATION_ID:
        raise LedgerError(
            f"ledger {path} is another program's SQLite database (application_id {app_id:#x}): "
            "give another path (--state FILE)"
        )
    version = schema_row(conn) if "meta" in tables else None
    if version is None or not version.isdigit() or int(version) < 1:
        raise Damaged(f"it carries the ledger marker but has no schema version ({version!r})")
    if int(version) > int(SCHEMA_VERSION):
        raise LedgerError(
            f"ledger {path} has schema {version}, newer than this cribbage-board reads "
            f"({SCHEMA_VERSION}): upgrade cribbage-board or give another path (--state FILE)"
        )
    for table, columns in _COLUMNS.items():
        if int(version) >= 2:
            columns = columns | COLUMNS_SINCE_2.get(table, set())
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not columns <= have:
            raise Damaged(f"its table {table} is missing or lacks columns")
    return (OURS if app_id == APPLICATION_ID else UNMARKED), int(version)


def schema_row(conn: sqlite3.Connection) -> str | None:
    """The ``meta`` table's schema version, None where there is none (or no such table)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:  # a "meta" table of another shape
        return None
    return row[0] if row and isinstance(row[0], str) else None


def quick_check(conn: sqlite3.Connection) -> str | None:
    """SQLite's quick_check of the whole file: what is wrong, or None."""
    check = conn.execute("PRAGMA quick_check").fetchone()[0]
    if check == "ok":
        return None
    problems = [line for line in check.splitlines() if not line.startswith("***")] or [check]
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    return f"integrity check failed: {problems[0]}{more}"


def roll_back(conn: sqlite3.Connection) -> None:
    """Roll back what is open after a failed write. SQLite may already have rolled
    back (a failed COMMIT on a full disk does): never hide the first error."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass


def prepare(conn: sqlite3.Connection, kind: str, version: int) -> None:
    """Inside the writer's opening transaction: make a new ledger's tables and mark
    it, mark an unmarked one, migrate an older schema, and add the tally cache a
    ledger from before it lacks. All of it commits with the transaction, or none.

    Schema 2 (``SCHEMA_VERSION``) keeps times, UTC ISO 8601 with milliseconds and a
    ``Z`` (``2026-12-02T19:48:42.123Z``): each action's ``at``, each game's
    ``started`` and ``finished`` (the winning entry's time, or when a new game
    replaced it), and each game's ``status``: NULL while it is live, "finished",
    "abandoned" (a ``game`` line came before its end; it is kept and counts for
    nobody) or "empty" (replaced before anything was entered in it). The writer
    migrates a schema 1 ledger in the transaction that opens it
    (:func:`prepare`): old rows get NULL times (none is invented) and the status
    schema 1 meant. Readers read both schemas.
    """
    if kind != OURS:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    # The ledger's own name for the club link (firmware.board.club): a board's games are told
    # apart from every other board's by it. Added to a ledger from before it, once.
    conn.execute("INSERT OR IGNORE INTO meta VALUES ('ledger_id', ?)", (os.urandom(8).hex(),))
    if kind != NEW and version < 2:
        for statement in MIGRATE_1_TO_2:
            conn.execute(statement)
    have = conn.execute(
        f"SELECT count(*) FROM sqlite_master WHERE name IN ({','.join('?' * len(_TALLY_OBJECTS))})",
        tuple(_TALLY_OBJECTS),
    ).fetchone()[0]
    if have != len(_TALLY_OBJECTS):  # a ledger from before the tally: add it
        for statement in _TALLIES:
            conn.execute(statement)
    if not has_club_games(conn):  # a ledger from before the club's games were marked
        for statement in _CLUB_GAMES:
            conn.execute(statement)
    if not has_entry_sources(conn):  # a ledger from before entries were marked with their source
        for statement in _ENTRY_SOURCES:
            conn.execute(statement)


def ledger_id(conn: sqlite3.Connection) -> str | None:
    """The ledger's id (16 hex digits, given by its first writer), None where there is none."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='ledger_id'").fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row and isinstance(row[0], str) else None


def has_times(conn: sqlite3.Connection) -> bool:
    """Whether the ledger is of schema 2 or later (it keeps times and status)."""
    version = schema_row(conn)
    return version is not None and version.isdigit() and int(version) >= 2


def has_club_games(conn: sqlite3.Connection) -> bool:
    """Whether the ledger marks the games played for a club (its ``club_games`` table)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='club_games'").fetchone() is not None


def has_entry_sources(conn: sqlite3.Connection) -> bool:
    """Whether the ledger keeps where entries came from (its ``entry_sources`` table)."""
    return conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='entry_sources'").fetchone() is not None


def close_connection(conn: sqlite3.Connection | None) -> None:
    """Close a connection, if any; a failing close has nothing left to lose, so it raises nothing.

    >>> conn = sqlite3.connect(":memory:")
    >>> close_connection(conn)
    >>> close_connection(None)
    """
    if conn is not None:
        try:
            conn.close()
        except sqlite3.Error:
            pass
