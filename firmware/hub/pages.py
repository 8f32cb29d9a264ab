"""What the hub's page and API show, made from a :class:`~firmware.hub.hub.Snapshot` (no web framework here).

The page is ``templates/club.html``; the parts the events send as they change are
the macros of ``templates/parts.html``, drawn the same on the page and in an event.
The templates escape every name and isolate it in ``<bdi>``. Nothing inline: the
style and the script are files, so the Content-Security-Policy allows no inline code.
"""

from __future__ import annotations

import csv
import io
import json
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path
from typing import Any

from markupsafe import Markup

from scorer.figures import figure
from scorer.standings import credits, losers, name_key, rank_key

from ..server.sheets import csv_cell
from ..server.templating import environment
from .night import COUNTED, GameView, NightView

CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                           "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
CSV_COLUMNS = ("round", "table", "ledger", "game", "status", "seats", "scores", "winner", "result", "margin",
               "game_points", "correction", "received")


@lru_cache(maxsize=16384)
def _key(name: str) -> str:
    """:func:`~scorer.standings.name_key`, remembered: a page names the same players again and again."""
    return name_key(name)


def standings_list(lines) -> list[dict]:
    """The API's standings: ``{player, game_points, wins, losses, spread, games}`` in rank order."""
    return [{"player": line.player, "game_points": line.game_points, "wins": line.wins, "losses": line.losses,
             "spread": line.spread, "games": line.games} for line in lines]


def places(lines) -> list[int]:
    """Each line's place, ties sharing one (1, 2, 2, 4): equal game points, wins and spread."""
    out: list[int] = []
    for k, line in enumerate(lines):
        same = k and (line.game_points, line.wins, line.spread) == (lines[k - 1].game_points, lines[k - 1].wins,
                                                                     lines[k - 1].spread)
        out.append(out[-1] if same else k + 1)
    return out


ENV = environment(Path(__file__).resolve().parent / "templates", key=_key,
                  signed=lambda number: figure(number, plus=True))
PARTS: Any = ENV.get_template("parts.html").module  # its macros, each a part of the page an event may send
STANDINGS_HEAD = str(PARTS.standings_head())
NO_PLAYERS = str(PARTS.no_players())
NO_TABLES = str(PARTS.no_tables())


def title(snap) -> str:
    view: NightView = snap.view
    shown = f"round {view.round}" if view.round else "not begun"
    return f"{snap.club} · {view.night.name} · {shown}"


@lru_cache(maxsize=4096)
def standing_row(place: int, line) -> Markup:
    """One standings row, ranked ``place``; remembered, as a row that did not change is drawn again
    with each snapshot's page."""
    return PARTS.standing_row(place, line)


def _heading(snap) -> tuple:
    """What the heading shows: the night's name, its round, where it is, the ledger's problem."""
    view: NightView = snap.view
    if view.over:
        status = f"Final standings after {view.round} rounds"
    elif view.round:
        status = f"Round {view.round} of {view.night.rounds}"
    else:
        status = "Waiting for the first round"
    return view.night.name, view.round, status, snap.problem


def heading_html(snap) -> Markup:
    """The night's name and where it is, and the ledger's problem if it has one."""
    return PARTS.heading(*_heading(snap))


def live_html(snap) -> Markup:
    """The page's live part: the night's heading, the standings, the round's tables."""
    view: NightView = snap.view
    current = view.rounds[-1] if view.rounds else None
    rows = [standing_row(place, line) for place, line in zip(places(view.standings), view.standings)]
    return PARTS.live(_heading(snap), rows, view.round if current else None,
                      [card_html(drawn) for _, drawn in cards(snap)], current.bye if current else None, snap.broker)


def round_head(snap) -> tuple[Markup, Markup]:
    """The round panel's heading and its bye line ("" for none)."""
    current = snap.view.rounds[-1] if snap.view.rounds else None
    return PARTS.round_heading(snap.view.round if current else None), PARTS.bye(current.bye if current else None)


