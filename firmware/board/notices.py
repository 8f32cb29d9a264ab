"""Devices' problems on the OLED: each in full, until the next input; several take turns."""

from __future__ import annotations

import textwrap
from typing import Callable

from .footer import MESSAGE_SECONDS
from .screens import Screen

NOTICE_CHARS = 22  # a line of the OLED's 10-pixel font, as text wraps
NOTICE_LINES = 4


class Notices:
    """The problems of the devices that failed (the LED strip, the controls), one screen each, named
    by device; the OLED shows them in turn, MESSAGE_SECONDS each, until the next input clears them.

    >>> notices = Notices(lambda: 0.0)
    >>> notices.show("LED strip", "LED strip not found: check its cable")
    >>> notices.screen().title, notices.screen().lines
    ('LED strip problem', ('LED strip not found:', 'check its cable'))
    >>> notices.clear()
    >>> bool(notices), notices.screen()
    (False, None)
    """

    def __init__(self, clock: Callable[[], float]):
        self._clock = clock
        self._screens: dict[str, Screen] = {}

    def show(self, device: str, problem: str) -> None:
        """Show a device's problem (what to fix) until the next input."""
        self._screens[device] = Screen(title=f"{device} problem", lines=notice_lines(problem))

    def clear(self, device: str | None = None) -> None:
        """Take one device's problem off the screen (it works again), or every one (an input came)."""
        if device is None:
            self._screens.clear()
        else:
            self._screens.pop(device, None)

    def __bool__(self) -> bool:
        return bool(self._screens)

    def screen(self) -> Screen | None:
        """The notice to show now (each in turn), None when there is none."""
        if not self._screens:
            return None
        shown = list(self._screens.values())
        return shown[int(self._clock() // MESSAGE_SECONDS) % len(shown)]


def notice_lines(problem: str) -> tuple[str, ...]:
    """The problem wrapped for the OLED; if too long, its last clauses (the fix comes last)."""
    text = problem
    while True:
        lines = textwrap.wrap(text, NOTICE_CHARS)
        if len(lines) <= NOTICE_LINES:
            return tuple(lines)
        cuts = [at for at in (text.find(": "), text.find("; ")) if at >= 0]
        if not cuts:
            return tuple(lines[: NOTICE_LINES - 1]) + ("(more in the journal)",)
        text = text[min(cuts) + 2:]
