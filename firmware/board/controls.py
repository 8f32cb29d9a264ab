"""What each control does: one table for the printed controls card, the terminal board's keys and its help.

Each :class:`Control` is one gesture on one part of the board, with the keys
that stand for it on the terminal board and what each key drives (a button,
or the detents of a turn): the terminal board's key map is made from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.inputs import COLOUR_BUTTONS, KNOB
from scorer.variants import Options, ResultKind, SkunkLines, find_variant, skunk_lines

from ..config import Config


@dataclass(frozen=True)
class Control:
    """One gesture on one control: ``part`` is knob, colour (any player button), undo or menu."""

    part: str
    gesture: str  # turn, press or hold
    bindings: tuple[tuple[str, str], ...]  # (a key of the terminal board, the button it drives or a turn's detents)
    short: str  # a few words for the terminal's help line
    does: str  # what it does, for the card

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys that stand for it on the terminal board."""
        return tuple(key for key, _ in self.bindings)

    def actions(self) -> dict[str, tuple[str, str]]:
        """Each key's action on the mock board, as a simulator script spells it: ("click", "red"),
        ("hold", "undo"), ("turn", "-5")."""
        verb = GESTURE_VERBS[self.gesture]
        return {key: (verb, drives) for key, drives in self.bindings}


GESTURE_VERBS = {"turn": "turn", "press": "click", "hold": "hold"}


CONTROLS: tuple[Control, ...] = (
    Control(KNOB, "turn", ((",", "-1"), (".", "1"), ("<", "-5"), (">", "5")), "dial",
            "Dial the points (shown large on the OLED); back takes off."),
    Control(KNOB, "press", ((" ", KNOB),), "peg show count",
            "Peg the dial as the next count of the show (pone's hand, dealer's hand, crib: the OLED "
            "says whose); 0 is a nineteen."),
    Control(KNOB, "hold", (("M", KNOB),), "menu",
            "The menu."),
    Control("colour", "press", tuple(zip("rbgy", COLOUR_BUTTONS)), "peg points; heels: dealer at 0",
            "Peg the dial to this player in the play. A jack cut: the dealer's button at 0 pegs his "
            "heels (at 2 it asks). Show, muggins on: claim what the last count missed."),
    Control("colour", "hold", tuple(zip("RBGY", COLOUR_BUTTONS)), "muggins",
            "Muggins: claim the dial for this player on the count just made (hand, crib or play)."),
    Control("undo", "press", (("u", "undo"),), "undo",
            "Take back the last entry (any entry, as often as you like)."),
    Control("undo", "hold", (("U", "undo"),), "redo",
            "Redo: put back the last entry undone."),
    Control("menu", "press", (("m", "menu"),), "menu",
            "The menu."),
    Control("menu", "hold", (("c", "menu"),), "check count",
            "Check my count, any time: turn to a card's rank, press its suit's button (red clubs, "
            "blue diamonds, green hearts, yellow spades); hand, then starter. Knob: hand/crib; turn "
            "the pages; knob: total to the dial."),
)

MENU_NAVIGATION = "In the menu: turn (it wraps), knob to choose; Close (top), menu, undo: back; hold knob: leave."

# When the Pi may be unplugged after Shut down: the one instruction the menu, the controls
# card, the OLED and the docs give (tests/test_shutdown.py holds them to it). The LEDs go
# dark and the OLED changes before the Pi has halted; its green activity light (ACT)
# flickers while it shuts down and stays off once it has.
UNPLUG_WHEN = "the Pi's green light stays off"

# The controller's menu, in its order: the label (up to any ": value") and what it does.
MENU_ITEMS: tuple[tuple[str, str], ...] = (
    ("Close", "leave the menu."),
    ("New game", "the next game of the match (asks first mid-game)."),
    ("New match", "a new match: the tally back to 0."),
    ("Variant", "start another game (those the board cannot show say why)."),
    ("First dealer", "who deals first in the next new game."),
    ("Options", "muggins, tones, palette: now; exact-out, skunk lines: next game."),
    ("Brightness", "the LEDs, 1 to 10."),
    ("Check my count", "as holding the menu button."),
    ("Shut down", f"unplug once {UNPLUG_WHEN}, not when the LEDs go dark."),
    ("Players", "name each button's player, letter by letter."),
    ("Phones", "the web view's address; pair a phone with a seat, unpair."),
    ("Display", "the OLED: full, or large scores and whose count is next."),
)


