"""What a reader lists: each finished or abandoned game as a typed row, and when a game happened.

Rows are read from the stored game rows (no replay): a listing of 1,000 games
stays cheap. :meth:`GameRow.to_dict` is the JSON the web view serves.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from scorer.game import LoserResult, Outcome
from scorer.record import GameHeader

from .book import UNREADABLE, parse_stored
from .errors import LedgerError
from .schema import ABANDONED, EMPTY, FINISHED, has_times

PLAYING = "playing"  # a row for the game in play (which the ledger does not list; the web view does)


@dataclass(frozen=True, slots=True)
class GameRow:
    """One game as listed: ``id``, ``match_id`` (None for the game in play), ``variant``,
    ``seats``, ``target``, ``status`` ("finished" or "abandoned"; "playing" for the
    game in play), ``started`` and ``finished`` (UTC ISO 8601, None when not known);
    and, for a finished game, its result: ``winner``, ``loser``, ``losers`` (each
    losing side's :class:`~scorer.game.LoserResult`), ``result`` (the result kind's
    spelling, "skunk" say), ``margin``, ``game_points`` and ``scores`` (side: final
    score). An abandoned game has no result (None) and no scores; its ``finished``
    is when the next game replaced it.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann target=31", "peg Bob 2", "hand Bob 29",
    ...              "game six-card seats=Ann,Bob dealer=Bob"):
    ...     _ = writer.apply(parse_line(line))
    >>> from ledger.reader import LedgerReader
    >>> reader = LedgerReader(path)
    >>> game = reader.games()[0]
    >>> game.id, game.variant, game.winner, game.status
    (1, 'six-card', 'Bob', 'finished')
    >>> reader.close()
    >>> writer.close(); folder.cleanup()
    """

    id: int
    match_id: int | None
    variant: str
    seats: tuple[str, ...]
    target: int
    status: str
    winner: str | None = None
    loser: str | None = None
    losers: tuple[LoserResult, ...] = ()
    result: str | None = None
    margin: int | None = None
    game_points: int | None = None
    scores: dict[str, int] | None = None
    started: str | None = None
    finished: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON data (lists for tuples; each loser as a mapping)."""
        return {
            "id": self.id, "match_id": self.match_id, "variant": self.variant, "seats": list(self.seats),
            "target": self.target, "status": self.status, "winner": self.winner, "loser": self.loser,
            "losers": [loser.to_dict() for loser in self.losers], "result": self.result,
            "margin": self.margin, "game_points": self.game_points,
            "scores": None if self.scores is None else dict(self.scores),
            "started": self.started, "finished": self.finished,
        }


@dataclass(frozen=True, slots=True)
class GameTimes:
    """When a game happened: ``started``, ``finished`` (None while it is live, or when
    not known) and ``entries``, the time of each action line of the game's export after
    its game line, in order (None for lines written before the ledger kept times).

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> from ledger.reader import LedgerReader
    >>> reader = LedgerReader(path)
    >>> reader.times(1)
    GameTimes(started='1970-01-01T00:00:00.000Z', finished=None, entries=('1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z'))
    >>> reader.close()
    >>> writer.close(); folder.cleanup()
    """

    started: str | None
    finished: str | None
    entries: tuple[str | None, ...]


def _columns(conn: sqlite3.Connection) -> str:
    """The columns a listing reads: (id, match_id, header, outcome, started, finished, status)."""
    extra = "started, finished, status" if has_times(conn) else (
        "NULL, NULL, CASE WHEN outcome IS NULL AND NOT EXISTS "
        f"(SELECT 1 FROM actions WHERE game_id = games.id) THEN '{EMPTY}' END")
    return f"id, match_id, header, outcome, {extra}"


