"""The club hub's ledger: what the tables sent and what the director decided, in an SQLite file of its own.

:class:`HubLedger` is its one writer, on the same single writer as the board's ledger; its tables
are append-only, and nothing here adds anything up: the standings are derived from these rows
(:mod:`scorer.standings`), never kept as running totals.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from ledger.causes import sqlite_cause
from ledger.errors import Damaged, LedgerError
from ledger.salvage import Kind
from ledger.schema import APPLICATION_ID as BOARD_APPLICATION_ID
from ledger.schema import BUSY_TIMEOUT_MS, HUB_APPLICATION_ID, close_connection, uri
from ledger.single_writer import Clock, SingleWriter

SCHEMA_VERSION = "2"
TABLES = ("nights", "players", "entries", "results", "rounds", "pairings", "corrections", "conflicts")
CORRECTION_ACTIONS = ("correct", "void", "restore")
CONFLICT_KINDS = ("entry", "result", "refused")
_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE nights (
    id INTEGER PRIMARY KEY, club TEXT NOT NULL, name TEXT NOT NULL, points TEXT NOT NULL,
    skunk TEXT NOT NULL, rounds INTEGER NOT NULL, started TEXT NOT NULL, UNIQUE (club, name)
);
CREATE TABLE players (
    id INTEGER PRIMARY KEY, night_id INTEGER NOT NULL REFERENCES nights(id),
    action TEXT NOT NULL CHECK (action IN ('add', 'remove')), name TEXT NOT NULL, at TEXT NOT NULL
);
CREATE TABLE entries (
    id INTEGER PRIMARY KEY, night_id INTEGER NOT NULL REFERENCES nights(id), club TEXT NOT NULL,
    tbl TEXT NOT NULL, ledger TEXT NOT NULL, game INTEGER NOT NULL, seq INTEGER NOT NULL,
    line TEXT NOT NULL, at TEXT, received TEXT NOT NULL, UNIQUE (club, tbl, ledger, game, seq)
);
CREATE TABLE results (
    id INTEGER PRIMARY KEY, night_id INTEGER NOT NULL REFERENCES nights(id), round INTEGER NOT NULL,
    club TEXT NOT NULL, tbl TEXT NOT NULL, ledger TEXT NOT NULL, game INTEGER NOT NULL, rev INTEGER NOT NULL,
    status TEXT NOT NULL, payload TEXT NOT NULL, received TEXT NOT NULL, UNIQUE (club, tbl, ledger, game, rev)
);
CREATE TABLE rounds (
    id INTEGER PRIMARY KEY, night_id INTEGER NOT NULL REFERENCES nights(id), number INTEGER NOT NULL,
    made TEXT NOT NULL, how TEXT NOT NULL, UNIQUE (night_id, number)
);
CREATE TABLE pairings (
    id INTEGER PRIMARY KEY, round_id INTEGER NOT NULL REFERENCES rounds(id), tbl TEXT,
    players TEXT NOT NULL, bye INTEGER NOT NULL
);
CREATE TABLE corrections (
    id INTEGER PRIMARY KEY, night_id INTEGER NOT NULL REFERENCES nights(id), club TEXT NOT NULL,
    tbl TEXT NOT NULL, ledger TEXT NOT NULL, game INTEGER NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('correct', 'void', 'restore')),
    seats TEXT, scores TEXT, winner TEXT, reason TEXT NOT NULL, at TEXT NOT NULL
);
CREATE INDEX results_by_night ON results (night_id, id);
CREATE INDEX entries_by_night ON entries (night_id, tbl);
CREATE INDEX corrections_by_night ON corrections (night_id, id);
"""
_CONFLICTS = """
CREATE TABLE conflicts (
    id INTEGER PRIMARY KEY, night_id INTEGER NOT NULL REFERENCES nights(id), club TEXT NOT NULL,
    tbl TEXT NOT NULL, ledger TEXT NOT NULL, game INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('entry', 'result', 'refused')), number INTEGER NOT NULL,
    kept TEXT, sent TEXT NOT NULL, reason TEXT NOT NULL, received TEXT NOT NULL,
    UNIQUE (club, tbl, ledger, game, kind, number, sent)
);
CREATE INDEX conflicts_by_night ON conflicts (night_id, id);
"""
_COLUMNS = {
    "meta": {"key", "value"},
    "nights": {"id", "club", "name", "points", "skunk", "rounds", "started"},
    "players": {"id", "night_id", "action", "name", "at"},
    "entries": {"id", "night_id", "club", "tbl", "ledger", "game", "seq", "line", "at", "received"},
    "results": {"id", "night_id", "round", "club", "tbl", "ledger", "game", "rev", "status", "payload", "received"},
    "rounds": {"id", "night_id", "number", "made", "how"},
    "pairings": {"id", "round_id", "tbl", "players", "bye"},
    "corrections": {"id", "night_id", "club", "tbl", "ledger", "game", "action", "seats", "scores", "winner",
                    "reason", "at"},
    "conflicts": {"id", "night_id", "club", "tbl", "ledger", "game", "kind", "number", "kept", "sent", "reason",
                  "received"},
}
_SINCE = {"conflicts": 2}  # the schema a table came with (the others: 1)


