"""Players' names: one rule wherever a name is given (the config, a game line typed at the
console or sent by the board, the board's name picker): :func:`name_problem` says what it is.
"""

from __future__ import annotations

from .errors import SetupError
from .limits import NAME_MOST

SEPARATORS = ",=#+"  # the game record's own: seats=A,B  points=...  # comment  A+B partners
HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn"}  # control, format, surrogate, private use, unassigned


def normal(name: str) -> str:
    """``name`` in NFC (an ASCII name as it is: unicodedata loads only for others).

    >>> normal("Zoe\u0308") == "Zoë"
    True
    """
    if name.isascii():
        return name
    import unicodedata

    return unicodedata.normalize("NFC", name)


def name_problem(name: str, most: int = NAME_MOST) -> str | None:
    """Why ``name`` (already normal) cannot be a player's name, or None if it can.

    A name is NFC-normalised, non-empty, at most ``most`` characters (``NAME_MOST`` by default:
    the longest game line with names that long stays a record line, :mod:`scorer.limits`),
    one word (no white space), without the record's
    separators (``,`` ``=`` ``#`` ``+``), and without characters that can hide or reorder
    what is shown: control and format characters (bidirectional overrides such as U+202E,
    zero-width spaces and joiners, U+2060, U+FEFF), surrogates, private-use and unassigned
    code points. Otherwise "Bob 16" could read "61 boB", and "Bob" and "B\u200bob" would be
    two players that look the same.

    Games already kept with such a name still replay: the rule is for names given now
    (the ledger's writer applies it to every new game), and the pages isolate each name.

    >>> name_problem("Bob 16")
    'a name is one word: no spaces'
    >>> name_problem("Bob") is None
    True
    """
    if not name:
        return "a name cannot be empty"
    if len(name) > most:
        return f"a name has at most {most} characters, not {len(name)}"
    for char in name:
        if char.isspace():
            return "a name is one word: no spaces"
        if char in SEPARATORS:
            return f"a name cannot hold {char!r}: the game record uses it"
        if _hidden(char):
            return f"U+{ord(char):04X} is a character that hides or reorders text: type the name plainly"
    return None


def _hidden(char: str) -> bool:
    if char.isascii():
        return not char.isprintable()
    import unicodedata

    return unicodedata.category(char) in HIDDEN


def checked_name(name: str) -> str:
    """``name`` in NFC; SetupError (naming it and what is wrong) if it breaks the rule."""
    name = normal(name.strip())
    problem = name_problem(name)
    if problem:
        raise SetupError(f"seat name {name!r}: {problem}")
    return name
