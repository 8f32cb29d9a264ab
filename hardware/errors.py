"""The hardware layer's exceptions: each names the device and what to do."""


class HardwareError(Exception):
    """A device that cannot be used; the message says which and what to try."""


class DeviceNotFoundError(HardwareError):
    """A device that is not there (no bus, no strip, no OLED)."""


class LayoutError(HardwareError, ValueError):
    """A board layout that does not fit together; names the entry at fault."""
