"""Pickers: the count checker (cards by rank and suit, then the breakdown) and the name picker.

:class:`CountChecker` is check my count, :class:`Breakdown` its pages, :class:`NamePicker` the
name picker.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from PIL import Image, ImageDraw

from hardware.inputs import COLOUR_BUTTONS, KNOB, InputEvent
from scorer.cards import RANK_NAMES, Card
from scorer.counting import CRIB_SIZE, Score, score_hand
from scorer.game import EntryKind, Game, PeggedEntry

from ..config import MAX_NAME
from .panels import CHECK_MY_COUNT, COUNT_CHECKED, NAMING_A_PLAYER, PanelHost, is_back
from .screens import WIDTH, Screen, font

SUIT_OF_BUTTON = dict(zip(COLOUR_BUTTONS, "CDHS"))  # red clubs, blue diamonds, green hearts, yellow spades
SUIT_LEGEND = "red:C, blue:D, green:H, yellow:S"  # wraps as two pairs a line beside the rank
LINE_PIXELS = WIDTH - 2
PAGE_LINES = 4  # item lines on a breakdown page (title + 4 lines, no footer)
START_RANK = 5


@lru_cache(maxsize=1)
def _measure() -> ImageDraw.ImageDraw:
    return ImageDraw.Draw(Image.new("1", (1, 1)))


def fits(text: str, size: int = 10, pixels: int = LINE_PIXELS) -> bool:
    """Whether ``text`` fits a line of the OLED in the body font."""
    return _measure().textlength(text, font=font(size)) <= pixels


def rank_name(rank: int) -> str:
    return RANK_NAMES.get(rank, str(rank))


def cards_text(hand, starter) -> str:
    return " ".join(str(c) for c in hand) + (f" + {starter}" if starter is not None else "")


def wrap_pixels(text: str, indent: str = "  ") -> list[str]:
    """``text`` as lines that each fit the OLED, broken between words (continuations indented)."""
    lines, current = [], ""
    for word in text.split():
        trial = f"{current} {word}" if current else word
        if current and not fits(trial):
            lines.append(current)
            trial = indent + word
        current = trial
    lines.append(current)
    return lines


_PHRASES = {"fifteen": "fifteen", "pair": "pair", "run": "run", "flush": "flush", "nobs": "nobs"}
_GROUPS = {"fifteen": "fifteens", "pair": "pairs", "run": "runs", "flush": "flush", "nobs": "nobs"}


def item_lines(score: Score) -> list[list[str]]:
    """Each scoring item as the players say it, with the running total: ["fifteen 2: 5C JC"], ..."""
    out, running = [], 0
    for item in score.items:
        running += item.points
        text = f"{_PHRASES.get(item.kind, item.kind)} {running}: {' '.join(str(c) for c in item.cards)}"
        out.append(wrap_pixels(text))
    return out


@dataclass(frozen=True)
class Claim:
    """A muggins claim the checked count makes possible: ``seat`` pegged ``pegged`` for its ``what``."""

    seat: str
    what: str  # hand or crib
    pegged: int
    missed: int


def claimable_count(game: Game | None) -> PeggedEntry | None:
    """The hand or crib just counted, when muggins may be claimed on it."""
    if game is None or game.is_over or not game.options.muggins or game.state.last_count is None:
        return None
    counted = game.pegged[game.state.last_count]
    return counted if counted.kind in (EntryKind.HAND, EntryKind.CRIB) else None


def claim_for(game: Game | None, crib: bool, total: int) -> Claim | None:
    """The claim a checked total makes on the count just pegged (the same kind, for fewer points)."""
    counted = claimable_count(game)
    if counted is None or (counted.kind is EntryKind.CRIB) != crib or total <= counted.points:
        return None
    return Claim(counted.seat, counted.kind.value, counted.points, total - counted.points)


def checks_a_crib(game: Game) -> bool:
    """Whether the checker opens on a crib: the crib was just counted (muggins on), or it is next."""
    counted = claimable_count(game)
    if counted is not None:
        return counted.kind is EntryKind.CRIB
    upcoming = game.next_count()
    return upcoming is not None and upcoming[1] == "crib"


def _paged(lines: list[str]) -> list[list[str]]:
    """Lines in pages of PAGE_LINES."""
    return [lines[k:k + PAGE_LINES] for k in range(0, len(lines), PAGE_LINES)]


class Breakdown:
    """The checked count, paged: a summary, then every item with the running total."""

    def __init__(self, hand: list[Card], starter: Card, crib: bool, claim: Claim | None = None):
        self.hand, self.starter, self.crib = list(hand), starter, crib
        self.score = score_hand(hand, starter, crib=crib)
        self.other: int | None = None  # the same cards counted the other way, when that differs
        if len(hand) == CRIB_SIZE:
            other = score_hand(hand, starter, crib=not crib).total
            self.other = other if other != self.score.total else None
        self.claim = claim
        summary = self._summary()  # its first page has a footer: one line fewer
        self.pages = [summary[:PAGE_LINES - 1]] + _paged(summary[PAGE_LINES - 1:]) + self._item_pages()

    @property
    def total(self) -> int:
        return self.score.total

    @property
    def kind(self) -> str:
        return "crib" if self.crib else "hand"

    def _summary(self) -> list[str]:
        lines = wrap_pixels(cards_text(self.hand, self.starter))
        if not self.score.items:
            lines.append("nineteen: no points")
        else:
            lines += wrap_pixels(", ".join(f"{_GROUPS[kind]} {points}" for kind, points in self._by_kind()), "")
        if self.other is not None:
            lines.append(f"as a {'hand' if self.crib else 'crib'}: {self.other}")
        if self.claim is not None:
            lines += wrap_pixels(f"{self.claim.seat} pegged {self.claim.pegged}: +{self.claim.missed}")
        return lines

    def _by_kind(self) -> list[tuple[str, int]]:
        """Points per kind of item, in the order they are counted."""
        points: dict[str, int] = {}
        for item in self.score.items:
            points[item.kind] = points.get(item.kind, 0) + item.points
        return list(points.items())

    def _item_pages(self) -> list[list[str]]:
        pages: list[list[str]] = []
        for lines in item_lines(self.score):
            if not pages or len(pages[-1]) + len(lines) > PAGE_LINES:
                pages.append([])
            pages[-1].extend(lines)
        return pages

    def screen(self, page: int) -> Screen:
        number = f"{page + 1}/{len(self.pages)}"
        title = f"{self.kind.capitalize()} {self.total}  {number}"
        if page:
            return Screen(title=title, lines=tuple(self.pages[page]))
        if self.claim is not None:
            footer = f"colour: claim {self.claim.missed}"
        elif len(self.pages) > 1:
            footer = "turn: items, knob: done"
        else:
            footer = "knob: done"
        return Screen(title=title, lines=tuple(self.pages[0]), footer=footer)

    def say(self) -> str:
        """One line for the footer once the checker closes."""
        return f"Checked {self.kind}: {self.total}"


class CountChecker:
    """Check my count: cards by rank (the knob) and suit (a colour button), then the breakdown.

    Check my count: turn the knob to a card's rank, press a colour button for its
    suit (red clubs, blue diamonds, green hearts, yellow spades); the hand's
    cards, then the starter (or hold the suit's button to enter the starter at
    any point). The knob switches between a hand and a crib (a crib counts only a
    five-card flush, and has 4 cards in every game). Then the breakdown, paged
    with the knob: every fifteen, pair, run, flush and nobs with the running
    total. With muggins on, a count just pegged for less can be claimed from it.
    """

    def __init__(self, host: PanelHost, hand_size: int, crib: bool = False):
        self.host = host
        self.hand_size = hand_size
        self.crib = crib
        self.hand: list[Card] = []
        self.starter: Card | None = None
        self.rank = START_RANK
        self.result: Breakdown | None = None
        self.page = 0

    @property
    def screen_name(self) -> str:
        """Check my count while the cards are picked, count checked once the breakdown shows."""
        return CHECK_MY_COUNT if self.result is None else COUNT_CHECKED

    @property
    def size(self) -> int:
        """Cards in the hand or crib (the starter apart)."""
        return CRIB_SIZE if self.crib else self.hand_size

    @property
    def kind(self) -> str:
        return "crib" if self.crib else "hand"

    # ---- input -----------------------------------------------------------

    def handle(self, event: InputEvent) -> None:
        if self.result is not None:
            self._result_event(self.result, event)
        elif event.kind == "turn":
            self.rank = (self.rank - 1 + event.steps) % 13 + 1
        elif event.source in SUIT_OF_BUTTON and event.kind in ("click", "hold"):
            self.add(Card(self.rank, SUIT_OF_BUTTON[event.source]), starter=event.kind == "hold")
        elif event.kind == "click" and event.source == KNOB:
            self.switch_kind()
        elif event.kind == "click" and event.source == "undo" and (self.hand or self.starter):
            self.take_back()
        elif is_back(event):
            self.host.back()

    def add(self, card: Card, starter: bool = False) -> None:
        """One more card: the hand's until it is full, then the starter (``starter``: this one is)."""
        if card in self.hand or card == self.starter:
            self.host.say(f"{card} is in already: each card is in the pack once", alert=True)
            return
        if starter and self.starter is not None:
            self.host.say(f"The starter is {self.starter} already: undo takes cards back", alert=True)
            return
        if starter or len(self.hand) == self.size:
            self.starter = card
        else:
            self.hand.append(card)
        self._count_when_complete()

    def _count_when_complete(self) -> None:
        """The breakdown, once the hand (or crib) and the starter are in."""
        if len(self.hand) == self.size and self.starter is not None:
            total = score_hand(self.hand, self.starter, crib=self.crib).total
            self.result = Breakdown(self.hand, self.starter, self.crib, claim_for(self.host.game, self.crib, total))
            self.page = 0

    def switch_kind(self) -> None:
        """Hand to crib and back (the crib has 4 cards in every game)."""
        size = self.hand_size if self.crib else CRIB_SIZE
        if len(self.hand) > size:
            self.host.say(f"A {'hand' if self.crib else 'crib'} has {size} cards: undo one first", alert=True)
            return
        self.crib = not self.crib
        self._count_when_complete()

    def take_back(self) -> None:
        """Undo: the last card entered (the starter if it is set)."""
        self.result = None
        if self.starter is not None:
            self.starter = None
        else:
            self.hand.pop()

    def _result_event(self, result: Breakdown, event: InputEvent) -> None:
        if event.kind == "turn":
            self.page = max(0, min(len(result.pages) - 1, self.page + event.steps))
        elif event.kind == "click" and event.source == KNOB:
            self.host.count_checked(result.total, result.say())
        elif event.kind == "click" and event.source in COLOUR_BUTTONS and result.claim is not None:
            self.host.claim_muggins(COLOUR_BUTTONS.index(event.source), result.claim.missed)
        elif event.kind == "click" and event.source == "undo":
            self.take_back()
        elif is_back(event):
            self.host.back()

    # ---- the screen ------------------------------------------------------

    def screen(self) -> Screen:
        if self.result is not None:
            return self.result.screen(self.page)
        kind = self.kind.capitalize()
        if len(self.hand) < self.size:
            title = f"{kind}: card {len(self.hand) + 1} of {self.size}"
        else:
            title = f"{kind}: the starter"
        if self.hand:
            shown = cards_text(self.hand, self.starter)
        elif self.starter is not None:
            shown = f"starter {self.starter}"
        else:
            shown = "turn: rank; button: suit"
        return Screen(
            title=title,
            lines=(shown,),
            big=rank_name(self.rank),
            big_caption=SUIT_LEGEND,
            footer=f"knob: {'hand' if self.crib else 'crib'}, undo: del",
        )