def cards(snap) -> list[tuple[str, tuple]]:
    """The round panel's cards in order, each as (its key: the table, "" for none; what draws it,
    for :func:`card_html`): the round's pairings, then the tables without a game this round."""
    view: NightView = snap.view
    live = {table.table: table for table in snap.tables}
    current = view.rounds[-1] if view.rounds else None
    earlier = Earlier(view)
    out: list[tuple[str, tuple]] = []
    paired = set()
    for pairing in (current.pairings if current else ()):
        paired.add(pairing.table)
        out.append((pairing.table or "", (pairing.table, pairing.players, live.get(pairing.table), pairing.game,
                                          earlier)))
    for table in snap.tables:
        if table.table not in paired and (table.seen or table.online):
            out.append((table.table, (table.table, (), table, None, None)))
    return out


class Earlier:
    """The games the night's earlier rounds counted, worked out when a card first asks."""

    def __init__(self, view: NightView):
        self.view = view
        self._games: set[tuple] | None = None

    def __contains__(self, game) -> bool:
        if self._games is None:
            self._games = {(p.game.ledger, p.game.game) for each in self.view.rounds[:-1]
                           for p in each.pairings if p.game}
        return game in self._games


def card_html(drawn: tuple) -> Markup:
    """A table's card, from what :func:`cards` gives for it."""
    table, players, board, game, earlier = drawn
    return _card_html(*_table(table, players, board, game, earlier is None or _plays(board, players, earlier)))


@lru_cache(maxsize=4096)
def _card_html(table: str | None, online: bool, who: tuple, sub: str) -> Markup:
    """A card drawn (see :func:`_table`); remembered, as a card that did not change is drawn again
    with each snapshot's page."""
    return PARTS.card(table, online, who, sub)


def _plays(live, players, earlier: set) -> bool:
    """Whether a table's live game is its pairing's: the pairing's players, and not a game an
    earlier round already counted (the board still shows the game before until the next begins)."""
    if live is None or not live.sides or live.game in earlier:
        return False
    seats = {_key(seat) for side, _ in live.sides for seat in side.split("+")}
    return seats == {_key(player) for player in players}


def _table(table: str | None, players, live, game: GameView | None, begun: bool = True) -> tuple:
    """What a table's card shows (the arguments of the ``card`` macro): the table, whether it is online,
    each player or side with its score and whether it won, and how its game stands."""
    online = bool(live and live.online)
    if players and not begun:
        live = live._replace(sides=(), next=None, winner=None) if live else None  # another game's, not this one's
    scores = dict((_key(side), score) for side, score in live.sides) if live else {}
    winners: set[str] = set()
    if game is not None and game.result is not None:
        sides = game.result.sides()
        scores = {_key(seat): score for side, seats, score in sides for seat in seats}
        winners = {_key(seat) for side, seats, _ in sides if _key(side) == _key(game.result.winner) for seat in seats}
    who = tuple((player, scores.get(_key(player)), _key(player) in winners) for player in players)
    if not players and live and live.sides:  # a game that is not this round's pairing
        who = tuple((side, score, False) for side, score in live.sides)
    if game is not None:
        sub = "done" + (" (corrected)" if game.status == "corrected" else "")
    elif live and live.winner:
        sub = f"{live.winner} won: waiting for the result"
    elif live and live.next:
        sub = f"{live.next} next"
    else:
        sub = ("" if live and live.sides else "not begun") if players else "free this round"
    return table, online, who, sub


def page(snap) -> str:
    """The whole /club page."""
    return ENV.get_template("club.html").render(title=title(snap), club=snap.club, version=snap.version,
                                                live_html=live_html(snap))


def event_data(snap) -> dict:
    """One server-sent event: the live part's HTML, and what it shows as data."""
    return {"version": snap.version, "title": title(snap), "html": live_html(snap), "round": snap.view.round,
            "standings": standings_list(snap.view.standings),
            "tables": [{"table": t.table, "online": t.online, "entries": snap.entries.get(t.table, 0),
                        "sides": [list(side) for side in t.sides]} for t in snap.tables]}


