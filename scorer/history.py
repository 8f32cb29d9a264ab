"""Game history as figures: the pegging race of a game, players' statistics, and where
a player's hands ran against the exact distribution of all hands. Pure: no I/O.

A game is replayed by the scorer's own rules, so every figure follows the
record exactly (undone entries do not count, redone ones do); lines the rules
refuse change nothing, as at the board. What it takes: :func:`player_stats`
(or, a game at a time, :class:`PlayerTally`).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any, NamedTuple

from .errors import CribbageError
from .game import EntryKind, Game
from .record import GameHeader, Scorebook, parse_line
from .variants import SkunkLine, SkunkLines, skunk_lines

SKUNKS = ("skunk", "double-skunk", "triple-skunk", "lurch")  # results that count as a skunk given/taken
_PLAY = (EntryKind.PEG, EntryKind.GO, EntryKind.THIRTY_ONE)


def _start(line: str) -> Scorebook:
    """A scorebook with the game of a record's first line started; ValueError if it is not a game line."""
    try:
        header = parse_line(line)
    except CribbageError as error:
        raise ValueError(f"the record's first line does not read: {error}") from None
    if not isinstance(header, GameHeader):
        raise ValueError(f"a record starts with its game line, not {line[:40]!r}")
    book = Scorebook()
    try:
        book.apply(header)
    except CribbageError as error:
        raise ValueError(f"the record's game line is refused: {error}") from None
    return book


def _game(book: Scorebook) -> Game:
    """The game :func:`_start` started."""
    assert book.game is not None, "_start starts the game"
    return book.game


def _replay(record: Iterable[str]) -> Game:
    """The game of one record, replayed; ValueError if the record is not one game."""
    lines = [line for line in record if line.split("#", 1)[0].strip()]
    if not lines:
        raise ValueError("an empty record: give a game's lines, header first")
    book = _start(lines[0])
    for line in lines[1:]:
        _apply(book, line)
    return _game(book)


def _apply(book: Scorebook, line: str) -> None:
    """Apply one record line; a line the rules refuse changes nothing; a second game is an error."""
    try:
        action = parse_line(line)
    except CribbageError as error:
        raise ValueError(f"a record line does not read: {error}") from None
    if isinstance(action, GameHeader):
        raise ValueError("a record holds one game: give each game's lines on their own")
    if action is None:
        return
    try:
        book.apply(action)
    except CribbageError:
        pass


def race_lines(target: int, skunk: SkunkLines) -> list[dict[str, Any]]:
    """A game's skunk lines (:func:`scorer.variants.skunk_lines`) as data for its race chart:
    each ``{"result", "below"}``, a loser on a score under ``below`` gets that ``result``
    (the worst line it is under wins).

    >>> from scorer.variants import SkunkLines
    >>> race_lines(121, SkunkLines.ACC)
    [{'result': 'skunk', 'below': 91}, {'result': 'double-skunk', 'below': 61}]
    """
    return _line_data(skunk_lines(target, skunk))


def _line_data(lines: Iterable[SkunkLine]) -> list[dict[str, Any]]:
    return [{"result": line.kind.value, "below": line.below} for line in lines]


def race(header_and_lines: Iterable[str]) -> dict[str, Any]:
    """Each side's score after each line of a record, for a pegging-race chart.

    Returns ``{"target", "sides", "start", "scores", "lines"}``: ``sides`` the side
    names, ``start`` their scores before the first line (the five-card three for
    last is already pegged), ``scores`` one list of side scores per line of
    ``header_and_lines[1:]`` (comments and blank lines included, so it stays
    aligned with ``LedgerReader.times``; an undo shows the peg going back),
    ``lines`` the game's own skunk lines (:attr:`scorer.game.Game.skunk_lines`, as
    :func:`race_lines` gives them; none in low-ball).
    ValueError if the lines are not one game, header first.

    >>> chart = race(["game six-card seats=Alice,Bob dealer=Alice target=31", "peg Bob 2", "hand Bob 12"])
    >>> chart["sides"], chart["scores"]
    (['Alice', 'Bob'], [[0, 2], [0, 14]])
    """
    lines = list(header_and_lines)
    if not lines:
        raise ValueError("an empty record: give a game's lines, header first")
    book = _start(lines[0])
    game = _game(book)
    start = list(game.state.scores)
    scores = []
    for line in lines[1:]:
        _apply(book, line)
        scores.append(list(game.state.scores))
    return {
        "target": game.variant.target,
        "sides": [side.name for side in game.sides],
        "start": start,
        "scores": scores,
        "lines": _line_data(game.skunk_lines),
    }


