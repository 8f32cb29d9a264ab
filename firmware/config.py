"""The board's configuration: a commented TOML default, the system file, and
command-line overrides, checked once and given as frozen dataclasses.

Every section of the TOML file is a dataclass with the section's keys as its
fields (:class:`GameSettings`, :class:`LedsConfig`, :class:`DisplayConfig`,
:class:`InputsConfig`, :class:`BuzzerConfig`, :class:`WebConfig`), gathered in
a :class:`Config` with the board layout it names and the ledger's path
(:meth:`Config.state_path`, the one place that decides it). Unknown keys and
bad values are one-line errors (:class:`~firmware.errors.ConfigError`) that
name the file and the key. The hardware is given the typed settings it needs
(:mod:`hardware` never reads this file's keys); nothing outside this module
reads the raw TOML.
"""

from __future__ import annotations

import os
import re
import reprlib
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from hardware import BACKENDS
from hardware.display import DisplaySettings
from hardware.inputs import BUTTONS, InputPins
from hardware.layout import MAX_GAME_COUNTERS
from hardware.leds import PowerSettings, StripSettings
from scorer.variants import Options
from tomlfile import MAX_BYTES, TomlFileError, read_toml

from .errors import ConfigError

if TYPE_CHECKING:  # annotations only
    from hardware.layout import Layout
    from hardware.wiring import Hookup
    from scorer.record import GameHeader

    from .clubs import Broker

SYSTEM_CONFIG = Path("/etc/cribbage-board/config.toml")
MAX_CONFIG_BYTES = MAX_BYTES  # 256 KB; the default file is 3 KB
MAX_OVERRIDE = 1000  # characters of one --set
MAX_NAME = 12  # characters of a player's name: what the OLED and the board's name picker hold
RGB = tuple[int, int, int]

_shown = reprlib.Repr()  # values in messages: short, however long or deep
_shown.maxstring = _shown.maxother = 60
_shown.maxlevel = 3


def _default_text() -> str:
    # A plain file beside this module once installed; importlib.resources costs start-up more.
    return (Path(__file__).parent / "default-config.toml").read_text(encoding="utf-8")


def defaults() -> dict:
    """The packaged default configuration, as the TOML reads."""
    return tomllib.loads(_default_text())


# ---- checks: each returns the cleaned value or raises ValueError(reason) ----

def _choice(*options: str) -> Callable[[Any], str]:
    def check(value):
        if not isinstance(value, str) or value.lower() not in options:
            raise ValueError(f"use one of {', '.join(repr(o) for o in options)}")
        return value.lower()
    return check


def _text(value):
    if not isinstance(value, str):
        raise ValueError("must be text in quotes")
    return value


def _flag(value):
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _number(low: float, high: float, integer: bool = False):
    def check(value):
        kinds = (int,) if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
            kind = "a whole number" if integer else "a number"
            raise ValueError(f"must be {kind} from {low:g} to {high:g}")
        return value
    return check


def _gpio(value):
    return _number(0, 27, integer=True)(value)


def _names(value):
    """2 to 4 players' names, each by the rule for names (scorer.names) and at most 12
    characters (what the OLED and the name picker hold), in NFC."""
    from scorer.names import name_problem, normal

    if not isinstance(value, list) or not 2 <= len(value) <= 4 or not all(isinstance(v, str) for v in value):
        raise ValueError(f"must be 2 to 4 names in quotes, one word each, up to {MAX_NAME} characters")
    names = [normal(v) for v in value]
    for name in names:
        problem = name_problem(name) or (f"at most {MAX_NAME} characters" if len(name) > MAX_NAME else None)
        if problem:
            raise ValueError(f"{_shown.repr(name)}: {problem}")
    if len({v.lower() for v in names}) != len(names):
        raise ValueError("each player needs their own name")
    return names


