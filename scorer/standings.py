"""A club night's standings, pure: finished games in, each player's line and the ranking out.

A game's result is credited to each seat (player) by the CLUB's rule, not the
board's (:func:`credits`); :func:`tally` adds up each player's line and
:func:`ranked` orders them.
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from scorer.errors import CribbageBoardError

from .names import normal
from .variants import GAME_POINT_PRESETS, GamePoints, ResultKind, SkunkLines, result_kind

ACC_POINTS = GAME_POINT_PRESETS["acc"]


class ResultError(CribbageBoardError, ValueError):
    """A result whose sides, seats and scores do not fit together; the message says how.

    >>> credits(GameResult(("Ann", "Bob"), (("Ann", 121), ("Cy", 80)), winner="Ann"))
    Traceback (most recent call last):
    ...
    scorer.standings.ResultError: side Cy is not one of the seats Ann, Bob
    """


def name_key(name: str) -> str:
    """The key two spellings of one player share: NFC, then casefolded.

    >>> name_key("ZOË") == name_key("Zoë")
    True
    """
    return normal(name).casefold()


class GameResult(NamedTuple):
    """A finished game as the standings need it: the ``seats`` (players' names), the final
    ``scores`` ((side, score) pairs; a side is a seat's name, or two seats joined by ``+``),
    the ``winner`` (a side) and ``lowball`` (the first side to the target lost). Immutable.

    >>> result = GameResult(("Ann", "Bob"), (("Ann", 121), ("Bob", 80)), winner="Ann")
    >>> result.winner, dict(result.scores)["Bob"]
    ('Ann', 80)
    """

    seats: tuple[str, ...]
    scores: tuple[tuple[str, int], ...]
    winner: str
    lowball: bool = False

    @classmethod
    def of(cls, seats: Iterable[str], scores: dict[str, int] | Iterable[tuple[str, int]], winner: str,
           lowball: bool = False) -> "GameResult":
        """A result from plain data (``scores`` a mapping or pairs); ResultError if it does not fit."""
        pairs = tuple(scores.items()) if isinstance(scores, dict) else tuple(tuple(pair) for pair in scores)
        result = cls(tuple(seats), pairs, winner, bool(lowball))  # type: ignore[arg-type]  # plain data: sides() checks it
        result.sides()  # checks it
        return result

    def sides(self) -> tuple[tuple[str, tuple[str, ...], int], ...]:
        """Each side as (side, its seats, its score); ResultError unless the sides share out the
        seats exactly, every score is a whole number from 0, and the winner is one of the sides."""
        seats = {name_key(seat): seat for seat in self.seats}
        if len(seats) != len(self.seats) or not 2 <= len(seats) <= 4:
            raise ResultError(f"seats {', '.join(self.seats)}: 2 to 4 different players are needed")
        found, used = [], set()
        for side, score in self.scores:
            if isinstance(score, bool) or not isinstance(score, int) or score < 0:
                raise ResultError(f"side {side}: score {score!r} is not a whole number from 0")
            parts = [side] if name_key(side) in seats else side.split("+")
            keys = [name_key(part) for part in parts]
            if any(key not in seats or key in used for key in keys):
                raise ResultError(f"side {side} is not one of the seats {', '.join(self.seats)}")
            used.update(keys)
            found.append((side, tuple(seats[key] for key in keys), score))
        if len(used) != len(seats) or len(found) < 2:
            raise ResultError(f"the scores' sides ({', '.join(s for s, _ in self.scores)}) "
                              f"do not cover the seats {', '.join(self.seats)}")
        winners = [k for k, item in enumerate(found) if name_key(item[0]) == name_key(self.winner)]
        if len(winners) != 1:
            raise ResultError(f"winner {self.winner} is not one of the sides")
        won = found[winners[0]][2]
        for k, (side, _, score) in enumerate(found):
            if k != winners[0] and (score <= won if self.lowball else score >= won):
                raise ResultError(f"winner {self.winner} on {won} against {side} on {score}: "
                                  + ("in low-ball the winner has the lower score" if self.lowball
                                     else "the winner has the higher score"))
        return tuple(found)

    def winning_side(self) -> tuple[str, tuple[str, ...], int]:
        """(side, seats, score) of the winner."""
        return next(item for item in self.sides() if name_key(item[0]) == name_key(self.winner))


class Credit(NamedTuple):
    """What one game gives one player: ``won`` (bool), ``game_points`` and ``spread``. Immutable."""

    player: str
    won: bool
    game_points: int
    spread: int


class LoserLine(NamedTuple):
    """One losing side as the club's rule reads it. Immutable."""

    side: str
    score: int
    kind: ResultKind
    margin: int
    game_points: int


def losers(result: GameResult, lines: SkunkLines = SkunkLines.ACC,
           points: GamePoints = ACC_POINTS) -> tuple[LoserLine, ...]:
    """Every losing side of ``result`` by the club's skunk ``lines`` and game ``points``.

    Raises ``ResultError`` when the result's sides, seats and scores do not fit together.

    >>> result = GameResult(("Ann", "Bob"), (("Ann", 121), ("Bob", 80)), winner="Ann")
    >>> losers(result)
    (LoserLine(side='Bob', score=80, kind=<ResultKind.SKUNK: 'skunk'>, margin=41, game_points=3),)
    """
    winner, _, won = result.winning_side()
    found = []
    for side, _, score in result.sides():
        if side == winner:
            continue
        if result.lowball:  # the loser reached the target: a plain win, by how far it got
            kind, margin = ResultKind.WIN, score - won
        else:  # the winner's score is the target: the game ends the instant a side reaches it
            kind, margin = result_kind(score, won, lines), won - score
        found.append(LoserLine(side, score, kind, margin, points.for_kind(kind)))
    return tuple(found)


def credits(result: GameResult, lines: SkunkLines = SkunkLines.ACC,
            points: GamePoints = ACC_POINTS) -> tuple[Credit, ...]:
    """What ``result`` gives each seat, in seat order.

    A game's result is credited to each seat (player) by the CLUB's rule, not the
    board's: each loser's result kind is worked out again from the final scores
    against the game's target with the club's skunk lines
    (:func:`scorer.variants.result_kind`), and its game points come from the club's
    :class:`~scorer.variants.GamePoints`. The target is the winner's final score
    (the game ends the instant a side reaches it, and the winner's score is
    recorded as the target); in low-ball, the loser's, who reached it.

    Per seat: one game; the winner's seats a win, the game points of every loser
    added up (as :func:`scorer.game.loser_results` does) and the margins as spread;
    each losing side's seats a loss, no points and minus that side's margin. A
    partnership side (``A+C``) credits each of its seats.

    Raises ``ResultError`` when the result's sides, seats and scores do not fit together.

    >>> result = GameResult(("Ann", "Bob"), (("Ann", 121), ("Bob", 80)), winner="Ann")
    >>> [(credit.player, credit.won, credit.game_points, credit.spread) for credit in credits(result)]
    [('Ann', True, 3, 41), ('Bob', False, 0, -41)]
    """
    lost = {name_key(line.side): line for line in losers(result, lines, points)}
    total = sum(line.game_points for line in lost.values())
    spread = sum(line.margin for line in lost.values())
    out = {}
    for side, seats, _ in result.sides():
        line = lost.get(name_key(side))
        for seat in seats:
            out[seat] = (Credit(seat, False, 0, -line.margin) if line is not None
                         else Credit(seat, True, total, spread))
    return tuple(out[seat] for seat in result.seats)


class PlayerStanding(NamedTuple):
    """A player's line: ``player`` (as first seen), ``game_points``, ``wins``, ``losses``,
    ``spread`` and ``games``. Immutable.

    >>> result = GameResult(("Ann", "Bob"), (("Ann", 121), ("Bob", 80)), winner="Ann")
    >>> tally(credits(result))["ann"]
    PlayerStanding(player='Ann', game_points=3, wins=1, losses=0, spread=41, games=1)
    """

    player: str
    game_points: int
    wins: int
    losses: int
    spread: int
    games: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self._asdict())

    def add(self, other: "PlayerStanding") -> "PlayerStanding":
        """The two lines of one player added (this one's name kept)."""
        return PlayerStanding(self.player, *(a + b for a, b in zip(self[1:], other[1:])))


def tally(credits_: Iterable[Credit], registered: Iterable[str] = ()) -> dict[str, PlayerStanding]:
    """Each player's line (by :func:`name_key`) from their credits; ``registered`` players
    are listed (with nothing yet) and named first, so their spelling is the one shown.

    Names are compared as :func:`scorer.names.normal` then casefolded ("Zoë",
    "ZOË" and the decomposed form are one player) and shown as first seen.
    Ranked by game points, then wins, then spread, all descending, then the name.

    >>> result = GameResult(("Ann", "Bob"), (("Ann", 121), ("Bob", 80)), winner="Ann")
    >>> sorted(tally(credits(result), registered=["Cy"]))
    ['ann', 'bob', 'cy']
    """
    lines: dict[str, PlayerStanding] = {}
    for name in registered:
        lines.setdefault(name_key(name), PlayerStanding(name, 0, 0, 0, 0, 0))
    for credit in credits_:
        key = name_key(credit.player)
        line = lines.get(key) or PlayerStanding(credit.player, 0, 0, 0, 0, 0)
        lines[key] = PlayerStanding(line.player, line.game_points + credit.game_points, line.wins + credit.won,
                                    line.losses + (not credit.won), line.spread + credit.spread, line.games + 1)
    return lines


def merge(*tallies: dict[str, PlayerStanding]) -> dict[str, PlayerStanding]:
    """Several tallies as one (a season of nights); the name first seen is kept."""
    merged: dict[str, PlayerStanding] = {}
    for each in tallies:
        for key, line in each.items():
            merged[key] = merged[key].add(line) if key in merged else line
    return merged


def rank_key(line: PlayerStanding) -> tuple[int, int, int, str, str]:
    """Game points, wins, spread (each the more the better), then the name: a stable order.

    The key :func:`ranked` sorts by, the less the higher; the name compared by :func:`name_key`.

    >>> rank_key(PlayerStanding("Zoë", 3, 1, 0, 41, 1))
    (-3, -1, -41, 'zoë', 'Zoë')
    """
    return (-line.game_points, -line.wins, -line.spread, name_key(line.player), line.player)


def ranked(lines: dict[str, PlayerStanding] | Iterable[PlayerStanding]) -> list[PlayerStanding]:
    """The lines in rank order.

    Names are compared as :func:`scorer.names.normal` then casefolded ("Zoë",
    "ZOË" and the decomposed form are one player) and shown as first seen.
    Ranked by game points, then wins, then spread, all descending, then the name.

    >>> result = GameResult(("Ann", "Bob"), (("Ann", 121), ("Bob", 80)), winner="Ann")
    >>> [line.player for line in ranked(tally(credits(result)))]
    ['Ann', 'Bob']
    """
    values = lines.values() if isinstance(lines, dict) else lines
    return sorted(values, key=rank_key)


def standings(results: Iterable[GameResult], lines: SkunkLines = SkunkLines.ACC,
              points: GamePoints = ACC_POINTS, registered: Iterable[str] = ()) -> list[PlayerStanding]:
    """The ranked standings of finished ``results`` by the club's rule.

    >>> result = GameResult(("Ann", "Bob"), (("Ann", 121), ("Bob", 80)), winner="Ann")
    >>> [(line.player, line.game_points) for line in standings([result])]
    [('Ann', 3), ('Bob', 0)]
    """
    return ranked(tally((credit for result in results for credit in credits(result, lines, points)), registered))
