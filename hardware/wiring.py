"""The wiring diagram, drawn from the board's pins as SVG, so it never disagrees with the config.

:func:`wires` says which wire goes where; :func:`wiring_svg` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .display import DisplaySettings
from .inputs import BUTTONS, InputPins
from .leds import SPI_PIN, StripSettings

# The 40-pin header of every Pi since the B+ (Pi 2, 3, 4, 5, 400, 500, Zero):
# physical pin -> what it is ("GPIO<n>" with the BCM number, or a supply).
HEADER: dict[int, str] = {
    1: "3V3", 2: "5V", 3: "GPIO2", 4: "5V", 5: "GPIO3", 6: "GND", 7: "GPIO4", 8: "GPIO14",
    9: "GND", 10: "GPIO15", 11: "GPIO17", 12: "GPIO18", 13: "GPIO27", 14: "GND", 15: "GPIO22",
    16: "GPIO23", 17: "3V3", 18: "GPIO24", 19: "GPIO10", 20: "GND", 21: "GPIO9", 22: "GPIO25",
    23: "GPIO11", 24: "GPIO8", 25: "GND", 26: "GPIO7", 27: "GPIO0", 28: "GPIO1", 29: "GPIO5",
    30: "GND", 31: "GPIO6", 32: "GPIO12", 33: "GPIO13", 34: "GND", 35: "GPIO19", 36: "GPIO16",
    37: "GPIO26", 38: "GPIO20", 39: "GND", 40: "GPIO21",
}
PHYSICAL: dict[int, int] = {int(name[4:]): pin for pin, name in HEADER.items() if name.startswith("GPIO")}
SPI0_TAKEN = ((9, "SPI0 MISO"), (11, "SPI0 SCLK"), (8, "SPI0 CE0"))  # besides MOSI (GPIO10): its GPIO, its name
ENCODER = (("encoder_a", "encoder A (CLK)"), ("encoder_b", "encoder B (DT)"),
           ("encoder_button", "encoder push (SW)"))
# Fixed supply pins: the OLED and encoder power near their lines, the strip's
# ground at the top right (the 5 V pin beside it is left unconnected: the Pi has
# a supply of its own), the buttons' ground bus at the bottom.
OLED_VCC, OLED_GND, ENCODER_VCC, ENCODER_GND, SUPPLY_5V, COMMON_GND, BUTTON_GND = 1, 9, 17, 14, 2, 6, 39
COLOURS = {"button": "#555555", "encoder": "#7a3db8", "oled": "#1f6fb2", "strip": "#c0392b",
           "power": "#d35400", "ground": "#222222", "buzzer": "#0e7c6b"}
BUZZER_OHMS = 100  # in series with the passive piezo (hardware/README.md)
# Each Pi's own official supply (hardware/README.md's parts list says the same).
PI_SUPPLIES = "Pi 5 and 500: 5.1 V 5 A USB-C; Pi 4 and 400: 5.1 V 3 A USB-C; Pi 3B+ and Zero 2 W: 5.1 V 2.5 A micro-USB"


@dataclass(frozen=True)
class Hookup:
    """What the board wires to the Pi's header: the buttons' and encoder's ``pins``, the
    ``strip`` (its driver picks the data pin), the OLED's ``display`` settings (None:
    no OLED), and the buzzer's pin, wired when ``buzzer`` is on (the legend names the
    pin either way); the strip's LEDs, ``strip_leds`` (0: not said), the last
    ``counter_leds`` of them the game counters'."""

    pins: InputPins
    strip: StripSettings
    display: DisplaySettings | None
    buzzer_pin: int
    buzzer: bool
    strip_leds: int = 0
    counter_leds: int = 0


@dataclass(frozen=True)
class Wire:
    """One wire from a header pin: the physical pin, what it goes to, the part it belongs to,
    and a button's or an encoder line's name (as :class:`~hardware.inputs.InputPins` names them)."""

    pin: int
    to: str
    part: str
    gpio: int | None = None
    name: str = ""


def physical_pin(gpio: int) -> int:
    """The header pin of a BCM GPIO number (GPIO10 -> 19)."""
    try:
        return PHYSICAL[gpio]
    except KeyError:
        raise ValueError(f"GPIO{gpio} is not on the 40-pin header: use GPIO 0 to 27") from None


