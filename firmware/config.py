"""The board's configuration, declared once: each key is a field of its section's frozen
dataclass (:func:`key`: its default, its check and what it does).

:class:`Config` holds the sections; nothing else reads the TOML.
"""

from __future__ import annotations

import os
import re
import reprlib
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, NamedTuple, Protocol

from hardware import BACKENDS
from hardware.display import BUSES, CHIPS, DisplaySettings
from hardware.inputs import BUTTONS, DEFAULT_BUTTONS, InputPins
from hardware.layout import MAX_GAME_COUNTERS
from hardware.leds import LED_DRIVERS, SPI_PIN, PowerSettings, StripSettings
from hardware.tomlfile import MAX_BYTES, TomlFileError, read_toml
from hardware.ws2812 import DEFAULT_HZ, SPI_CLOCKS
from scorer.variants import VARIANTS, Options, SkunkLines, parse_game_points

from .errors import ConfigError
from .palette import PALETTE_NAMES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hardware.layout import Layout
    from hardware.wiring import Hookup, Wire
    from scorer.record import GameHeader

    from .club_settings import Broker

SYSTEM_CONFIG = Path("/etc/cribbage-board/config.toml")
MAX_CONFIG_BYTES = MAX_BYTES
MAX_OVERRIDE = 1000  # characters of one --set
MAX_NAME = 12  # characters of a player's name: what the OLED and the board's name picker hold (<= NAME_MOST)
RGB = tuple[int, int, int]

_shown = reprlib.Repr()  # values in messages: short, however long or deep
_shown.maxstring = _shown.maxother = 60
_shown.maxlevel = 3


# ---- checks: each returns the cleaned value or raises ValueError(reason); .allowed says what it takes ----

class Check(Protocol):
    """A key's check: the cleaned value of what the file gives, or ValueError; ``allowed`` says what it takes."""

    allowed: str

    def __call__(self, value: Any, /) -> Any: ...


class Section(Protocol):
    """A section's dataclass (or :class:`Config`, the top level): ``about`` says what it is for."""

    about: ClassVar[str]


def _allows(allowed: str) -> Callable[[Callable[[Any], Any]], Check]:
    """Marks a check with what it takes, as the reference and the default file say it."""
    def mark(check):
        check.allowed = allowed
        return check
    return mark


def _choice(*options: str) -> Check:
    def check(value):
        if not isinstance(value, str) or value.lower() not in options:
            raise ValueError(f"use one of {', '.join(repr(o) for o in options)}")
        return value.lower()
    return _allows(_or(f'"{o}"' for o in options))(check)


