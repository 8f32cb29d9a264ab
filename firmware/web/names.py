"""Names and other text from the ledger as the pages show them: isolated, nothing hidden.

A ledger may hold names written before the record refused bidirectional
controls and invisible characters (U+202E, U+200B, U+2060, U+FEFF...). On a
page each name is isolated (``<bdi>``, or U+2068...U+2069 where no markup can
go), so neither a name in a right-to-left script nor a lying one can reorder
the text around it ("Bob 16" never reads "61 boB"), and every format character
but the joiners is shown as U+FFFD, so "B\u200bob" does not pass for "Bob".
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from html import escape

JOINERS = frozenset("\u200c\u200d")  # ZWNJ and ZWJ: part of some scripts and of emoji sequences
SHOWN_INSTEAD = "\ufffd"


@lru_cache(maxsize=4096)
def visible(text: str) -> str:
    """``text`` with each format character (bidi controls, zero-width and invisible ones) as U+FFFD."""
    if text.isascii():
        return text
    return "".join(SHOWN_INSTEAD if unicodedata.category(c) == "Cf" and c not in JOINERS else c for c in text)


def name_html(name: str) -> str:
    """A name for HTML: escaped, visible, isolated from the text around it."""
    return f"<bdi>{escape(visible(name))}</bdi>"


def name_text(name: str) -> str:
    """A name for plain text (a page title, an SVG title, an attribute), still to be escaped:
    visible, between first-strong isolate and pop directional isolate."""
    return f"\u2068{visible(name)}\u2069"


def text_html(text: str) -> str:
    """Text that may hold names (an entry described, a record line) for HTML: escaped,
    visible, isolated as a whole."""
    return f"<bdi>{escape(visible(text))}</bdi>"
