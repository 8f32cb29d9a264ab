"""What the pages show, gathered from the ledger and cached until it changes (no web framework here).

What is kept per game is bounded (least recently used first out), and all of it is
dropped when another file takes the ledger's place (the follower's ``generation``).
The history's pages (a page of ``/games``, ``/stats``, the CSV and the JSON of the games)
are made once per change of the games listed (:meth:`Site.history`), not at every entry
of the game in play; the live pages (``/``, a seat's page) once per change of the ledger.
The statistics read and count each game listed once (:meth:`Site.folded`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple

from ledger.rows import PLAYING, GamePage, GameRow, GameTimes
from ledger.schema import ABANDONED
from scorer.distribution import distribution
from scorer.errors import CribbageError
from scorer.history import PlayerTally
from scorer.record import GameHeader, Scorebook, parse_line

from . import pages
from .follow import LedgerFollower
from .lru import LRU
from .records import Played, play_record, summary

if TYPE_CHECKING:
    from hardware.layout import Layout

CACHED_GAMES = 64  # games replayed for their pages kept at once (a game's replay is the most a page keeps)
CACHED_RECORDS = 2048  # abandoned games' scores kept for the CSV
PAGE_GAMES = 50  # the most games a page of /games lists
FOLD_GAMES = 500  # games listed read at once when the statistics count the games not counted yet
CACHED_PAGES = 32  # pages of /games and seats' pages kept (a few tens of kilobytes each)


class Made(NamedTuple):
    """A page made: its status and its bytes."""

    status: int
    body: bytes


class Site:
    """What the pages show, read from the ledger and cached until it changes."""

    def __init__(self, follower: LedgerFollower, layout: Layout | None = None):
        self.follower = follower
        self.layout = layout
        self._played = LRU(CACHED_GAMES)  # games before the current one never change
        self._scores = LRU(CACHED_RECORDS)  # abandoned games' scores, replayed for the CSV
        self._generation = follower.generation
        self._history: dict[str, tuple[object, object]] = {}  # what shows every game listed, by name
        self._pages = LRU(CACHED_PAGES)  # pages of /games, by what was asked
        self._seats = LRU(CACHED_PAGES)  # seats' pages, by seat, token and the board's absence
        self._folded: Folded | None = None  # the games listed counted so far, for /stats

    def _same_file(self) -> None:
        """Look at the ledger; if another file has taken its place, forget every game kept."""
        self.follower.token()
        if self.follower.generation != self._generation:
            self._generation = self.follower.generation
            self._played.clear()
            self._scores.clear()
            self._history.clear()
            self._pages.clear()
            self._folded = None

    def live(self) -> dict:
        """The live board's data: state, problem, recent entries, messages (cached per ledger state)."""
        return self.follower.cached("live", self._live)

    def _live(self) -> dict:
        snap = self.follower.snapshot()
        recent = list(snap.recent)
        html = pages.live_html(snap.state, snap.problem, recent, snap.messages, self.layout)
        key, text = pages.said(snap.state, recent)
        newest = recent[0] if key else {}
        seat = newest.get("seat") or (snap.state or {}).get("dealer")  # his heels and the crib: the dealer's
        return {"state": snap.state, "problem": snap.problem, "recent": recent,
                "messages": list(snap.messages), "html": html, "title": pages.live_title(snap.state),
                "said": {"key": key, "text": text, "n": newest.get("n"), "seat": seat if key else None}}

    def board_page(self) -> bytes:
        """The page of ``/``, rendered once per state of the ledger."""
        def render():
            live = self.live()
            return pages.board_page(live["state"], live["problem"], live["recent"], live["messages"],
                                    self.layout).encode()
        return self.follower.cached("board-page", render)

    def seat_page(self, seat: int, token: str, away: str) -> bytes:
        """A seat's page (``/phone``) over the live board, rendered once per state of the ledger for
        each seat, token and word of the board's absence (``away``)."""
        live = self.live()
        key = (seat, token, away)
        hit = self._seats.get(key)
        if hit is not None and hit[0] is live:  # the live board is made once per state of the ledger
            return hit[1]
        body = pages.render("phone.html", pages.phone_context(live, seat, token, away)).encode()
        self._seats.put(key, (live, body))
        return body

    # ---- the history ------------------------------------------------------------

    def history(self) -> object:
        """What changes when the games listed may have (``LedgerFollower.history``), looked at once
        per state of the ledger."""
        return self.follower.cached("history", self.follower.history)

    def _kept(self, store, key, compute):
        """``compute()`` once per :meth:`history`, kept in ``store`` under ``key``. A change that lands
        while it computes changes the history: the next look computes again."""
        self._same_file()
        mark = self.history()
        hit = store.get(key)
        if hit is not None and hit[0] == mark:
            return hit[1]
        value = compute()
        if isinstance(store, LRU):
            store.put(key, (mark, value))
        else:
            store[key] = (mark, value)
        return value

    def games_page(self, before: int | None = None, after: int | None = None) -> Made:
        """``/games``, a page of at most PAGE_GAMES games, newest first: the newest, those before game
        ``before`` or the oldest after game ``after``; 404 with the words for a page past either end."""
        def render() -> Made:
            page = self.follower.games_page(PAGE_GAMES, before, after)
            context = pages.games_context(page.rows, None, page_links(page))
            missing = not page.rows and (before is not None or after is not None)
            if missing:
                context["newest"] = "/games"
                context["empty"] = (f"No games before game {before}." if before is not None
                                    else f"No games after game {after}.")
            return Made(404 if missing else 200, pages.render("games.html", context).encode())
        return self._kept(self._pages, (before, after), render)

    def stats_page(self) -> bytes:
        """``/stats``, rendered once per change of the games listed."""
        def render() -> bytes:
            players = self.stats()
            tables = {size: distribution(size, False) for size in {int(size) for p in players
                                                                    for size in p["hands_by_size"]}}
            colours = self.colours()
            seen = self._folded.tally.seen() if self._folded is not None else None
            return pages.render("stats.html", pages.stats_context(players, tables, None, colours, seen)).encode()
        return self._kept(self._history, "stats-page", render)

    def api_games(self) -> bytes:
        """``/api/games``: every game listed as JSON, made once per change of them."""
        return self._kept(self._history, "api-games",
                          lambda: json.dumps([game.to_dict() for game in self.games()],
                                             ensure_ascii=False, separators=(",", ":")).encode())

    def games(self) -> list[GameRow]:
        """Finished and abandoned games, newest first, as the ledger lists them (the game in play is not)."""
        return self._kept(self._history, "games", self.follower.games)

    def game(self, game_id: int) -> tuple[GameRow, Played, GameTimes]:
        """One game: as listed (or, in play, as replayed), replayed, and its times (KeyError if none)."""
        self._same_file()
        current = self.follower.current_game_id()
        p = self._played.get(game_id)
        if p is None:
            p = play_record(game_id, self.follower.export(game_id))
            if game_id != current:
                self._played.put(game_id, p)
        listed = self.follower.game(game_id)
        if listed is None:
            listed = summary(p, PLAYING if game_id == current else ABANDONED)
        return listed, p, self.follower.times(game_id)

    def games_csv(self) -> str:
        """``/games.csv``: every game listed, an abandoned one with the scores its replay reaches
        (as its page shows them), rendered once per state of the ledger."""
        def render():
            games = self.games()
            self._same_file()
            replayed = {}
            for listed in games:
                if listed.scores is None:
                    scores = self._scores.get(listed.id)
                    if scores is None:
                        try:
                            played = play_record(listed.id, self.follower.export(listed.id))
                        except (KeyError, ValueError):
                            continue  # gone, or its game line no longer reads: no scores to give
                        scores = dict(zip((side.name for side in played.game.sides), played.game.state.scores))
                        self._scores.put(listed.id, scores)  # a game listed is over: it never changes
                    replayed[listed.id] = scores
            return pages.games_csv(games, replayed)
        return self._kept(self._history, "games-csv", render)

    def stats(self) -> list[dict]:
        """``scorer.history.player_stats`` of every game listed, once per change of them."""
        return self._kept(self._history, "stats", lambda: self.folded().tally.rows())

    def colours(self) -> dict:
        """Each player's and partnership's colour on the board (:func:`side_colours`)."""
        return self._kept(self._history, "colours", lambda: dict(self.folded().colours))

    def folded(self) -> Folded:
        """Every game listed, counted for the statistics: only the games listed since the last look
        are read and counted, oldest first. If the last game counted is no longer listed as it was
        (reopened by an undo, or gone), or another file took the ledger's place, all are counted
        again from the first."""
        self._same_file()
        folded = self._folded
        if folded is not None and folded.last is not None and self.follower.game(folded.last.id) != folded.last:
            folded = None
        if folded is None:
            folded = self._folded = Folded()
        while True:
            page = self.follower.games_page(FOLD_GAMES, after=folded.last.id if folded.last else 0)
            for listed in reversed(page.rows):
                try:
                    record = self.follower.export(listed.id)
                except KeyError:
                    record = None
                if record is not None:
                    folded.colours.update(side_colours([record]))
                    try:
                        folded.tally.add(record)
                    except ValueError:
                        pass  # its lines no longer read (changed by another program): left out, not the page
                folded.last = listed
            if not page.newer:
                return folded