def _colours(value):
    if not isinstance(value, list) or not 2 <= len(value) <= 4 or not all(
        isinstance(v, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", v) for v in value
    ):
        raise ValueError('must be 2 to 4 colours like "#ff0000"')
    return [tuple(int(v[i:i + 2], 16) for i in (1, 3, 5)) for v in value]


def _variant(value):
    from scorer.variants import VARIANTS

    if not isinstance(value, str) or value.lower() not in VARIANTS:
        raise ValueError(f"use one of {', '.join(VARIANTS)}")
    return value.lower()


def _points(value):
    from scorer.variants import parse_game_points

    if not isinstance(value, str):
        raise ValueError('must be text like "acc" or "1/2/3"')
    parse_game_points(value)
    return value


def _spi_hz(value):
    from hardware.ws2812 import SPI_CLOCKS

    if isinstance(value, bool) or value not in SPI_CLOCKS:
        raise ValueError(f"use one of {', '.join(str(c) for c in SPI_CLOCKS)} (Hz)")
    return int(value)


def _login(value):
    """A broker's user name or password: text (a number, as --set club.username=3 reads, is its digits)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _text(value)


def _club_name(what: str, numbers: bool = False):
    """A club or table name: "" (no club) or one that firmware.clubs' name rule accepts.
    With ``numbers``, a TOML number is taken as its digits (table = 3)."""
    def check(value):
        from .clubs import name_problem

        if numbers and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if value == "":
            return value
        problem = name_problem(what, value)
        if problem:
            raise ValueError(problem.partition(": ")[2])
        return value
    return check


SCHEMA: dict[str, dict[str, Callable]] = {
    "": {"backend": _choice("", *BACKENDS), "state": _text},
    "game": {
        "variant": _variant, "players": _names, "dealer": _text, "exact_out": _flag,
        "muggins": _flag, "skunk": _choice("acc", "lurch", "triple", "none"), "points": _points,
    },
    "leds": {
        "layout": _text, "pin": _gpio, "driver": _choice("auto", "spi", "ws281x"), "spi_hz": _spi_hz,
        "max_brightness": _number(0.01, 1),
        "budget_ma": _number(100, 100_000), "gamma": _number(1, 3), "colours": _colours,
        "back_peg": _number(0, 1), "marks": _number(0, 1),
        "palette": _choice("standard", "colour-blind"),
        "game_counters": _number(0, MAX_GAME_COUNTERS, integer=True),
    },
    "display": {
        "enabled": _flag, "chip": _choice("ssd1306", "sh1106"), "bus": _choice("i2c", "spi"),
        "i2c_port": _number(0, 20, integer=True), "i2c_address": _number(0x03, 0x77, integer=True),
        "rotate": _number(0, 3, integer=True), "mode": _choice("full", "scores"),
    },
    "inputs": {
        **{name: _gpio for name in (*BUTTONS, "encoder_a", "encoder_b", "encoder_button")},
        "debounce_ms": _number(0, 200), "hold_ms": _number(200, 5000),
    },
    "buzzer": {"enabled": _flag, "pin": _gpio},
    "web": {"port": _number(1, 65535, integer=True)},
    "club": {"broker": _text, "name": _club_name("club"),
             "table": _club_name("table", numbers=True),
             "username": _login, "password": _login, "ca_file": _text, "homeassistant": _flag},
}

# ---- the sections ------------------------------------------------------------

@dataclass(frozen=True)
class GameSettings:
    """[game]: what a new game is: the variant, the player names in seat order (the
    red button's first), the first dealer ("": the first seat) and the options.
    The menus change it on the board (``dataclasses.replace``)."""

    variant: str = "six-card"
    players: tuple[str, ...] = ("Red", "Blue", "Green", "Yellow")
    dealer: str = ""
    options: Options = field(default_factory=Options)

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


@dataclass(frozen=True)
class LedsConfig:
    """[leds]: the strip and how the board lights it."""

    layout: str  # a bundled layout's name or a layout file
    pin: int
    driver: str
    spi_hz: int
    max_brightness: float
    budget_ma: float
    gamma: float
    colours: tuple[RGB, ...]  # one a side, in seat order (the palette's, unless "standard")
    back_peg: float
    marks: float
    palette: str
    game_counters: int  # a row of game-counter holes a side (0: none), their LEDs after the holes'
    standard_colours: tuple[RGB, ...] = ()  # [leds] colours as given ("standard"), () when ``colours`` are

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


@dataclass(frozen=True)
class DisplayConfig:
    """[display]: the OLED, and what it shows ("full", or large "scores")."""

    enabled: bool
    chip: str
    bus: str
    i2c_port: int
    i2c_address: int
    rotate: int
    mode: str

    @property
    def settings(self) -> DisplaySettings:
        """What the OLED's driver needs."""
        return DisplaySettings(chip=self.chip, bus=self.bus, i2c_port=self.i2c_port,
                               i2c_address=self.i2c_address, rotate=self.rotate)


@dataclass(frozen=True)
class InputsConfig:
    """[inputs]: the GPIO (BCM) of each button and of the encoder, and the timings."""

    red: int
    blue: int
    green: int
    yellow: int
    undo: int
    menu: int
    encoder_a: int
    encoder_b: int
    encoder_button: int
    debounce_ms: float
    hold_ms: float

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

    enabled: bool
    pin: int


@dataclass(frozen=True)
class WebConfig:
    """[web]: the web view's port (the phone view's address shows it)."""

    port: int


@dataclass(frozen=True)
class ClubConfig:
    """[club]: the club this board plays in, over MQTT (off while ``broker`` is "")."""

    broker: str = ""
    name: str = ""
    table: str = ""
    username: str = ""
    password: str = ""
    ca_file: str = ""
    homeassistant: bool = False

    @property
    def enabled(self) -> bool:
        return bool(self.broker)

    def address(self) -> Broker:
        """The broker's address with the credentials (checked when the config was read)."""
        from .clubs import parse_broker

        return parse_broker(self.broker, self.username, self.password, self.ca_file)


@dataclass(frozen=True)
class Config:
    """The checked configuration: each section, the top-level ``backend`` ("real",
    "mock", or None: the machine decides) and ``state`` (None: the default), the
    board ``layout`` it names (loaded once, when checked) and ``sources``, where it
    came from ("default config", the file, each --set)."""

    backend: str | None
    state: str | None
    game: GameSettings
    leds: LedsConfig
    display: DisplayConfig
    inputs: InputsConfig
    buzzer: BuzzerConfig
    web: WebConfig
    layout: Layout
    sources: tuple[str, ...]
    club: ClubConfig = ClubConfig()

    def state_path(self, override: str | os.PathLike | None = None) -> Path:
        """The ledger's path: ``override`` (--state), else ``state``, else :func:`default_state_path`."""
        chosen = override or self.state
        return Path(chosen) if chosen else default_state_path()

    @property
    def hookup(self) -> Hookup:
        """What is wired to the Pi's header, for the wiring diagram (which alone loads the wiring
        module: its SVG escaping brings in xml and urllib)."""
        from hardware.wiring import Hookup

        display = self.display.settings if self.display.enabled else None
        return Hookup(self.inputs.pins(), self.leds.strip, display, self.buzzer.pin, self.buzzer.enabled,
                      self.layout.strip_leds, self.layout.counter_leds)


def default_state_path() -> Path:
    """Where the ledger lives when nothing says: systemd's StateDirectory, else ~/.local/state."""
    base = os.environ.get("STATE_DIRECTORY")
    if base:
        return Path(base.split(":")[0]) / "ledger.sqlite3"
    xdg = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(xdg) / "cribbage-board" / "ledger.sqlite3"


# ---- reading and checking ----------------------------------------------------

def _merge(target: dict, data: dict, source: str) -> None:
    for key, value in data.items():
        if isinstance(value, dict):
            if key not in SCHEMA or key == "":
                raise ConfigError(f"{source}: unknown section [{key}]: use {', '.join('[' + s + ']' for s in SCHEMA if s)}")
            for sub, subvalue in value.items():
                _set(target, key, sub, subvalue, source)
        else:
            _set(target, "", key, value, source)


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


def load_config(path: str | Path | None = None, overrides: list[str] = ()) -> Config:
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
    from scorer.variants import SkunkLines, parse_game_points

    where = sources[-1]
    game = values["game"]
    options = Options(exact_out=game["exact_out"], muggins=game["muggins"],
                      skunk=SkunkLines(game["skunk"]), points=parse_game_points(game["points"]))
    leds = LedsConfig(**{**values["leds"], "colours": tuple(values["leds"]["colours"])})
    inputs = InputsConfig(**values["inputs"])
    display = DisplayConfig(**values["display"])
    buzzer = BuzzerConfig(**values["buzzer"])
    try:
        pins = inputs.pins()
    except ValueError as error:
        raise ConfigError(f"{where}: [inputs] {error}") from None
    used = {pin: name for name, pin in pins.buttons.items()}
    used.update({pins.encoder_a: "encoder_a", pins.encoder_b: "encoder_b", pins.encoder_button: "encoder_button"})
    if leds.pin in used:
        raise ConfigError(f"{where}: [leds] pin = {leds.pin} is also [inputs] {used[leds.pin]}: give the strip its own pin")
    _check_buzzer(buzzer, leds, display, used, where)
    leds = _with_palette(leds)
    _check_led_pin(leds, where)
    layout = _layout(leds, where)
    _check_game(game["variant"], game["players"], layout, where)
    club = _club(values["club"], where)
    top = values[""]
    return Config(
        backend=top["backend"] or None, state=top["state"] or None,
        game=GameSettings(game["variant"], tuple(game["players"]), game["dealer"], options),
        leds=leds, display=display, inputs=inputs, buzzer=buzzer, web=WebConfig(**values["web"]),
        layout=layout, sources=sources, club=club,
    )


def _club(values: dict, where: str) -> ClubConfig:
    """[club]: with a broker, a club and a table name, and a broker address that reads."""
    from .clubs import BrokerError, parse_broker

    club = ClubConfig(**values)
    if not club.enabled:
        return club
    try:
        parse_broker(club.broker, club.username, club.password, club.ca_file)
    except BrokerError as error:
        raise ConfigError(f"{where}: [club] {error}") from None
    for key, example in (("name", "thursday"), ("table", "3")):
        if not getattr(club, key):
            raise ConfigError(f'{where}: [club] {key}: a board in a club needs one, e.g. {key} = "{example}"')
    return club


def _check_buzzer(buzzer: BuzzerConfig, leds: LedsConfig, display: DisplayConfig, used: dict[int, str],
                  where: str) -> None:
    """A buzzer that is enabled needs a pin of its own."""
    if not buzzer.enabled:
        return
    taken = {**used, leds.pin: "[leds] pin"}
    if display.enabled and display.bus == "i2c" and display.i2c_port == 1:
        taken.update({2: "[display] I2C SDA (the OLED)", 3: "[display] I2C SCL (the OLED)"})
    if leds.pin == 10:  # the strip on SPI0 MOSI: the SPI driver claims SPI0's other pins
        taken.update({9: "[leds] SPI0 MISO (the strip's SPI driver)", 11: "[leds] SPI0 SCLK (the strip's SPI driver)",
                      8: "[leds] SPI0 CE0 (the strip's SPI driver)"})
    if buzzer.pin in taken:
        other = taken[buzzer.pin]
        other = other if other.startswith("[") else f"[inputs] {other}"
        raise ConfigError(f"{where}: [buzzer] pin = {buzzer.pin} is also {other}: give the buzzer its own pin")


def _with_palette(leds: LedsConfig) -> LedsConfig:
    """A palette other than "standard" replaces [leds] colours (the board and the controls card follow)."""
    if leds.palette == "standard":
        return leds
    from .palette import PALETTES

    return replace(leds, colours=PALETTES[leds.palette], standard_colours=leds.colours)


def _check_led_pin(leds: LedsConfig, where: str) -> None:
    """The strip's pin must suit its driver: GPIO10 for spi (and auto, which is spi)."""
    from hardware.leds import PWM_PINS, SPI_PIN

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


def _check_game(variant_name: str, players: list[str], layout: Layout, where: str) -> None:
    """The layout has a track for every side of the game, and the game has its players named."""
    from scorer.variants import find_variant

    variant = find_variant(variant_name)
    sides = variant.sides
    if sides > len(layout.tracks):
        raise ConfigError(
            f"{where}: [game] variant = {variant.name!r} has {sides} sides but the layout "
            f"{layout.name} has {len(layout.tracks)} tracks: choose a layout with {sides} in [leds] layout"
        )
    if len(players) < variant.players:
        raise ConfigError(f"{where}: [game] players: {variant.name} needs {variant.players} names")