def buzzer_ground(pin: int) -> int:
    """The GND pin for the buzzer's other leg: the nearest one no fixed wire takes (pin 32 -> 34)."""
    taken = {OLED_GND, ENCODER_GND, COMMON_GND, BUTTON_GND}
    free = [p for p, name in HEADER.items() if name == "GND" and p not in taken]
    # Nearest row first; then the pin's own side of the header; then the row below.
    return min(free, key=lambda p: (abs(_row(p) - _row(pin)), p % 2 != pin % 2, p < pin))


def _row(pin: int) -> int:
    return (pin - 1) // 2


def wires(hookup: Hookup) -> list[Wire]:
    """Every wire from the header that the board's pins call for, in pin order."""
    pins = hookup.pins
    encoder = {"encoder_a": pins.encoder_a, "encoder_b": pins.encoder_b, "encoder_button": pins.encoder_button}
    found = []
    for name in BUTTONS:
        gpio = pins.buttons[name]
        found.append(Wire(physical_pin(gpio), f"{name} button", "button", gpio, name))
    for key, label in ENCODER:
        found.append(Wire(physical_pin(encoder[key]), label, "encoder", encoder[key], key))
    found.append(Wire(ENCODER_VCC, "encoder +", "encoder"))
    found.append(Wire(ENCODER_GND, "encoder GND", "encoder"))
    found.append(Wire(BUTTON_GND, "buttons' ground bus", "ground"))
    data = hookup.strip.data_gpio
    found.append(Wire(physical_pin(data), "strip data", "strip", data))
    # The Pi takes its own USB supply (a Pi 5 needs 5 A of it): its 5 V pin (SUPPLY_5V) stays
    # unconnected, and only the grounds are joined (the power panel says so).
    found.append(Wire(COMMON_GND, "strip supply - / strip GND (common ground)", "ground"))
    display = hookup.display
    if display is not None:
        if display.bus == "i2c":
            sda, scl = {0: (0, 1)}.get(display.i2c_port, (2, 3))
            found.append(Wire(physical_pin(sda), "OLED SDA", "oled", sda))
            found.append(Wire(physical_pin(scl), "OLED SCL", "oled", scl))
        else:  # SPI0 (its CE0 for the chip select), and the DC and RES pins
            for gpio, label in ((SPI_PIN, "OLED DIN (MOSI)"), (11, "OLED CLK (SCLK)"), (8, "OLED CS (CE0)"),
                                (display.dc_pin, "OLED DC"), (display.reset_pin, "OLED RES")):
                found.append(Wire(physical_pin(gpio), label, "oled", gpio))
        found.append(Wire(OLED_VCC, "OLED VCC", "oled"))
        found.append(Wire(OLED_GND, "OLED GND", "oled"))
    if hookup.buzzer:
        pin = physical_pin(hookup.buzzer_pin)
        found.append(Wire(pin, "buzzer +", "buzzer", hookup.buzzer_pin))
        found.append(Wire(buzzer_ground(pin), "buzzer - (GND)", "buzzer"))
    return sorted(found, key=lambda wire: wire.pin)


def clashes(found: list[Wire]) -> list[str]:
    """One line for each GPIO pin that two wires would share."""
    return [f"pin {group[0].pin} ({HEADER[group[0].pin]}) is wired to both " + " and ".join(w.to for w in group)
            for group in _sharing(found)]


def shared_pins(hookup: Hookup) -> list[list[Wire]]:
    """The wires, and the pins a driver takes without one, that would share a GPIO: a list a pin,
    in pin order (the config refuses them; the diagram draws what it is given)."""
    return _sharing(wires(hookup) + taken(hookup))


def taken(hookup: Hookup) -> list[Wire]:
    """The GPIOs the strip's driver takes beyond its data line when that is SPI0 MOSI: SPI0's
    other pins (no wire goes to them, but nothing else can use them)."""
    if hookup.strip.data_gpio != SPI_PIN:
        return []
    return [Wire(physical_pin(gpio), f"{label} (the strip's SPI driver)", "spi", gpio) for gpio, label in SPI0_TAKEN]


def _sharing(found: list[Wire]) -> list[list[Wire]]:
    by_pin: dict[int, list[Wire]] = {}
    for wire in found:
        if wire.gpio is not None:
            by_pin.setdefault(wire.pin, []).append(wire)
    return [group for _, group in sorted(by_pin.items()) if len(group) > 1]