def _or(items) -> str:
    """``a, b or c``."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _blank_is_none(check: Check) -> Check:
    """``check``, with "" given as None (the value decided elsewhere)."""
    return _allows(check.allowed)(lambda value: check(value) or None)


@_allows("text")
def _text(value):
    if not isinstance(value, str):
        raise ValueError("must be text in quotes")
    return value


@_allows("true or false")
def _flag(value):
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _number(low: float, high: float, integer: bool = False):
    kind = f"{'a whole number' if integer else 'a number'} from {low:g} to {high:g}"
    kinds = (int,) if integer else (int, float)

    def check(value):
        if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
            raise ValueError(f"must be {kind}")
        return value
    return _allows(kind)(check)


_gpio = _number(0, 27, integer=True)  # a BCM GPIO of the 40-pin header


@_allows(f"2 to 4 names, one word each, up to {MAX_NAME} characters")
def _names(value):
    """2 to 4 players' names, each by the rule for names (scorer.names) and at most 12
    characters (what the OLED and the name picker hold), in NFC."""
    from scorer.names import name_problem, normal

    if not isinstance(value, list) or not 2 <= len(value) <= 4 or not all(isinstance(v, str) for v in value):
        raise ValueError(f"must be 2 to 4 names in quotes, one word each, up to {MAX_NAME} characters")
    names = tuple(normal(v) for v in value)
    for name in names:
        problem = name_problem(name, MAX_NAME)
        if problem:
            raise ValueError(f"{_shown.repr(name)}: {problem}")
    if len({v.lower() for v in names}) != len(names):
        raise ValueError("each player needs their own name")
    return names


@_allows('2 to 4 colours like "#ff0000"')
def _colours(value):
    if not isinstance(value, list) or not 2 <= len(value) <= 4 or not all(
        isinstance(v, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", v) for v in value
    ):
        raise ValueError('must be 2 to 4 colours like "#ff0000"')
    return tuple(tuple(int(v[i:i + 2], 16) for i in (1, 3, 5)) for v in value)


@_allows(_or(VARIANTS))
def _variant(value):
    if not isinstance(value, str) or value.lower() not in VARIANTS:
        raise ValueError(f"use one of {', '.join(VARIANTS)}")
    return value.lower()


_skunk_name = _choice(*(lines.value for lines in SkunkLines))


@_allows(_skunk_name.allowed)
def _skunk(value):
    return SkunkLines(_skunk_name(value))


@_allows('"acc", "casual", or "win/skunk/double/triple/lurch" like "1/2/3"')
def _points(value):
    if not isinstance(value, str):
        raise ValueError('must be text like "acc" or "1/2/3"')
    return parse_game_points(value)


@_allows(f"{_or(str(c) for c in SPI_CLOCKS)} (Hz)")
def _spi_hz(value):
    if isinstance(value, bool) or value not in SPI_CLOCKS:
        raise ValueError(f"use one of {', '.join(str(c) for c in SPI_CLOCKS)} (Hz)")
    return int(value)


@_allows("text")
def _login(value):
    """A broker's user name or password: text (a number, as --set club.username=3 reads, is its digits)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _text(value)


def _club_name(what: str, numbers: bool = False):
    """A club or table name: "" (no club) or one that firmware.club_settings' name rule accepts.
    With ``numbers``, a TOML number is taken as its digits (table = 3)."""
    def check(value):
        from .club_settings import club_name_problem as name_problem

        if numbers and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if value == "":
            return value
        problem = name_problem(what, value)
        if problem:
            raise ValueError(problem.partition(": ")[2])
        return value
    return _allows('"" or 1 to 32 letters, digits, - or _')(check)


# ---- the declaration ---------------------------------------------------------

class Key(NamedTuple):
    """One config key: its default as the TOML file gives it, its check, and what it does
    (one paragraph: the default file's comment and the reference's row)."""

    default: Any
    check: Check
    doc: str
    hexadecimal: bool = False  # written 0x3C


def key(default, check: Check, doc: str, hexadecimal: bool = False):
    """A section's field that is a key of the file: its default is the checked ``default``."""
    declared = Key(default, check, doc, hexadecimal)
    return field(default_factory=lambda: check(default), kw_only=True, metadata={"key": declared})


def keys(build: Callable[..., Any], **declared: Key):
    """A field made of several keys (``build`` takes them by name and gives the field's value)."""
    return field(default_factory=lambda: build(**{name: k.check(k.default) for name, k in declared.items()}),
                 kw_only=True, metadata={"keys": declared, "build": build})


def section(cls: type):
    """A field of :class:`Config` that is a section of the file, named as the field."""
    return field(default_factory=cls, kw_only=True, metadata={"section": cls})


def declared_keys(cls: type) -> dict[str, Key]:
    """A section's keys (or the top level's, for :class:`Config`), in the file's order."""
    found = {}
    for each in fields(cls):
        if "key" in each.metadata:
            found[each.name] = each.metadata["key"]
        found.update(each.metadata.get("keys", {}))
    return found


def sections() -> dict[str, type[Section]]:
    """Each section's name and dataclass; "" is the top level (:class:`Config`'s own keys)."""
    return {"": Config, **{each.name: each.metadata["section"] for each in fields(Config) if "section" in each.metadata}}


def _made(cls: type, values: dict) -> dict:
    """The fields of ``cls`` that its keys make, from their checked values."""
    made = {}
    for each in fields(cls):
        if "key" in each.metadata:
            made[each.name] = values[each.name]
        elif "keys" in each.metadata:
            made[each.name] = each.metadata["build"](**{name: values[name] for name in each.metadata["keys"]})
    return made


