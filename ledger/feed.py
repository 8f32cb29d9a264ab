"""The games a board played for a club, as a feed in the order they were written: for the club link
(firmware.board.club.link).

A place in the feed is ``(game id, action id)``: a game's line is ``(game, 0)``,
each entry ``(its game, its action id)``. Action ids grow, and each belongs to
the newest game when it was written, so these places sort as they were written.
Every function reads only the games played for one ``club`` ((club, table): the
ledger's ``club_games``); a ledger from before those were marked has none.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .schema import has_club_games, has_times

Club = tuple[str, str]  # (club, table)


@dataclass(frozen=True)
class FeedItem:
    """One line of the feed: a game's line (``action`` 0) or an entry.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> from ledger.reader import LedgerReader
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> writer.join_club("club", "1")
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> item = reader.feed(lambda conn: items_after(conn, (0, 0), 10, ("club", "1")))[1]
    >>> item.line, item.place
    ('peg Bob 2', (1, 1))
    >>> reader.close(); writer.close(); folder.cleanup()
    """

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
    (actions so far), its line, when it ``finished`` and its ``last_action`` (0: none).

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> from ledger.reader import LedgerReader
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> writer.join_club("club", "1")
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> status = reader.feed(lambda conn: statuses_from(conn, 1, ("club", "1")))[0]
    >>> status.status, status.entries, status.end
    (None, 2, (1, 2))
    >>> reader.close(); writer.close(); folder.cleanup()
    """

    game: int
    header: str
    status: str | None
    outcome: str | None
    entries: int
    finished: str | None
    last_action: int = 0

    @property
    def end(self) -> tuple[int, int]:
        """The place of the game's last item (its line, or its last entry)."""
        return self.game, self.last_action


def items_after(conn: sqlite3.Connection, place: tuple[int, int], limit: int, club: Club) -> list[FeedItem]:
    """Up to ``limit`` of the club's feed items after ``place``, in order.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> from ledger.reader import LedgerReader
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> writer.join_club("club", "1")
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> [item.line for item in reader.feed(lambda conn: items_after(conn, (1, 1), 10, ("club", "1")))]
    ['hand Bob 8']
    >>> reader.close(); writer.close(); folder.cleanup()
    """
    if not has_club_games(conn):
        return []
    game, action = place
    timed = has_times(conn)
    games = conn.execute(
        f"SELECT g.id, g.header, {'g.started' if timed else 'NULL'} FROM club_games c JOIN games g ON g.id = c.game_id "
        "WHERE c.club=? AND c.tbl=? AND c.game_id > ? ORDER BY c.game_id LIMIT ?", (*club, game, limit)).fetchall()
    actions = conn.execute(
        f"SELECT a.game_id, a.id, a.line, {'a.at' if timed else 'NULL'} FROM actions a "
        "JOIN club_games c ON c.game_id = a.game_id "
        "WHERE c.club=? AND c.tbl=? AND a.game_id >= ? AND a.id > ? ORDER BY a.id LIMIT ?",
        (*club, game, action, limit)).fetchall()
    items = [FeedItem(g, 0, header, at) for g, header, at in games]
    items += [FeedItem(g, a, line, at) for g, a, line, at in actions if (g, a) > place]
    items.sort(key=lambda item: item.place)
    return items[:limit]


def entry_number(conn: sqlite3.Connection, game: int, action: int) -> int:
    """Which entry of its game an action is (1 for the first); 0 for the game line.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> from ledger.reader import LedgerReader
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> writer.join_club("club", "1")
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> reader.feed(lambda conn: (entry_number(conn, 1, 0), entry_number(conn, 1, 2)))
    (0, 2)
    >>> reader.close(); writer.close(); folder.cleanup()
    """
    if action == 0:
        return 0
    number: int = conn.execute("SELECT count(*) FROM actions WHERE game_id=? AND id<=?", (game, action)).fetchone()[0]
    return number


