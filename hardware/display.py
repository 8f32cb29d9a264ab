"""The OLED: SSD1306 or SH1106, 128x64, on I2C or SPI through luma.oled; a mock on luma's dummy device.

The firmware draws a PIL image and calls ``show(image)``; the driver stays
separate from its transport, as in luma. luma is imported only when a
display is opened.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .errors import DeviceNotFoundError, HardwareError

WIDTH, HEIGHT = 128, 64
CHIPS = ("ssd1306", "sh1106")
BUSES = ("i2c", "spi")


class Display(Protocol):
    """What the firmware needs of a display."""

    size: tuple[int, int]

    def show(self, image) -> None:
        """Show a 1-bit PIL image of the display's size."""

    def clear(self) -> None:
        """Blank the screen."""

    def close(self, keep_image: bool = False) -> None:
        """Blank the screen (unless ``keep_image``: the last image stays on) and release the bus."""


@dataclass(frozen=True)
class DisplaySettings:
    """Which OLED, and how it is wired."""

    chip: str = "ssd1306"
    bus: str = "i2c"  # or "spi"
    i2c_port: int = 1
    i2c_address: int = 0x3C
    spi_port: int = 0
    spi_device: int = 0
    dc_pin: int = 24
    reset_pin: int = 25
    rotate: int = 0  # 0-3, quarter turns

    def __post_init__(self):
        if self.chip not in CHIPS:
            raise ValueError(f"OLED chip {self.chip!r}: use one of {', '.join(CHIPS)}")
        if self.bus not in BUSES:
            raise ValueError(f"OLED bus {self.bus!r}: use i2c or spi")
        if self.rotate not in (0, 1, 2, 3):
            raise ValueError("OLED rotate must be 0, 1, 2 or 3 quarter turns")

    def describe(self) -> str:
        if self.bus == "i2c":
            return f"I2C bus {self.i2c_port} at {self.i2c_address:#04x}"
        return f"SPI {self.spi_port}.{self.spi_device} (/dev/spidev{self.spi_port}.{self.spi_device})"


class LumaDisplay:
    """A display on any luma device: a real OLED, or luma's dummy for the mock."""

    def __init__(self, device, name: str = "OLED"):
        self.device = device
        self.name = name
        self.size = tuple(device.size)
        self.closed = False

    def show(self, image) -> None:
        if self.closed:
            raise HardwareError(f"{self.name} is closed")
        if tuple(image.size) != self.size:
            raise HardwareError(f"{self.name} shows {self.size[0]}x{self.size[1]} images, not {image.size}")
        self.device.display(image.convert(self.device.mode))

    def clear(self) -> None:
        self.device.clear()

    def close(self, keep_image: bool = False) -> None:
        """Release the bus; the screen is blanked unless ``keep_image`` (a last message left on)."""
        if not self.closed:
            try:
                # luma's cleanup (also run at exit) blanks the screen unless the device persists.
                self.device.persist = keep_image
                if not keep_image:
                    self.device.clear()
                cleanup = getattr(self.device, "cleanup", None)
                if cleanup is not None:
                    cleanup()
            finally:
                self.closed = True


class MockDisplay(LumaDisplay):
    """The OLED on luma.core's dummy device: keeps the last image; can save PNGs."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT):
        from luma.core.device import dummy

        super().__init__(dummy(width=width, height=height, mode="1"), "mock OLED")
        self.shown = 0

    def show(self, image) -> None:
        super().show(image)
        self.shown += 1

    @property
    def image(self):
        """The last image shown (None before the first)."""
        return self.device.image

    def save_png(self, path: str | Path) -> Path:
        if self.device.image is None:
            raise HardwareError("nothing has been shown on the mock OLED yet")
        path = Path(path)
        self.device.image.save(path, format="PNG")
        return path

    def close(self, keep_image: bool = False) -> None:
        self.closed = True


def open_display(settings: DisplaySettings | None = None) -> LumaDisplay:
    """Open the real OLED; a missing bus or device is a DeviceNotFoundError saying what to do."""
    settings = settings or DisplaySettings()
    try:
        from luma.core.error import DeviceNotFoundError as LumaNotFound
        from luma.core.error import DevicePermissionError
        from luma.core.error import Error as LumaError
        from luma.core.interface.serial import i2c, spi
        from luma.oled import device as oled
    except ImportError as error:
        raise DeviceNotFoundError(f"luma.oled is not installed ({error}): pip install luma.oled") from None
    where = settings.describe()
    try:
        if settings.bus == "i2c":
            serial = i2c(port=settings.i2c_port, address=settings.i2c_address)
        else:
            serial = spi(
                port=settings.spi_port, device=settings.spi_device,
                gpio_DC=settings.dc_pin, gpio_RST=settings.reset_pin,
            )
        chip = getattr(oled, settings.chip)
        device = chip(serial, width=WIDTH, height=HEIGHT, rotate=settings.rotate)
    except LumaNotFound:
        hint = "enable I2C with raspi-config" if settings.bus == "i2c" else "enable SPI with raspi-config"
        raise DeviceNotFoundError(f"OLED not found on {where}: {hint}") from None
    except DevicePermissionError:
        group = settings.bus
        raise DeviceNotFoundError(
            f"no permission for the OLED on {where}: add the user to the {group} group"
        ) from None
    except ImportError as error:
        raise DeviceNotFoundError(
            f"OLED on SPI needs a GPIO library ({error}): install rpi-lgpio on the Pi"
        ) from None
    except (LumaError, OSError) as error:
        raise DeviceNotFoundError(
            f"OLED on {where} did not answer ({error}): check the wiring and the address"
        ) from None
    return LumaDisplay(device, f"OLED on {where}")