# ---- the sections ------------------------------------------------------------

@dataclass(frozen=True)
class GameSettings:
    """[game]: what a new game is: the variant, the player names in seat order (the
    red button's first), the first dealer ("": the first seat) and the options.
    The menus change it on the board (``dataclasses.replace``)."""

    about: ClassVar[str] = 'The game the board starts when the ledger is empty, and what "new game" uses.'

    variant: str = key("six-card", _variant, "The variant of a new game.")
    players: tuple[str, ...] = key(
        ["Red", "Blue", "Green", "Yellow"], _names,
        "Seat names, clockwise. The colour buttons follow this order: the first seat is the red button, "
        "then blue, green, yellow. Give as many as the variant has players.",
    )
    dealer: str = key("", _text, 'The first dealer; "" is the first seat.')
    options: Options = keys(
        Options,
        exact_out=Key(False, _flag, "Exact-out: the winner must reach the target exactly (docs/rules.md)."),
        muggins=Key(False, _flag, "Muggins: an opponent may claim the points a count missed (docs/rules.md)."),
        skunk=Key("acc", _skunk, "The skunk lines: American (ACC), the British lurch, ACC with the house "
                                 "triple skunk, or none (docs/rules.md)."),
        points=Key("acc", _points, "Game points: the ACC's (win 2, skunk 3), casual, or your own "
                                   "for a win, skunk, double, triple and lurch."),
    )

    @property
    def first_dealer(self) -> str:
        """The first dealer of a new game: the one chosen, or the first seat."""
        seats = self.seats()
        return self.dealer if self.dealer in seats else seats[0]

    def seats(self) -> tuple[str, ...]:
        """The named players who sit in the variant's seats."""
        from scorer.variants import find_variant

        return tuple(self.players[: find_variant(self.variant).players])

    def header(self) -> GameHeader:
        """The game line for a new game; the first dealer only if one of the seats."""
        from scorer.errors import CribbageError
        from scorer.record import GameHeader
        from scorer.variants import find_variant

        variant = find_variant(self.variant)
        if len(self.players) < variant.players:
            raise CribbageError(
                f"{variant.name} needs {variant.players} players: name them in [game] players"
            )
        seats = self.players[: variant.players]
        dealer = self.dealer if self.dealer in seats else None
        return GameHeader(variant, tuple(seats), dealer, self.options)


_POWER = PowerSettings()