def place_of(conn: sqlite3.Connection, game: int, seq: int) -> tuple[int, int]:
    """The place of a game's ``seq``-th item (0: its line, 1: its first entry); ``seq`` must be
    at most its entries.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> from ledger.reader import LedgerReader
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> writer.join_club("club", "1")
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> reader.feed(lambda conn: (place_of(conn, 1, 0), place_of(conn, 1, 2)))
    ((1, 0), (1, 2))
    >>> reader.close(); writer.close(); folder.cleanup()
    """
    if seq <= 0:
        return game, 0
    row = conn.execute("SELECT id FROM actions WHERE game_id=? ORDER BY id LIMIT 1 OFFSET ?",
                       (game, seq - 1)).fetchone()
    return game, row[0]


def before(conn: sqlite3.Connection, game: int) -> tuple[int, int]:
    """The place just before ``game``'s line: after every item of the games before it.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> from ledger.reader import LedgerReader
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> writer.join_club("club", "1")
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> reader.feed(lambda conn: before(conn, 1))
    (0, 0)
    >>> reader.close(); writer.close(); folder.cleanup()
    """
    action = conn.execute("SELECT coalesce(max(id), 0) FROM actions WHERE game_id < ?", (game,)).fetchone()[0]
    return game - 1, action


def statuses_from(conn: sqlite3.Connection, first_game: int, club: Club) -> list[GameStatus]:
    """Every game of the club's from ``first_game`` on, with what its row says of its end.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> from ledger.reader import LedgerReader
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> writer.join_club("club", "1")
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> [(status.game, status.header) for status in reader.feed(lambda conn: statuses_from(conn, 1, ("club", "1")))]
    [(1, 'game six-card seats=Ann,Bob dealer=Ann')]
    >>> reader.feed(lambda conn: statuses_from(conn, 1, ("club", "2")))
    []
    >>> reader.close(); writer.close(); folder.cleanup()
    """
    if not has_club_games(conn):
        return []
    timed = has_times(conn)
    rows = conn.execute(
        f"SELECT g.id, g.header, {'g.status' if timed else 'NULL'}, g.outcome, "
        "(SELECT count(*) FROM actions a WHERE a.game_id = g.id), "
        f"{'g.finished' if timed else 'NULL'}, "
        "(SELECT coalesce(max(a.id), 0) FROM actions a WHERE a.game_id = g.id) "
        "FROM club_games c JOIN games g ON g.id = c.game_id WHERE c.club=? AND c.tbl=? AND c.game_id >= ? "
        "ORDER BY c.game_id", (*club, first_game)).fetchall()
    return [GameStatus(*row) for row in rows]


def game_lines(conn: sqlite3.Connection, game: int) -> list[str]:
    """A game's entries' lines, in order (without its game line).

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> from ledger.reader import LedgerReader
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> writer.join_club("club", "1")
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> reader.feed(lambda conn: game_lines(conn, 1))
    ['peg Bob 2', 'hand Bob 8']
    >>> reader.close(); writer.close(); folder.cleanup()
    """
    return [line for (line,) in conn.execute("SELECT line FROM actions WHERE game_id=? ORDER BY id", (game,))]


def last_place(conn: sqlite3.Connection) -> tuple[int | None, int]:
    """The newest game's id (None if none) and the newest action's id (0 if none), club's or not.

    >>> import os, tempfile
    >>> from scorer.record import parse_line
    >>> from ledger.writer import LedgerWriter
    >>> from ledger.reader import LedgerReader
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "board.sqlite3")
    >>> writer = LedgerWriter(path, clock=lambda: 0.0)
    >>> writer.join_club("club", "1")
    >>> for line in ("game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2", "hand Bob 8"):
    ...     _ = writer.apply(parse_line(line))
    >>> reader = LedgerReader(path)
    >>> reader.feed(last_place)
    (1, 2)
    >>> reader.close(); writer.close(); folder.cleanup()
    """
    game = conn.execute("SELECT max(id) FROM games").fetchone()[0]
    action = conn.execute("SELECT max(id) FROM actions").fetchone()[0]
    return game, action or 0
