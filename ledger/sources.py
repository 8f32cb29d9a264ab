"""Where an entry came from, when not from the board's own controls: a script, or a seat's phone.

An entry made on the board (the knob, its buttons) is the ledger's usual case and
keeps no row of its own; any other is one row of ``entry_sources`` beside its
action, written in the same transaction. A ledger from before the table, and any
entry without a row, reads as made on the board.
"""

from __future__ import annotations

from typing import NamedTuple

BOARD = "board"
VIAS = (BOARD, "script", "phone")
REQUEST_CHARS = 64  # the longest request id a phone may give


class EntrySource(NamedTuple):
    """``via`` ("board", "script" or "phone"), the seat whose phone made it (or None), and
    ``request``: the id the phone gave its request (the same id again pegs nothing more).

    >>> EntrySource("phone", seat="Blue", request="r-17").via
    'phone'
    """

    via: str = BOARD
    seat: str | None = None
    request: str | None = None

    def label(self) -> str:
        """How the board names the source on its screen: "phone", "script"."""
        return self.via

    def to_dict(self) -> dict[str, str]:
        """The source as ``replay --json`` and the web's history give it: {"via": "phone", "phone": "Blue"}."""
        return {"via": self.via, **({"phone": self.seat} if self.via == "phone" and self.seat else {})}
