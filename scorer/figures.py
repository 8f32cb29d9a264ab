"""Numbers as a player reads them: one minus sign everywhere, the typographic one (U+2212).

Every figure shown to a person (the coach's averages, a spread in the standings) goes through
:func:`figure`; JSON keeps its numbers as numbers.
"""

from __future__ import annotations

MINUS = "\u2212"  # the minus sign every shown negative figure carries; the hyphen-minus is for machines


def figure(value: float, places: int = 0, plus: bool = False) -> str:
    """``value`` rounded to ``places`` decimals, a negative one with the minus sign U+2212, a positive one
    with "+" when ``plus``; a value that rounds to zero is "0" (never "−0.0"). Returns the text.

    >>> figure(-0.4, 1), figure(11, 1), figure(3, plus=True), figure(-0.04, 1, plus=True)
    ('\u22120.4', '11.0', '+3', '0.0')
    """
    text = f"{abs(value):.{places}f}"
    if float(text) == 0:
        return text
    if value < 0:
        return MINUS + text
    return "+" + text if plus else text
