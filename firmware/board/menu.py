"""The board's menus: a list with a cursor, and the menu tree the controller offers.

A :class:`Menu` is one screen of items; :class:`MenuTree` builds the board's menus from the
controller's settings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable

from hardware import BUNDLED_LAYOUTS
from hardware.inputs import COLOUR_BUTTONS, KNOB, InputEvent
from scorer.variants import VARIANTS, SkunkLines, Variant

from .. import WEB_PORT
from ..palette import PALETTE_NAMES
from .panels import MENU, PanelHost, is_back
from .screens import Screen

if TYPE_CHECKING:
    from .phones import Phones

VISIBLE = 4  # menu lines on the OLED
# A rename while a game is under way: the Players menu's footer, and the board's when it closes.
NAMES_NEXT_GAME = "New names: next game"
# When an option applies: the note under it in the Options menu.
APPLIES_NOW, APPLIES_NEXT_GAME = "applies at once", "applies next game"
ON = {True: "on", False: "off"}


@dataclass(frozen=True)
class Item:
    """One line of a menu: its label, what choosing it does, and why it cannot be chosen ("" if it can)."""

    label: str
    action: Callable[[], None]
    reason: str = ""
    note: str = ""  # shown under the items while the cursor is on it (when an option applies)


class Menu:
    """A list of items with a cursor; turning moves, pressing the knob chooses.

    A :class:`Menu` is one screen of items; turning moves the cursor (round from the
    last item to the first and back), pressing the knob chooses, the menu or undo
    button goes back a menu, and holding the knob leaves the menus. Every menu has
    its way out at the top (Close, Back or No); a list opens on the item below it
    (or on the current choice), a question on No. An
    item that cannot be chosen carries its reason, shown when the cursor is on it;
    an item may carry a note (when an option applies), shown the same way.
    :class:`MenuTree` builds the board's menus from the controller's settings.
    """

    screen_name = MENU

    def __init__(self, host: PanelHost, title: str, items: list[Item], cursor: int = 0, note: str = ""):
        self.host = host
        self.title = title
        self.items = items
        self.cursor = cursor % len(items)
        self.note = note  # a line under the items (e.g. what a Yes abandons)

    @property
    def current(self) -> Item:
        return self.items[self.cursor]

    def turn(self, steps: int) -> None:
        self.cursor = (self.cursor + steps) % len(self.items)

    def choose(self) -> None:
        self.current.action()

    def handle(self, event: InputEvent) -> None:
        if event.kind == "turn":
            self.turn(event.steps)
        elif event.kind == "click" and event.source == KNOB:
            self.choose()
        elif event.kind == "hold" and event.source == KNOB:
            self.host.close_panels()  # a hold of the knob leaves the menus, however deep
        elif is_back(event):
            self.host.back()

    def screen(self) -> Screen:
        """Four items around the cursor; on an item that cannot be chosen, two items and its reason;
        on an item with a note, three and the note."""
        current = self.current
        footer = current.reason or current.note or self.note
        shown = VISIBLE if not footer else VISIBLE - 1 if footer == current.note else VISIBLE - 2
        first = max(0, min(self.cursor - 1, len(self.items) - shown))
        window = self.items[first:first + shown]
        labels = tuple(f"({item.label})" if item.reason else item.label for item in window)
        return Screen(title=self.title, lines=labels, highlight=self.cursor - first, footer=footer)


def layout_with(tracks: int) -> str:
    """The bundled layout with that many tracks: the one to name when a variant needs more
    tracks than the board has."""
    return BUNDLED_LAYOUTS.get(tracks, f"one with {tracks} tracks")


def tracks_reason(variant: Variant, tracks: int) -> str:
    """Why a board with ``tracks`` tracks cannot show a variant, and the layout that would; "" if it can."""
    if variant.sides <= tracks:
        return ""
    return f"needs {variant.sides} tracks: layout {layout_with(variant.sides)}"


def players_reason(variant: Variant, named: int) -> str:
    """Why a variant cannot start with ``named`` players named; "" if it can."""
    if variant.players <= named:
        return ""
    return f"needs {variant.players} players: name them in Players"


DISPLAY_MODES = {"full": "full", "scores": "large scores"}  # config display.mode -> its menu name
OPTION_NAMES = {"exact_out": "Exact-out", "skunk": "Skunk lines"}


class MenuTree:
    """The board's menu and its sub-menus, built from the controller's settings each time they open;
    ``phones``: the phones paired with seats (None: the board has no socket for them), whose
    pairing code the Phones menu shows with the web view's address on ``web_port``."""

    def __init__(self, host: PanelHost, phones: Phones | None = None, web_port: int = WEB_PORT):
        self.host = host
        self.seat_phones = phones
        self.web_port = web_port

    def main(self) -> Menu:
        host = self.host
        settings = host.settings
        return Menu(host, "Menu", [
            # The way out at the top; the menu opens on New game, one turn back from it is Close.
            Item("Close", host.close_panels),
            Item("New game", self.new_game),
            Item("New match", self.new_match),
            Item(f"Variant: {settings.variant}", self.variants),
            Item(f"First dealer: {settings.first_dealer}", self.dealers),
            Item("Options", self.options),
            Item(f"Brightness: {round(host.options.brightness * 10)}", self.brightness),
            Item("Check my count", host.check_count),
            Item("Shut down", self.shut_down),
            Item("Players", self.players),
            Item("Phones", self.phones),
            Item(f"Display: {DISPLAY_MODES[host.options.display_mode]}", self.display),
        ], cursor=1)

    # ---- confirmations ---------------------------------------------------

    def confirm(self, question: str, action: Callable[[], object], note: str = "") -> None:
        """No / Yes; Yes closes the menus, then acts."""
        host = self.host

        def yes():
            host.close_panels()
            action()
        host.push(Menu(host, question, [Item("No", host.back), Item("Yes", yes)], note=note))

    def _abandons(self) -> str:
        game = self.host.game
        return "" if game is None or game.is_over or not game.pegged else "ends this game unfinished"

    def new_game(self) -> None:
        host = self.host
        if not self._abandons():
            host.close_panels()
            host.start_game()
            return
        self.confirm("Abandon this game?", host.start_game)

    def new_match(self) -> None:
        self.confirm("New match? Tally to 0", lambda: self.host.start_game(new_match=True))

    def shut_down(self) -> None:
        """Shut down, confirmed: the main loop ends and the board saves, goes dark and powers off."""
        self.confirm("Shut down the board?", self.host.request_shutdown)

    # ---- choices ---------------------------------------------------------

    def variants(self) -> None:
        """Every variant; those this board cannot show or has too few names for say why and do not start."""
        host = self.host
        items = [Item("Back", host.back)]
        for name, variant in VARIANTS.items():
            reason = tracks_reason(variant, host.max_sides) or players_reason(variant, len(host.settings.players))
            items.append(Item(name, self._variant_chosen(variant, reason), reason))
        names = list(VARIANTS)
        host.push(Menu(host, "Variant", items, 1 + names.index(host.settings.variant)))

    def _variant_chosen(self, variant: Variant, reason: str) -> Callable[[], None]:
        host = self.host

        def chosen():
            if variant.sides > host.max_sides:
                host.say(f"needs {variant.sides} tracks: layout {layout_with(variant.sides)}", alert=True)
                return
            if reason:
                host.say(f"needs {variant.players} players: name them in Players", alert=True)
                return
            self.confirm(f"Start {variant.name}?", lambda: host.start_game(variant=variant.name),
                         note=self._abandons())
        return chosen

    def dealers(self) -> None:
        host = self.host
        players = host.settings.seats()

        def pick(name):
            def chosen():
                host.settings = replace(host.settings, dealer=name)
                host.back()
                host.say(f"{name} deals first in the next new game")
            return chosen
        current = host.settings.first_dealer
        cursor = 1 + (players.index(current) if current in players else 0)
        host.push(Menu(host, "First dealer", [Item("Back", host.back)] + [Item(p, pick(p)) for p in players], cursor))

    def players(self, seat: int = 0) -> None:
        """A line per colour button with its player's name; the next free button adds a player.
        The menu opens on ``seat``'s button."""
        host = self.host
        names = host.settings.players
        items = [Item("Back", host.back)]
        for index, button in enumerate(COLOUR_BUTTONS[: len(names) + 1]):
            label = f"{button}: {names[index]}" if index < len(names) else f"{button}: add a player"
            items.append(Item(label, self._rename(index)))
        # A game under way keeps its names (its entries name its seats): the menu says when they apply.
        note = NAMES_NEXT_GAME if host.names_pending() else ""
        host.push(Menu(host, "Players", items, 1 + seat, note=note))

    def _rename(self, index: int) -> Callable[[], None]:
        def chosen():
            from .picker import NamePicker

            self.host.push(NamePicker(self.host, index, self.players_changed))
        return chosen

    def players_changed(self, index: int) -> None:
        """The players menu again (the name picker and the old list gone), on the button just named."""
        self.host.back()
        self.host.back()
        self.players(seat=index)

    def options(self, cursor: int = 1) -> None:
        """The house rules and the board's own settings. Those that change nothing pegged apply at
        once (muggins, tones, the palette); exact-out and the skunk lines from the next game."""
        host = self.host
        options, board = host.settings.options, host.options
        skunks = list(SkunkLines)
        palettes = list(PALETTE_NAMES)

        def again(at: int, said: str) -> None:
            """The options menu once more, on the item just changed, and what the change did."""
            host.back()
            self.options(cursor=at)
            host.say(said)

        def next_game(field_name: str, at: int) -> Callable[[], None]:
            def chosen():
                opts = host.settings.options
                if field_name == "skunk":
                    value = skunks[(skunks.index(opts.skunk) + 1) % len(skunks)]
                else:
                    value = not getattr(opts, field_name)
                host.settings = replace(host.settings, options=opts._replace(**{field_name: value}))
                shown = value.value if field_name == "skunk" else ON[value]
                again(at, f"{OPTION_NAMES[field_name]} {shown}: from the next new game")
            return chosen

        def muggins():
            if host.set_muggins(not host.settings.options.muggins):
                again(1, f"Muggins {ON[host.settings.options.muggins]}: from now")

        def tones():
            if not board.has_buzzer:
                host.say("no buzzer: set [buzzer] enabled", alert=True)
                return
            board.set_tones(not board.tones)
            again(2, f"Tones {ON[board.tones]}")

        def palette():
            board.set_palette(palettes[(palettes.index(board.palette) + 1) % len(palettes)])
            again(3, f"Palette: {board.palette}")

        tones_reason = "" if board.has_buzzer else "no buzzer: set [buzzer] enabled"
        host.push(Menu(host, "Options", [
            Item("Back", host.back),
            Item(f"Muggins: {ON[options.muggins]}", muggins, note=APPLIES_NOW),
            Item(f"Tones: {ON[board.tones] if board.has_buzzer else 'no buzzer'}", tones, tones_reason,
                 note=APPLIES_NOW),
            Item(f"Palette: {board.palette}", palette, note=APPLIES_NOW),
            Item(f"Exact-out: {ON[options.exact_out]}", next_game("exact_out", 4), note=APPLIES_NEXT_GAME),
            Item(f"Skunk lines: {options.skunk.value}", next_game("skunk", 5), note=APPLIES_NEXT_GAME),
        ], cursor))

    def brightness(self) -> None:
        host = self.host
        levels = [k / 10 for k in range(1, 11)]

        def pick(level):
            def chosen():
                host.options.set_brightness(level)
                host.close_panels()
                host.say(f"Brightness {round(level * 10)}")
            return chosen
        cursor = 1 + min(range(10), key=lambda k: abs(levels[k] - host.options.brightness))
        host.push(Menu(host, "Brightness", [Item("Back", host.back)] + [Item(f"{round(lv * 10)}", pick(lv))
                                                                        for lv in levels], cursor))


    def phones(self) -> None:
        """The web view's address (Phone view); pair a phone with a seat (its QR code), unpair one
        seat's phones or all. Each seat's line says whether a phone scores for it."""
        host = self.host
        seats = host.game.seats
        paired = self.seat_phones.paired_seats() if self.seat_phones is not None else set()
        items = [Item("Back", host.back), Item("Phone view", self.phone_view)]
        for index, name in enumerate(seats[: len(COLOUR_BUTTONS)]):
            mark = " (paired)" if index in paired else ""
            items.append(Item(f"Pair {name}{mark}", self._pair(index)))
        for index in sorted(paired):
            name = seats[index] if index < len(seats) else COLOUR_BUTTONS[index]
            items.append(Item(f"Unpair {name}", self._unpair(index)))
        if paired:
            items.append(Item("Unpair all", self._unpair(None)))
        host.push(Menu(host, "Phones", items, 2))

    def phone_view(self) -> None:
        """The web view's address and its QR code."""
        from .phone import PhoneView

        self.host.push(PhoneView(self.host, self.web_port))

    def _pair(self, seat: int) -> Callable[[], None]:
        return lambda: self.pair_phone(seat)

    def pair_phone(self, seat: int) -> None:
        """The QR code that pairs a phone with the player on a colour button."""
        host = self.host
        if self.seat_phones is None:
            host.say("Phones cannot pair: the board could not open their socket (see the journal)", alert=True)
            return
        from .phone import phone_address
        from .phones import PairingView

        host.push(PairingView(host, self.seat_phones, seat, host.game.seats[seat], self.seat_phones.new_code(seat),
                              phone_address(self.web_port)))

    def _unpair(self, seat: int | None) -> Callable[[], None]:
        host = self.host

        def chosen():
            gone = self.seat_phones.unpair(seat) if self.seat_phones is not None else 0
            host.back()
            self.phones()
            who = "every seat" if seat is None else host.game.seats[seat] if seat < len(host.game.seats) else "that seat"
            host.say(f"{gone} phone{'s' if gone != 1 else ''} unpaired: {who}")
        return chosen

    def display(self) -> None:
        """The OLED's mode: everything, or only large scores and whose count is next."""
        host = self.host
        modes = list(DISPLAY_MODES)

        def pick(mode):
            def chosen():
                host.options.display_mode = mode
                host.close_panels()
                host.say(f"Display: {DISPLAY_MODES[mode]}")
            return chosen
        host.push(Menu(host, "Display", [Item("Back", host.back)] + [Item(DISPLAY_MODES[m], pick(m)) for m in modes],
                       1 + modes.index(host.options.display_mode)))
