"""Rule sets: the seed variants as data, found by name, and the house options."""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from .errors import UnknownVariantError

# The value types are typing.NamedTuple classes: immutable, compared and hashed
# as tuples. A new value is ``value._replace(field=...)``.


class Variant(NamedTuple):
    """One way of playing: ``name``, ``players``, cards ``dealt`` each, ``hand_size``
    (cards each player keeps for the play and the show), ``target``; ``partnership``
    (four-hand: partners opposite peg as one side), ``start_bonus`` (five-card: pone
    pegs 3 at the start of the game), ``lowball`` (the first side to reach the target
    loses) and a ``description``. Immutable.

    >>> variant = find_variant("six-card")
    >>> variant.players, variant.dealt, variant.hand_size, variant.target
    (2, 6, 4, 121)
    """

    name: str
    players: int
    dealt: int
    hand_size: int
    target: int
    partnership: bool = False
    start_bonus: int = 0
    lowball: bool = False
    description: str = ""

    @property
    def sides(self) -> int:
        """How many scores the game keeps: partners peg as one side."""
        return 2 if self.partnership else self.players


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("six-card", 2, 6, 4, 121, description="the standard game, 2 players to 121"),
        Variant(
            "five-card", 2, 5, 3, 61, start_bonus=3,
            description="the old game to 61; pone pegs 3 for last at the start",
        ),
        Variant("seven-card", 2, 7, 5, 181, description="hands of 5, to 181"),
        Variant("three-hand", 3, 5, 4, 121, description="3 players, each alone"),
        Variant(
            "four-hand", 4, 5, 4, 121, partnership=True,
            description="4 players, partners opposite score as a team",
        ),
        Variant("four-hand-individual", 4, 5, 4, 121, description="4 players, each alone"),
        Variant(
            "low-ball", 2, 6, 4, 121, lowball=True,
            description="as six-card, but the first to reach 121 loses",
        ),
    )
}


TARGET_LEAST, TARGET_MOST = 31, 1000  # a game's target, as target= gives it
GAME_POINTS_MOST = 99  # game points for one kind of result, as points= gives them


def find_variant(name: str, target: int | None = None) -> Variant:
    """The variant called ``name`` (case-insensitive), optionally with another target.

    Raises ``UnknownVariantError`` (a ``CribbageError``) for a name no variant has.

    >>> find_variant("Six-Card", 61).target
    61
    >>> find_variant("nine-card")
    Traceback (most recent call last):
    ...
    scorer.errors.UnknownVariantError: unknown variant 'nine-card': choose one of six-card, five-card, seven-card, three-hand, four-hand, four-hand-individual, low-ball
    """
    variant = VARIANTS.get(name.strip().lower())
    if variant is None:
        raise UnknownVariantError(
            f"unknown variant {name!r}: choose one of {', '.join(VARIANTS)}"
        )
    if target is not None:
        if not TARGET_LEAST <= target <= TARGET_MOST:
            raise UnknownVariantError(f"target {target} is out of range: use {TARGET_LEAST} to {TARGET_MOST}")
        variant = variant._replace(target=target)
    return variant


class SkunkLines(Enum):
    """Which losing margins make a skunk (or lurch).

    >>> SkunkLines("acc") is SkunkLines.ACC
    True
    """

    NONE = "none"
    ACC = "acc"  # under target-30 skunk, under target-60 double skunk
    LURCH = "lurch"  # British: under half the target is lurched (a double game)
    TRIPLE = "triple"  # ACC plus the house triple skunk under target-90


class ResultKind(Enum):
    """How a game was won.

    >>> ResultKind("skunk") is ResultKind.SKUNK
    True
    """

    WIN = "win"
    SKUNK = "skunk"
    DOUBLE_SKUNK = "double-skunk"
    TRIPLE_SKUNK = "triple-skunk"
    LURCH = "lurch"

    @property
    def words(self) -> str:
        """The result as a player says it after the winner's name: "" for a plain win, else ", a skunk",
        ", a double skunk", ", a lurch" ("Red won, a skunk")."""
        return "" if self is ResultKind.WIN else ", a " + self.value.replace("-", " ")

    @property
    def loser_words(self) -> str:
        """The result as a player says it after "Blue lost by 40": "" for a plain win, else ", skunked",
        ", double skunked", ", lurched"."""
        return "" if self is ResultKind.WIN else ", " + self.value.replace("-", " ") + "ed"


def result_words(winner: str, kind: ResultKind | str, margin: int | None = None, verb: str = "won") -> str:
    """A game's result as a player says it: the ``winner``, the ``verb`` ("won"; the board says "wins"),
    by the ``margin`` when given, and how (``kind``, a ResultKind or its value). Returns the words.

    >>> result_words("Red", "skunk"), result_words("Red", ResultKind.WIN, 12, "wins")
    ('Red won, a skunk', 'Red wins by 12')
    >>> result_words("Blue", "double-skunk", 70)
    'Blue won by 70, a double skunk'
    """
    by = "" if margin is None else f" by {margin}"
    return f"{winner} {verb}{by}{ResultKind(kind).words}"