def _append_only(tables: Iterable[str]) -> list[str]:
    return [f"CREATE TRIGGER {table}_kept_{what} BEFORE {what.upper()} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: add a row instead'); END"
            for table in tables for what in ("update", "delete")]


# ---- rows ----------------------------------------------------------------------


class Night(NamedTuple):
    """A club night and the rule it is scored by (``points``, ``skunk``: their spellings). Immutable.

    >>> import os, tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> hub = HubLedger(os.path.join(folder.name, "hub.sqlite3"), clock=lambda: 0.0)
    >>> night = hub.night("club", "Tuesday", "acc", "acc", 3)
    >>> night.name, night.rounds, night.started
    ('Tuesday', 3, '1970-01-01T00:00:00.000Z')
    >>> hub.close(); folder.cleanup()
    """

    id: int
    club: str
    name: str
    points: str
    skunk: str
    rounds: int
    started: str


class PlayerRow(NamedTuple):
    """A player added to a night or removed from it (``action``: "add" or "remove"), in order. Immutable.

    >>> import os, tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> hub = HubLedger(os.path.join(folder.name, "hub.sqlite3"), clock=lambda: 0.0)
    >>> night = hub.night("club", "Tuesday", "acc", "acc", 3)
    >>> hub.add_player(night.id, "Ann")
    >>> hub.reader().players(night.id)
    [PlayerRow(id=1, night_id=1, action='add', name='Ann', at='1970-01-01T00:00:00.000Z')]
    >>> hub.close(); folder.cleanup()
    """
    id: int
    night_id: int
    action: str
    name: str
    at: str


class ResultRow(NamedTuple):
    """One stored revision of a game's result; ``payload`` is the decoded JSON the table sent. Immutable.

    >>> row = ResultRow(1, 1, 1, "club", "1", "a1b2", 3, 0, "finished", {}, "1970-01-01T00:00:00.000Z")
    >>> row.game_key
    ('club', '1', 'a1b2', 3)
    """

    id: int
    night_id: int
    round: int
    club: str
    table: str
    ledger: str
    game: int
    rev: int
    status: str
    payload: dict[str, Any]
    received: str

    @property
    def game_key(self) -> tuple[str, str, str, int]:
        return (self.club, self.table, self.ledger, self.game)


def refused_kind(reason: str) -> str:
    """Whether a "refused" conflict is of an entry or a result: its reason says ("entry: ..."; a result's
    otherwise, as every refusal was before entries were noted)."""
    return "entry" if reason.startswith("entry:") else "result"


class ConflictRow(NamedTuple):
    """What a table sent that was not kept: ``kind`` "entry" or "result" (sent again as ``sent`` under
    a key already ``kept`` otherwise; ``number`` its seq or rev) or "refused" (an entry or result the
    hub will not keep, ``reason`` why, beginning "entry:" for an entry: :func:`refused_kind`). Immutable."""

    id: int
    night_id: int
    club: str
    table: str
    ledger: str
    game: int
    kind: str
    number: int
    kept: str
    sent: str
    reason: str
    received: str