class _Totals:
    """One player's or partnership's figures while they are being counted."""

    def __init__(self, name: str, kind: str):
        self.name, self.kind = name, kind
        self.games = self.wins = self.losses = self.abandoned = 0
        self.skunks_given = self.skunks_taken = 0
        self.deals = self.heels = self.play = 0
        self.hands: list[int] = []
        self.by_size: dict[str, list[int]] = {}  # the same hands by hand size
        self.seen: dict[str, dict[int, int]] = {}  # by hand size: how many hands scored each total
        self.hand_points = self.crib_points = 0
        self.best: int | None = None
        self.placed: dict[str, tuple[int, float]] = {}  # by hand size: (hands placed, sum of their percentiles)
        self.cribs: list[int] = []

    def hand(self, size: int, points: int) -> None:
        self.hands.append(points)
        self.by_size.setdefault(str(size), []).append(points)
        seen = self.seen.setdefault(str(size), {})
        seen[points] = seen.get(points, 0) + 1
        self.hand_points += points
        self.best = points if self.best is None else max(self.best, points)

    def crib(self, points: int) -> None:
        self.cribs.append(points)
        self.crib_points += points

    def percentile(self) -> float | None:
        """:func:`hand_percentile` of the hands, each against its own hand size, weighted by how many
        there are of each size; each hand is placed once, at the first ask after it was added."""
        if not self.hands:
            return None
        weighted = 0.0
        for size, counts in self.by_size.items():
            placed, total = self.placed.get(size, (0, 0.0))
            if placed < len(counts):
                table = _table(int(size))
                for points in counts[placed:]:
                    total += _place(table, points)
                self.placed[size] = (len(counts), total)
            weighted += total / len(counts) * len(counts)
        return weighted / len(self.hands)

    def row(self, percentile: bool) -> dict[str, Any]:
        counts = self.hands
        return {
            "name": self.name,
            "kind": self.kind,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "abandoned": self.abandoned,
            "skunks_given": self.skunks_given,
            "skunks_taken": self.skunks_taken,
            "deals": self.deals,
            "average_hand": self.hand_points / len(counts) if counts else None,
            "average_crib": self.crib_points / len(self.cribs) if self.cribs else None,
            "play_per_deal": self.play / self.deals if self.deals else None,
            "best_hand": self.best,
            "heels": self.heels,
            "hands": list(counts),
            "hands_by_size": {size: list(points) for size, points in self.by_size.items()},
            "cribs": list(self.cribs),
            "percentile": self.percentile() if percentile else None,
        }