@dataclass(frozen=True)
class LedsConfig:
    """[leds]: the strip and how the board lights it."""

    about: ClassVar[str] = "The LED strip under the holes, and how the board lights it."

    layout: str = key("classic-121", _text,
                      "A bundled layout (classic-121, three-track-121, four-track-121) or a layout's TOML file.")
    pin: int = key(SPI_PIN, _gpio, 'The data pin: GPIO10 (SPI MOSI) with "spi" and "auto"; with "ws281x" '
                                   "also 12, 13, 18 or 19 (PWM, needs root).")
    driver: str = key(
        "auto", _choice(*LED_DRIVERS),
        '"spi" sends the colours through /dev/spidev0.0 (the spidev package): it needs no root (only the spi '
        "group), works on every current Pi (3, 4, 5, 500, Zero 2 W) and needs no table of board revisions, "
        'which new revisions of older boards have broken in rpi_ws281x. "auto" means "spi" on every model. '
        '"ws281x" (rpi_ws281x) runs only on a Pi 4 and older, never on a Pi 5 or 500; it is the one for a PWM pin.',
    )
    spi_hz: int = key(DEFAULT_HZ, _spi_hz,
                      'The SPI clock with "spi": 2400000 makes the smallest frames (3 SPI bits per LED bit: '
                      "243 LEDs fit the kernel's default 4096-byte SPI buffer).")
    max_brightness: float = key(_POWER.max_brightness, _number(0.01, 1), "The brightest the strip is driven.")
    budget_ma: float = key(_POWER.budget_ma, _number(100, 100_000),
                           "The strip supply's budget in milliamps (keep a third of that supply spare: "
                           "4000 for a 5 V 6 A supply; hardware/README.md, Power).")
    gamma: float = key(_POWER.gamma, _number(1, 3), "The strip's gamma correction.")
    colours: tuple[RGB, ...] = key(  # one a side, in seat order (the palette's, unless "standard")
        ["#ff0000", "#0050ff", "#00c000", "#ffb000"], _colours, "One colour per side, in seat order.")
    back_peg: float = key(0.25, _number(0, 1), "The back peg's brightness beside the front peg's.")
    marks: float = key(
        0.06, _number(0, 1),
        "The brightness of the faint marks (skunk lines, game hole, the dealer's start hole). On its second "
        "lap a side's pegs are a paler shade of its colour and its start hole lights in that shade (the lap "
        "mark); on the third, paler still.",
    )
    palette: str = key(
        "standard", _choice(*PALETTE_NAMES),
        '"standard" uses [leds] colours; "colour-blind" replaces them with Okabe and Ito\'s vermillion, blue, '
        "bluish green and yellow (apart for red-green colour blindness too) and makes the back peg blink, so "
        "it is told apart by more than colour.",
    )
    game_counters: int = key(  # their LEDs after the holes'
        0, _number(0, MAX_GAME_COUNTERS, integer=True),
        "Game counters: a short row of holes a side, lit one per game won in a match (the OLED gives the "
        "whole tally). 0 (none) keeps a board built before them as it is. Their LEDs come after the last "
        "hole's, so the strip grows by this many a track; board-template --game-counters N draws where to "
        "drill them.",
    )
    standard_colours: tuple[RGB, ...] = ()  # [leds] colours as given, when a palette replaced them; else ()

    def colours_of(self, palette: str) -> tuple[RGB, ...]:
        """The side colours of a palette: "standard" is [leds] colours, the others their own."""
        if palette == "standard":
            return self.standard_colours or self.colours
        from .palette import PALETTES

        return PALETTES[palette]

    @property
    def strip(self) -> StripSettings:
        """What the strip's driver needs."""
        power = PowerSettings(self.max_brightness, self.budget_ma, self.gamma)
        return StripSettings(self.driver, self.pin, self.spi_hz, power)


_OLED = DisplaySettings()


@dataclass(frozen=True)
class DisplayConfig:
    """[display]: the OLED, and what it shows ("full", or large "scores")."""

    about: ClassVar[str] = "The 128x64 OLED beside the board."

    enabled: bool = key(True, _flag, "Whether the board has its OLED.")
    chip: str = key(_OLED.chip, _choice(*CHIPS), "The OLED's controller chip.")
    bus: str = key(_OLED.bus, _choice(*BUSES), "How the OLED is wired to the Pi.")
    i2c_port: int = key(_OLED.i2c_port, _number(0, 20, integer=True), "The I2C bus (1: the header's SDA and SCL).")
    i2c_address: int = key(_OLED.i2c_address, _number(0x03, 0x77, integer=True),
                           "The OLED's I2C address (some are 0x3D).", hexadecimal=True)
    rotate: int = key(_OLED.rotate, _number(0, 3, integer=True), "Quarter turns of the picture.")
    mode: str = key("full", _choice("full", "scores"),
                    '"full": the dial, the show order and messages; "scores": only the scores, large, and '
                    "whose count is next (menus and refusals still show in full).")

    @property
    def settings(self) -> DisplaySettings:
        """What the OLED's driver needs."""
        return DisplaySettings(chip=self.chip, bus=self.bus, i2c_port=self.i2c_port,
                               i2c_address=self.i2c_address, rotate=self.rotate)


_PINS = InputPins()