class RoundRow(NamedTuple):
    """A round made: its ``pairings`` are PairingRows, the bye among them. Immutable.

    >>> import os, tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> hub = HubLedger(os.path.join(folder.name, "hub.sqlite3"), clock=lambda: 0.0)
    >>> night = hub.night("club", "Tuesday", "acc", "acc", 3)
    >>> hub.add_round(night.id, 1, [PairingRow("1", ("Ann", "Bob"), False), PairingRow(None, ("Cy",), True)], "swiss")
    >>> made = hub.reader().rounds(night.id)[0]
    >>> made.number, [pairing.players for pairing in made.pairings]
    (1, [('Ann', 'Bob'), ('Cy',)])
    >>> hub.close(); folder.cleanup()
    """

    id: int
    night_id: int
    number: int
    made: str
    how: str
    pairings: tuple[PairingRow, ...]


class PairingRow(NamedTuple):
    """Who plays at ``table`` (None: the round had more pairs than tables), or the ``bye``. Immutable.

    >>> PairingRow("1", ("Ann", "Bob"), False).players
    ('Ann', 'Bob')
    """

    table: str | None
    players: tuple[str, ...]
    bye: bool


class CorrectionRow(NamedTuple):
    """A director's word on a game: ``seats`` and ``scores`` ((side, score) pairs) for a correction. Immutable.

    >>> import os, tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> hub = HubLedger(os.path.join(folder.name, "hub.sqlite3"), clock=lambda: 0.0)
    >>> night = hub.night("club", "Tuesday", "acc", "acc", 3)
    >>> hub.add_correction(night.id, ("club", "1", "a1b2", 3), "void", "played at the wrong table")
    >>> [(row.action, row.reason, row.game_key) for row in hub.reader().corrections(night.id)]
    [('void', 'played at the wrong table', ('club', '1', 'a1b2', 3))]
    >>> hub.close(); folder.cleanup()
    """

    id: int
    night_id: int
    club: str
    table: str
    ledger: str
    game: int
    action: str
    seats: tuple[str, ...] | None
    scores: tuple[tuple[str, int], ...] | None
    winner: str | None
    reason: str
    at: str

    @property
    def game_key(self) -> tuple[str, str, str, int]:
        return (self.club, self.table, self.ledger, self.game)


# ---- the writer ----------------------------------------------------------------