def dumps(data) -> bytes:
    """An event's data as sent: compact JSON, UTF-8."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


EVENT_BYTES = 16_000  # a change's event at most, about: a bigger change is sent as several events


def _tie(line) -> tuple[int, int, int]:
    """What ties two standings lines (see :func:`places`), as the standings are ranked: the less, the higher."""
    return -line.game_points, -line.wins, -line.spread


class Layout:
    """What the page shows of one snapshot, in order: the cards' keys and what draws each, the standings'
    player keys, and each one's place: what a change's event needs to say where a card or a row goes.

    :meth:`after` makes the next snapshot's from this one and what changed between them, working out only
    the cards and rows that changed; it equals ``Layout(snap)`` (a card or row that did not change is drawn
    the same, and keeps its place among the others)."""

    def __init__(self, snap):
        self.snap = snap
        view: NightView = snap.view
        self.round = view.rounds[-1] if view.rounds else None
        drawn = cards(snap)
        self.earlier = next((each[4] for _, each in drawn if each[4] is not None), None) or Earlier(view)
        self.cards = dict(drawn)
        self.card_keys = [key for key, _ in drawn]
        self.card_place = {key: k for k, key in enumerate(self.card_keys)}
        self.live = {table.table: table for table in snap.tables}
        self.table_at = {table.table: k for k, table in enumerate(snap.tables)}
        self.paired = {p.table: k for k, p in enumerate(self.round.pairings)} if self.round else {}
        self.players = [_key(line.player) for line in view.standings]
        self._player_place: dict[str, int] | None = None

    @property
    def player_place(self) -> dict[str, int]:
        """Each standings row's place by its player's key (made when first asked: :meth:`place` finds one)."""
        if self._player_place is None:
            self._player_place = {key: k for k, key in enumerate(self.players)}
        return self._player_place

    def place(self, key: str) -> int | None:
        """The place of player ``key``'s standings row (0 first), or None when the standings do not show them."""
        by_key = self.snap.lines
        if by_key is None:
            return self.player_place.get(key)
        line = by_key.get(key)
        if line is None:
            return None
        lines = self.snap.view.standings
        at = bisect_left(lines, rank_key(line), key=rank_key)
        return at if at < len(lines) and lines[at] == line else self.player_place.get(key)

    def rank(self, place: int) -> int:
        """The rank shown on the standings row at ``place`` (0 first), as :func:`places` numbers it: the
        first place of the rows tied with it, plus one (tied rows are together: the standings are ranked)."""
        lines = self.snap.view.standings
        return bisect_left(lines, _tie(lines[place]), 0, place, key=_tie) + 1

    def after(self, snap, shown) -> "Layout":
        """The layout of ``snap``, a later snapshot, where ``shown`` (a :class:`~firmware.hub.state.Shown`)
        holds at least what changed since this one's (more does no harm)."""
        new = object.__new__(Layout)
        new.snap = snap
        if not (new._cards_after(self, shown) and new._standings_after(self, shown)):
            return Layout(snap)
        return new

    def _cards_after(self, old: "Layout", shown) -> bool:
        """The cards from ``old``'s, those of the tables in ``shown`` drawn again; False when the cards'
        order may have changed (a new round, a new table, a table's card come or gone, an earlier
        round's game): then the whole layout is made again."""
        snap, view = self.snap, self.snap.view
        before = old.snap.view
        self.round = view.rounds[-1] if view.rounds else None
        if (shown.round or "" in shown.tables or len(view.rounds) != len(before.rounds)
                or len(snap.tables) != len(old.snap.tables)
                or (self.round is not None and len(self.round.pairings) != len(old.round.pairings))
                or any(a is not b for a, b in zip(view.rounds[:-1], before.rounds[:-1]))):
            return False
        self.earlier, self.paired, self.table_at = old.earlier, old.paired, old.table_at
        self.card_keys, self.card_place = old.card_keys, old.card_place
        self.cards, self.live = old.cards.copy(), old.live.copy()
        for name in shown.tables:
            at = old.table_at.get(name)
            if at is None or snap.tables[at].table != name:
                return False
            table = snap.tables[at]
            self.live[name] = table
            index = old.paired.get(name)
            if index is not None:
                pairing = self.round.pairings[index]
                if pairing.table != name:
                    return False
                self.cards[name] = (name, pairing.players, table, pairing.game, self.earlier)
            elif (table.seen or table.online) != (name in old.card_place):
                return False
            elif name in old.card_place:
                self.cards[name] = (name, (), table, None, None)
        return True

    def _standings_after(self, old: "Layout", shown) -> bool:
        """The standings' keys from ``old``'s, the rows of the players in ``shown`` moved to where they are
        now; False when a snapshot does not say each one's line (then made again)."""
        lines, by_key = self.snap.view.standings, self.snap.lines
        before, was = old.snap.view.standings, old.snap.lines
        if lines is before:
            self.players, self._player_place = old.players, old._player_place
            return True
        if by_key is None or was is None or len(shown.players) * 8 > len(lines):
            return False
        gone: list[tuple[int, str]] = []
        came: list[tuple[int, str]] = []
        for each, at_, rows in ((was, gone, before), (by_key, came, lines)):
            for key in shown.players:
                line = each.get(key)
                if line is None:
                    continue
                at = bisect_left(rows, rank_key(line), key=rank_key)
                if at == len(rows) or rows[at] != line:
                    return False
                at_.append((at, key))
        players = old.players.copy()
        for at, _ in sorted(gone, reverse=True):
            del players[at]
        for at, key in sorted(came):
            players.insert(at, key)
        if len(players) != len(lines):
            return False
        self.players, self._player_place = players, None
        return True


