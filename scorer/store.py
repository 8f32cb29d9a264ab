"""The durable ledger: every accepted action is in SQLite before it is acknowledged.

The database holds the game record itself (one row an action), so reopening
it is a replay of what was acknowledged, undo and redo stacks included.
A database that cannot be read is moved aside, never deleted.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

from .errors import CribbageError
from .game import Game, LedgerEntry, Match, Outcome
from .record import Action, GameHeader, Scorebook, parse_line

SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (id INTEGER PRIMARY KEY, started TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    header TEXT NOT NULL,
    outcome TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    line TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS actions_by_game ON actions (game_id, id);
CREATE INDEX IF NOT EXISTS games_by_match ON games (match_id, id);
"""


class StoreError(CribbageError):
    """The ledger could not be written; the action was not acknowledged."""


class LedgerStore:
    """A scorebook kept in an SQLite file (WAL, synchronous=FULL).

    ``messages`` tells what happened on opening (a database set aside, a line
    that no longer replays), for the board to show.
    """

    def __init__(self, path: str | os.PathLike, clock=time.time):
        self.path = Path(path)
        self.messages: list[str] = []
        self._clock = clock
        self._conn: sqlite3.Connection | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = self._connect()
            self.book, self._game_id = self._load()
        except (sqlite3.Error, CribbageError, ValueError, KeyError, TypeError) as error:
            self._close_quietly()
            moved = self._set_aside(error)
            self._conn = self._connect()
            self.book, self._game_id = self._load()
            self.messages.append(
                f"ledger {self.path} could not be read ({error}); it was kept as {moved.name} "
                "and a new ledger started"
            )

    # ---- opening ---------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check}")
            conn.executescript(_SCHEMA)
            row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                conn.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"schema version {row[0]}, expected {SCHEMA_VERSION}")
        except BaseException:
            conn.close()
            raise
        return conn

    def _set_aside(self, error: Exception) -> Path:
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(self._clock()))
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
                f"ledger {self.path} cannot be read ({error}) nor moved aside ({move_error}): "
                "check the state directory's permissions"
            ) from move_error
        return target

    def _load(self) -> tuple[Scorebook, int | None]:
        conn = self._conn
        row = conn.execute("SELECT max(id) FROM matches").fetchone()
        if row[0] is None:
            return Scorebook(), None
        games = conn.execute(
            "SELECT id, header, outcome FROM games WHERE match_id=? ORDER BY id", (row[0],)
        ).fetchall()
        if not games:
            return Scorebook(), None
        results = [Outcome.from_dict(json.loads(o)) for _, _, o in games[:-1] if o]
        game_id, header_line, _ = games[-1]
        header = parse_line(header_line)
        if not isinstance(header, GameHeader):
            raise ValueError(f"game {game_id} has no valid header: {header_line!r}")
        match = Match(header.variant, header.seats, header.dealer, header.options, results)
        book = Scorebook(match)
        lines = conn.execute(
            "SELECT id, line FROM actions WHERE game_id=? ORDER BY id", (game_id,)
        ).fetchall()
        for action_id, line in lines:
            try:
                book.apply(parse_line(line))
            except CribbageError as error:
                self.messages.append(f"ledger action {action_id} ({line}) no longer replays: {error}")
        return book, game_id

    # ---- writing ---------------------------------------------------------

    @property
    def game(self) -> Game | None:
        return self.book.game

    def apply(self, action: Action) -> LedgerEntry | Game:
        """Apply an action and make it durable; only then return (acknowledge).

        A refused action raises and nothing is written. If the write fails the
        in-memory state is rebuilt from the database and StoreError is raised.
        """
        result = self.book.apply(action)
        try:
            self._write(action)
        except sqlite3.Error as error:
            self.book, self._game_id = self._load()
            raise StoreError(f"could not save to {self.path}: {error}") from error
        return result

    def _write(self, action: Action) -> None:
        conn = self._conn
        game = self.book.game
        conn.execute("BEGIN IMMEDIATE")
        try:
            if isinstance(action, GameHeader):
                match_id = None
                if self._game_id is not None and self.book.games:
                    match_id = conn.execute(
                        "SELECT match_id FROM games WHERE id=?", (self._game_id,)
                    ).fetchone()[0]
                if match_id is None:
                    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self._clock()))
                    match_id = conn.execute(
                        "INSERT INTO matches (started) VALUES (?)", (started,)
                    ).lastrowid
                game_id = conn.execute(
                    "INSERT INTO games (match_id, header) VALUES (?, ?)", (match_id, game.header())
                ).lastrowid
            else:
                game_id = self._game_id
                line = game.history[-1].record()  # as the game recorded it, seat resolved
                conn.execute("INSERT INTO actions (game_id, line) VALUES (?, ?)", (game_id, line))
                outcome = json.dumps(game.outcome.to_dict()) if game.outcome else None
                conn.execute("UPDATE games SET outcome=? WHERE id=?", (outcome, game_id))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self._game_id = game_id

    # ---- reading ---------------------------------------------------------

    def game_ids(self) -> list[int]:
        """Every game in the ledger, oldest first."""
        return [row[0] for row in self._conn.execute("SELECT id FROM games ORDER BY id")]

    def export(self, game_id: int | None = None) -> list[str]:
        """A game (the current one by default) as game-record lines."""
        game_id = self._game_id if game_id is None else game_id
        if game_id is None:
            return []
        row = self._conn.execute("SELECT header FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in {self.path}")
        lines = self._conn.execute(
            "SELECT line FROM actions WHERE game_id=? ORDER BY id", (game_id,)
        ).fetchall()
        return [row[0]] + [line for (line,) in lines]

    def close(self) -> None:
        self._close_quietly()

    def _close_quietly(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None

    def __enter__(self) -> "LedgerStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
