"""The OLED's footer: the last thing the board said, for a while, or until the next entry when it is an alert."""

from __future__ import annotations

from typing import Callable

MESSAGE_SECONDS = 4.0


class Footer:
    """What the board last said (:meth:`say`), shown for MESSAGE_SECONDS, or until the next thing
    said when it is an alert (a refusal, a device's problem); and the alert made in an open panel
    (a menu or a picker), shown over that panel's own footer until the panel's next event.

    >>> now = [0.0]
    >>> footer = Footer(lambda: now[0])
    >>> footer.say("Blue peg 2")
    >>> footer.shown(), footer.alert
    ('Blue peg 2', False)
    >>> now[0] = MESSAGE_SECONDS
    >>> footer.shown()
    ''
    >>> footer.say("Dial the points first, then press", alert=True)
    >>> now[0] = 60.0
    >>> footer.shown(), footer.alert
    ('Dial the points first, then press', True)
    """

    def __init__(self, clock: Callable[[], float]):
        self._clock = clock
        self.message = ""
        self.alert = False
        self._at = float("-inf")
        self.over_panel = ""  # an alert made in the open panel, shown over its footer

    def say(self, text: str, alert: bool = False) -> None:
        """Show ``text``; an alert stays until the next thing said."""
        self.message, self.alert, self._at = text, alert, self._clock()

    @property
    def fresh(self) -> bool:
        """Whether the message is still shown: said less than MESSAGE_SECONDS ago, or an alert."""
        return self.alert or self._clock() - self._at < MESSAGE_SECONDS

    def shown(self) -> str:
        """The message while it is fresh, else ""."""
        return self.message if self.fresh else ""

    def panel_event(self, said: tuple[str, bool] | None, still_open: bool) -> None:
        """An open panel took an event: its alert before goes, and an alert said while it handled
        the event (``said``: text and whether an alert) stays over it while it is ``still_open``."""
        self.over_panel = said[0] if said is not None and said[1] and still_open else ""

    def panels_closed(self) -> None:
        """The panels closed: an alert made in one does not stay on the game's screen."""
        if self.over_panel and self.message == self.over_panel:
            self.alert = False
            self._at = float("-inf")
        self.over_panel = ""