def _or(place: int | None, last: int) -> int:
    return last if place is None else place


def _table_dict(layout: Layout, name: str) -> dict:
    live = layout.live.get(name)
    return {"table": name, "online": bool(live and live.online), "entries": layout.snap.entries.get(name, 0),
            "sides": [list(side) for side in live.sides] if live else []}


def delta_events(layout: Layout, base: int, shown) -> list[bytes]:
    """What changed on the page since snapshot ``base`` (``shown``: a :class:`~firmware.hub.state.Shown`),
    as one event's data (JSON, UTF-8) or several (each EVENT_BYTES at most; ``more`` on all but the last):
    the heading, title and broker line always; each changed card and standings row with its ``place``
    and the key it comes ``after`` (None: first); a row no longer shown as ``gone``. A new round
    (``reset``) sends its heading, its bye and every card."""
    snap = layout.snap
    view: NightView = snap.view
    head = {"version": snap.version, "base": base, "title": title(snap), "round": view.round,
            "heading": heading_html(snap), "broker": snap.broker}
    tables_changed = set(shown.tables)
    reset = shown.round or "" in tables_changed
    if reset:
        head["reset"] = True
        head["round_head"], head["bye"] = round_head(snap)
        tables_changed |= set(layout.card_keys)
    items = []
    for name in sorted(tables_changed, key=lambda key: layout.card_place.get(key, len(layout.card_place))):
        data = _table_dict(layout, name)
        place = layout.card_place.get(name)
        if place is not None:
            data.update(place=place, after=layout.card_keys[place - 1] if place else None,
                        html=card_html(layout.cards[name]))
        items.append(("tables", data))
    if tables_changed:
        head["no_tables"] = NO_TABLES
    if shown.players:
        head["standings_head"], head["no_players"] = STANDINGS_HEAD, NO_PLAYERS
    lines = view.standings
    shown_at = {key: layout.place(key) for key in shown.players}
    for key in sorted(shown.players, key=lambda key: _or(shown_at[key], len(lines))):
        place = shown_at[key]
        if place is None:
            items.append(("standings", {"key": key, "gone": True}))
            continue
        line = lines[place]
        items.append(("standings", {**standings_list([line])[0], "key": key, "place": place,
                                    "after": layout.players[place - 1] if place else None,
                                    "html": standing_row(layout.rank(place), line)}))
    parts: dict[str, list] = {"tables": [], "standings": []}
    events, size = [], len(dumps(head))
    for kind, data in items:
        encoded = dumps(data)
        if size + len(encoded) + 1 > EVENT_BYTES - 256 and (parts["tables"] or parts["standings"]):  # 256: framing
            events.append(parts)
            parts, size = {"tables": [], "standings": []}, 80
        parts[kind].append(encoded)
        size += len(encoded) + 1
    events.append(parts)
    out = []
    for k, each in enumerate(events):
        top = head if k == 0 else {"version": snap.version, "base": base}
        if k < len(events) - 1:
            top = {**top, "more": True}
        out.append(dumps(top)[:-1] + b',"tables":[' + b",".join(each["tables"]) + b'],"standings":['
                   + b",".join(each["standings"]) + b"]}")
    return out


