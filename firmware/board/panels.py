"""Panels: screens that take the knob and the buttons for themselves while they are open.

The menus (:mod:`firmware.board.menu`), check my count and the name picker
(:mod:`firmware.board.picker`), the phone view (:mod:`firmware.board.phone`) and
the pairing code (:mod:`firmware.board.phones`) are panels on the controller's
stack: while one is open, every event goes to it. A panel knows its host only as
a :class:`PanelHost`, what it may ask of the controller, so no panel imports the
controller. Each panel has a screen name (below), which the terminal board's key help follows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from hardware.inputs import KNOB, InputEvent

if TYPE_CHECKING:
    from scorer.game import Game

    from ..config import GameSettings
    from .board_options import BoardOptions
    from .screens import Screen


MENU = "menu"
CHECK_MY_COUNT = "check my count"
COUNT_CHECKED = "count checked"
CHECKING_A_COUNT = (CHECK_MY_COUNT, COUNT_CHECKED)
NAMING_A_PLAYER = "naming a player"
PHONE_VIEW = "phone view"
PAIRING_A_PHONE = "pairing a phone"


class Panel(Protocol):
    """A menu or picker on the OLED: it takes the events while it is open. ``screen_name``:
    which screen it is (one of the names above)."""

    @property
    def screen_name(self) -> str: ...

    def handle(self, event: InputEvent) -> None: ...

    def screen(self) -> Screen: ...


class PanelHost(Protocol):
    """What a panel may ask of the controller that opened it."""

    settings: GameSettings  # what the next new game is (a menu changes it)
    options: BoardOptions  # the board's own (a menu changes them, at once)
    max_sides: int  # tracks on the board

    @property
    def game(self) -> Game: ...

    def say(self, text: str, alert: bool = False) -> None: ...

    def push(self, panel: Panel) -> None: ...

    def back(self) -> None: ...

    def close_panels(self) -> None: ...

    def start_game(self, new_match: bool = False, variant: str | None = None) -> bool: ...

    def set_muggins(self, on: bool) -> bool: ...

    def set_player(self, index: int, name: str) -> None: ...

    def names_pending(self) -> bool: ...

    def check_count(self) -> None: ...

    def count_checked(self, total: int, text: str) -> None: ...

    def claim_muggins(self, index: int, points: int) -> bool: ...

    def request_shutdown(self) -> None: ...


def is_back(event: InputEvent) -> bool:
    """The gestures that leave a panel: menu or undo pressed, or the knob held."""
    return (event.kind == "click" and event.source in ("menu", "undo")) or (
        event.kind == "hold" and event.source == KNOB
    )