def key_names(control: Control) -> str:
    """The keys as the help shows them: ``space`` for the space bar."""
    return " ".join("space" if key == " " else key for key in control.keys)


@dataclass(frozen=True)
class Button:
    """A player button on the card: its name, pin, the seat it pegs for and that side's LED colour."""

    name: str
    pin: int
    player: str | None  # None: no player on this button in the game
    colour: tuple[int, int, int]


@dataclass(frozen=True)
class ControlsCard:
    """Everything the printed card shows, taken from the board's config."""

    game: str  # "six-card to 121; Alice deals first"
    options: str  # "muggins on; skunk under 91, double under 61; game points: win 2, ..." (options on only)
    buttons: tuple[Button, ...]
    pins: dict[str, int]  # knob A, knob B, knob press, undo, menu
    hold_s: float
    controls: tuple[Control, ...]
    menu: tuple[tuple[str, str], ...]
    source: str  # where the config came from: "default config with 2 --set"


def controls_card(config: Config) -> ControlsCard:
    """The card for this config: players and colours per button, pins, hold time, options."""
    game, inputs = config.game, config.inputs
    pins = inputs.pins()
    variant = find_variant(game.variant)
    players = game.seats()
    colours = config.leds.colours
    buttons = []
    for seat, name in enumerate(COLOUR_BUTTONS):
        player = players[seat] if seat < len(players) else None
        side = seat % variant.sides if player else seat  # partners share their side's colour
        buttons.append(Button(name, pins.buttons[name], player, colours[side % len(colours)]))
    options = game.options
    return ControlsCard(
        game=f"{variant.name} to {variant.target}; {game.first_dealer} deals first"
        + ("; partners share a colour" if variant.partnership else ""),
        options="; ".join([*(f"{name} on" for name, set_on in (("exact-out", options.exact_out),
                                                                ("muggins", options.muggins)) if set_on),
                           skunk_words(variant.target, options.skunk), game_points_words(options)]),
        buttons=tuple(buttons),
        pins={"knob A": pins.encoder_a, "knob B": pins.encoder_b,
              "knob press": pins.encoder_button, "undo": pins.buttons["undo"], "menu": pins.buttons["menu"]},
        hold_s=pins.hold_s,
        controls=CONTROLS,
        menu=tuple(item for item in MENU_ITEMS if item[0] != "Close"),  # MENU_NAVIGATION says it
        source=_source(config.sources),
    )


def _kind_words(kind: ResultKind) -> str:
    return kind.value.replace("-", " ")


def skunk_words(target: int, lines: SkunkLines) -> str:
    """The skunk lines in words, by the loser's score: "skunk under 91, double under 61"; "no skunks"."""
    found = skunk_lines(target, lines)
    if not found:
        return "no skunks"
    first, *rest = found
    return ", ".join([f"{_kind_words(first.kind)} under {first.below}"]
                     + [f"{_kind_words(line.kind).split()[0]} under {line.below}" for line in rest])


def game_points_words(options: Options) -> str:
    """What a game is worth to the match, for the results these skunk lines make: "game points:
    win 2, skunk 3, double 3"."""
    kinds = [ResultKind.WIN] + [line.kind for line in skunk_lines(121, options.skunk)]
    return "game points: " + ", ".join(
        f"{_kind_words(kind).split()[0]} {options.points.for_kind(kind)}" for kind in kinds)


def _source(sources: tuple[str, ...]) -> str:
    """The config file the card is for, and how many --set overrides changed it."""
    files = [s for s in sources if not s.startswith("--set ")]
    sets = len(sources) - len(files)
    return files[-1] + (f" with {sets} --set" if sets else "")
