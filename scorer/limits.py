"""How long a record line and a player's name may be: one limit each, the name's derived from the line's.

Every part that takes a record line (the record, the console, the board, the wire, the hub) imports
:data:`MAX_LINE` from here; every place a name is typed refuses one longer than :data:`NAME_MOST`,
so that the longest game line, with every key it can carry, stays inside :data:`MAX_LINE`.
"""

from __future__ import annotations

from .variants import GAME_POINTS_MOST, TARGET_MOST, VARIANTS, SkunkLines

MAX_LINE = 200  # characters of one record line, comment included
STORED_LINE_MOST = 1000  # what a ledger of an earlier version may hold: read back whole, never taken anew
SEATS_MOST = max(variant.players for variant in VARIANTS.values())


def game_line(name: str) -> str:
    """The longest game line whose every name (each seat and the dealer) is ``name``: the longest
    variant, every option a game line carries, each at its longest.

    >>> game_line("Ann")[:34]
    'game four-hand-individual seats=An'
    """
    variant = max(VARIANTS, key=len)
    skunk = max((lines.value for lines in SkunkLines), key=len)
    points = "/".join([str(GAME_POINTS_MOST)] * 5)
    seats = ",".join([name] * SEATS_MOST)
    return (f"game {variant} seats={seats} dealer={name} target={TARGET_MOST} exact-out muggins "
            f"skunk={skunk} points={points} new-match")


NAME_MOST = (MAX_LINE - len(game_line(""))) // (SEATS_MOST + 1)  # characters of a player's name given now