class PlayerTally:
    """:func:`player_stats` counted a record at a time: :meth:`add` a game's record, ask
    :meth:`rows` at any point. A record that does not read raises ValueError and changes nothing.

    >>> tally = PlayerTally()
    >>> tally.add(["game six-card seats=Alice,Bob dealer=Alice target=31", "peg Bob 2", "hand Bob 12"])
    >>> [(row["name"], row["abandoned"], row["hands"]) for row in tally.rows(percentile=False)]
    [('Alice', 1, []), ('Bob', 1, [12])]
    """

    def __init__(self) -> None:
        self._totals: dict[tuple[str, str | frozenset[str]], _Totals] = {}
        self.games = 0  # records counted

    def _of(self, key: tuple[str, str | frozenset[str]], name: str, kind: str) -> _Totals:
        if key not in self._totals:
            self._totals[key] = _Totals(name, kind)
        return self._totals[key]

    def add(self, record: Iterable[str]) -> None:
        """Count one game's record (as :func:`player_stats` reads it); ValueError if it is not one game."""
        figures = _figures(tuple(record))  # raises before anything is counted
        totals = self._totals
        sides = {}
        for name, seats in figures.sides:
            rows = [self._of(("player", seat.lower()), seat, "player") for seat in seats]
            if len(seats) > 1:
                rows.append(self._of(("partnership", frozenset(seat.lower() for seat in seats)), name, "partnership"))
            sides[name] = rows
        for rows in sides.values():
            for row in rows:
                row.deals += figures.deals
                if figures.winner is None:
                    row.abandoned += 1
                else:
                    row.games += 1
        if figures.winner is not None:
            for row in sides[figures.winner]:
                row.wins += 1
                row.skunks_given += sum(skunked for _, skunked in figures.losers)
            for side, skunked in figures.losers:
                for row in sides[side]:
                    row.losses += 1
                    row.skunks_taken += skunked

        def rows_of(seat: str) -> list[_Totals]:
            """The seat's own row and its partnership's, if any."""
            side = figures.side_of[seat]
            return [totals[("player", seat.lower())]] + [r for r in sides[side] if r.kind == "partnership"]

        for seat, points in figures.hands:
            for row in rows_of(seat):
                row.hand(figures.hand_size, points)
        for seat, points in figures.cribs:
            for row in rows_of(seat):
                row.crib(points)
        for seat, play, heels in figures.seats:
            for row in rows_of(seat):
                row.play += play
                row.heels += heels
        self.games += 1

    def seen(self) -> dict[tuple[str, str | frozenset[str]], dict[str, dict[int, int]]]:
        """How many hands scored each total, by hand size, of each row: by its kind and name ignoring
        case (a partnership's: the set of its players' names)."""
        return {key: totals.seen for key, totals in self._totals.items()}

    def rows(self, percentile: bool = True) -> list[dict[str, Any]]:
        """The figures so far, as :func:`player_stats` gives them, in new lists (counting more
        changes none of them)."""
        table = [t.row(percentile) for t in self._totals.values()]
        table.sort(key=lambda r: (r["kind"] != "player", -r["wins"], -r["games"], r["name"].lower()))
        return table


def player_stats(games: Iterable[Iterable[str]], percentile: bool = True) -> list[dict[str, Any]]:
    """Figures per player, then per partnership (four-hand), from records (see
    below), each a dict:

    ``name``, ``kind`` ("player" or "partnership", named ``A+C``), ``games`` (played
    to the end), ``wins``, ``losses``, ``abandoned``; ``skunks_given`` (losers the
    side skunked, double or triple skunked or lurched: one per loser) and
    ``skunks_taken``; ``deals`` (deals of its games that were begun); ``hands``
    (every hand count, in order), ``hands_by_size`` (the same by hand size, keys
    "3", "4", "5"), ``average_hand``, ``best_hand``, ``cribs`` and ``average_crib``
    (the cribs it counted as dealer), ``play_per_deal`` (points claimed in the
    play, go and 31 included, per deal), ``heels``, and ``percentile``: where its
    hands ran (:func:`hand_percentile`, each hand against its own hand size;
    None without hands, or with ``percentile=False``, which skips counting the
    distributions). Points are as claimed: under exact-out a count that could not
    be pegged still counts. Averages are None when there is nothing to average.

    Players are told apart by name, ignoring case (the first spelling is shown);
    a partnership is its two players in either order. Rows are sorted by wins,
    then games, then name; players first. ValueError if a record is not one
    game's lines (a line that does not read, a second game line).

    What it takes is what the ledger's reader (``ledger.reader.LedgerReader``) gives, as plain data:

    - a **record**: one game's lines, header first, as ``LedgerReader.export(game_id)``
      returns them (``["game six-card seats=Alice,Bob dealer=Alice", "peg Bob 2", ...]``);
      comment lines and blank lines are skipped;
    - **records**: a list of records, e.g.
      ``[reader.export(game.id) for game in reader.games()]`` (every game but the
      live one; a record of a game that did not end counts as abandoned);
    - **times** are not needed here: ``LedgerReader.times(game_id).entries`` is
      aligned with ``record[1:]`` as ``race()["scores"]`` is, so a caller zips them.

    >>> game = ["game six-card seats=Alice,Bob dealer=Alice target=31", "peg Bob 2", "hand Bob 12",
    ...         "hand Alice 8", "crib 4", "heels", "peg Alice 15", "hand Alice 24"]
    >>> alice = player_stats([game], percentile=False)[0]
    >>> alice["name"], alice["wins"], alice["hands"], alice["best_hand"]
    ('Alice', 1, [8, 24], 24)
    """
    tally = PlayerTally()
    for record in games:
        tally.add(record)
    return tally.rows(percentile)