class HubLedger(SingleWriter):
    """The one writer of a hub's ledger file (its opening, lock and honesty are the
    single writer's, :mod:`ledger.single_writer`). Writes go in :meth:`write` transactions: everything
    in one is durable when it returns, or nothing is. ``messages`` tells what happened on opening
    (a damaged file set aside). Its connection serves the hub's writer thread, opened in another.

    One writer per file, the single writer the board's ledger is too
    (:class:`~ledger.single_writer.SingleWriter`: its lock, opening and honesty
    rules): a locked file, a folder or a file in the way, no permission, another
    program's database, a board's ledger or a newer schema is a one-line
    ``LedgerError`` naming the path, and nothing is changed; only real damage
    (SQLite says not a database or corrupt, ``quick_check`` fails, or our marker on
    a schema that is not ours) is set aside, renamed, never deleted, and a new file
    begun. What is the hub's own is here: its schema, its rows and its queries.
    Times are kept as every ledger keeps them (:func:`ledger.single_writer.stamp`).

    The file: WAL, ``synchronous=FULL``, ``PRAGMA application_id = 0x434C5542``
    ("CLUB"), the schema version in ``meta``. Every table but ``meta`` is
    append-only (triggers refuse an UPDATE or a DELETE):

    - ``nights``: a club night, with the club's rule it is scored by (game
      points, skunk lines) and its rounds cap;
    - ``players``: a player added to or removed from a night, in order;
    - ``entries``: every record line a table sent, once: UNIQUE (club, tbl, ledger,
      game, seq), so a redelivered message is a no-op;
    - ``results``: every revision of a game's result a table sent, once: UNIQUE
      (club, tbl, ledger, game, rev), with the night and round it arrived in;
    - ``rounds`` and ``pairings``: each round made, its tables' players and its bye;
    - ``corrections``: a director's word on a game ("correct" with new scores,
      "void", or "restore", which drops the word before it), always with a reason;
    - ``conflicts`` (schema 2): what a table sent that was not kept: an entry or a
      result sent again under a key already kept but with other content (the
      first copy stands), or a result refused as impossible, with the reason; each once.

    A schema 1 file (the first release) gains ``conflicts`` when a writer opens it.

    >>> import os, tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> hub = HubLedger(os.path.join(folder.name, "hub.sqlite3"), clock=lambda: 0.0)
    >>> night = hub.night("club", "Tuesday", "acc", "acc", 3)
    >>> with hub.write():
    ...     hub.add_player(night.id, "Ann")
    ...     hub.add_player(night.id, "Bob")
    ...     hub.add_round(night.id, 1, [PairingRow("1", ("Ann", "Bob"), False)], "swiss")
    >>> [player.name for player in hub.reader().players(night.id)]
    ['Ann', 'Bob']
    >>> hub.close(); folder.cleanup()
    """

    KIND = "hub ledger"
    UNSAVED = "nothing saved"
    AGAIN = "restart the hub"
    ANY_THREAD = True

    def __init__(self, path: str | os.PathLike[str], holder: str | None = None, clock: Clock = time.time):
        super().__init__(path, clock, holder)

    # ---- the hub's schema in the single writer's open ----------------------

    def _inspect(self, conn: sqlite3.Connection) -> tuple[bool, int]:
        return _inspect_file(conn, self.path)

    def _prepare(self, conn: sqlite3.Connection, new: bool, version: int) -> None:
        if new:
            build_schema(conn)
        elif version < 2:  # schema 1: it gains the conflicts table
            _run(conn, [*_CONFLICTS.split(";"), *_append_only(["conflicts"])])
            conn.execute("UPDATE meta SET value=? WHERE key='schema'", (SCHEMA_VERSION,))

    # ---- writing ---------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[HubLedger]:
        """One transaction: ``with ledger.write() as w: w.add_entry(...)``; durable when the block
        ends, or nothing of it is kept and LedgerError (DiskFullError for a full disk) is raised."""
        with self._transaction():
            yield self

    def night(self, club: str, name: str, points: str, skunk: str, rounds: int) -> Night:
        """The night ``name`` of ``club``, begun now with this rule if it is new (in its own transaction)."""
        conn = self._require()
        row = conn.execute("SELECT * FROM nights WHERE club=? AND name=?", (club, name)).fetchone()
        if row is None:
            with self.write():
                conn.execute("INSERT INTO nights (club, name, points, skunk, rounds, started) VALUES (?, ?, ?, ?, ?, ?)",
                             (club, name, points, skunk, rounds, self.now()))
            row = conn.execute("SELECT * FROM nights WHERE club=? AND name=?", (club, name)).fetchone()
        return Night(*row)

    def add_entry(self, night_id: int, club: str, table: str, ledger: str, game: int, seq: int, line: str,
                  at: str | None) -> bool:
        """Inside :meth:`write`: one record line; False if it was already kept (a redelivery)."""
        cursor = self._connection().execute(
            "INSERT OR IGNORE INTO entries (night_id, club, tbl, ledger, game, seq, line, at, received) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (night_id, club, table, ledger, game, seq, line, at, self.now()))
        return cursor.rowcount == 1

    def add_result(self, night_id: int, round_number: int, club: str, payload: dict[str, Any]) -> bool:
        """Inside :meth:`write`: one revision of a game's result (a decoded ``result`` payload);
        False if that revision was already kept."""
        cursor = self._connection().execute(
            "INSERT OR IGNORE INTO results (night_id, round, club, tbl, ledger, game, rev, status, payload, received) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (night_id, round_number, club, payload["table"], payload["ledger"], payload["game"], payload["rev"],
             payload["status"], json.dumps(payload, ensure_ascii=False, separators=(",", ":")), self.now()))
        return cursor.rowcount == 1

    def entry_line(self, club: str, table: str, ledger: str, game: int, seq: int) -> str | None:
        """Inside :meth:`write`: the line kept under this key (None: none)."""
        row = self._connection().execute("SELECT line FROM entries WHERE club=? AND tbl=? AND ledger=? AND game=? AND seq=?",
                                 (club, table, ledger, game, seq)).fetchone()
        return row[0] if row else None

    def result_payload(self, club: str, table: str, ledger: str, game: int, rev: int) -> dict[str, Any] | None:
        """Inside :meth:`write`: the result kept under this key (None: none)."""
        row = self._connection().execute("SELECT payload FROM results WHERE club=? AND tbl=? AND ledger=? AND game=? AND rev=?",
                                 (club, table, ledger, game, rev)).fetchone()
        return json.loads(row[0]) if row else None

    def add_conflict(self, night_id: int, club: str, table: str, ledger: str, game: int, kind: str, number: int,
                     kept: str | None, sent: str, reason: str) -> bool:
        """Inside :meth:`write`: something a table sent that was not kept (see ConflictRow); False if
        the same was noted before."""
        if kind not in CONFLICT_KINDS:
            raise ValueError(f"conflict {kind!r}: use one of {', '.join(CONFLICT_KINDS)}")
        cursor = self._connection().execute(
            "INSERT OR IGNORE INTO conflicts (night_id, club, tbl, ledger, game, kind, number, kept, sent, reason, "
            "received) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (night_id, club, table, ledger, game, kind, number, kept, sent, reason, self.now()))
        return cursor.rowcount == 1

    def add_player(self, night_id: int, name: str, action: str = "add") -> None:
        """Inside :meth:`write`: a player added to the night, or removed from it."""
        self._connection().execute("INSERT INTO players (night_id, action, name, at) VALUES (?, ?, ?, ?)",
                           (night_id, action, name, self.now()))

    def add_round(self, night_id: int, number: int, pairings: list[PairingRow], how: str) -> None:
        """Inside :meth:`write`: round ``number`` and its pairings (``how``: who made it, e.g. "start")."""
        round_id = self._connection().execute("INSERT INTO rounds (night_id, number, made, how) VALUES (?, ?, ?, ?)",
                                      (night_id, number, self.now(), how)).lastrowid
        self._connection().executemany(
            "INSERT INTO pairings (round_id, tbl, players, bye) VALUES (?, ?, ?, ?)",
            [(round_id, p.table, json.dumps(list(p.players), ensure_ascii=False), int(p.bye)) for p in pairings])

    def add_correction(self, night_id: int, game_key: tuple[str, str, str, int], action: str, reason: str,
                       seats: Iterable[str] | None = None, scores: Iterable[tuple[str, int]] | None = None,
                       winner: str | None = None) -> None:
        """Inside :meth:`write`: a director's word on a game, kept with its reason and time."""
        if action not in CORRECTION_ACTIONS:
            raise ValueError(f"correction {action!r}: use one of {', '.join(CORRECTION_ACTIONS)}")
        club, table, ledger, game = game_key
        self._connection().execute(
            "INSERT INTO corrections (night_id, club, tbl, ledger, game, action, seats, scores, winner, reason, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (night_id, club, table, ledger, game, action,
             None if seats is None else json.dumps(list(seats), ensure_ascii=False),
             None if scores is None else json.dumps([list(pair) for pair in scores], ensure_ascii=False),
             winner, reason, self.now()))

    # ---- reading (the writer's own connection: call from the writer's thread) ----

    def reader(self) -> "HubRows":
        return HubRows(self._require())


