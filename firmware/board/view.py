"""One view of a game's state, built once per change: what the LEDs, the OLED and the terminal board draw (pure).

:meth:`GameView.of` works each fact out once from the game: the sides' scores,
back pegs and laps, the dealer's side and the winner's, the game's own skunk
lines, the counts still to come, the match tally and the club's pairing. Each
fact is put into words by one function below; the OLED (:mod:`.screens`, the
controller's screen), the LEDs (:mod:`.frames`, through :attr:`GameView.board`)
and the terminal board (:mod:`firmware.board.pc.terminal`) draw from the view.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.layout import lap_of
from scorer.game import PHASE_WORDS, Game, Outcome, Phase
from scorer.variants import result_words

from .frames import BoardView


@dataclass(frozen=True)
class GameView:
    """A game as the board shows it. ``show``: the counts still to come in the deal, next
    first, as (seat, "hand"/"crib"); ``tally``: (side, game points) over the match;
    ``wins``: the match's games won, a side each in tally order (the game counters);
    ``pairing``: the club's next game ("" without a club)."""

    variant: str
    target: int
    names: tuple[str, ...]
    scores: tuple[int, ...]
    backs: tuple[int, ...]
    laps: tuple[int, ...]  # each side's lap, counted from 1
    dealer_side: int
    winner_side: int | None
    skunk_marks: tuple[int, ...]  # the game's own skunk lines: the score each starts at
    deal: int
    phase: Phase
    show: tuple[tuple[str, str], ...]
    outcome: Outcome | None
    tally: tuple[tuple[str, int], ...] = ()
    pairing: str = ""
    wins: tuple[int, ...] = ()

    @classmethod
    def of(cls, game: Game, match=None, pairing: str = "") -> "GameView":
        """The view of ``game``; ``match`` (scorer.match.Match) gives the tally."""
        state, target = game.state, game.variant.target
        names = tuple(side.name for side in game.sides)
        dealer_side = next(i for i, side in enumerate(game.sides) if game.dealer in side.seats)
        winner = None if game.outcome is None else names.index(game.outcome.winner)
        tallies = match.tally() if match is not None else ()
        tally = tuple((t.side, t.game_points) for t in tallies)
        return cls(
            game.variant.name, target, names, state.scores, state.backs,
            tuple(lap_of(score, target) for score in state.scores), dealer_side, winner,
            tuple(line.below for line in game.skunk_lines), state.deal, state.phase,
            tuple(game.remaining_show()), game.outcome, tally, pairing, tuple(t.wins for t in tallies),
        )

    @property
    def board(self) -> BoardView:
        """What the LEDs show of it (:func:`firmware.board.frames.led_frame`)."""
        return BoardView(
            self.target, self.scores, self.backs, self.dealer_side, self.winner_side, self.skunk_marks)

    @property
    def in_play(self) -> bool:
        """The play is on (or about to be: his heels): a knob press would end it."""
        return self.phase in (Phase.HEELS, Phase.PLAY)


# ---- each fact in words, by one function --------------------------------------------

def dealer_mark(view: GameView, side: int, mark: str = "*") -> str:
    """``mark`` on the dealer's side ("*" on the OLED, " (deals)" on the terminal board), else ""."""
    return mark if side == view.dealer_side else ""


def side_name(view: GameView, side: int, width: int | None = None) -> str:
    """A side's name (cut to ``width``), the dealer's marked: "Red*"."""
    name = view.names[side] if width is None else view.names[side][:width]
    return name + dealer_mark(view, side)


def scores_title(view: GameView, letters: int = 6, gap: str = "  ") -> str:
    """Every side's name (its first ``letters``) and score on one line, ``gap`` between sides, the dealer
    marked: "Red* 14  Blue 10"."""
    return gap.join(f"{side_name(view, i, letters)} {score}" for i, score in enumerate(view.scores))


def scores_titles(view: GameView) -> tuple[str, ...]:
    """:func:`scores_title` from the longest to the shortest: names of 6 letters, then of 3, then initials
    ("R* 120 B 120 G 120 Y 120"), for a screen to take the first that fits."""
    return (scores_title(view), scores_title(view, 6, " "), scores_title(view, 3, " "), scores_title(view, 1, " "))


