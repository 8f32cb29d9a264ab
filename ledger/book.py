"""The current match read back from a ledger: what opening it (as writer or reader) needs.

Opening reads only what the board needs, whatever the number of games played:
the last match's row, its ``tallies`` row (the earlier games' wins and game
points, kept by the writer in the transaction that starts each next game; see
``schema._TALLIES``) and the current game's entries, replayed by the rules.
What no longer reads is skipped and said; it stays in the file.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from scorer.errors import CribbageError
from scorer.game import Outcome
from scorer.limits import STORED_LINE_MOST
from scorer.match import Match, Standing
from scorer.record import SOURCE_MARK, Action, GameHeader, Scorebook, parse_line

from .errors import LedgerError
from .schema import has_entry_sources
from .sources import BOARD

# What a stored JSON column raises when it is not what the writer wrote: damaged data,
# left out and said. RecursionError: a few KB of nested brackets (json's decoder recurses).
UNREADABLE = (ValueError, KeyError, TypeError, AttributeError, RecursionError)


def parse_stored(line: object) -> Action:
    """A stored record line as an action; ValueError (a CribbageError among them) if it does not read.
    A line an earlier version acknowledged, under its longer limit, still reads."""
    if not isinstance(line, str):
        raise ValueError(f"not text: {line!r}")
    action = parse_line(line, most=STORED_LINE_MOST)
    if action is None:
        raise ValueError("an empty line")
    return action


@dataclass
class StandingCache:
    """The match's standing before its current game, as the ``tallies`` row caches it:
    the games counted ``through`` one game id, and the results found damaged."""

    match_id: int
    through: int  # the last game counted (0: none yet)
    standing: Standing = field(default_factory=Standing)
    damaged: tuple[tuple[int, str], ...] = ()  # (game, why) of results left out

    def add(self, game_id: int, outcome: Outcome | None, damage: str | None = None,
            empty: bool = False) -> "StandingCache":
        """This standing with one more game counted (abandoned: ``outcome`` None; a
        ``damage``d result, or an ``empty`` game, counts for nobody, not even as abandoned)."""
        standing = self.standing if damage or empty else self.standing.add(outcome)
        damaged = self.damaged + (((game_id, damage),) if damage else ())
        return StandingCache(self.match_id, game_id, standing, damaged)

    def save(self, conn: sqlite3.Connection) -> None:
        """Write it as its match's ``tallies`` row (inside the caller's transaction, if any)."""
        conn.execute("INSERT OR REPLACE INTO tallies (match_id, through, standing) VALUES (?, ?, ?)",
                     (self.match_id, self.through, self.to_json()))

    def to_json(self) -> str:
        """The ``standing`` column of its ``tallies`` row."""
        return json.dumps({
            "games": self.standing.games, "wins": [list(w) for w in self.standing.wins],
            "abandoned": self.standing.abandoned, "damaged": [list(d) for d in self.damaged],
        })

    @classmethod
    def from_row(cls, match_id: int, through: int, text: str) -> "StandingCache":
        """A tallies row; raises ValueError (or KeyError, TypeError) if it does not read."""
        data = json.loads(text)
        wins = tuple((str(side), int(won), int(points)) for side, won, points in data["wins"])
        damaged = tuple((int(game), str(why)) for game, why in data["damaged"])
        standing = Standing(int(data["games"]), wins, int(data["abandoned"]))  # none: counted again
        return cls(match_id, int(through), standing, damaged)


@dataclass
class CurrentMatch:
    """What opening reads: the scorebook, the current game and match, the standing before it."""

    book: Scorebook
    game_id: int | None = None
    match_id: int | None = None
    standing: StandingCache | None = None
    counted: bool = False  # the standing was counted from the games: worth saving
    outcome: str | None = None  # the current game's outcome as stored


def _read_standing(conn: sqlite3.Connection, path: Path, match_id: int, game_id: int,
                   messages: list[str]) -> tuple[StandingCache, bool]:
    """The standing of the match's games before ``game_id``: its tallies row while that
    is valid (one indexed read), else counted from the games after what the row
    counted (or all of them); True when anything had to be counted."""
    last = conn.execute(
        "SELECT max(id) FROM games WHERE match_id=? AND id<?", (match_id, game_id)
    ).fetchone()[0] or 0
    cache = None
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='tallies'").fetchone():
        row = conn.execute("SELECT through, standing FROM tallies WHERE match_id=?", (match_id,)).fetchone()
        if row is not None:
            try:
                cache = StandingCache.from_row(match_id, *row)
            except UNREADABLE:
                cache = None
            if cache is not None and not 0 <= cache.through <= last:
                cache = None
    counted = cache is None or cache.through != last
    cache = cache or StandingCache(match_id, 0)
    if counted:
        rows = conn.execute(
            "SELECT id, outcome, outcome IS NULL AND NOT EXISTS (SELECT 1 FROM actions WHERE game_id = games.id) "
            "FROM games WHERE match_id=? AND id>? AND id<? ORDER BY id",
            (match_id, cache.through, game_id),
        )
        for earlier_id, outcome, empty in rows:
            if outcome is None:  # abandoned (or empty): it counts for nobody
                cache = cache.add(earlier_id, None, empty=bool(empty))
                continue
            try:
                cache = cache.add(earlier_id, Outcome.from_dict(json.loads(outcome)))
            except UNREADABLE as error:
                cache = cache.add(earlier_id, None, repr(error))
    for earlier_id, why in cache.damaged:
        messages.append(
            f"ledger {path}: the result of game {earlier_id} is damaged ({why}); "
            "it stays in the ledger but is left out of the match tally"
        )
    return cache, counted


def read_current_match(conn: sqlite3.Connection, path: Path, messages: list[str]) -> CurrentMatch:
    """The current match from the ledger, in one read snapshot: its earlier games'
    standing (one row, see ``schema._TALLIES``) and the current game replayed. What no longer
    reads is skipped and said in ``messages``; it stays in the file."""
    conn.execute("BEGIN")
    try:
        row = conn.execute("SELECT max(id) FROM matches").fetchone()
        if row[0] is None:
            return CurrentMatch(Scorebook())
        match_id = row[0]
        last = conn.execute(
            "SELECT id, header, outcome FROM games WHERE match_id=? ORDER BY id DESC LIMIT 1", (match_id,)
        ).fetchone()
        if last is None:
            return CurrentMatch(Scorebook())
        game_id, header_line, stored_outcome = last
        try:
            header = parse_stored(header_line)
            if not isinstance(header, GameHeader):
                raise ValueError(f"not a game line: {header_line!r}")
        except ValueError as error:
            messages.append(
                f"ledger {path}: game {game_id} cannot be resumed, its game line is damaged ({error}); "
                "it stays in the ledger and a new game starts"
            )
            return CurrentMatch(Scorebook())
        cache, counted = _read_standing(conn, path, match_id, game_id, messages)
        try:
            match = Match(header.variant, header.seats, header.dealer, header.options, earlier=cache.standing)
            book = Scorebook(match)
        except CribbageError as error:
            messages.append(
                f"ledger {path}: game {game_id} cannot be resumed ({error}); "
                "it stays in the ledger and a new game starts"
            )
            return CurrentMatch(Scorebook())
        lines = conn.execute(
            "SELECT id, line FROM actions WHERE game_id=? ORDER BY id", (game_id,)
        ).fetchall()
        for action_id, line in lines:
            try:
                book.apply(parse_stored(line))
            except ValueError as error:  # CribbageError included
                messages.append(f"ledger action {action_id} ({line}) no longer replays: {error}")
        return CurrentMatch(book, game_id, match_id, cache, counted, stored_outcome)
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def export_game(conn: sqlite3.Connection, path: Path, game_id: int) -> list[str]:
    """A game's record lines, its game line first, read in one snapshot; LedgerError if there is no such game."""
    conn.execute("BEGIN")
    try:
        row = conn.execute("SELECT header FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            raise LedgerError(f"no game {game_id} in {path}")
        if has_entry_sources(conn):
            lines = conn.execute(
                "SELECT a.line, s.via, s.seat FROM actions a LEFT JOIN entry_sources s ON s.action_id = a.id "
                "WHERE a.game_id=? ORDER BY a.id", (game_id,)).fetchall()
        else:
            lines = conn.execute("SELECT line, NULL, NULL FROM actions WHERE game_id=? ORDER BY id", (game_id,)).fetchall()
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
    return [row[0]] + [_with_source(line, via, seat) for line, via, seat in lines]


def _with_source(line: str, via: str | None, seat: str | None) -> str:
    """A record line with where it came from, when not the board: ``hand Blue 8  # via phone Blue``."""
    if via is None or via == BOARD:
        return line
    return f"{line}  {SOURCE_MARK}{via}{f' {seat}' if via == 'phone' and seat else ''}"


def game_ids(conn: sqlite3.Connection) -> list[int]:
    """Every game's id, oldest first."""
    return [row[0] for row in conn.execute("SELECT id FROM games ORDER BY id")]
