"""A club night as the hub shows it, derived from its ledger's rows alone (no I/O, no clock).

- Each game (club, table, ledger, game id) counts by its result with the highest
  ``rev``: "finished" counts, "open" and "abandoned" count nothing. A
  director's latest word on the game overrides that: "correct" (new scores, kept
  with a reason), "void" (counts nothing); "restore" drops the word before it.
- A finished game takes the pairing it was played for: a pairing at its table
  (or a pairing that had no table) whose players are its seats (as a set, by
  :func:`scorer.standings.name_key`), in the round current when its result first
  arrived or, for a late result, the latest earlier round where that pairing is
  still free. A game that matches no pairing still counts in the standings and is
  listed as unpaired.
- A round is complete when each of its pairings has its game; the next round is
  then made (:func:`next_pairings`) until the rounds cap.
- The standings are worked out again from these games each time, by the night's
  rule (:mod:`scorer.standings`): never running totals.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Sequence

from ledger.hub import CorrectionRow, Night, PairingRow, PlayerRow, ResultRow, RoundRow
from scorer.pairings import Round, first_order, pair_round
from scorer.standings import GameResult, PlayerStanding, ResultError, credits, name_key, ranked, tally
from scorer.variants import GamePoints, SkunkLines, parse_game_points

COUNTED = ("finished", "corrected")  # a game's status that counts in the standings


class Rules(namedtuple("Rules", "points skunk")):
    """The club's rule a night is scored by: game ``points`` and ``skunk`` lines. Immutable."""

    __slots__ = ()

    @classmethod
    def of(cls, night: Night) -> "Rules":
        return cls(parse_game_points(night.points), SkunkLines(night.skunk))


class GameView(namedtuple("GameView", "key table ledger game round first status result latest correction")):
    """One game as it counts: its ``key``, the ``round`` its result first came in, the id of its
    ``first`` stored row, its ``status`` (finished, open, abandoned, corrected or void), the
    ``result`` that counts (a GameResult, or None), the ``latest`` revision received and the
    ``correction`` in force (or None). Immutable."""

    __slots__ = ()


class PairingView(namedtuple("PairingView", "table players game")):
    """A pairing of a round and the game played for it (a GameView, or None yet). Immutable."""

    __slots__ = ()


class RoundView(namedtuple("RoundView", "number pairings bye complete made")):
    """A round: its pairings (PairingViews), its ``bye`` (a name or None), whether it is
    ``complete`` (every pairing has its game) and when it was ``made``. Immutable."""

    __slots__ = ()


class NightView(namedtuple("NightView", "night rules players standings games rounds unpaired")):
    """Everything the page and the API show of a night: the ``night``, its ``rules``, the
    active ``players`` (as registered, in order), the ranked ``standings``, every game
    (GameViews, in the order first received), the ``rounds`` and the ``unpaired`` games. Immutable."""

    __slots__ = ()

    @property
    def round(self) -> int:
        """The current round's number (0 before the first)."""
        return self.rounds[-1].number if self.rounds else 0

    @property
    def over(self) -> bool:
        """Whether the night's last round is complete."""
        return bool(self.rounds) and self.round >= self.night.rounds and self.rounds[-1].complete


def active_players(rows: Sequence[PlayerRow]) -> list[str]:
    """The players registered and not removed, in the order they were (last) added."""
    order: dict[str, str] = {}
    for row in rows:
        key = name_key(row.name)
        order.pop(key, None)
        if row.action == "add":
            order[key] = row.name
    return list(order.values())


def result_of(payload: dict) -> GameResult | None:
    """The GameResult of a stored ``result`` payload (None for one that is not finished)."""
    if payload.get("status") != "finished":
        return None
    return GameResult.of(payload["seats"], payload["scores"], payload["winner"], payload.get("variant") == "low-ball")


def games(results: Sequence[ResultRow], corrections: Sequence[CorrectionRow]) -> list[GameView]:
    """Every game of these rows as it counts (see the module), in the order first received."""
    first: dict[tuple, ResultRow] = {}
    latest: dict[tuple, ResultRow] = {}
    for row in results:
        first.setdefault(row.game_key, row)
        if row.game_key not in latest or row.rev > latest[row.game_key].rev:
            latest[row.game_key] = row
    word: dict[tuple, CorrectionRow | None] = {}
    for row in corrections:
        word[row.game_key] = None if row.action == "restore" else row
    out = []
    for key, row in first.items():
        last = latest[key]
        correction = word.get(key)
        lowball = last.payload.get("variant") == "low-ball"
        if correction is not None and correction.action == "void":
            status, result = "void", None
        elif correction is not None:
            status = "corrected"
            result = GameResult.of(correction.seats, correction.scores, correction.winner, lowball)
        else:
            status = last.status
            try:
                result = result_of(last.payload)
            except ResultError:  # checked when it arrived; a hand-edited file may say otherwise
                status, result = "unreadable", None
        out.append(GameView(key, row.table, row.ledger, row.game, row.round, row.id, status, result, last,
                            correction))
    return out


