"""LED palettes and how far apart their colours look, to people with and without colour blindness.

Colour vision deficiency is simulated with the matrices of Machado, Oliveira
and Fernandes (2009, severity 1.0) in linear RGB; distance is CIE76 delta E
in CIELAB (D65). A delta E of about 2 is just noticeable; the board wants
side colours far apart (see ``MIN_SIDE_DISTANCE``).
"""

from __future__ import annotations

import itertools
import math

RGB = tuple[int, int, int]

# Okabe and Ito's colour-blind-safe set, one colour for each button (vermillion,
# blue, bluish green, yellow).
PALETTES: dict[str, tuple[RGB, ...]] = {
    "colour-blind": ((213, 94, 0), (0, 114, 178), (0, 158, 115), (240, 228, 66)),
}
PALETTE_NAMES = ("standard", *PALETTES)  # standard: the colours of [leds] colours

MACHADO: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
MIN_SIDE_DISTANCE = 25.0  # delta E between any two sides' colours, for every vision checked


def _linear(channel: float) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(value: float) -> float:
    v = max(0.0, min(1.0, value))
    return 255 * (v * 12.92 if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055)


def simulate(colour: RGB, vision: str) -> tuple[float, float, float]:
    """How ``colour`` looks with ``vision`` ("normal" or a key of MACHADO), as sRGB."""
    if vision == "normal":
        red, green, blue = colour
        return float(red), float(green), float(blue)
    linear = [_linear(c) for c in colour]
    seen_red, seen_green, seen_blue = (_encoded(sum(row[k] * linear[k] for k in range(3))) for row in MACHADO[vision])
    return seen_red, seen_green, seen_blue


def lab(colour) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB colour."""
    r, g, b = (_linear(c) for c in colour)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def distance(a, b, vision: str = "normal") -> float:
    """Delta E (CIE76) between two colours as seen with ``vision``."""
    return math.dist(lab(simulate(a, vision)), lab(simulate(b, vision)))


def closest_pair(colours, vision: str = "normal") -> tuple[float, int, int]:
    """(delta E, i, j): the two colours that look most alike with ``vision``."""
    return min((distance(colours[i], colours[j], vision), i, j)
               for i, j in itertools.combinations(range(len(colours)), 2))