# ---- drawing ----

WIDTH, TOP, ROW = 1240, 120, 28
CENTRE = WIDTH // 2
LEFT_X, RIGHT_X = CENTRE - 16, CENTRE + 16  # odd pins on the left, even on the right
END_LEFT, END_RIGHT = CENTRE - 170, CENTRE + 170  # where a wire meets its part


def _row_y(pin: int) -> int:
    return TOP + (pin - 1) // 2 * ROW


def _text(x, y, text, size=12, anchor="start", colour="black", weight="normal", extra="") -> str:
    from xml.sax.saxutils import escape  # here: it imports urllib, which the config's check of pins never needs

    return (f'<text x="{x}" y="{y}" font-family="DejaVu Sans, Arial, sans-serif" font-size="{size}" '
            f'text-anchor="{anchor}" fill="{colour}" font-weight="{weight}"{extra}>{escape(text)}</text>')


def _pin_colour(name: str) -> str:
    return {"3V3": "#e67e22", "5V": "#c0392b", "GND": "#222222"}.get(name, "#27ae60")


def _part(wire: Wire, x: int, y: int, side: int, driver: str, joined: int | None = None) -> list[str]:
    """The part at the wire's end (x, y), drawn outward (side -1 left, +1 right).

    ``joined`` is the y of the row a two-pin part's other leg goes to, when
    that row is next to this one on the same side (the buzzer's ground)."""
    colour = COLOURS[wire.part]
    anchor = "end" if side < 0 else "start"
    out = []
    if wire.part == "buzzer":
        return _buzzer(wire, x, y, side, joined)
    if wire.part == "button":
        # A push switch: two contacts and a lever, then the other leg to ground.
        a, b = x + side * 10, x + side * 34
        out += [f'<line x1="{x}" y1="{y}" x2="{a}" y2="{y}" stroke="{colour}" stroke-width="2"/>',
                f'<circle cx="{a}" cy="{y}" r="3" fill="white" stroke="{colour}" stroke-width="1.5"/>',
                f'<circle cx="{b}" cy="{y}" r="3" fill="white" stroke="{colour}" stroke-width="1.5"/>',
                f'<line x1="{a - side * 2}" y1="{y - 9}" x2="{b + side * 2}" y2="{y - 9}" stroke="{colour}" stroke-width="2"/>',
                f'<line x1="{(a + b) // 2}" y1="{y - 9}" x2="{(a + b) // 2}" y2="{y - 14}" stroke="{colour}" stroke-width="2"/>']
        out += _ground(b, y, side)
        out.append(_text(b + side * 34, y + 4, f"{wire.to} (GPIO{wire.gpio})", anchor=anchor, colour=colour))
        return out
    if wire.part == "strip":
        # Data: 3.3 V from the Pi -> 74AHCT125 (5 V) -> 330 ohm -> the strip's DIN.
        box = x + side * 8 if side > 0 else x - 8 - 96
        out.append(f'<rect x="{box}" y="{y - 11}" width="96" height="22" rx="3" fill="white" stroke="{colour}" stroke-width="1.5"/>')
        out.append(_text(box + 48, y + 4, "74AHCT125", size=11, anchor="middle", colour=colour))
        r0 = x + side * 104
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + side * 8}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
        zig = " ".join(f"{r0 + side * (6 + 5 * i)},{y + (-5 if i % 2 else 5) if 0 < i < 7 else y}" for i in range(8))
        out.append(f'<polyline points="{r0},{y} {zig} {r0 + side * 48},{y}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        out.append(_text(r0 + side * 24, y - 9, "330 \u03a9", size=10, anchor="middle", colour=colour))
        out.append(_text(r0 + side * 54, y + 4, "strip DIN", anchor=anchor, colour=colour, weight="bold"))
        note = "spi driver: SPI0 MOSI" if driver != "ws281x" else "ws281x driver: leds.pin"
        out.append(_text(r0 + side * 54, y + 18, f"({note}, GPIO{wire.gpio})", size=10, anchor=anchor, colour=colour))
        return out
    if wire.part == "ground":
        out += _ground(x, y, side)
        out.append(_text(x + side * 30, y + 4, wire.to, anchor=anchor, colour=colour))
        return out
    return _tag(x, y, side, wire.to + (f" (GPIO{wire.gpio})" if wire.gpio is not None else ""), colour)


def _buzzer(wire: Wire, x: int, y: int, side: int, joined: int | None) -> list[str]:
    """The passive piezo: GPIO -> 100 ohm -> buzzer +, its other leg to the GND pin.

    With ``joined`` (the GND pin's row is the next one on the same side) the
    other leg is drawn down (or up) to that pin's wire; otherwise both ends
    carry a ground symbol, as the buttons' do."""
    colour = COLOURS["buzzer"]
    anchor = "end" if side < 0 else "start"
    cx = x + side * 76  # the buzzer's centre
    if wire.gpio is None:  # the GND pin's wire
        if joined is not None:
            return [f'<line x1="{x}" y1="{y}" x2="{cx}" y2="{y}" stroke="{colour}" stroke-width="2"/>']
        return _ground(x, y, side) + [_text(x + side * 30, y + 4, "buzzer's other leg (GND)", anchor=anchor,
                                            colour=colour)]
    r0, r1 = x + side * 8, x + side * 56
    zig = " ".join(f"{r0 + side * (6 + 5 * i)},{y + (-5 if i % 2 else 5) if 0 < i < 7 else y}" for i in range(8))
    out = [f'<line x1="{x}" y1="{y}" x2="{r0}" y2="{y}" stroke="{colour}" stroke-width="2"/>',
           f'<polyline points="{r0},{y} {zig} {r1},{y}" fill="none" stroke="{colour}" stroke-width="1.5"/>',
           _text((r0 + r1) // 2, y - 9, f"{BUZZER_OHMS} \u03a9", size=10, anchor="middle", colour=colour),
           f'<line x1="{r1}" y1="{y}" x2="{cx - side * 12}" y2="{y}" stroke="{colour}" stroke-width="2"/>',
           _text(cx - side * 14, y - 8, "+", size=11, anchor="middle", colour=colour, weight="bold")]
    if joined is not None:  # the other leg straight to the GND pin's wire
        out.append(f'<line x1="{cx}" y1="{y + (12 if joined > y else -12)}" x2="{cx}" y2="{joined}" '
                   f'stroke="{colour}" stroke-width="2"/>')
        label_x = cx + side * 20
    else:
        out += _ground(cx + side * 12, y, side)
        label_x = cx + side * 42
    out += [f'<circle cx="{cx}" cy="{y}" r="12" fill="white" stroke="{colour}" stroke-width="2"/>',
            f'<circle cx="{cx}" cy="{y}" r="3.5" fill="none" stroke="{colour}" stroke-width="1.5"/>',
            _text(label_x, y + 4, f"passive piezo buzzer (GPIO{wire.gpio})", anchor=anchor, colour=colour,
                  weight="bold"),
            _text(label_x, y + 18, f"{BUZZER_OHMS} \u03a9 in series; other leg to GND, pin {buzzer_ground(wire.pin)}",
                  size=10, anchor=anchor, colour=colour)]
    return out


def _tag(x: int, y: int, side: int, label: str, colour: str) -> list[str]:
    """A rounded label at a wire's end."""
    width = 7 * len(label) + 16
    box = x if side > 0 else x - width
    return [f'<rect x="{box}" y="{y - 10}" width="{width}" height="20" rx="10" fill="white" stroke="{colour}" stroke-width="1.5"/>',
            _text(box + width // 2, y + 4, label, size=11, anchor="middle", colour=colour)]


def _ground(x: int, y: int, side: int) -> list[str]:
    """A ground symbol hanging from (x, y)."""
    g = x + side * 12
    return [f'<line x1="{x}" y1="{y}" x2="{g}" y2="{y}" stroke="#222" stroke-width="1.5"/>',
            f'<line x1="{g}" y1="{y - 8}" x2="{g}" y2="{y + 8}" stroke="#222" stroke-width="2"/>',
            f'<line x1="{g + side * 4}" y1="{y - 5}" x2="{g + side * 4}" y2="{y + 5}" stroke="#222" stroke-width="2"/>',
            f'<line x1="{g + side * 8}" y1="{y - 2}" x2="{g + side * 8}" y2="{y + 2}" stroke="#222" stroke-width="2"/>']


def wiring_svg(hookup: Hookup, source: str = "the default config") -> str:
    """The wiring diagram for the board's pins, as an SVG document.

    The Pi's 40-pin header is drawn in the middle (physical pin numbers in the
    circles, BCM GPIO names beside them); every wire the board needs leaves its
    pin for the part it goes to: buttons to GND on their other leg, the encoder,
    the OLED, the strip's data line through the level shifter and resistor, and
    the buzzer (when the config enables it) through its resistor to a ground pin
    of its own. A panel below shows which supply feeds what: the strip's 5 V supply
    (fused) feeds the strip and the level shifter, the Pi has its own USB supply,
    and the two share one ground.
    """
    from xml.sax.saxutils import escape

    found = wires(hookup)
    driver = hookup.strip.driver
    problems = clashes(found)
    panel = _row_y(40) + 60
    height = panel + 296 + 18 * len(problems)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">',
        "<title>cribbage-board wiring diagram</title>",
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
        _text(CENTRE, 34, "cribbage-board wiring", size=22, anchor="middle", weight="bold"),
        _text(CENTRE, 56, f"drawn from {source} by `cribbage-board wiring`; GPIO numbers are BCM, "
              "circled numbers are the header's physical pins", size=12, anchor="middle", colour="#444"),
        _text(CENTRE, 76, "every Pi with a 40-pin header (Pi 3, 4, 5, 400, 500, Zero 2 W); pin 1 has the "
              "square solder pad, at the end of the header away from the USB sockets", size=12, anchor="middle", colour="#444"),
    ]
    # Wires first, under the header.
    used: dict[int, list[Wire]] = {}
    for wire in found:
        used.setdefault(wire.pin, []).append(wire)
    for pin, group in used.items():
        side = -1 if pin % 2 else 1
        px, y = (LEFT_X if side < 0 else RIGHT_X), _row_y(pin)
        end = END_LEFT if side < 0 else END_RIGHT
        clash = len([w for w in group if w.gpio is not None]) > 1
        for i, wire in enumerate(group):
            joined = _joined(wire, used)
            colour = "#e00000" if clash else COLOURS[wire.part]
            gpio_attr = f' data-gpio="{wire.gpio}"' if wire.gpio is not None else ""
            out.append(f'<g class="wire" data-pin="{pin}"{gpio_attr} data-to="{escape(wire.to)}" data-part="{wire.part}">')
            out.append(f'<line x1="{px}" y1="{y}" x2="{end}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
            if not clash:
                out += _part(wire, end, y, side, driver, joined)
            elif i == len(group) - 1:  # one red tag naming everything on the pin
                out += _tag(end, y, side, "clash: " + " + ".join(w.to for w in group) + f" ({HEADER[pin]})",
                            "#e00000")
            out.append("</g>")
    # The header.
    out.append(f'<rect x="{LEFT_X - 18}" y="{TOP - 20}" width="68" height="{_row_y(40) - TOP + 40}" rx="6" '
               'fill="#1e4d2b" stroke="#0b2814"/>')
    out.append(_text(CENTRE, TOP - 26, "Raspberry Pi header", size=12, anchor="middle", weight="bold"))
    for pin, name in HEADER.items():
        side = -1 if pin % 2 else 1
        x, y = (LEFT_X if side < 0 else RIGHT_X), _row_y(pin)
        wired = pin in used
        out.append(f'<circle class="pin" data-pin="{pin}" cx="{x}" cy="{y}" r="10" fill="{_pin_colour(name)}" '
                   f'stroke="{"white" if wired else "#0b2814"}" stroke-width="{2 if wired else 1}"/>')
        out.append(_text(x, y + 4, str(pin), size=10, anchor="middle", colour="white", weight="bold"))
        label_x = x + side * 20
        out.append(f'<rect x="{label_x - 52 if side < 0 else label_x - 2}" y="{y - 9}" width="54" height="16" '
                   'fill="white" opacity="0.85"/>')
        out.append(_text(label_x, y + 4, name, size=11, anchor="end" if side < 0 else "start",
                         colour="black" if wired else "#999", weight="bold" if wired else "normal"))
    out += _power_panel(panel, hookup.strip, hookup.strip_leds, hookup.counter_leds)
    out.append(_text(40, panel + 253, _buzzer_note(hookup), size=12, colour=COLOURS["buzzer"],
                     extra=' class="legend-buzzer"'))
    y = height - 18 * len(problems) - 10
    for line in problems:
        out.append(_text(40, y, "clash: " + line, size=13, colour="#e00000", weight="bold"))
        y += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _buzzer_note(hookup: Hookup) -> str:
    """The legend's line on the buzzer: how it is wired, or how to turn it on."""
    gpio = hookup.buzzer_pin
    where = f"GPIO{gpio} (pin {physical_pin(gpio)})" if gpio in PHYSICAL else f"GPIO{gpio}"
    if hookup.buzzer:
        ground = buzzer_ground(physical_pin(gpio))
        return (f"Buzzer: a passive piezo (it needs a tone, not DC) from {where} through {BUZZER_OHMS} \u03a9, "
                f"its other leg to GND (pin {ground}); [buzzer] pin moves it.")
    return (f"Buzzer (optional, a passive piezo on {where}): off in this config, so not drawn; "
            "draw it with --set buzzer.enabled=true ([buzzer] enabled = true in the config).")


def _joined(wire: Wire, used: dict[int, list[Wire]]) -> int | None:
    """The y of the buzzer's other leg's row when both legs can be drawn as one loop, else None.

    They can when the GPIO and its GND pin are next to each other on the same
    side of the header and the GPIO is the buzzer's alone (a clash draws no part)."""
    if wire.part != "buzzer":
        return None
    signal = next((w for group in used.values() for w in group if w.part == "buzzer" and w.gpio is not None), None)
    if signal is None or len([w for w in used[signal.pin] if w.gpio is not None]) > 1:
        return None
    ground = buzzer_ground(signal.pin)
    if ground % 2 != signal.pin % 2 or abs(ground - signal.pin) != 2:
        return None
    return _row_y(ground if wire is signal else signal.pin)


def strip_count(leds: int, counters: int = 0) -> str:
    """The strip's LEDs as the diagram says them: the holes', and the game counters' at its end."""
    if not counters:
        return f"{leds} LEDs"
    return f"{leds} LEDs: {leds - counters} holes, then {counters} game counters (LED {leds - counters} on)"


FEED_EVERY = 121  # LEDs at most between two of the strip's feed points: one a track (its holes and start)


def feed_points(leds: int) -> tuple[int, ...]:
    """The LEDs (numbered from 0) where the strip's 5 V and GND go in: both ends, and between them
    evenly spaced, no two more than FEED_EVERY apart (243 LEDs: 0, 121 and 242). The parts list
    (hardware/README.md) counts its terminals and connectors by them."""
    if leds <= 1:
        return (0,)
    runs = -(-(leds - 1) // FEED_EVERY)
    return tuple(round(i * (leds - 1) / runs) for i in range(runs + 1))


def _power_panel(top: int, strip: StripSettings, leds: int = 0, counters: int = 0) -> list[str]:
    """The 5 V supply, the strip (with its LEDs, when ``leds`` says), the level shifter's power
    and the common ground."""
    red, black, ink = COLOURS["strip"], "#222222", COLOURS["strip"]
    out = [f'<rect x="20" y="{top}" width="{WIDTH - 40}" height="266" rx="8" fill="#fafafa" stroke="#bbb"/>',
           _text(40, top + 26, "Power and the strip", size=15, weight="bold")]
    # Supply.
    sx, sy = 60, top + 60
    out.append(f'<rect x="{sx}" y="{sy}" width="150" height="90" rx="4" fill="white" stroke="{black}" stroke-width="1.5"/>')
    out.append(_text(sx + 75, sy + 28, "5 V strip supply", size=13, anchor="middle", weight="bold"))
    out.append(_text(sx + 75, sy + 46, "6 A or more", size=11, anchor="middle"))
    out.append(_text(sx + 75, sy + 62, "fuse 7.5 A on +", size=11, anchor="middle"))
    plus, minus = sy + 20, sy + 75
    rail_end = WIDTH - 80
    out.append(f'<line x1="{sx + 150}" y1="{plus}" x2="{rail_end}" y2="{plus}" stroke="{red}" stroke-width="3"/>')
    out.append(f'<line x1="{sx + 150}" y1="{minus}" x2="{rail_end}" y2="{minus}" stroke="{black}" stroke-width="3"/>')
    out.append(_text(sx + 160, plus - 6, "+5 V", size=11, colour=red, weight="bold"))
    out.append(_text(sx + 160, minus + 16, "GND", size=11, weight="bold"))
    # Taps off the rails: the Pi, the capacitor, the level shifter, the strip's ends.
    taps = [(470, "1000 \u00b5F capacitor", "(across + and GND)"),
            (650, "74AHCT125 VCC and GND:", "0.1 \u00b5F across; 1OE to GND")]
    for x, top_label, bottom_label in taps:
        out.append(f'<line x1="{x}" y1="{plus}" x2="{x}" y2="{minus}" stroke="#888" stroke-width="1.5" stroke-dasharray="4 3"/>')
        out.append(f'<circle cx="{x}" cy="{plus}" r="4" fill="{red}"/><circle cx="{x}" cy="{minus}" r="4" fill="{black}"/>')
        out.append(_text(x + 6, (plus + minus) // 2 - 4, top_label, size=11))
        out.append(_text(x + 6, (plus + minus) // 2 + 10, bottom_label, size=11))
    # The Pi: ground only (its 5 V comes from its own USB supply).
    out.append(f'<line x1="300" y1="{minus - 22}" x2="300" y2="{minus}" stroke="{black}" stroke-width="1.5"/>')
    out.append(f'<circle cx="300" cy="{minus}" r="4" fill="{black}"/>')
    out.append(_text(306, (plus + minus) // 2 - 4, f"Pi pin {COMMON_GND} (GND) only;", size=11))
    out.append(_text(306, (plus + minus) // 2 + 10, "pin 2 (5 V) unconnected", size=11))
    # The strip, fed at its feed points (both ends when its length is not known), each named by its LED.
    x0, x1 = 860, rail_end
    feeds = feed_points(leds) if leds else ()
    said = f"at {len(feeds)} feed points" if len(feeds) > 2 else "at both ends"
    out.append(f'<rect x="{x0}" y="{plus + 12}" width="{x1 - x0}" height="30" rx="4" fill="#fdecea" stroke="{ink}" stroke-width="1.5"/>')
    out.append(_text((x0 + x1) // 2, plus + 32, f"WS2812B strip: 5 V and GND {said}", size=11, anchor="middle",
                     colour=ink))
    if leds:
        out.append(_text((x0 + x1) // 2, minus + 18, strip_count(leds, counters), size=11, anchor="middle",
                         colour=ink, extra=' class="strip-leds"'))
    ends: list[tuple[int, int | None]] = [(x0 + 8, None), (x1 - 8, None)]
    if feeds:
        ends = [(round(x0 + 8 + (x1 - x0 - 16) * led / (leds - 1)), led) for led in feeds]
    for k, (x, led) in enumerate(ends):
        out.append(f'<line x1="{x}" y1="{plus}" x2="{x}" y2="{plus + 12}" stroke="{red}" stroke-width="2"/>')
        out.append(f'<line x1="{x}" y1="{plus + 42}" x2="{x}" y2="{minus}" stroke="{black}" stroke-width="2"/>')
        if led is not None:
            anchor = "start" if k == 0 else ("end" if k == len(ends) - 1 else "middle")
            out.append(_text(x, plus - 6, f"LED {led}", size=10, anchor=anchor, colour=ink,
                             extra=f' class="feed" data-led="{led}"'))
    data = "GPIO10 (SPI0 MOSI, pin 19), spi driver" if strip.driver != "ws281x" else \
        f"GPIO{strip.pin} (pin {physical_pin(strip.pin)}), ws281x driver"
    notes = [
        f"Strip data: {data} -> 74AHCT125 1A, 1Y -> 330 \u03a9 -> DIN.",
        f"The Pi runs on its own official USB supply ({PI_SUPPLIES}), not on this one.",
        f"Feed the strip's 5 V at both ends and every {FEED_EVERY} LEDs at most (18 AWG); the Pi, the strip and the",
        "level shifter share one ground. The OLED and the encoder take 3.3 V from the Pi, never 5 V.",
        "Connect GND first and disconnect it last; never plug or unplug the strip while it is powered.",
    ]
    for i, line in enumerate(notes):
        out.append(_text(40, top + 178 + 15 * i, line, size=12))
    return out