@dataclass(frozen=True)
class InputsConfig:
    """[inputs]: the GPIO (BCM) of each button and of the encoder, and the timings."""

    about: ClassVar[str] = "GPIO (BCM) numbers of the buttons and the encoder. Buttons connect the pin to ground."

    red: int = key(DEFAULT_BUTTONS["red"], _gpio, "The red button: the first seat's.")
    blue: int = key(DEFAULT_BUTTONS["blue"], _gpio, "The blue button: the second seat's.")
    green: int = key(DEFAULT_BUTTONS["green"], _gpio, "The green button: the third seat's.")
    yellow: int = key(DEFAULT_BUTTONS["yellow"], _gpio, "The yellow button: the fourth seat's.")
    undo: int = key(DEFAULT_BUTTONS["undo"], _gpio, "The undo button.")
    menu: int = key(DEFAULT_BUTTONS["menu"], _gpio, "The menu button.")
    encoder_a: int = key(_PINS.encoder_a, _gpio, "The encoder's A line (CLK).")
    encoder_b: int = key(_PINS.encoder_b, _gpio, "The encoder's B line (DT).")
    encoder_button: int = key(_PINS.encoder_button, _gpio, "The encoder's push switch (SW).")
    debounce_ms: float = key(20, _number(0, 200), "How long a press must settle, in milliseconds.")
    hold_ms: float = key(1000, _number(200, 5000), "How long a press is held to count as a hold, in milliseconds.")

    def pins(self, hold_s: float | None = None) -> InputPins:
        """What the controls need (``hold_s`` replaces the hold time: the simulator's scripts);
        ValueError, naming the pins, if two share a GPIO."""
        return InputPins(
            buttons={name: getattr(self, name) for name in BUTTONS}, encoder_a=self.encoder_a,
            encoder_b=self.encoder_b, encoder_button=self.encoder_button, debounce_s=self.debounce_ms / 1000,
            hold_s=self.hold_ms / 1000 if hold_s is None else hold_s,
        )


@dataclass(frozen=True)
class BuzzerConfig:
    """[buzzer]: a passive piezo on a PWM pin, off unless enabled."""

    about: ClassVar[str] = ("A piezo buzzer (driven by PWM through gpiozero's TonalBuzzer): short tones for an "
                            "entry taken, a refusal, a skunk line crossed and the win.")

    enabled: bool = key(False, _flag, "Off unless enabled.")
    pin: int = key(12, _gpio, "The buzzer's GPIO (a PWM pin), through its resistor (hardware/README.md).")


@dataclass(frozen=True)
class WebConfig:
    """[web]: the web view's port (the phone view's address shows it)."""

    about: ClassVar[str] = "The web view (cribbage-board web)."

    port: int = key(8121, _number(1, 65535, integer=True),
                    "The web view's port; the menu's Phone view shows its address and a QR code for it.")


@dataclass(frozen=True)
class ClubConfig:
    """[club]: the club this board plays in, over MQTT (off while ``broker`` is "")."""

    about: ClassVar[str] = ("A club night: the board publishes its games to the club's MQTT broker (Mosquitto) "
                            'and shows its next pairing; see docs/club.md. Off while broker is "".')

    broker: str = key("", _text, 'The broker, e.g. "mqtt://192.168.1.20:1883", or "mqtts://host:8883" '
                                 "with ca_file for TLS.")
    name: str = key("", _club_name("club"), 'The club, e.g. "thursday".')
    table: str = key("", _club_name("table", numbers=True), 'This board\'s table, e.g. "3".')
    username: str = key("", _login, "If the broker asks for one: with the shipped ACL, the table's name "
                                    "(docs/club.md).")
    password: str = key("", _login, "The broker's password for username.")
    ca_file: str = key("", _text, "The CA certificate to check an mqtts:// broker against.")
    homeassistant: bool = key(False, _flag, "Also publish Home Assistant's MQTT discovery: each seat's score "
                                            "as a sensor.")

    @property
    def enabled(self) -> bool:
        return bool(self.broker)

    def address(self) -> Broker:
        """The broker's address with the credentials (checked when the config was read)."""
        from .club_settings import parse_broker

        return parse_broker(self.broker, self.username, self.password, self.ca_file)


