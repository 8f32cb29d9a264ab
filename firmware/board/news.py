"""What the board's loop tells the controller besides presses and scoring inputs (pure data).

:meth:`firmware.board.controller.Controller.handle` takes every input the board has:
a press or a turn (:class:`~hardware.inputs.InputEvent`), a script's or a phone's
scoring input, a phone's request off the socket, and the news below: a device's
problem or its return, the club's status, the ledger started again, a message to
say, or :data:`LOOK` (nothing new: the screen as it is now).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PhoneRequest:
    """One request the web view relayed from a phone (the socket's JSON, not yet checked)."""

    body: object


@dataclass(frozen=True)
class Say:
    """A message for the OLED's footer (an alert stays until the next accepted entry)."""

    message: str
    alert: bool = False


@dataclass(frozen=True)
class DeviceProblem:
    """A device failed or could not start: ``message`` says what to fix. ``in_full``: shown whole on
    the OLED until the next input (the strip's and the controls'; an OLED cannot show its own)."""

    device: str
    message: str
    in_full: bool


@dataclass(frozen=True)
class Reminder:
    """A device still missing: its problem (``message``) said again unless the footer shows an alert."""

    message: str


@dataclass(frozen=True)
class DeviceBack:
    """A device works again (its name, as :data:`firmware.board.devices.DEVICE_NAMES` gives it)."""

    device: str


@dataclass(frozen=True)
class ClubStatus:
    """The club link's connection and the night's next game for this table, as the OLED says them."""

    connection: str
    next_game: str


@dataclass(frozen=True)
class LedgerRestarted:
    """The ledger was set aside and started again: the controller carries on with what it holds now."""


@dataclass(frozen=True)
class Look:
    """Nothing new: what the board shows now (the footer and the device notices change with time)."""


LOOK = Look()