class GamePoints(NamedTuple):
    """Game points a winner earns for each kind of result: ``win``, ``skunk``,
    ``double_skunk``, ``triple_skunk`` and ``lurch`` (ints). Immutable.

    >>> parse_game_points("casual")
    GamePoints(win=1, skunk=2, double_skunk=3, triple_skunk=4, lurch=2)
    """

    win: int = 2
    skunk: int = 3
    double_skunk: int = 3
    triple_skunk: int = 3
    lurch: int = 4

    def for_kind(self, kind: ResultKind) -> int:
        return {
            ResultKind.WIN: self.win,
            ResultKind.SKUNK: self.skunk,
            ResultKind.DOUBLE_SKUNK: self.double_skunk,
            ResultKind.TRIPLE_SKUNK: self.triple_skunk,
            ResultKind.LURCH: self.lurch,
        }[kind]

    def spec(self) -> str:
        """The record spelling: a preset name or win/skunk/double/triple/lurch."""
        for name, preset in GAME_POINT_PRESETS.items():
            if preset == self:
                return name
        return "/".join(
            str(n) for n in (self.win, self.skunk, self.double_skunk, self.triple_skunk, self.lurch)
        )


GAME_POINT_PRESETS = {
    "acc": GamePoints(2, 3, 3, 3, 4),  # ACC tournament: a double skunk earns nothing more
    "casual": GamePoints(1, 2, 3, 4, 2),  # skunk 2 games, double 3; lurch a double game
}


def parse_game_points(text: str) -> GamePoints:
    """``acc``, ``casual`` or numbers ``win/skunk/double/triple/lurch`` (trailing ones optional).

    Raises ``UnknownVariantError`` for text that is none of these.

    >>> parse_game_points("2/3")
    GamePoints(win=2, skunk=3, double_skunk=3, triple_skunk=3, lurch=3)
    """
    preset = GAME_POINT_PRESETS.get(text.lower())
    if preset is not None:
        return preset
    try:
        numbers = [int(part) for part in text.split("/")]
    except ValueError:
        numbers = []
    if not 1 <= len(numbers) <= 5 or any(not 0 <= n <= GAME_POINTS_MOST for n in numbers):
        raise UnknownVariantError(
            f"points={text!r}: use acc, casual or win/skunk/double/triple/lurch (0 to {GAME_POINTS_MOST} each), e.g. 1/2/3"
        )
    fields = ["win", "skunk", "double_skunk", "triple_skunk", "lurch"]
    values = dict(zip(fields, numbers))
    # Unnamed values follow the last one given, so 1/2/3 means a triple skunk is 3.
    for name in fields[len(numbers):]:
        values[name] = numbers[-1]
    return GamePoints(**values)


class Options(NamedTuple):
    """House rules, all off by default: ``exact_out`` and ``muggins`` (bools), the
    ``skunk`` lines (SkunkLines, ACC by default) and the game ``points``
    (GamePoints, the ACC preset by default). Immutable.

    >>> Options().muggins, Options(muggins=True).muggins
    (False, True)
    """

    exact_out: bool = False
    muggins: bool = False
    skunk: SkunkLines = SkunkLines.ACC
    points: GamePoints = GAME_POINT_PRESETS["acc"]


class SkunkLine(NamedTuple):
    """One skunk line: a loser on a score under ``below`` gets the result ``kind``
    (a ResultKind), unless a worse line below it applies. Immutable.

    >>> skunk_lines(121)[0]
    SkunkLine(kind=<ResultKind.SKUNK: 'skunk'>, below=91)
    """

    kind: ResultKind
    below: int


def skunk_lines(target: int, lines: SkunkLines = SkunkLines.ACC) -> tuple[SkunkLine, ...]:
    """The lines a loser's score is held against under the chosen ``lines``, highest
    first: ACC skunk under target-30 and double skunk under target-60 (with the house
    triple skunk under target-90), or the British lurch under half the target; none
    for ``SkunkLines.NONE``. A line at or below 0 is left out (a short game).

    >>> [line.below for line in skunk_lines(121)]
    [91, 61]
    """
    if lines is SkunkLines.NONE:
        return ()
    if lines is SkunkLines.LURCH:
        return (SkunkLine(ResultKind.LURCH, (target + 1) // 2),)
    found = [SkunkLine(ResultKind.SKUNK, target - 30), SkunkLine(ResultKind.DOUBLE_SKUNK, target - 60)]
    if lines is SkunkLines.TRIPLE:
        found.append(SkunkLine(ResultKind.TRIPLE_SKUNK, target - 90))
    return tuple(line for line in found if line.below > 0)


def result_kind(loser_score: int, target: int, lines: SkunkLines) -> ResultKind:
    """The result a loser's score makes under the chosen skunk lines: the worst line it is under.

    >>> result_kind(85, 121, SkunkLines.ACC), result_kind(95, 121, SkunkLines.ACC)
    (<ResultKind.SKUNK: 'skunk'>, <ResultKind.WIN: 'win'>)
    """
    for line in reversed(skunk_lines(target, lines)):
        if loser_score < line.below:
            return line.kind
    return ResultKind.WIN
