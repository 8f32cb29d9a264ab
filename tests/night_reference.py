"""The night derived at once from every row: the reference the tests hold the hub's NightBook to.

:func:`view` works the whole night out again from its rows each time it is called, by the rules
:class:`firmware.hub.night.NightBook` follows (they are in its docstring); the book keeps the same night
up to date row by row, and the tests check that, after every row, ``book.view()`` equals :func:`view`
of the rows given so far. Not used by the product.
"""

from __future__ import annotations

from typing import Sequence

from firmware.hub.ledger import CorrectionRow, Night, PlayerRow, ResultRow, RoundRow
from firmware.hub.night import (
    COUNTED,
    PLACED,
    GameView,
    NightView,
    PairingView,
    RoundView,
    Rules,
    _unpaired_reason,
    active_players,
    corrected,
    is_lowball,
    result_of,
    verdict,
)
from scorer.standings import ResultError, credits, name_key, ranked, tally


def games(results: Sequence[ResultRow], corrections: Sequence[CorrectionRow],
          entries: dict[tuple, dict[int, str]] | None = None) -> list[GameView]:
    """Every game of these rows as its result and entries give it, before its pairing is looked for (see
    :class:`~firmware.hub.night.NightBook`), in the order first received. ``entries`` ({game key: {seq: line}}); None: results are
    taken as sent (a caller that holds no entries)."""
    first: dict[tuple, ResultRow] = {}
    latest: dict[tuple, ResultRow] = {}
    for row in results:
        first.setdefault(row.game_key, row)
        if row.game_key not in latest or row.rev > latest[row.game_key].rev:
            latest[row.game_key] = row
    word: dict[tuple, CorrectionRow | None] = {}
    for said in corrections:
        word[said.game_key] = None if said.action == "restore" else said
    out = []
    for key, row in first.items():
        last = latest[key]
        correction = word.get(key)
        lowball = is_lowball(last.payload)
        if correction is not None and correction.action == "void":
            status, result = "void", None
        elif correction is not None:
            status, result = "corrected", corrected(correction, lowball)
        else:
            status = last.status
            try:
                result = result_of(last.payload)
            except ResultError:  # checked when it arrived; a hand-edited file may say otherwise
                status, result = "unreadable", None
        reason = None
        if status == "finished" and entries is not None:
            status, reason = verdict(last.payload, entries.get(key, {}))
        out.append(GameView(key, row.table, row.ledger, row.game, row.round, row.id, status, result, last,
                            correction, reason))
    return out


def view(night: Night, players: Sequence[PlayerRow], results: Sequence[ResultRow],
         rounds: Sequence[RoundRow], corrections: Sequence[CorrectionRow],
         entries: dict[tuple, dict[int, str]] | None = None) -> NightView:
    """The night as it stands after these rows (``entries``: see :func:`games`), by the rules in
    :class:`~firmware.hub.night.NightBook`'s docstring, worked out again from every row."""
    rules = Rules.of(night)
    active = active_players(players)
    every = games(results, corrections, entries)
    taken: dict[tuple[int, int], GameView] = {}  # (round number, pairing index) -> its game
    by_number = {each.number: each for each in rounds}
    unpaired = []
    for k, game in enumerate(every):
        if game.status not in PLACED or game.result is None:
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
        if not place and rounds and game.status == "finished":
            game = every[k] = game._replace(status="unpaired", reason=_unpaired_reason(game))
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
    counted = [credit for game in every if game.status in COUNTED and game.result is not None
               for credit in credits(game.result, rules.skunk, rules.points)]
    registered = [row.name for row in players if row.action == "add"]
    lines = tally(counted, registered)
    shown = {name_key(name) for name in active} | {name_key(c.player) for c in counted}
    standings = ranked([line for key, line in lines.items() if key in shown])
    return NightView(night, rules, tuple(active), tuple(standings), tuple(every), tuple(round_views),
                     tuple(unpaired))