@dataclass(frozen=True)
class Config:
    """The checked configuration: each section, the top-level ``backend`` ("real",
    "mock", or None: the machine decides) and ``state`` (None: the default), the
    board ``layout`` it names (loaded once, when checked) and ``sources``, where it
    came from ("default config", the file, each --set).

    The declaration checks the system file and the --set overrides (unknown keys and bad
    values are one-line errors, :class:`~firmware.errors.ConfigError`, naming file and key)
    and writes ``firmware/default-config.toml`` and ``docs/configuration.md``
    (:mod:`firmware.config_files`; a test keeps them current). The sections
    (:class:`GameSettings`, :class:`LedsConfig`, :class:`DisplayConfig`, :class:`InputsConfig`,
    :class:`BuzzerConfig`, :class:`WebConfig`, :class:`ClubConfig`) are fields of a
    :class:`Config`, whose own keys are the top-level ones, with the board layout it names and
    the ledger's path (:meth:`Config.state_path`, the one place that decides it). Choices come
    from their owners, and the pins two parts would share from :mod:`hardware.wiring`. The
    hardware is given typed settings (it never reads these keys); nothing else reads the TOML.
    """

    about: ClassVar[str] = "The keys before the first section."

    layout: Layout
    sources: tuple[str, ...]
    backend: str | None = key(
        "", _blank_is_none(_choice("", *BACKENDS)),
        '"real" (the Pi\'s devices), "mock" (no hardware), or "" to choose by machine: real on a Raspberry Pi, '
        "mock elsewhere. CRIBBAGE_BACKEND and --backend override it.",
    )
    state: str | None = key("", _blank_is_none(_text),
                            'The ledger database. "" means $STATE_DIRECTORY (systemd\'s StateDirectory) '
                            "or ~/.local/state/cribbage-board/ledger.sqlite3.")
    game: GameSettings = section(GameSettings)
    leds: LedsConfig = section(LedsConfig)
    display: DisplayConfig = section(DisplayConfig)
    inputs: InputsConfig = section(InputsConfig)
    buzzer: BuzzerConfig = section(BuzzerConfig)
    web: WebConfig = section(WebConfig)
    club: ClubConfig = section(ClubConfig)

    def state_path(self, override: str | os.PathLike | None = None) -> Path:
        """The ledger's path: ``override`` (--state), else ``state``, else :func:`default_state_path`."""
        chosen = override or self.state
        return Path(chosen) if chosen else default_state_path()

    @property
    def hookup(self) -> Hookup:
        """What is wired to the Pi's header, for the wiring diagram."""
        return _hookup(self.inputs.pins(), self.leds, self.display, self.buzzer, self.layout)


def _hookup(pins: InputPins, leds: LedsConfig, display: DisplayConfig, buzzer: BuzzerConfig,
            layout: Layout | None = None) -> Hookup:
    from hardware.wiring import Hookup

    oled = display.settings if display.enabled else None
    leds_counts = (layout.strip_leds, layout.counter_leds) if layout else (0, 0)
    return Hookup(pins, leds.strip, oled, buzzer.pin, buzzer.enabled, *leds_counts)


SCHEMA: dict[str, dict[str, Callable]] = {
    name: {key_name: declared.check for key_name, declared in declared_keys(cls).items()}
    for name, cls in sections().items()
}


def defaults() -> dict:
    """The default configuration, as the default file reads: the top-level keys, then a table a section."""
    found: dict = {}
    for name, cls in sections().items():
        values = {key_name: list(declared.default) if isinstance(declared.default, list) else declared.default
                  for key_name, declared in declared_keys(cls).items()}
        if name:
            found[name] = values
        else:
            found.update(values)
    return found


def default_state_path() -> Path:
    """Where the ledger lives when nothing says: systemd's StateDirectory, else ~/.local/state."""
    base = os.environ.get("STATE_DIRECTORY")
    if base:
        return Path(base.split(":")[0]) / "ledger.sqlite3"
    xdg = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(xdg) / "cribbage-board" / "ledger.sqlite3"


# ---- reading and checking ----------------------------------------------------