def view(night: Night, players: Sequence[PlayerRow], results: Sequence[ResultRow],
         rounds: Sequence[RoundRow], corrections: Sequence[CorrectionRow]) -> NightView:
    """The night as it stands after these rows."""
    rules = Rules.of(night)
    active = active_players(players)
    every = games(results, corrections)
    taken: dict[tuple[int, int], GameView] = {}  # (round number, pairing index) -> its game
    by_number = {each.number: each for each in rounds}
    unpaired = []
    for game in every:
        if game.status not in COUNTED:
            continue
        seats = {name_key(seat) for seat in game.result.seats}
        place = None
        for number in range(min(game.round, max(by_number, default=0)), 0, -1):
            each = by_number.get(number)
            for index, pairing in enumerate(each.pairings if each else ()):
                if (not pairing.bye and (number, index) not in taken and pairing.table in (game.table, None)
                        and {name_key(p) for p in pairing.players} == seats):
                    place = (number, index)
                    break
            if place:
                break
        if place:
            taken[place] = game
        else:
            unpaired.append(game)
    round_views = []
    for each in rounds:
        pairings = [PairingView(p.table, p.players, taken.get((each.number, k)))
                    for k, p in enumerate(each.pairings) if not p.bye]
        bye = next((p.players[0] for p in each.pairings if p.bye), None)
        round_views.append(RoundView(each.number, tuple(pairings), bye,
                                     all(p.game is not None for p in pairings), each.made))
    counted = [credit for game in every if game.status in COUNTED
               for credit in credits(game.result, rules.skunk, rules.points)]
    registered = [row.name for row in players if row.action == "add"]
    lines = tally(counted, registered)
    shown = {name_key(name) for name in active} | {name_key(c.player) for c in counted}
    standings = ranked([line for key, line in lines.items() if key in shown])
    return NightView(night, rules, tuple(active), tuple(standings), tuple(every), tuple(round_views),
                     tuple(unpaired))


def table_order(table: str) -> tuple:
    """Tables in name order, numbers by value: 1, 2, 10, then A, B."""
    return (0, int(table), table) if table.isdigit() else (1, 0, table.casefold())


def next_pairings(current: NightView, tables: Sequence[str]) -> list[PairingRow]:
    """The next round's pairings (see :mod:`scorer.pairings`): round 1 in an order shuffled by
    the night's name, later rounds in standings order; pairs given to ``tables`` in name order,
    the best pair first; a pair beyond the tables has none; the bye, if any, last."""
    active = {name_key(name): name for name in current.players}
    if current.rounds:
        order = [line.player for line in current.standings if name_key(line.player) in active]
        order = [active[name_key(name)] for name in order]
        order += [name for key, name in active.items() if name not in order]
    else:
        order = first_order(list(active.values()), current.night.name)
    past = [Round(tuple(tuple(p.players) for p in each.pairings), each.bye) for each in current.rounds]
    made = pair_round(order, past, max(0, current.night.rounds - current.round - 1))
    places = sorted(tables, key=table_order)
    rows = [PairingRow(places[k] if k < len(places) else None, tuple(pair), False)
            for k, pair in enumerate(made.pairs)]
    if made.bye is not None:
        rows.append(PairingRow(None, (made.bye,), True))
    return rows


def standings_of_season(nights: Sequence[tuple[Night, Sequence[ResultRow], Sequence[CorrectionRow]]]
                        ) -> list[PlayerStanding]:
    """The season: every night's counted games, each by its own night's rule, ranked as one."""
    counted = []
    for night, results, corrections in nights:
        rules = Rules.of(night)
        counted += [credit for game in games(results, corrections) if game.status in COUNTED
                    for credit in credits(game.result, rules.skunk, rules.points)]
    return ranked(tally(counted))


def rule_names(points: GamePoints, skunk: SkunkLines) -> str:
    """The rule as words: "acc game points, acc skunk lines"."""
    return f"{points.spec()} game points, {skunk.value} skunk lines"