def build_schema(conn: sqlite3.Connection) -> None:
    """A new hub ledger's tables, append-only triggers, schema row and marker, on the open transaction."""
    _run(conn, [*_SCHEMA.split(";"), *_CONFLICTS.split(";"), *_append_only(TABLES)])
    conn.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
    conn.execute(f"PRAGMA application_id={HUB_APPLICATION_ID}")


# What ``cribbage-board salvage`` makes of a hub's -wal: a new hub ledger with the rows of its tables.
SALVAGE_KIND = Kind(
    name="a club hub's ledger", markers=(HUB_APPLICATION_ID,), version=int(SCHEMA_VERSION), build=build_schema,
    tables=("meta", *TABLES), optional=frozenset({"conflicts"}),
    counted=(("entries", "entry", "entries"), ("results", "result", "results")), since={},
)


def _run(conn: sqlite3.Connection, statements: Iterable[str]) -> None:
    """Each statement that is not blank, on the opening transaction."""
    for statement in statements:
        if statement.strip():
            conn.execute(statement)


def _inspect_file(conn: sqlite3.Connection, path: Path) -> tuple[bool, int]:
    """Whether the open database is new (empty), and its schema version; LedgerError for another program's database,
    a board's ledger or a newer schema; Damaged for our marker on a schema that is not ours."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables and app_id in (0, HUB_APPLICATION_ID):
        return True, int(SCHEMA_VERSION)
    if app_id == BOARD_APPLICATION_ID:
        raise LedgerError(f"ledger {path} is a board's ledger, not a club hub's: give the hub a file of its own "
                          "(--state hub.sqlite3)")
    if app_id != HUB_APPLICATION_ID:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        what = f"application_id {app_id:#x}" if app_id else f"tables: {shown}"
        raise LedgerError(f"ledger {path} is another program's SQLite database ({what}): "
                          "give another path (--state FILE)")
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:
        row = None
    version = row[0] if row and isinstance(row[0], str) else None
    if version is None or not version.isdigit():
        raise Damaged(f"it carries the hub's marker but has no schema version ({version!r})")
    if int(version) > int(SCHEMA_VERSION):
        raise LedgerError(f"ledger {path} has hub schema {version}, newer than this cribbage-board reads "
                          f"({SCHEMA_VERSION}): upgrade cribbage-board or give another path (--state FILE)")
    for table, columns in _COLUMNS.items():
        if _SINCE.get(table, 1) > int(version):
            continue
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not columns <= have:
            raise Damaged(f"its table {table} is missing or lacks columns")
    return False, int(version)


# ---- reading ---------------------------------------------------------------------


class KeptBoard:
    """What a hub ledger holds of one board's ledger, as the hub's word to the board needs it: per game the
    last entry kept without a gap from its line (seq 0) on, the entries kept beyond a gap, and its result's
    highest revision kept with its status (a result refused counts, below a stored one of the same
    revision). :meth:`HubRows.kept_board` reads it whole; the hub's writer keeps it up to date after each
    commit (:meth:`entry`, :meth:`result`), which gives what reading it again would.

    >>> kept = KeptBoard()
    >>> kept.entry(1, 0); kept.entry(1, 1)
    >>> kept.word(None, 10)
    (1, [[1, 1, None, None]])
    """

    def __init__(self) -> None:
        self.through: dict[int, int] = {}  # game -> the last seq kept without a gap (-1: not its line)
        self.beyond: dict[int, set[int]] = {}  # game -> seqs kept past a gap
        self.results: dict[int, tuple[int, bool, str]] = {}  # game -> (rev, stored, status)
        self.refusals: list[list[Any]] = []  # [game, kind, number, reason], in the order noted

    def entry(self, game: int, seq: int) -> None:
        """Entry ``seq`` of ``game`` kept (once: the ledger's UNIQUE key)."""
        through = self.through.setdefault(game, -1)
        if seq != through + 1:
            if seq > through:
                self.beyond.setdefault(game, set()).add(seq)
            return
        waiting = self.beyond.get(game, set())
        through = seq
        while through + 1 in waiting:
            through += 1
            waiting.discard(through)
        if game in self.beyond and not waiting:
            del self.beyond[game]
        self.through[game] = through

    def result(self, game: int, rev: int, status: str, stored: bool = True) -> None:
        """Revision ``rev`` of ``game``'s result kept (``stored``), or refused and noted (not stored)."""
        if game not in self.results or (rev, stored) > self.results[game][:2]:
            self.results[game] = (rev, stored, status)

    def refused(self, game: int, kind: str, number: int, reason: str, status: object = None) -> None:
        """Entry or result ``number`` of ``game`` refused and noted: counted as kept (sending it again changes
        nothing), and listed in the word's refusals."""
        if kind == "entry":
            self.entry(game, number)
        elif isinstance(status, str):
            self.result(game, number, status, stored=False)
        self.refusals.append([game, kind, number, reason])

    def refused_from(self, first: int | None) -> list[list[Any]]:
        """The refusals of games from ``first`` on (all when it is not known), in the order noted."""
        return [list(item) for item in self.refusals if item[0] >= (first or 0)]

    def word(self, first: int | None, most: int) -> tuple[int, list[list[Any]]]:
        """(from, [[game, seq, rev, status], ...]) for at most ``most`` games from ``first``, the board's
        floor, on; ``seq`` the last of its line and entries kept without a gap (-1: its line is not),
        ``rev`` and ``status`` its result's highest revision kept, or refused (None: none). The floor not known
        (None): the newest ``most`` games, and ``from`` 1, since a board that lost its watermark takes
        ``from`` as settled, and games the hub lacks may lie before the first it has."""
        games = sorted(game for game in self.through.keys() | self.results.keys() if game >= (first or 0))
        games = games[:most] if first is not None else games[-most:]
        out = []
        for game in games:
            rev, _, status = self.results.get(game, (None, None, None))
            out.append([game, self.through.get(game, -1), rev, status])
        return (first if first is not None else 1), out


class HubRows:
    """The rows of a hub ledger, read on one connection (the writer's, or a reader's)."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def nights(self) -> list[Night]:
        return [Night(*row) for row in self._conn.execute("SELECT * FROM nights ORDER BY id")]

    def players(self, night_id: int, after: int = 0) -> list[PlayerRow]:
        """The night's player rows (those after row id ``after``), in the order added."""
        return [PlayerRow(*row) for row in self._conn.execute(
            "SELECT id, night_id, action, name, at FROM players WHERE night_id=? AND id>? ORDER BY id",
            (night_id, after))]

    def results(self, night_id: int | None = None, after: int = 0) -> list[ResultRow]:
        """Every stored revision (of one night, or all; those after row id ``after``), in the order received."""
        where, args = ("WHERE night_id=? AND id>?", (night_id, after)) if night_id is not None else \
            ("WHERE id>?", (after,))
        rows = self._conn.execute(
            "SELECT id, night_id, round, club, tbl, ledger, game, rev, status, payload, received FROM results "
            f"{where} ORDER BY id", args)
        return [ResultRow._make((*row[:9], json.loads(row[9]), row[10])) for row in rows]

    def entries(self, night_id: int, after: int = 0) -> list[tuple[int, tuple[str, str, str, int], int, str]]:
        """The night's entries kept (those after row id ``after``), in order: (id, game key, seq, line).
        Found by row id (``+night_id`` keeps SQLite off ``entries_by_night``, which would read every entry of
        the night and sort them), so a read costs the rows it returns, not the night's."""
        return [(row[0], (row[1], row[2], row[3], row[4]), row[5], row[6]) for row in self._conn.execute(
            "SELECT id, club, tbl, ledger, game, seq, line FROM entries WHERE id>? AND +night_id=? ORDER BY id",
            (after, night_id))]

    def rounds(self, night_id: int, after: int = 0) -> list[RoundRow]:
        """The night's rounds (those numbered after ``after``) with their pairings, in order."""
        out = []
        for round_id, night, number, made, how in self._conn.execute(
                "SELECT id, night_id, number, made, how FROM rounds WHERE night_id=? AND number>? ORDER BY number",
                (night_id, after)):
            pairings = tuple(PairingRow(table, tuple(json.loads(players)), bool(bye)) for table, players, bye in
                             self._conn.execute("SELECT tbl, players, bye FROM pairings WHERE round_id=? ORDER BY id",
                                                (round_id,)))
            out.append(RoundRow(round_id, night, number, made, how, pairings))
        return out

    def corrections(self, night_id: int | None = None, after: int = 0) -> list[CorrectionRow]:
        """The director's corrections (of one night, or all; those after row id ``after``), in order."""
        where, args = ("WHERE night_id=? AND id>?", (night_id, after)) if night_id is not None else \
            ("WHERE id>?", (after,))
        out = []
        for row in self._conn.execute(
                "SELECT id, night_id, club, tbl, ledger, game, action, seats, scores, winner, reason, at "
                f"FROM corrections {where} ORDER BY id", args):
            seats = tuple(json.loads(row[7])) if row[7] is not None else None
            scores = tuple((side, score) for side, score in json.loads(row[8])) if row[8] is not None else None
            out.append(CorrectionRow._make((*row[:7], seats, scores, *row[9:])))
        return out

    def conflicts(self, night_id: int | None = None) -> list[ConflictRow]:
        """What tables sent that was not kept (of one night, or all), in the order noted."""
        where, args = ("WHERE night_id=?", (night_id,)) if night_id is not None else ("", ())
        return [ConflictRow(*row) for row in self._conn.execute(
            "SELECT id, night_id, club, tbl, ledger, game, kind, number, kept, sent, reason, received "
            f"FROM conflicts {where} ORDER BY id", args)]

    def kept(self, club: str, table: str, ledger: str, first: int | None, most: int) -> tuple[int, list[list[Any]]]:
        """What is kept of a board's ledger, as the hub's word says it (firmware.wire.schema.kept_payload):
        see :meth:`KeptBoard.word`."""
        return self.kept_board(club, table, ledger).word(first, most)

    def kept_board(self, club: str, table: str, ledger: str) -> "KeptBoard":
        """What this ledger holds of one board's ledger, read whole (:class:`KeptBoard`)."""
        board = KeptBoard()
        key = (club, table, ledger)
        for game, seq in self._conn.execute(
                "SELECT game, seq FROM entries WHERE club=? AND tbl=? AND ledger=? ORDER BY game, seq", key):
            board.entry(game, seq)
        for game, rev, status in self._conn.execute(
                "SELECT game, rev, status FROM results WHERE club=? AND tbl=? AND ledger=? ORDER BY game, rev", key):
            board.result(game, rev, status)
        # An entry or result refused is kept too, as a conflict with what was sent: the board may forget it
        # (the director sees it, and the board is told); else it would send it again for ever.
        for game, number, sent, reason in self._conn.execute(
                "SELECT game, number, sent, reason FROM conflicts WHERE club=? AND tbl=? AND ledger=? "
                "AND kind='refused' ORDER BY id", key):
            try:
                status = json.loads(sent).get("status")
            except (ValueError, AttributeError):
                status = None
            board.refused(game, refused_kind(reason), number, reason, status)
        return board

    def lineless(self, night_id: int) -> list[tuple[str, str, int, int]]:
        """The night's games the hub holds entries of but not their game line (entry 0), as
        (table, ledger, game, entries kept), in table and game order."""
        return [(row[0], row[1], row[2], row[3]) for row in self._conn.execute(
            "SELECT tbl, ledger, game, count(*) FROM entries WHERE night_id=? GROUP BY club, tbl, ledger, game "
            "HAVING min(seq) > 0 ORDER BY tbl, game", (night_id,))]

    def entry_counts(self, night_id: int) -> dict[str, int]:
        """Entries kept for each table this night."""
        return dict(self._conn.execute("SELECT tbl, count(*) FROM entries WHERE night_id=? GROUP BY tbl",
                                       (night_id,)))

    def counts(self) -> dict[str, int]:
        """Rows in each table (the bench's and the tests' check of what was kept)."""
        return {table: self._conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in TABLES}


class HubReader(HubRows):
    """A hub ledger opened read-only (tests, the bench, a backup's check); never in the writer's way."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        try:
            conn = sqlite3.connect(uri(self.path, "ro"), uri=True, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            if conn.execute("PRAGMA application_id").fetchone()[0] != HUB_APPLICATION_ID:
                conn.close()
                raise LedgerError(f"ledger {self.path} is not a club hub's ledger")
        except sqlite3.Error as error:
            raise LedgerError(f"ledger {self.path} cannot be read: {sqlite_cause(error, self.path.parent)}") from None
        super().__init__(conn)

    def close(self) -> None:
        close_connection(self._conn)

    def __enter__(self) -> "HubReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
