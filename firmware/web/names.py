"""Names and other text from the ledger as the pages show them: isolated, nothing hidden.

A ledger may hold names written before the record refused bidirectional
controls and invisible characters (U+202E, U+200B, U+2060, U+FEFF...). On a
page each name is isolated (the templates put it in ``<bdi>``; :func:`name_text`
between U+2068...U+2069 where no markup can go), so neither a name in a right-to-left script nor a lying one can reorder
the text around it ("Bob 16" never reads "61 boB"), and every format character
but the joiners is shown as U+FFFD, so "B\u200bob" does not pass for "Bob".
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

JOINERS = frozenset("\u200c\u200d")  # ZWNJ and ZWJ: part of some scripts and of emoji sequences
SHOWN_INSTEAD = "\ufffd"


@lru_cache(maxsize=4096)
def visible(text: str) -> str:
    """``text`` with each format character (bidi controls, zero-width and invisible ones) as U+FFFD."""
    if text.isascii():
        return text
    return "".join(SHOWN_INSTEAD if unicodedata.category(c) == "Cf" and c not in JOINERS else c for c in text)


def name_text(name: str) -> str:
    """A name where no markup can go (a title attribute, an SVG title): visible, between
    first-strong isolate and pop directional isolate. The templates escape it."""
    return f"\u2068{visible(name)}\u2069"