def _merge(target: dict, data: dict, source: str) -> None:
    for name, value in data.items():
        if isinstance(value, dict):
            if name not in SCHEMA or name == "":
                raise ConfigError(f"{source}: unknown section [{name}]: use {', '.join('[' + s + ']' for s in SCHEMA if s)}")
            for sub, subvalue in value.items():
                _set(target, name, sub, subvalue, source)
        else:
            _set(target, "", name, value, source)


def _set(target: dict, section: str, key: str, value, source: str) -> None:
    name = f"[{section}] {key}" if section else key
    checks = SCHEMA.get(section, {})
    if key not in checks:
        known = ", ".join(checks)
        raise ConfigError(f"{source}: unknown key {name}: {'[' + section + '] takes' if section else 'use'} {known}")
    try:
        target.setdefault(section, {})[key] = checks[key](value)
    except ValueError as error:
        raise ConfigError(f"{source}: {name} = {_shown.repr(value)}: {error}") from None


def parse_override(text: str) -> tuple[str, str, Any]:
    """``leds.max_brightness=0.3`` -> ("leds", "max_brightness", 0.3)."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise ConfigError(f"--set {_shown.repr(text)}: use --set section.key=value, e.g. leds.max_brightness=0.3")
    if len(text) > MAX_OVERRIDE or not text.isprintable():
        raise ConfigError(
            f"--set {_shown.repr(text)}: give one line of at most {MAX_OVERRIDE} printable characters"
        )
    section, _, key = name.strip().rpartition(".")
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()  # plain text without quotes
    except RecursionError:
        raise ConfigError(f"--set {name.strip()}: the value is nested too deeply") from None
    return section, key, value


def _read_toml(path: Path) -> dict:
    """A TOML file's table; ConfigError if it is unreadable (a folder, a pipe), too
    large, not UTF-8, not TOML or nested too deeply."""
    try:
        return read_toml(path, "the config", MAX_CONFIG_BYTES)
    except TomlFileError as error:
        raise ConfigError(str(error)) from None


def load_config(path: str | Path | None = None, overrides: Sequence[str] = ()) -> Config:
    """Defaults, then the file (``path``, or the system file if it exists), then
    overrides; every key checked, then the keys against each other."""
    values: dict = {}
    _merge(values, defaults(), "default config")
    sources = ["default config"]
    if path is None and SYSTEM_CONFIG.exists():
        path = SYSTEM_CONFIG
    if path is not None:
        path = Path(path)
        data = _read_toml(path)
        _merge(values, data, str(path))
        sources.append(str(path))
    for text in overrides:
        section, key, value = parse_override(text)
        source = f"--set {text if len(text) <= 60 else text[:60] + '...'}"
        _set(values, section, key, value, source)
        sources.append(source)
    return _built(values, tuple(sources))


def _built(values: dict, sources: tuple[str, ...]) -> Config:
    """The typed configuration of checked values, checked across keys (the last source is
    named in what is wrong); it loads the layout the [leds] section names."""
    where = sources[-1]
    made: dict[str, Any] = {name: cls(**_made(cls, values[name])) for name, cls in sections().items() if name}
    leds, display, buzzer = made["leds"], made["display"], made["buzzer"]
    try:
        pins = made["inputs"].pins()
    except ValueError as error:
        raise ConfigError(f"{where}: [inputs] {error}") from None
    _check_led_pin(leds, where)
    _check_pins(_hookup(pins, leds, display, buzzer), display, where)
    made["leds"] = _with_palette(leds)
    layout = _layout(leds, where)
    _check_game(made["game"], layout, where)
    _check_club(made["club"], where)
    return Config(layout, sources, **_made(Config, values[""]), **made)


def _check_club(club: ClubConfig, where: str) -> None:
    """[club]: with a broker, a club and a table name, and a broker address that reads."""
    from .club_settings import BrokerError, parse_broker

    if not club.enabled:
        return
    try:
        parse_broker(club.broker, club.username, club.password, club.ca_file)
    except BrokerError as error:
        raise ConfigError(f"{where}: [club] {error}") from None
    for key, example in (("name", "thursday"), ("table", "3")):
        if not getattr(club, key):
            raise ConfigError(f'{where}: [club] {key}: a board in a club needs one, e.g. {key} = "{example}"')


# The wires whose pin is a key, in the order of whose pin moves when two share one: the key and what moves.
_KEYED = {"buzzer": ("[buzzer] pin", "the buzzer"), "strip": ("[leds] pin", "the strip"),
          "button": ("[inputs] {}", "the button"), "encoder": ("[inputs] {}", "the encoder")}


def _check_pins(hookup: Hookup, display: DisplayConfig, where: str) -> None:
    """No GPIO is wired to two parts (hardware.wiring's clashes, with the pins the strip's SPI
    driver takes): the one line names the key to change and what else is on its pin."""
    from hardware.wiring import shared_pins

    order = list(_KEYED)
    for group in shared_pins(hookup):
        moved, other = sorted(group, key=lambda wire: order.index(wire.part) if wire.part in _KEYED else len(order))[:2]
        # A group with no key is the OLED's SPI pins and those the strip's SPI driver takes: then the OLED
        # is on MOSI too, an earlier pin, whose group has raised already.
        if moved.part in _KEYED:
            raise ConfigError(f"{where}: {_key_of(moved, display)} = {moved.gpio} is also "
                              f"{_key_of(other, display)}: give {_KEYED[moved.part][1]} its own pin")


def _key_of(wire: Wire, display: DisplayConfig) -> str:
    """What the config calls a wire's pin: its key, or the fixed pin and whose it is."""
    if wire.part in _KEYED:
        return _KEYED[wire.part][0].format(wire.name)
    if wire.part == "oled":
        return f"[display] {display.bus.upper()} {wire.to.removeprefix('OLED ')} (the OLED)"
    return f"[leds] {wire.to}"  # a pin the strip's SPI driver takes


