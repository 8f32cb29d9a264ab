"""The controller: input events in, ledger entries and a screen model out.

Controls, learnt in a minute:
- turn the knob to dial points; press the knob to peg them as the next count
  of the show (pone's hand, dealer's hand, crib); with 0 dialled that is a
  nineteen (no points);
- press a player's colour button to peg the dialled points to that player in
  the play; at the start of a deal, the dealer's button with nothing dialled
  pegs his heels; in the show, with muggins on, it claims missed points;
- undo button: undo; hold it: redo;
- hold the knob (or press menu): the menu.
"""

from __future__ import annotations

import textwrap
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from hardware.inputs import ENCODER, KNOB, InputEvent
from scorer.cards import Card, deck
from scorer.counting import score_hand
from scorer.errors import CribbageError
from scorer.game import Entry, Game, Phase
from scorer.record import Command, GameHeader
from scorer.store import LedgerStore
from scorer.variants import VARIANTS, Options, SkunkLines, find_variant, parse_game_points

from .views import Screen, lap_note  # lap_note: issue 13 (laps on the OLED)

COLOUR_BUTTONS = ("red", "blue", "green", "yellow")
MAX_DIAL = 60
MESSAGE_SECONDS = 4.0
NOTICE_CHARS = 22  # a line of the OLED's 10-pixel font, as text wraps
NOTICE_LINES = 4


@dataclass(frozen=True)
class GameSettings:
    """What a new game is: variant, the player names in seat order, first dealer, options."""

    variant: str = "six-card"
    players: tuple[str, ...] = ("Red", "Blue", "Green", "Yellow")
    dealer: str = ""
    options: Options = field(default_factory=Options)

    @classmethod
    def from_config(cls, game: dict) -> "GameSettings":
        options = Options(
            exact_out=game["exact_out"], muggins=game["muggins"],
            skunk=SkunkLines(game["skunk"]), points=parse_game_points(game["points"]),
        )
        return cls(game["variant"], tuple(game["players"]), game["dealer"], options)

    def header(self) -> GameHeader:
        """The game line for a new game; the first dealer only if one of the seats."""
        variant = find_variant(self.variant)
        if len(self.players) < variant.players:
            raise CribbageError(
                f"{variant.name} needs {variant.players} players: name them in [game] players"
            )
        seats = self.players[: variant.players]
        dealer = self.dealer if self.dealer in seats else None
        return GameHeader(variant, tuple(seats), dealer, self.options)


def _notice_lines(problem: str) -> tuple[str, ...]:
    """The problem wrapped for the OLED; if too long, its last clauses (the fix comes last)."""
    text = problem
    while True:
        lines = textwrap.wrap(text, NOTICE_CHARS)
        if len(lines) <= NOTICE_LINES:
            return tuple(lines)
        cuts = [at for at in (text.find(": "), text.find("; ")) if at >= 0]
        if not cuts:
            return tuple(lines[: NOTICE_LINES - 1]) + ("(more in the journal)",)
        text = text[min(cuts) + 2:]


@dataclass(frozen=True)
class Move:
    """A front peg that moved: for the LED slide."""

    side: int
    start: int
    end: int
    at: float


class Menu:
    """A list of (label, action) with a cursor; turning moves, pressing chooses."""

    def __init__(self, title: str, items: list[tuple[str, Callable[[], None]]], cursor: int = 0):
        self.title = title
        self.items = items
        self.cursor = cursor

    def turn(self, steps: int) -> None:
        self.cursor = (self.cursor + steps) % len(self.items)

    def choose(self) -> None:
        self.items[self.cursor][1]()

    def screen(self) -> Screen:
        first = max(0, min(self.cursor - 1, len(self.items) - 4))
        shown = self.items[first:first + 4]
        return Screen(
            title=self.title, lines=tuple(label for label, _ in shown),
            highlight=self.cursor - first, footer="",
        )


