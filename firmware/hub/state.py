"""What the hub shows: the night kept up to date from its ledger, each table as it says it is, and the
snapshot the page reads, with what each snapshot changed.

The writer thread alone reads the ledger and makes snapshots (:meth:`NightState.put`); paho's thread
only records what a table's ``status`` or ``state`` says (:meth:`NightState.table_said`). A snapshot is
an immutable value: the web server reads the latest without a lock, and asks what changed since the
version a viewer has (:meth:`NightState.since`) to send it only that.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from typing import NamedTuple

from firmware.hub.ledger import Night
from scorer.standings import PlayerStanding, credits, ranked, tally

from ..wire.schema import PLAYER_NAME_MOST, SIDE_NAME_MOST
from . import night as nights

CHANGE_LOG = 4096  # snapshots whose changes are kept: a viewer further behind gets a whole snapshot


class TableLive(NamedTuple):
    """A table as its last ``status`` and ``state`` say: ``online``, its ``problem``, its live
    game's ``sides`` ((name, score) pairs), whose count is ``next`` ("Bob hand"), the
    ``winner``, whether it was ever ``seen``, and which ``game`` is live ((ledger, game), or None). Immutable."""

    table: str
    online: bool = False
    problem: str | None = None
    sides: tuple[tuple[str, int], ...] = ()
    next: str | None = None
    winner: str | None = None
    seen: bool = False
    game: tuple[str, int] | None = None


def live_game(state) -> tuple[tuple[tuple[str, int], ...], str | None, str | None]:
    """(sides, next, winner) of a board's ``state`` dict, read warily: it is only checked to
    be a JSON object, so anything not as expected is left out."""
    if not isinstance(state, dict):
        return (), None, None
    sides = []
    given = state.get("sides")
    for side in given if isinstance(given, list) else ():
        if (isinstance(side, dict) and isinstance(side.get("name"), str) and 0 < len(side["name"]) <= SIDE_NAME_MOST
                and side["name"].isprintable() and isinstance(side.get("score"), int)
                and not isinstance(side.get("score"), bool) and 0 <= side["score"] <= 1000):
            sides.append((side["name"], side["score"]))
    upcoming = state.get("next")
    after = None
    if (isinstance(upcoming, dict) and isinstance(upcoming.get("seat"), str)
            and len(upcoming["seat"]) <= PLAYER_NAME_MOST and upcoming["seat"].isprintable()
            and upcoming.get("count") in ("hand", "crib")):
        after = f"{upcoming['seat']} {upcoming['count']}"
    winner = state.get("winner")
    winner = winner if isinstance(winner, str) and len(winner) <= SIDE_NAME_MOST else None
    return tuple(sides[:4]), after, winner


class Season(Sequence):
    """The season's standings (every night in the ledger, tonight's as it stands), ranked when first read:
    a snapshot is made for every change, and the season is only read when a viewer asks for it."""

    def __init__(self, lines: dict[str, PlayerStanding]):
        self._lines = lines  # a copy of its own: never changed
        self._ranked: list[PlayerStanding] | None = None

    def _all(self) -> list[PlayerStanding]:
        if self._ranked is None:
            self._ranked = ranked(self._lines)
        return self._ranked

    def __getitem__(self, index):
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._lines)


class Snapshot(NamedTuple):
    """What the page shows, whole: the ``view`` of the night (a NightView), the ``season``
    standings, each table's TableLive (``tables``, in name order), the ``entries`` kept per
    table, the ``broker``'s state in words, the ledger's ``problem`` (or None), and the night's standings
    ``lines`` by player key (None: not given; the page then finds them in ``view.standings``). Immutable."""

    version: int
    view: nights.NightView
    season: Season
    tables: tuple[TableLive, ...]
    entries: dict[str, int]
    broker: str
    problem: str | None
    club: str
    lines: dict[str, PlayerStanding] | None = None


class Shown(NamedTuple):
    """What changed on the page between two snapshots: the ``tables`` whose card changed (names; "" for a
    pairing without a table), the ``players`` whose standings row changed (name keys), and whether the
    ``round`` changed (its heading and every card). Immutable."""

    tables: frozenset[str]
    players: frozenset[str]
    round: bool

    def add(self, other: "Shown") -> "Shown":
        return Shown(self.tables | other.tables, self.players | other.players, self.round or other.round)


NOTHING = Shown(frozenset(), frozenset(), False)


class NightState:
    """The night of ``night`` for club ``club`` as the page shows it (see the module); ``tables``: the
    tables known from the start (--tables)."""

    def __init__(self, night: Night, club: str, tables=()):
        self.night, self.club = night, club
        self.book = nights.NightBook(night)
        self.snapshot: Snapshot | None = None
        self._after = {"players": 0, "results": 0, "rounds": 0, "corrections": 0, "entries": 0}  # rows read so far
        self._live: dict[str, TableLive] = {name: TableLive(name) for name in tables}
        self._live_lock = threading.Lock()
        self._said: set[str] = set()  # tables whose status or state changed since the last snapshot
        self._order: tuple[str, ...] = ()  # the tables shown, in name order
        self._shown: list[TableLive] = []  # their live rows, in that order
        self._at: dict[str, int] = {}  # a table's place in them
        self._without_table: dict[int, bool] = {}  # round number -> whether it has pairings without a table
        self._entries: dict[str, int] = {}
        self._past: dict[str, PlayerStanding] = {}  # the season before tonight
        self._season_lines: dict[str, PlayerStanding] = {}
        self._season = Season({})
        self._pending = NOTHING
        self._log: deque = deque(maxlen=CHANGE_LOG)  # (version, Shown) of each snapshot
        self._log_lock = threading.Lock()

    # ---- the ledger's rows (writer thread) ------------------------------------

    def load(self, rows) -> None:
        """The season before tonight and the entries kept, read at start (then :meth:`read`)."""
        counted = []
        for each in rows.nights():
            if each.id == self.night.id:
                continue
            rules = nights.Rules.of(each)
            past = nights.NightBook(each)  # each game as it counted that night: its entries, its pairing
            past.add_players(rows.players(each.id))
            past.add_rounds(rows.rounds(each.id))
            past.add_entries((key, seq, line) for _, key, seq, line in rows.entries(each.id))
            past.add_results(rows.results(each.id))
            past.add_corrections(rows.corrections(each.id))
            counted += [credit for game in past.view().games
                        if game.status in nights.COUNTED and game.result is not None
                        for credit in credits(game.result, rules.skunk, rules.points)]
        self._past = tally(counted)
        self._season_lines = dict(self._past)
        self._season = Season(dict(self._season_lines))
        self._entries = rows.entry_counts(self.night.id)
        self._pending = self._pending.add(Shown(frozenset(self._entries), frozenset(), True))
        self.read(rows)

    def read(self, rows, what=None) -> nights.NightChange:
        """The night's rows stored since the last read (``what``: of these kinds only, when the writer
        knows what it stored), into the book; what they changed."""
        night, after = self.night.id, self._after
        what = what or ("players", "rounds", "entries", "results", "corrections")
        players = rows.players(night, after["players"]) if "players" in what else []
        entries = rows.entries(night, after["entries"]) if "entries" in what else []
        if entries:
            after["entries"] = entries[-1][0]
        rounds = rows.rounds(night, after["rounds"]) if "rounds" in what else []
        results = rows.results(night, after["results"]) if "results" in what else []
        corrections = rows.corrections(night, after["corrections"]) if "corrections" in what else []
        for name, got in (("players", players), ("results", results), ("corrections", corrections)):
            if got:
                after[name] = got[-1].id
        if rounds:
            after["rounds"] = rounds[-1].number
        self.book.add_players(players)
        self.book.add_rounds(rounds)
        self.book.add_entries((key, seq, line) for _, key, seq, line in entries)
        self.book.add_results(results)
        self.book.add_corrections(corrections)
        change = self.book.changes()
        if change.players:
            for player in change.players:
                past, played = self._past.get(player), self.book.played(player)
                if past is not None and played is not None:
                    self._season_lines[player] = past.add(played)
                elif past is not None:
                    self._season_lines[player] = past
                elif played is not None:
                    self._season_lines[player] = played
                else:
                    self._season_lines.pop(player, None)
            self._season = Season(dict(self._season_lines))
        view = self.book.view()
        tables = {self.book.game(key).table for key in change.games}
        if view.rounds and view.round in change.rounds and self._tableless(view.rounds[-1]):
            tables.add("")  # the cards of pairings without a table
        self._pending = self._pending.add(Shown(frozenset(tables), change.players, False))
        return change

    def _tableless(self, each) -> bool:
        """Whether round ``each`` has pairings without a table (worked out once a round)."""
        if each.number not in self._without_table:
            self._without_table[each.number] = any(p.table is None for p in each.pairings)
        return self._without_table[each.number]

    def kept(self, tables) -> None:
        """An entry newly kept for each of ``tables`` (one per entry)."""
        for table in tables:
            self._entries[table] = self._entries.get(table, 0) + 1
        self._pending = self._pending.add(Shown(frozenset(tables), frozenset(), False))

    # ---- the tables (paho's thread) ------------------------------------------

    def table_said(self, table: str, kind: str, payload: dict | None) -> bool:
        """What a table's ``status`` or ``state`` (``payload``; None: cleared) says; whether the table is
        new or came online or went (the night may begin)."""
        with self._live_lock:
            live = self._live.get(table) or TableLive(table)
            if kind == "status":
                live = live._replace(online=bool(payload and payload["online"]),
                                     problem=payload.get("problem") if payload else None, seen=True)
            else:
                sides, after, winner = live_game(payload.get("state") if payload else None)
                game = (payload["ledger"], payload["game"]) if payload and payload.get("game") else None
                live = live._replace(sides=sides, next=after, winner=winner, seen=True, game=game)
            came = table not in self._live or live.online != self._live[table].online
            self._live[table] = live
            self._said.add(table)
        return came

    def online(self) -> list[str]:
        """The tables online now."""
        with self._live_lock:
            return [name for name, live in self._live.items() if live.online]

    # ---- snapshots (writer thread) -------------------------------------------

    def put(self, broker: str, problem: str | None) -> Snapshot:
        """A new snapshot of everything, and what it changed since the one before."""
        view = self.book.view()
        old = self.snapshot
        with self._live_lock:
            said, self._said = self._said, set()
            if old is None or old.view.round != view.round or any(name not in self._at for name in said):
                live = dict(self._live)
                for each in view.rounds[-1:]:
                    for pairing in each.pairings:
                        if pairing.table is not None and pairing.table not in live:
                            live[pairing.table] = TableLive(pairing.table)
                self._order = tuple(sorted(live, key=nights.table_order))
                self._shown = [live[name] for name in self._order]
                self._at = {name: k for k, name in enumerate(self._order)}
            else:
                for name in said:
                    self._shown[self._at[name]] = self._live[name]
        shown = self._pending.add(Shown(frozenset(said), frozenset(), old is None or old.view.round != view.round))
        self._pending = NOTHING
        snap = Snapshot((old.version + 1) if old else 1, view, self._season, tuple(self._shown),
                        dict(self._entries), broker, problem, self.club, self.book.lines())
        with self._log_lock:
            self.snapshot = snap
            self._log.append((snap.version, shown))
        return snap

    def latest(self) -> Snapshot:
        """The latest snapshot (the hub makes the first as it starts)."""
        snap = self.snapshot
        if snap is None:
            raise LookupError("the night has no snapshot yet")
        return snap

    def since(self, version: int) -> tuple[Snapshot, Shown | None]:
        """The latest snapshot, and what changed on the page after snapshot ``version`` up to it (None when
        that is too long ago to say: send the whole snapshot)."""
        with self._log_lock:
            snap = self.latest()
            if not self._log or self._log[0][0] > version + 1:
                return snap, None
            shown = NOTHING
            for number, each in reversed(self._log):
                if number <= version:
                    break
                shown = shown.add(each)
        return snap, shown