def game_dict(game: GameView, rules) -> dict:
    """A game as /api/club/rounds lists it."""
    result = game.result
    data = {"table": game.table, "ledger": game.ledger, "game": game.game, "status": game.status,
            "seats": list(result.seats) if result else list(game.latest.payload.get("seats", [])),
            "scores": dict(result.scores) if result else dict(game.latest.payload.get("scores", {})),
            "winner": result.winner if result else None, "rev": game.latest.rev}
    if result is not None:
        data["losers"] = [{"side": line.side, "score": line.score, "result": line.kind.value, "margin": line.margin,
                           "game_points": line.game_points} for line in losers(result, rules.skunk, rules.points)]
    if game.correction is not None:
        data["correction"] = {"action": game.correction.action, "reason": game.correction.reason,
                              "at": game.correction.at}
    if game.reason is not None:
        data["held"] = game.reason
    return data


def rounds_dict(view: NightView) -> dict:
    """/api/club/rounds: every round's pairings, each with its game or null, the byes, the games of no
    pairing, and the games held for the director (each with its table and why)."""
    return {
        "night": view.night.name, "round": view.round, "rounds": view.night.rounds, "over": view.over,
        "points": view.night.points, "skunk": view.night.skunk,
        "list": [{"round": each.number, "made": each.made, "complete": each.complete, "bye": each.bye,
                  "pairings": [{"table": p.table, "players": list(p.players),
                                "result": game_dict(p.game, view.rules) if p.game else None}
                               for p in each.pairings]} for each in view.rounds],
        "unpaired": [game_dict(game, view.rules) for game in view.unpaired],
        "held": [game_dict(game, view.rules) for game in view.held],
    }


def night_csv(view: NightView) -> str:
    """The night, one row a game (every game received, counted or not), oldest first."""
    rounds_of = {}
    for each in view.rounds:
        for pairing in each.pairings:
            if pairing.game is not None:
                rounds_of[pairing.game.key] = each.number
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for game in view.games:
        result = game.result
        lost = losers(result, view.rules.skunk, view.rules.points) if result else ()
        points = next((c.game_points for c in credits(result, view.rules.skunk, view.rules.points) if c.won), 0) \
            if result and game.status in COUNTED else ""
        scores = result.scores if result else tuple(game.latest.payload.get("scores", {}).items())
        row = [rounds_of.get(game.key, ""), game.table, game.ledger, game.game, game.status,
               " ".join(result.seats if result else game.latest.payload.get("seats", [])),
               "; ".join(f"{side} {score}" for side, score in scores), result.winner if result else "",
               ", ".join(line.kind.value for line in lost), ", ".join(str(line.margin) for line in lost), points,
               f"{game.correction.action}: {game.correction.reason}" if game.correction else "",
               game.latest.received]
        writer.writerow([csv_cell(cell) for cell in row])
    return out.getvalue()