def game_rows(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """(id, match_id, header, outcome, started, finished, status) of every game, newest first."""
    conn.execute("BEGIN")
    try:
        return conn.execute(f"SELECT {_columns(conn)} FROM games ORDER BY id DESC").fetchall()
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def listed_games(rows: list[tuple[Any, ...]], path: Path) -> tuple[list[GameRow], list[str]]:
    """The rows of :func:`game_rows` as GameRows, leaving out the live game and those
    replaced before anything was entered in them; a game whose stored lines no longer
    read is left out and said in the messages returned beside the rows."""
    messages: list[str] = []
    last = rows[0][0] if rows else None
    listed = [game for row in rows if (game := _listed(row, last, path, messages)) is not None]
    return listed, messages


def _listed(row: tuple[Any, ...], last: int | None, path: Path, messages: list[str]) -> GameRow | None:
    """One row of :func:`game_rows` as a GameRow; None for the live game (``last``, the newest), one
    replaced before anything was entered in it, and one whose stored lines no longer read (said in
    ``messages``)."""
    game_id, match_id, header_line, outcome_text, started, finished, status = row
    if outcome_text is not None:
        status = FINISHED
    elif status == EMPTY:
        return None  # replaced before anything was entered: no game to list
    elif status != ABANDONED:
        if game_id == last:
            return None  # the live game
        status = ABANDONED  # replaced by a later game (schema 1 did not say so)
    header = _header(header_line)
    if header is None:
        messages.append(f"ledger {path}: game {game_id} is left out: its game line is damaged")
        return None
    result = {}
    if status == FINISHED:
        try:
            result = _result(outcome_text, header)
        except UNREADABLE as error:
            messages.append(f"ledger {path}: game {game_id} is left out: its result is damaged ({error!r})")
            return None
    return GameRow(game_id, match_id, header.variant.name, tuple(header.seats), header.variant.target,
                   status, started=started, finished=finished, **result)


class GamePage(NamedTuple):
    """A page of the games listed (:func:`game_page`): ``rows`` newest first, and whether any game
    listed is ``older`` than the last of them or ``newer`` than the first.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann target=31", "peg Bob 2", "hand Bob 29",
    ...              "game six-card seats=Ann,Bob target=31", "peg Bob 2", "hand Bob 29",
    ...              "game six-card seats=Ann,Bob target=31"):
    ...     _ = writer.apply(parse_line(line))
    >>> from ledger.reader import LedgerReader
    >>> reader = LedgerReader(path)
    >>> page = reader.games_page(1)
    >>> [game.id for game in page.rows], page.older, page.newer
    ([2], True, False)
    >>> [game.id for game in reader.games_page(1, before=2).rows]
    [1]
    >>> reader.close()
    >>> writer.close(); folder.cleanup()
    """

    rows: list[GameRow]
    older: bool
    newer: bool


def game_page(conn: sqlite3.Connection, path: Path, count: int, before: int | None = None,
              after: int | None = None) -> GamePage:
    """At most ``count`` games as :func:`listed_games` lists them, newest first: the newest, those
    before game ``before`` or the oldest after game ``after``; one read snapshot, which reads only
    the rows of the page and the next row listed on each side of it (never the whole table)."""
    conn.execute("BEGIN")
    try:
        last = conn.execute("SELECT max(id) FROM games").fetchone()[0]
        columns = _columns(conn)

        def listed(where: str, bound: int, newest_first: bool, most: int) -> list[GameRow]:
            order = "DESC" if newest_first else "ASC"
            out: list[GameRow] = []
            for row in conn.execute(f"SELECT {columns} FROM games WHERE id {where} ? ORDER BY id {order}", (bound,)):
                game = _listed(row, last, path, [])
                if game is not None:
                    out.append(game)
                    if len(out) == most:
                        break
            return out

        if after is not None:
            rows = listed(">", after, False, count + 1)
            newer, rows = len(rows) > count, rows[:count][::-1]
            older = bool(listed("<=", after, True, 1))
        else:
            rows = listed("<", (last or 0) + 1 if before is None else before, True, count + 1)
            older, rows = len(rows) > count, rows[:count]
            newer = before is not None and bool(listed(">=", before, False, 1))
        return GamePage(rows, older, newer)
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def newest_game(conn: sqlite3.Connection) -> tuple[int, bool] | None:
    """The newest game's id and whether it has a result, None without games: what the listing of
    games depends on besides rows that never change (a game listed is over)."""
    row = conn.execute("SELECT id, outcome IS NOT NULL FROM games ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None else (row[0], bool(row[1]))


def listed_game(conn: sqlite3.Connection, path: Path, game_id: int) -> GameRow | None:
    """Game ``game_id`` as :func:`listed_games` lists it; None if the ledger does not list it."""
    conn.execute("BEGIN")
    try:
        last = conn.execute("SELECT max(id) FROM games").fetchone()[0]
        row = conn.execute(f"SELECT {_columns(conn)} FROM games WHERE id=?", (game_id,)).fetchone()
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
    return None if row is None else _listed(row, last, path, [])


def game_times(conn: sqlite3.Connection, path: Path, game_id: int) -> GameTimes:
    """When a game and each of its entries happened; LedgerError if there is no such game."""
    conn.execute("BEGIN")
    try:
        if not has_times(conn):
            row = conn.execute("SELECT NULL, NULL FROM games WHERE id=?", (game_id,)).fetchone()
            at = "NULL"
        else:
            row = conn.execute("SELECT started, finished FROM games WHERE id=?", (game_id,)).fetchone()
            at = "at"
        if row is None:
            raise LedgerError(f"no game {game_id} in {path}")
        entries = tuple(when for (when,) in conn.execute(
            f"SELECT {at} FROM actions WHERE game_id=? ORDER BY id", (game_id,)))
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
    return GameTimes(row[0], row[1], entries)


_decode = json.JSONDecoder().decode


def result_of(outcome: Outcome) -> dict[str, Any]:
    """A finished game's result fields of its GameRow, from its Outcome.

    >>> from scorer.game import Game, Entry, EntryKind
    >>> from scorer.variants import find_variant
    >>> game = Game(find_variant("six-card", 31), ["Ann", "Bob"], dealer="Ann")
    >>> _ = game.push(Entry(EntryKind.PEG, "Bob", 2)); _ = game.push(Entry(EntryKind.HAND, "Bob", 29))
    >>> fields = result_of(game.outcome)
    >>> fields["winner"], fields["margin"]
    ('Bob', 31)
    """
    return {"winner": outcome.winner, "loser": outcome.loser, "losers": outcome.losers,
            "result": outcome.kind.value, "margin": outcome.margin, "game_points": outcome.game_points,
            "scores": dict(outcome.scores)}


def _result(text: str, header: GameHeader) -> dict[str, Any]:
    """A finished game's result fields from its stored outcome, read as stored; an outcome
    stored before ``losers`` was kept is read whole, its losers worked out by the rules."""
    data = _decode(text)
    if "losers" not in data:
        return result_of(Outcome.from_dict(data, header.variant.target, header.options))
    losers = tuple(LoserResult.from_dict(item) for item in data["losers"])
    scores = data["scores"]
    if not isinstance(scores, dict):
        raise TypeError("scores are not a mapping")
    return {"winner": data["winner"], "loser": data["loser"], "losers": losers, "result": data["result"],
            "margin": data["margin"], "game_points": data["game_points"], "scores": scores}


@lru_cache(maxsize=256)
def _header(line: str) -> GameHeader | None:
    """A stored game line parsed (a match's games share theirs), None if it does not read."""
    try:
        header = parse_stored(line)
    except ValueError:
        return None
    return header if isinstance(header, GameHeader) else None