LETTERS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
SPACE, DELETE, DONE = "space", "delete", "done"
CHOICES = LETTERS + (SPACE, DELETE, DONE)
SHOWN = {SPACE: "spc", DELETE: "del", DONE: "OK"}


def typed(name: str, choice: str) -> str:
    """The name after typing a letter or space: capitals start each word; a space is a hyphen
    (a seat name is one word in the game record)."""
    if choice == SPACE:
        return name + "-" if name and not name.endswith("-") else name
    letter = choice if not name or name.endswith("-") else choice.lower()
    return name + letter


class NamePicker:
    """A player's name, letter by letter: turn to a letter, press the knob to type it."""

    screen_name = NAMING_A_PLAYER

    def __init__(self, host: PanelHost, seat: int, done: Callable[[int], None]):
        self.host = host
        self.seat = seat
        self.done = done
        names = host.settings.players
        self.name = names[seat] if seat < len(names) else ""
        self.cursor = CHOICES.index(DONE) if self.name else 0

    @property
    def choice(self) -> str:
        return CHOICES[self.cursor]

    def handle(self, event: InputEvent) -> None:
        if event.kind == "turn":
            self.cursor = (self.cursor + event.steps) % len(CHOICES)
        elif event.kind == "click" and event.source == KNOB:
            self.press()
        elif event.kind == "click" and event.source == "undo":
            self.name = self.name[:-1]
        elif is_back(event):
            self.host.back()

    def press(self) -> None:
        choice = self.choice
        if choice == DELETE:
            self.name = self.name[:-1]
        elif choice == DONE:
            self.finish()
        elif len(self.name) >= MAX_NAME:
            self.host.say(f"A name has at most {MAX_NAME} letters: choose done", alert=True)
        else:
            self.name = typed(self.name, choice)

    def finish(self) -> None:
        name = self.name.strip("-")
        if not name:
            self.host.say("Type a name first: turn to a letter, press the knob", alert=True)
            return
        others = [n.lower() for i, n in enumerate(self.host.settings.players) if i != self.seat]
        if name.lower() in others:
            self.host.say(f"{name} is taken: give each player their own name", alert=True)
            return
        self.host.set_player(self.seat, name)
        self.done(self.seat)

    def screen(self) -> Screen:
        return Screen(
            title=f"{COLOUR_BUTTONS[self.seat]} button's name",
            lines=(f"name: {self.name}_",),
            big=SHOWN.get(self.choice, self.choice),
            big_caption="turn to a letter, then press the knob",
            footer="undo: del, menu: cancel",
        )
