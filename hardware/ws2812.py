"""WS2812 colours as SPI bytes: the strip's one-wire timing made by an SPI clock.

A WS2812B reads its data pin as a train of high pulses, one per data bit: a
short high is a 0, a long high a 1. Sent on SPI MOSI (GPIO10) at a fixed clock,
each data bit becomes ``n`` SPI bits (:func:`pattern`); only MOSI goes to the
strip. :func:`spi_bytes` makes a frame, :func:`frame_size` says its length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

# The WS2812B datasheet, in nanoseconds.
T0H_NS, T1H_NS, T0L_NS, T1L_NS = 400.0, 800.0, 850.0, 450.0
PULSE_TOLERANCE_NS = 150.0
PERIOD_NS, PERIOD_TOLERANCE_NS = 1250.0, 600.0
RESET_NS = 280_000.0

CLOCK_TOLERANCE = 0.05  # the real SPI clock may be this far either side of the one asked for
SPI_CLOCKS = (2_400_000, 4_800_000, 6_400_000)  # offered by the config; 2.4 MHz makes the smallest frames
DEFAULT_HZ = 2_400_000
MAX_HZ = 50_000_000  # no Pi's SPI goes faster


@dataclass(frozen=True)
class BitPattern:
    """How one WS2812 data bit is sent at an SPI clock: ``bits`` SPI bits, the first
    ``high0`` (for a 0) or ``high1`` (for a 1) of them high."""

    hz: int
    bits: int
    high0: int
    high1: int

    def worst(self, hz: float) -> float:
        """The largest error at a real clock of ``hz``, as a share of its tolerance (1 = at the limit)."""
        t = 1e9 / hz
        n, h0, h1 = self.bits, self.high0, self.high1
        return max(
            abs(h0 * t - T0H_NS) / PULSE_TOLERANCE_NS,
            abs(h1 * t - T1H_NS) / PULSE_TOLERANCE_NS,
            abs((n - h0) * t - T0L_NS) / PULSE_TOLERANCE_NS,
            abs((n - h1) * t - T1L_NS) / PULSE_TOLERANCE_NS,
            abs(n * t - PERIOD_NS) / PERIOD_TOLERANCE_NS,
        )

    def margin(self) -> float:
        """The worst error over the clock band ``hz`` +/- 5 %, as a share of its tolerance."""
        return max(self.worst(self.hz * (1 - CLOCK_TOLERANCE)), self.worst(self.hz * (1 + CLOCK_TOLERANCE)))


def _near(value: float) -> set[int]:
    return {max(1, math.floor(value)), max(1, math.ceil(value))}


@lru_cache(maxsize=16)
def pattern(hz: int) -> BitPattern:
    """The bit pattern for an SPI clock of ``hz``; ValueError if no pattern meets the datasheet.

    At an SPI clock of ``f`` Hz one SPI bit lasts ``t = 1/f`` (416.7 ns at 2.4 MHz),
    so on the data pin::

        T0H = h0*t    T1H = h1*t    T0L = (n - h0)*t    T1L = (n - h1)*t    period = n*t

    The WS2812B datasheet asks T0H 0.40 us and T1H 0.80 us, T0L 0.85 us and T1L
    0.45 us (each within 150 ns), a bit period of 1.25 us within 600 ns, and at
    least 280 us low to latch a frame (reset). The real clock is not exactly ``f``:
    a Pi divides a source clock by an even whole number (2.4 MHz comes out as
    2.381 MHz on a Pi 3, 4 and 5), and on a Pi 3/4 that source is the core clock.
    So :func:`pattern` tries the whole numbers nearest ``0.4 us/t``, ``0.8 us/t``
    and ``1.25 us/t`` and keeps the (n, h0, h1) whose worst error, at clocks from
    5 % below to 5 % above ``f``, is the smallest share of its tolerance; a clock
    with no pattern inside every tolerance is refused. The clocks the config offers
    (:data:`SPI_CLOCKS`) and 4 MHz come out as (worst: the largest error at 5 %
    off, as a share of its tolerance)::

        clock    t         n  h0 h1   T0H     T1H     period   bytes/LED  worst
        2.4 MHz  416.7 ns  3  1  2    417 ns  833 ns  1250 ns   9         0.52
        4.0 MHz  250.0 ns  5  2  3    500 ns  750 ns  1250 ns  15         0.91
        4.8 MHz  208.3 ns  6  2  4    417 ns  833 ns  1250 ns  18         0.52
        6.4 MHz  156.3 ns  8  3  5    469 ns  781 ns  1250 ns  24         0.71

    4 MHz is accepted but not offered: its 0 is 500 ns, 526 ns when 5 % slow.
    (3.2 MHz is refused: its 1 is 3 bits, 938 ns, and 5 % slow that is 987 ns.)
    """
    if isinstance(hz, bool) or not isinstance(hz, int) or not 0 < hz <= MAX_HZ:
        raise ValueError(f"SPI clock {hz!r}: give a whole number of Hz up to {MAX_HZ}, e.g. {DEFAULT_HZ}")
    t = 1e9 / hz
    candidates = [
        BitPattern(hz, n, h0, h1)
        for n in _near(PERIOD_NS / t) | {round(PERIOD_NS / t) - 1, round(PERIOD_NS / t) + 1}
        for h0 in _near(T0H_NS / t)
        for h1 in _near(T1H_NS / t)
        if 0 < h0 < h1 < n
    ]
    best = min(candidates, key=lambda p: (p.margin(), p.bits), default=None)
    if best is None or best.margin() > 1:
        raise ValueError(
            f"an SPI clock of {hz} Hz cannot make WS2812 timing (0.4/0.8 us pulses within 150 ns, "
            f"with the clock 5 % off): use one of {', '.join(str(c) for c in SPI_CLOCKS)}"
        )
    return best


def reset_bytes(hz: int) -> int:
    """Zero bytes that keep the line low for at least 280 us, even 5 % fast."""
    return math.ceil(RESET_NS * 1e-9 * hz * (1 + CLOCK_TOLERANCE) / 8)


@lru_cache(maxsize=16)
def _tables(hz: int) -> tuple[bytes, ...]:
    """For each output byte k of a colour byte's ``n`` bytes: a 256-entry translate table."""
    p = pattern(hz)
    zero = "1" * p.high0 + "0" * (p.bits - p.high0)
    one = "1" * p.high1 + "0" * (p.bits - p.high1)
    expanded = [
        int("".join(one if value & (0x80 >> i) else zero for i in range(8)), 2).to_bytes(p.bits, "big")
        for value in range(256)
    ]
    return tuple(bytes(code[k] for code in expanded) for k in range(p.bits))


