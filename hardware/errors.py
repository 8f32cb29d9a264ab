"""The hardware layer's exceptions: each names the device and what to do.

A device that cannot be used is an ``OSError``, as the failure of the bus or file
beneath it would be; a layout that does not fit together is a ``ValueError`` too."""

from scorer.errors import CribbageBoardError


class HardwareError(CribbageBoardError, OSError):
    """A device that cannot be used; the message says which and what to try."""


class DeviceNotFoundError(HardwareError):
    """A device that is not there (no bus, no strip, no OLED)."""


class LayoutError(HardwareError, ValueError):
    """A board layout that does not fit together; names the entry at fault."""
