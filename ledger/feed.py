"""The ledger as a feed, in the order it was written: for the club link (firmware.club.link).

A place in the feed is ``(game id, action id)``: a game's line is ``(game, 0)``,
each entry ``(its game, its action id)``. Action ids grow, and each belongs to
the newest game when it was written, so these places sort as they were written.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .schema import has_times


@dataclass(frozen=True)
class FeedItem:
    """One line of the feed: a game's line (``action`` 0) or an entry."""

    game: int
    action: int  # 0: the game line
    line: str
    at: str | None

    @property
    def place(self) -> tuple[int, int]:
        return self.game, self.action


@dataclass(frozen=True)
class GameStatus:
    """What a game's row says of its end: ``status`` (None while live, "finished",
    "abandoned", "empty"), the stored ``outcome`` (JSON text or None), its ``entries``
    (actions so far) and its line."""

    game: int
    header: str
    status: str | None
    outcome: str | None
    entries: int
    finished: str | None


def items_after(conn: sqlite3.Connection, place: tuple[int, int], limit: int) -> list[FeedItem]:
    """Up to ``limit`` feed items after ``place``, in order."""
    game, action = place
    timed = has_times(conn)
    games = conn.execute(
        f"SELECT id, header, {'started' if timed else 'NULL'} FROM games WHERE id > ? ORDER BY id LIMIT ?",
        (game, limit)).fetchall()
    actions = conn.execute(
        f"SELECT game_id, id, line, {'at' if timed else 'NULL'} FROM actions WHERE id > ? ORDER BY id LIMIT ?",
        (action, limit)).fetchall()
    items = [FeedItem(g, 0, header, at) for g, header, at in games]
    items += [FeedItem(g, a, line, at) for g, a, line, at in actions if (g, a) > place]
    items.sort(key=lambda item: item.place)
    return items[:limit]


def entry_number(conn: sqlite3.Connection, game: int, action: int) -> int:
    """Which entry of its game an action is (1 for the first); 0 for the game line."""
    if action == 0:
        return 0
    return conn.execute("SELECT count(*) FROM actions WHERE game_id=? AND id<=?", (game, action)).fetchone()[0]


def statuses_from(conn: sqlite3.Connection, first_game: int) -> list[GameStatus]:
    """Every game from ``first_game`` on, with what its row says of its end."""
    timed = has_times(conn)
    rows = conn.execute(
        f"SELECT g.id, g.header, {'g.status' if timed else 'NULL'}, g.outcome, "
        "(SELECT count(*) FROM actions a WHERE a.game_id = g.id), "
        f"{'g.finished' if timed else 'NULL'} FROM games g WHERE g.id >= ? ORDER BY g.id",
        (first_game,)).fetchall()
    return [GameStatus(*row) for row in rows]


def game_lines(conn: sqlite3.Connection, game: int) -> list[str]:
    """A game's entries' lines, in order (without its game line)."""
    return [line for (line,) in conn.execute("SELECT line FROM actions WHERE game_id=? ORDER BY id", (game,))]


def last_place(conn: sqlite3.Connection) -> tuple[int | None, int]:
    """The newest game's id (None if none) and the newest action's id (0 if none)."""
    game = conn.execute("SELECT max(id) FROM games").fetchone()[0]
    action = conn.execute("SELECT max(id) FROM actions").fetchone()[0]
    return game, action or 0