def frame_size(count: int, hz: int) -> int:
    """Bytes in the SPI frame of ``count`` LEDs at ``hz``.

    Sizes: 243 LEDs (classic-121) at 2.4 MHz are 243*9 + 2*89 = 2365 bytes, inside
    the kernel's default spidev buffer of 4096; 485 LEDs (four-track-121) are 4543
    bytes and need ``spidev.bufsiz`` raised (see ``hardware.leds.SpiStrip``).
    """
    return 3 * count * pattern(hz).bits + 2 * reset_bytes(hz)


def spi_bytes(pixels: Iterable[tuple[int, int, int]], hz: int) -> bytes:
    """The SPI bytes (mode 0, sent at ``hz``) that show ``pixels`` (RGB, 0-255, after
    brightness and gamma) on a WS2812 strip, between two resets.

    Bytes: a colour byte's 8 data bits become ``8*n`` SPI bits, exactly ``n``
    bytes, so each clock has a 256-entry table. Colours go green, red, blue, most
    significant bit first (the WS2812's order), and SPI mode 0 sends each byte most
    significant bit first. The frame starts and ends with ``ceil(280 us * 1.05 f /
    8)`` zero bytes (89 at 2.4 MHz, 282 us even 5 % fast): the trailing low latches
    the frame; the leading low resets a strip that saw a stray edge before the
    transfer (some SPI controllers idle MOSI high), so that edge cannot shift the
    first LED's bits.
    """
    tables = _tables(hz)
    try:
        grb = bytes(c for r, g, b in pixels for c in (g, r, b))
    except (TypeError, ValueError):
        raise ValueError("each pixel must be three whole numbers 0-255 (red, green, blue)") from None
    n = len(tables)
    data = bytearray(len(grb) * n)
    for k, table in enumerate(tables):
        data[k::n] = grb.translate(table)
    pad = bytes(reset_bytes(hz))
    return pad + bytes(data) + pad