class Controller:
    """Turns input events into ledger entries, and keeps what the screen shows."""

    def __init__(
        self,
        store: LedgerStore,
        settings: GameSettings,
        clock: Callable[[], float] = time.monotonic,
        set_brightness: Callable[[float], None] | None = None,
        max_sides: int = 4,
    ):
        self.store = store
        self.max_sides = max_sides
        self.settings = settings
        self.clock = clock
        self.dial = 0
        self.menus: list[Menu] = []
        self.message = ""
        self.message_alert = False
        self.message_at = float("-inf")
        self.moves: list[Move] = []
        self.brightness = 1.0
        self._set_brightness = set_brightness or (lambda level: None)
        self.shutdown_requested = False
        self.finished_at: float | None = None
        self._count_cards: list[Card] = []
        self.notices: dict[str, Screen] = {}
        if store.game is None:
            self._start_game()

    # ---- the game --------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.store.game

    def say(self, text: str, alert: bool = False) -> None:
        """Show a message on the OLED footer; an alert stays until the next accepted entry."""
        self.message, self.message_alert, self.message_at = text, alert, self.clock()

    def ledger_replaced(self) -> None:
        """The ledger was set aside and started again: carry on with what it holds now."""
        self.moves = []
        self.finished_at = None
        if self.game is None:
            self._start_game()

    def show_problem(self, device: str, problem: str) -> None:
        """Show a device's problem (what to fix) until the next input, which also acts as usual."""
        self.notices[device] = Screen(title=f"{device} problem", lines=_notice_lines(problem))

    def clear_problem(self, device: str) -> None:
        self.notices.pop(device, None)

    def _apply(self, action) -> bool:
        """Send one action to the durable ledger; a refusal becomes the message."""
        before = self.game.state.scores if self.game else ()
        try:
            result = self.store.apply(action)
        except CribbageError as error:
            self.say(str(error), alert=True)
            return False
        game = self.game
        now = self.clock()
        if isinstance(action, GameHeader):
            self.say(f"New game: {game.variant.name}, {game.dealer} deals")
            self.finished_at = None
            self.moves = []
        else:
            verb = {Command.UNDO: "Undone: ", Command.REDO: "Redone: "}.get(action, "")
            self.say(verb + result.describe())
            after = game.state.scores
            self.moves = [Move(i, b, a, now) for i, (b, a) in enumerate(zip(before, after)) if a > b]
            self.finished_at = now if game.is_over else None
        self.dial = 0
        return True

    def _start_game(self, new_match: bool = False) -> bool:
        """Start a game with the current settings: the next of the match, or a new match."""
        try:
            header = replace(self.settings.header(), new_match=new_match)
        except CribbageError as error:
            self.say(str(error), alert=True)
            return False
        sides = header.variant.sides
        if sides > self.max_sides:
            self.say(f"{header.variant.name} needs a board with {sides} tracks", alert=True)
            return False
        if self.game is not None and self.game.is_over and header.same_match(self.store.book.match):
            header = replace(header, dealer=None)  # the loser deals first
        return self._apply(header)

    # ---- events ----------------------------------------------------------

    def handle(self, event: InputEvent) -> bool:
        """Act on one input event; True when the screen or LEDs should change
        (an accepted entry, or a refusal to show)."""
        if event.kind not in ("turn", "hold", "click"):
            return False
        self.notices.clear()
        if self.menus:
            self._menu_event(event)
        elif event.kind == "turn":
            self.dial = max(0, min(MAX_DIAL, self.dial + event.steps))
        elif event.kind == "hold":
            if event.source == "undo":
                self._apply(Command.REDO)
            elif event.source == KNOB:
                self.open_menu()
        elif event.source == KNOB:
            self._count_show()
        elif event.source == "undo":
            self._apply(Command.UNDO)
        elif event.source == "menu":
            self.open_menu()
        elif event.source in COLOUR_BUTTONS:
            self._colour(COLOUR_BUTTONS.index(event.source))
        else:
            return False
        return True

    def _count_show(self) -> bool:
        game = self.game
        nxt = game.next_count()
        if nxt is None:
            self.say("Game over: hold the knob for a new game", alert=True)
            return False
        seat, what = nxt
        entry = Entry.crib(self.dial, seat) if what == "crib" else Entry.hand(seat, self.dial)
        return self._apply(entry)

    def _colour(self, index: int) -> bool:
        game = self.game
        if index >= len(game.seats):
            self.say(f"No player on the {COLOUR_BUTTONS[index]} button in {game.variant.name}", alert=True)
            return False
        seat = game.seats[index]
        if self.dial == 0:
            if game.phase is Phase.HEELS and seat == game.dealer:
                return self._apply(Entry.heels())
            self.say("Dial the points first, then press", alert=True)
            return False
        if game.phase is Phase.SHOW and game.options.muggins:
            return self._apply(Entry.muggins(seat, self.dial))
        return self._apply(Entry.peg(seat, self.dial))

    # ---- the menu --------------------------------------------------------

    def open_menu(self) -> None:
        items = [
            ("New game", self._confirm_new_game),
            ("New match", self._confirm_new_match),
            (f"Variant: {self.settings.variant}", self._variant_menu),
            (f"First dealer: {self.settings.dealer or self.settings.players[0]}", self._dealer_menu),
            ("Options", self._options_menu),
            (f"Brightness: {round(self.brightness * 10)}", self._brightness_menu),
            ("Check my count", self._count_menu),
            ("Shut down", self._confirm_shutdown),
            ("Close", self._close_menus),
        ]
        self.menus = [Menu("Menu", items)]

    def _close_menus(self) -> None:
        self.menus = []

    def _push(self, menu: Menu) -> None:
        self.menus.append(menu)

    def _back(self) -> None:
        self.menus.pop()

    def _menu_event(self, event: InputEvent) -> None:
        menu = self.menus[-1]
        if event.kind == "turn":
            menu.turn(event.steps)
        elif event.kind == "click" and event.source == KNOB:
            menu.choose()
        elif (event.kind == "click" and event.source in ("menu", "undo")) or (
            event.kind == "hold" and event.source == KNOB
        ):
            self._back()

    def _confirm(self, question: str, action: Callable[[], None]) -> None:
        def yes():
            self._close_menus()
            action()
        self._push(Menu(question, [("No", self._back), ("Yes", yes)]))

    def _confirm_new_game(self) -> None:
        if self.game.is_over or not self.game.ledger:
            self._close_menus()
            self._start_game()
            return
        self._confirm("Abandon this game?", self._start_game)

    def _confirm_new_match(self) -> None:
        self._confirm("New match? Tally to 0", lambda: self._start_game(new_match=True))

    def _variant_menu(self) -> None:
        def pick(name):
            def chosen():
                self.settings = replace(self.settings, variant=name)
                self._confirm(f"Start {name}?", self._start_game)
            return chosen
        names = list(VARIANTS)
        self._push(Menu("Variant", [(n, pick(n)) for n in names], names.index(self.settings.variant)))

    def _dealer_menu(self) -> None:
        players = self.settings.players[: find_variant(self.settings.variant).players]

        def pick(name):
            def chosen():
                self.settings = replace(self.settings, dealer=name)
                self._back()
                self.say(f"{name} deals first in the next new game")
            return chosen
        self._push(Menu("First dealer", [(p, pick(p)) for p in players]))

    def _options_menu(self) -> None:
        options = self.settings.options
        skunks = [s for s in SkunkLines]

        def toggle(field_name):
            def chosen():
                opts = self.settings.options
                if field_name == "skunk":
                    value = skunks[(skunks.index(opts.skunk) + 1) % len(skunks)]
                else:
                    value = not getattr(opts, field_name)
                self.settings = replace(self.settings, options=replace(opts, **{field_name: value}))
                self._back()
                self._options_menu()
                self.say("Options apply from the next new game")
            return chosen
        on = {True: "on", False: "off"}
        self._push(Menu("Options (next game)", [
            (f"Exact-out: {on[options.exact_out]}", toggle("exact_out")),
            (f"Muggins: {on[options.muggins]}", toggle("muggins")),
            (f"Skunk lines: {options.skunk.value}", toggle("skunk")),
            ("Back", self._back),
        ]))

    def _brightness_menu(self) -> None:
        levels = [k / 10 for k in range(1, 11)]

        def pick(level):
            def chosen():
                self.brightness = level
                self._set_brightness(level)
                self._close_menus()
                self.say(f"Brightness {round(level * 10)}")
            return chosen
        cursor = min(range(10), key=lambda k: abs(levels[k] - self.brightness))
        self._push(Menu("Brightness", [(f"{round(l * 10)}", pick(l)) for l in levels], cursor))

    def _count_menu(self) -> None:
        """Check my count: pick the hand's cards, then the starter, then see the score."""
        self._count_cards = []
        self._card_picker()

    def _card_picker(self) -> None:
        """Pick the next card in two turns of the knob: its rank, then its suit."""
        size = self.game.variant.hand_size
        chosen = self._count_cards
        free = [c for c in deck() if c not in chosen]
        what = "starter" if len(chosen) == size else f"card {len(chosen) + 1} of {size}"

        def pick(card):
            def picked():
                chosen.append(card)
                self._back()
                self._back()
                if len(chosen) == size + 1:
                    self._show_count(chosen)
                else:
                    self._card_picker()
            return picked

        def rank(number):
            def suits():
                options = [c for c in free if c.rank == number]
                self._push(Menu(f"{what}: suit", [(str(c), pick(c)) for c in options]))
            return suits
        ranks = sorted({c.rank for c in free})
        names = {1: "A", 11: "J", 12: "Q", 13: "K"}
        self._push(Menu(f"Count {what}: rank", [(names.get(r, str(r)), rank(r)) for r in ranks]))

    def _show_count(self, cards) -> None:
        hand, starter = cards[:-1], cards[-1]
        score = score_hand(hand, starter)
        text = f"{' '.join(str(c) for c in hand)} + {starter}: {score.say()}"
        if len(hand) == 4:
            crib = score_hand(hand, starter, crib=True).total
            if crib != score.total:
                text += f" (as a crib: {crib})"
        self.dial = score.total
        self._close_menus()
        self.say(text)

    def _confirm_shutdown(self) -> None:
        """Shut down, confirmed: the main loop ends and the board saves, goes dark and powers off."""
        def stop():
            self.shutdown_requested = True
            self.say("Shutting down...")
        self._confirm("Shut down the board?", stop)

    # ---- what the screen shows ------------------------------------------

    def screen(self) -> Screen:
        if self.notices:  # several take turns
            shown = list(self.notices.values())
            return shown[int(self.clock() // MESSAGE_SECONDS) % len(shown)]
        if self.menus:
            return self.menus[-1].screen()
        game = self.game
        state = game.state
        scores = "  ".join(
            f"{side.name[:6]}{'*' if game.dealer in side.seats else ''} {state.scores[i]}"
            for i, side in enumerate(game.sides)
        )
        fresh = self.clock() - self.message_at < MESSAGE_SECONDS or self.message_alert
        footer = self.message if fresh else (game.ledger[-1].describe() if game.ledger else "")
        if game.outcome is not None:
            outcome = game.outcome
            kind = outcome.kind.value.replace("-", " ")
            tally = " ".join(f"{t.side[:6]} {t.game_points}" for t in self.store.book.match.tally())
            return Screen(
                title=scores,
                lines=(f"{outcome.winner} wins!", f"{kind}, by {outcome.margin}", f"match: {tally}"),
                footer=footer if self.message_alert and fresh else "hold knob: new game",
                alert=self.message_alert and fresh,
            )
        order = " > ".join(f"{seat} {what}" for seat, what in game.remaining_show())
        return Screen(
            title=scores,
            lines=(", ".join(filter(None, (f"deal {state.deal}, {state.phase.value}", lap_note(
                tuple(side.name for side in game.sides), state.scores, game.variant.target)))),),
            big=str(self.dial),
            big_caption=f"knob: {order}",
            footer=footer,
            alert=self.message_alert and fresh,
        )