class _Figures(NamedTuple):
    """What one game gives the statistics (see _figures)."""

    sides: tuple[tuple[str, tuple[str, ...]], ...]  # (side, its seats)
    side_of: dict[str, str]  # seat -> side
    winner: str | None
    losers: tuple[tuple[str, bool], ...]  # (side, skunked)
    deals: int
    hand_size: int
    hands: tuple[tuple[str, int], ...]  # (seat, points)
    cribs: tuple[tuple[str, int], ...]
    seats: tuple[tuple[str, int, int], ...]  # (seat, play points, heels)


@lru_cache(maxsize=16384)
def _figures(record: tuple[str, ...]) -> _Figures:
    """What one game gives the statistics, replayed once and kept (the last 16,384
    games seen): a finished game's record never changes, so statistics shown again
    replay only the games not seen before."""
    game = _replay(record)
    outcome = game.outcome
    pegged = game.pegged
    seats = tuple(
        (seat,
         sum(e.points for e in pegged if e.seat == seat and e.kind in _PLAY),
         sum(1 for e in pegged if e.seat == seat and e.kind is EntryKind.HEELS))
        for seat in game.seats
    )
    return _Figures(
        sides=tuple((side.name, side.seats) for side in game.sides),
        side_of={seat: side.name for side in game.sides for seat in side.seats},
        winner=outcome.winner if outcome else None,
        losers=tuple((loser.side, loser.kind.value in SKUNKS) for loser in outcome.losers) if outcome else (),
        deals=max((entry.deal for entry in pegged), default=0),
        hand_size=game.variant.hand_size,
        hands=tuple((e.seat, e.points) for e in pegged if e.kind is EntryKind.HAND),
        cribs=tuple((e.seat, e.points) for e in pegged if e.kind is EntryKind.CRIB),
        seats=seats,
    )


def percentiles(distribution: dict[int, int]) -> dict[int, float]:
    """Each total's mid-rank percentile in a distribution ``{total: how many}``:
    100 x (how many score less + half of how many score the same) / all. The mean
    percentile of a total drawn from the distribution itself is exactly 50."""
    everyone = sum(distribution.values())
    if everyone <= 0:
        raise ValueError("an empty distribution: nothing to place a hand in")
    placed, below = {}, 0
    for total in sorted(distribution):
        count = distribution[total]
        placed[total] = 100.0 * (below + count / 2) / everyone
        below += count
    return placed


@lru_cache(maxsize=None)
def _table(hand_size: int) -> tuple[float, ...]:
    """The percentile of each total 0..highest of ``hand_size``-card hands (counted on
    first use; a total no hand scores gets the same formula, nothing scoring the same)."""
    from .distribution import distribution  # counting every hand is slow: only when asked

    counts = distribution(hand_size, False)
    return tuple(percentiles({t: counts.get(t, 0) for t in range(max(counts) + 1)}).values())


def hand_percentile(counts: Iterable[int], hand_size: int) -> float:
    """Where a player's hands ran: the mean, over ``counts`` (hand totals, starter
    included), of each total's mid-rank percentile among all ``hand_size``-card
    hands with a starter from a full pack (the exact distribution
    ``scorer.distribution.distribution(hand_size)``, 12,994,800 hands for 4 cards):
    100 x (P(a hand scores less) + P(a hand scores the same) / 2). A run of cards
    like the pack's own averages 50; a 29 hand is at 99.99998, a 0 at 3.9 (4 cards).
    Raises ValueError without counts.

    >>> round(hand_percentile([12, 8], 4))
    91
    """
    counts = list(counts)
    if not counts:
        raise ValueError("no hand counts to place")
    table = _table(hand_size)
    return sum(_place(table, total) for total in counts) / len(counts)


def _place(table: tuple[float, ...], total: int) -> float:
    """A total's percentile from ``_table``: 0 below every hand, 100 above every hand."""
    if total < 0:
        return 0.0
    return table[total] if total < len(table) else 100.0