class Folded:
    """The games listed counted so far (:meth:`Site.folded`): the statistics, the colours, and the
    last game counted as it was listed then."""

    def __init__(self) -> None:
        self.tally = PlayerTally()
        self.colours: dict = {}
        self.last: GameRow | None = None


def page_links(page: GamePage) -> dict:
    """The links from a page of games to the pages beside it: ``newest`` (``/games``), ``newer`` and
    ``older`` (None where there is none)."""
    newer = f"/games?after={page.rows[0].id}" if page.newer and page.rows else None
    return {"newest": "/games" if page.newer else None, "newer": newer,
            "older": f"/games?before={page.rows[-1].id}" if page.older and page.rows else None}


def side_colours(records: list[list[str]]) -> dict:
    """The place of each player's (and partnership's) side in the last game they played, which
    gives their colour on the board and its LEDs (``board.COLOURS``), by :func:`.pages.player_key`.
    A record whose game line no longer reads is passed over."""
    colours = {}
    for record in records:  # oldest first: the last game played says
        header = next((line for line in record if line.split("#", 1)[0].strip()), None)
        try:
            action = parse_line(header) if header is not None else None
            if not isinstance(action, GameHeader):
                continue  # no game line
            sides = Scorebook().start(action).sides
        except CribbageError:
            continue
        for place, side in enumerate(sides):
            for seat in side.seats:
                colours[pages.player_key(seat)] = place
            if len(side.seats) > 1:
                colours[pages.player_key(side.name, "partnership")] = place
    return colours