def lap_text(view: GameView, side: int) -> str:
    """"lap 2" for a side past its first lap, else ""."""
    return f"lap {view.laps[side]}" if view.laps[side] > 1 else ""


def laps_note(view: GameView) -> str:
    """"lap 2" when every side is on the same lap past the first, else "Red lap 2" for each side past its first."""
    return _laps_words(view.names, view.laps)


def lap_note(names: tuple[str, ...], scores: tuple[int, ...], target: int) -> str:
    """:func:`laps_note` of scores on a board of ``target``: "" on the first lap."""
    return _laps_words(names, [lap_of(score, target) for score in scores])


def _laps_words(names, laps) -> str:
    if all(lap == laps[0] > 1 for lap in laps):
        return f"lap {laps[0]}"
    return ", ".join(f"{name[:6]} lap {lap}" for name, lap in zip(names, laps) if lap > 1)


def count_text(count: tuple[str, str]) -> str:
    """A count of the show: "Blue hand", "Red crib"."""
    return f"{count[0]} {count[1]}"


def show_text(view: GameView) -> str:
    """The counts still to come, next first: "Blue hand > Red hand > Red crib"."""
    return " > ".join(count_text(count) for count in view.show)


def next_text(view: GameView) -> str:
    """The next count ("Blue hand"), or "" once the game is over."""
    return count_text(view.show[0]) if view.show else ""


def won_text(view: GameView) -> str:
    """Who won and by how much, with the skunk (or lurch) if there was one: "Red wins by 12",
    "Red wins by 40, a skunk"; "" while the game is on."""
    outcome = view.outcome
    if outcome is None:
        return ""
    return result_words(outcome.winner, outcome.kind, outcome.margin, "wins")


def plural(count: int, noun: str) -> str:
    """"1 game", "2 games"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def tally_text(view: GameView) -> str:
    """The match so far, in words: "Red won 1 game (2 game points)" while one side has won,
    else every side's game points: "Game points: Red 4, Blue 2"."""
    winners = [(side, wins, points) for (side, points), wins in zip(view.tally, view.wins) if wins]
    if len(winners) == 1:
        side, wins, points = winners[0]
        return f"{side} won {plural(wins, 'game')} ({plural(points, 'game point')})"
    return "Game points: " + ", ".join(f"{side} {points}" for side, points in view.tally)


SHORT_PHASES = {Phase.HEELS: "cut", Phase.PLAY: "play", Phase.SHOW: "show", Phase.OVER: "over"}  # a phase in a word


def deal_text(view: GameView) -> str:
    """Where the deal stands: "deal 3, the play"."""
    return f"deal {view.deal}, {PHASE_WORDS[view.phase]}"


def status_texts(view: GameView, club: str = "", mark: str = "") -> tuple[str, ...]:
    """The status line under the dial, from the longest to the shortest, for a screen to take the first
    that fits: the ``club``'s connection and a ``mark`` ("RAM!") first, then the deal, where it stands and
    the laps ("club ok | deal 12, the show, Red lap 2"); then the phase in a word ("deal 12, show, Red lap 2"),
    and the laps as numbers ("deal 12, show, laps 2/2/1"); then without the laps (the LEDs show them); then tight ("club ok|RAM! d12 show")."""
    spaced = (f"{club} | " if club else "") + (f"{mark} " if mark else "")
    tight = (f"{club}|" if club else "") + (f"{mark} " if mark else "")
    laps = view.laps
    short_laps = "" if max(laps) < 2 else (f"lap {laps[0]}" if len(set(laps)) == 1 else
                                           "laps " + "/".join(map(str, laps)))
    phase = SHORT_PHASES[view.phase]
    return (spaced + ", ".join(filter(None, (deal_text(view), laps_note(view)))),
            spaced + ", ".join(filter(None, (f"deal {view.deal}", phase, laps_note(view)))),
            spaced + ", ".join(filter(None, (f"deal {view.deal}", phase, short_laps))),
            spaced + f"deal {view.deal}, {phase}",
            tight + f"d{view.deal} {phase}")
