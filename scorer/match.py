"""A match: games in a row between the same seats, the loser of one dealing first in the next,
with each side's tally of wins and game points."""

from __future__ import annotations

from typing import NamedTuple

from .errors import SetupError
from .game import Game, Outcome
from .variants import Options, Variant


class Tally(NamedTuple):
    """A side's standing in the match: ``side``, ``wins`` and ``game_points``. Immutable."""

    side: str
    wins: int
    game_points: int


class Standing(NamedTuple):
    """Finished games of a match as counts, all the tally needs of them: how many
    (``games``), each winning side's wins and game points (``wins``: (side, wins,
    game points) triples) and the games replaced by the next before they ended
    (``abandoned``: they count for nobody). Immutable.

    >>> Standing(games=1, wins=(("Bob", 1, 3),), abandoned=0).games
    1
    """

    games: int = 0
    wins: tuple[tuple[str, int, int], ...] = ()
    abandoned: int = 0

    def add(self, outcome: Outcome | None) -> "Standing":
        """This standing with one more game: finished, or abandoned (``outcome`` None)."""
        if outcome is None:
            return self._replace(abandoned=self.abandoned + 1)
        table = {side: (won, points) for side, won, points in self.wins}
        won, points = table.get(outcome.winner, (0, 0))
        table[outcome.winner] = (won + 1, points + outcome.game_points)
        return Standing(self.games + 1, tuple((side, w, p) for side, (w, p) in table.items()),
                        self.abandoned)

    def of(self, side: str) -> tuple[int, int]:
        """(wins, game points) of a side."""
        for name, won, points in self.wins:
            if name == side:
                return won, points
        return 0, 0


class Match:
    """Games in a row between the same seats: the loser of one deals first in the next.

    >>> from scorer.variants import find_variant
    >>> from scorer.game import Entry, EntryKind
    >>> match = Match(find_variant("six-card", 31), ["Alice", "Bob"], dealer="Alice")
    >>> _ = match.game.push(Entry(EntryKind.PEG, "Bob", 2))
    >>> _ = match.game.push(Entry(EntryKind.HAND, "Bob", 29))
    >>> match.games_played(), match.next_dealer()
    (1, 'Alice')
    >>> match.tally()
    [Tally(side='Alice', wins=0, game_points=0), Tally(side='Bob', wins=1, game_points=3)]
    """

    def __init__(
        self,
        variant: Variant,
        seats: list[str] | tuple[str, ...],
        dealer: str | None = None,
        options: Options | None = None,
        results: list[Outcome] | None = None,
        earlier: Standing | None = None,
    ):
        self.game = Game(variant, seats, dealer, options)
        self.results: list[Outcome] = list(results or [])
        self.earlier = earlier or Standing()  # finished games before ``results``, as counts
        self.abandoned = 0  # games of ``results``' time replaced before they ended

    @property
    def variant(self) -> Variant:
        return self.game.variant

    @property
    def options(self) -> Options:
        return self.game.options

    @property
    def seats(self) -> tuple[str, ...]:
        return self.game.seats

    def next_dealer(self) -> str:
        """Who deals first in the next game: a seat of the last game's loser."""
        game = self.game
        if game.outcome is None:
            return game.first_dealer
        losing = next(side for side in game.sides if side.name == game.outcome.loser)
        return losing.seats[0]

    def new_game(self, dealer: str | None = None) -> Game:
        """Finish this game into the tally and start the next one.

        A game not yet over is abandoned: it counts for nobody, and as abandoned
        if anything was entered in it (a game replaced at once was never played)."""
        game = self.game
        if game.outcome is not None:
            expected = self.next_dealer()
            if dealer is not None and dealer.strip().lower() != expected.lower():
                raise SetupError(f"{game.outcome.loser} lost the last game: {expected} deals first")
            self.results.append(game.outcome)
            dealer = expected
        elif game.played:
            self.abandoned += 1
        self.game = Game(game.variant, game.seats, dealer, game.options)
        return self.game

    def tally(self) -> list[Tally]:
        """Wins and game points of each side, over the finished games of the match
        (the current game counts once it is over)."""
        results = list(self.results)
        if self.game.outcome is not None:
            results.append(self.game.outcome)
        tallies = []
        for side in self.game.sides:
            won, points = self.earlier.of(side.name)
            tallies.append(Tally(
                side.name,
                won + sum(1 for r in results if r.winner == side.name),
                points + sum(r.game_points for r in results if r.winner == side.name),
            ))
        return tallies

    def games_played(self) -> int:
        """Finished games of the match (the current one once it is over); abandoned ones are not."""
        return self.earlier.games + len(self.results) + (1 if self.game.outcome is not None else 0)

    def games_abandoned(self) -> int:
        """Games of the match replaced by the next before they ended."""
        return self.earlier.abandoned + self.abandoned