def _with_palette(leds: LedsConfig) -> LedsConfig:
    """A palette other than "standard" replaces [leds] colours (the board and the controls card follow)."""
    if leds.palette == "standard":
        return leds
    from .palette import PALETTES

    return replace(leds, colours=PALETTES[leds.palette], standard_colours=leds.colours)


def _check_led_pin(leds: LedsConfig, where: str) -> None:
    """The strip's pin must suit its driver: GPIO10 for spi (and auto, which is spi)."""
    from hardware.leds import PWM_PINS

    if leds.driver in ("auto", "spi") and leds.pin != SPI_PIN:
        raise ConfigError(
            f'{where}: [leds] pin = {leds.pin}: with [leds] driver = "{leds.driver}" (SPI) the pin must be 10; '
            'for a PWM pin set [leds] driver = "ws281x"'
        )
    if leds.driver == "ws281x" and leds.pin != SPI_PIN and leds.pin not in PWM_PINS:
        raise ConfigError(
            f"{where}: [leds] pin = {leds.pin}: ws281x drives GPIO10 (SPI) or {', '.join(map(str, sorted(PWM_PINS)))} (PWM)"
        )


def _layout(leds: LedsConfig, where: str) -> Layout:
    from hardware.errors import LayoutError
    from hardware.layout import load_layout

    try:
        return load_layout(leds.layout, leds.game_counters)
    except LayoutError as error:
        raise ConfigError(f"{where}: [leds] layout: {error}") from None


def _check_game(game: GameSettings, layout: Layout, where: str) -> None:
    """The layout has a track for every side of the game, and the game has its players named."""
    from scorer.variants import find_variant

    variant = find_variant(game.variant)
    sides = variant.sides
    if sides > len(layout.tracks):
        raise ConfigError(
            f"{where}: [game] variant = {variant.name!r} has {sides} sides but the layout "
            f"{layout.name} has {len(layout.tracks)} tracks: choose a layout with {sides} in [leds] layout"
        )
    if len(game.players) < variant.players:
        raise ConfigError(f"{where}: [game] players: {variant.name} needs {variant.players} names")
