"""The LED strip: an interface, a power-aware frame pipeline, two real drivers and a mock.

Colours go in as the eye should see them; each frame shown is scaled by the
brightness (capped), gamma-corrected, and scaled down again if its estimated
current would pass the supply's budget. The drivers: ``spi`` (spidev, every
current Pi, no root), ``ws281x`` (rpi_ws281x, Pi 4 and older); :func:`open_strip`
picks one. ``spidev`` and ``rpi_ws281x`` are imported only when a real strip is
opened, never at module import.
"""

from __future__ import annotations

import atexit
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

from . import ws2812
from .errors import DeviceNotFoundError, HardwareError

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)

# A WS2812 draws about 20 mA per colour channel at full duty, and ~1 mA idle.
MA_PER_CHANNEL = 20.0
MA_IDLE_PER_LED = 1.0


class LedStrip(Protocol):
    """What the firmware needs of an LED strip."""

    count: int

    def show(self, frame: Sequence[RGB]) -> None:
        """Display one frame: a colour for every LED."""

    def set_brightness(self, level: float) -> None:
        """0.0 to 1.0, capped by the configured maximum."""

    def close(self) -> None:
        """Turn the LEDs off and release the strip."""


@dataclass(frozen=True)
class PowerSettings:
    """The brightness cap, the current budget and the gamma of the strip."""

    max_brightness: float = 0.5
    budget_ma: float = 4000.0
    gamma: float = 2.2

    def __post_init__(self):
        if not 0 < self.max_brightness <= 1:
            raise ValueError("max_brightness must be above 0 and at most 1")
        if self.budget_ma <= 0:
            raise ValueError("budget_ma must be positive: the supply's current in milliamps")
        if not 1 <= self.gamma <= 3:
            raise ValueError("gamma must be between 1 and 3 (2.2 suits WS2812)")


def estimate_ma(frame: Sequence[RGB]) -> float:
    """Estimated current of a frame of raw (output) channel values."""
    total = sum(r + g + b for r, g, b in frame)
    return len(frame) * MA_IDLE_PER_LED + total * MA_PER_CHANNEL / 255.0


class FramePipeline:
    """Brightness, gamma and current limit, from wanted colours to output values."""

    def __init__(self, count: int, power: PowerSettings | None = None):
        self.count = count
        self.power = power or PowerSettings()
        self._gamma = [round(255 * (i / 255) ** self.power.gamma) for i in range(256)]
        self.last_scale = 1.0
        self.set_brightness(1.0)

    def set_brightness(self, level: float) -> None:
        """0 to 1 of the cap; rebuilds the one lookup table a channel goes through."""
        self.brightness = max(0.0, min(float(level), 1.0)) * self.power.max_brightness
        self._table = [self._gamma[_channel(v, self.brightness)] for v in range(256)]
        self._colours: dict[RGB, RGB] = {}  # wanted colour: output colour, at this brightness
        # Whether any frame could pass the budget: if every LED at the table's brightest
        # cannot, no frame needs its current estimated.
        self._may_exceed = estimate_ma([(max(self._table),) * 3] * self.count) > self.power.budget_ma

    def render(self, frame: Sequence[RGB]) -> list[RGB]:
        """Output values of a frame. A frame has few colours (most LEDs are off): each
        distinct one goes through the table once and is remembered until the brightness
        changes; the frame is then one lookup per LED."""
        if len(frame) != self.count:
            raise HardwareError(f"a frame needs {self.count} colours, one per LED, not {len(frame)}")
        try:
            out = list(map(self._colours.__getitem__, frame))
        except (KeyError, TypeError):
            out = self._look_up(frame)
        self.last_scale = 1.0
        if not self._may_exceed:
            return out
        wanted = estimate_ma(out)
        idle = self.count * MA_IDLE_PER_LED
        if wanted > self.power.budget_ma and wanted > idle:
            scale = max(0.0, (self.power.budget_ma - idle) / (wanted - idle))
            out = [(int(r * scale), int(g * scale), int(b * scale)) for r, g, b in out]
            self.last_scale = scale
        return out

    def _look_up(self, frame: Sequence[RGB]) -> list[RGB]:
        """Each LED's output colour through the table; remembers the new colours
        (plain tuples of ints only)."""
        table, colours = self._table, self._colours
        if len(colours) > MAX_REMEMBERED:
            colours.clear()
        out = []
        for colour in frame:
            r, g, b = colour
            shown = (table[r], table[g], table[b])
            if type(colour) is tuple and type(r) is int and type(g) is int and type(b) is int:
                colours[colour] = shown
            out.append(shown)
        return out


MAX_REMEMBERED = 1024  # distinct colours a pipeline keeps (a frame of 242 LEDs has a handful)


def _channel(value: int, level: float) -> int:
    return min(255, max(0, int(value * level + 0.5)))


class MockStrip:
    """A strip that records the last ``history`` frames shown (as output values),
    for tests and the simulator; older frames are dropped, so memory stays flat."""

    def __init__(self, count: int, power: PowerSettings | None = None, history: int = 100):
        self.count = count
        self.pipeline = FramePipeline(count, power)
        self.frames: deque[list[RGB]] = deque(maxlen=history)
        self.wanted: deque[list[RGB]] = deque(maxlen=history)  # the colours asked for, before the pipeline
        self.closed = False

    def show(self, frame: Sequence[RGB]) -> None:
        if self.closed:
            raise HardwareError("the LED strip is closed")
        self.wanted.append(list(frame))
        self.frames.append(self.pipeline.render(frame))

    def set_brightness(self, level: float) -> None:
        self.pipeline.set_brightness(level)

    @property
    def last_frame(self) -> list[RGB] | None:
        return self.frames[-1] if self.frames else None

    def close(self) -> None:
        if not self.closed:
            self.frames.append([OFF] * self.count)
            self.closed = True


SPI_PIN = 10  # GPIO10, /dev/spidev0.0: no root needed
LED_DRIVERS = ("auto", "spi", "ws281x")  # StripSettings.driver: auto means spi (hardware.model.led_driver_for)
PWM_PINS = (12, 18, 13, 19)


@dataclass(frozen=True)
class StripSettings:
    """How the strip is driven: the ``driver`` ("auto", "spi" or "ws281x"), its data
    ``pin``, the SPI clock ``spi_hz`` (the spi driver) and the ``power`` limits."""

    driver: str = "auto"
    pin: int = SPI_PIN
    spi_hz: int = ws2812.DEFAULT_HZ
    power: PowerSettings = PowerSettings()

    @property
    def data_gpio(self) -> int:
        """The GPIO the strip's data line leaves from: SPI0 MOSI (GPIO10) for the spi
        driver (and auto, which is spi), the configured pin for ws281x."""
        return self.pin if self.driver == "ws281x" else SPI_PIN


class Ws281xStrip:
    """A WS2812 strip on rpi_ws281x: SPI on GPIO10 by default (no root), PWM as an option.

    ``library`` is the rpi_ws281x module (a fake in tests). Only construct this
    on a Raspberry Pi: off a Pi the library crashes the process.
    """

    def __init__(
        self,
        count: int,
        pin: int = SPI_PIN,
        power: PowerSettings | None = None,
        freq_hz: int = 800_000,
        dma: int = 10,
        invert: bool = False,
        library=None,
    ):
        if pin != SPI_PIN and pin not in PWM_PINS:
            raise HardwareError(
                f"LED data on GPIO{pin} is not supported: use GPIO10 (SPI) or 12/13/18/19 (PWM)"
            )
        if library is None:
            from .model import pi_model

            if pi_model() is None:
                # Off a Pi, constructing a PixelStrip crashes the process (even at exit).
                raise DeviceNotFoundError(
                    "the LED strip needs a Raspberry Pi and this is not one: use --backend mock"
                )
            try:
                import rpi_ws281x  # on open, not at import: this module loads on a PC
            except ImportError:
                raise DeviceNotFoundError(
                    "rpi_ws281x is not installed: on the Pi run pip install rpi_ws281x in the venv"
                ) from None
            library = rpi_ws281x
        self.count = count
        self.pin = pin
        self.pipeline = FramePipeline(count, power)
        self._library = library
        channel = 1 if pin in (13, 19) else 0
        self._strip = library.PixelStrip(count, pin, freq_hz, dma, invert, 255, channel)
        try:
            self._strip.begin()
        except RuntimeError as error:
            # The PixelStrip registered its cleanup at exit; run on a strip that never
            # started, it crashes the process.
            cleanup = getattr(self._strip, "_cleanup", None)
            if cleanup is not None:
                atexit.unregister(cleanup)
            where = "/dev/spidev0.0 (enable SPI with raspi-config)" if pin == SPI_PIN else (
                "/dev/mem (PWM needs root)")
            raise DeviceNotFoundError(f"LED strip on GPIO{pin} did not start: {error}; check {where}") from None
        self._open = True

    def show(self, frame: Sequence[RGB]) -> None:
        if not self._open:
            raise HardwareError("the LED strip is closed")
        color = self._library.Color
        for index, (r, g, b) in enumerate(self.pipeline.render(frame)):
            self._strip.setPixelColor(index, color(r, g, b))
        self._strip.show()

    def set_brightness(self, level: float) -> None:
        self.pipeline.set_brightness(level)

    def close(self) -> None:
        if self._open:
            for index in range(self.count):
                self._strip.setPixelColor(index, 0)
            self._strip.show()
            self._open = False


SPI_DEVICE = (0, 0)  # /dev/spidev0.0: MOSI is GPIO10
BUFSIZ_FILE = Path("/sys/module/spidev/parameters/bufsiz")
DEFAULT_BUFSIZ = 4096  # the kernel's default, and what spidev assumes when it cannot read the file
SPIDEV_MAX_BLOCK = 65535  # spidev's writebytes2 never writes more than this at once
BUFSIZ_FIX = (
    "add spidev.bufsiz=65536 at the end of the single line in /boot/firmware/cmdline.txt "
    "and reboot (systemd/install.sh sets it)"
)


def spi_device_present(device: tuple[int, int] = SPI_DEVICE) -> bool:
    """Whether the kernel has the spidev device the strip is sent on."""
    return Path("/dev/spidev{}.{}".format(*device)).exists()


def spi_bufsiz(path: Path = BUFSIZ_FILE) -> int:
    """The kernel's spidev buffer: the most one SPI transfer can carry (4096 if unreadable)."""
    try:
        value = int(path.read_text().strip())
    except (OSError, ValueError):
        return DEFAULT_BUFSIZ
    return value if value > 0 else DEFAULT_BUFSIZ


class SpiStrip:
    """A WS2812 strip on SPI MOSI (GPIO10) through spidev: any current Pi, no root.

    Each frame is encoded by :func:`hardware.ws2812.spi_bytes` and written in one
    transfer. The kernel refuses a transfer longer than its spidev buffer
    (EMSGSIZE), so spidev's ``writebytes2`` cuts a longer write into several, and
    the gap between them can latch the strip mid-frame: a frame that does not fit
    is refused when the strip is opened. ``library`` is the spidev module (a fake
    in tests); ``bufsiz_file`` is where the kernel shows its buffer size.
    """

    def __init__(
        self,
        count: int,
        power: PowerSettings | None = None,
        hz: int = ws2812.DEFAULT_HZ,
        library=None,
        bufsiz_file: Path = BUFSIZ_FILE,
        device: tuple[int, int] = SPI_DEVICE,
    ):
        try:
            size = ws2812.frame_size(count, hz)
        except ValueError as error:
            raise HardwareError(f"leds.spi_hz: {error}") from None
        self.count = count
        self.hz = hz
        self.path = "/dev/spidev{}.{}".format(*device)
        self.pipeline = FramePipeline(count, power)
        if library is None:
            try:
                import spidev  # on open, not at import: this module loads on a PC
            except ImportError:
                raise DeviceNotFoundError(
                    "spidev is not installed: on the Pi run pip install spidev in the venv"
                ) from None
            library = spidev
        spi = library.SpiDev()
        try:
            spi.open(*device)
        except OSError as error:
            raise _device_error(self.path, error) from None
        try:
            # The kernel keeps a device's settings between opens: set every one the bytes rely on.
            spi.mode = 0
            spi.lsbfirst = False
            spi.bits_per_word = 8
            spi.max_speed_hz = hz
        except OSError as error:
            spi.close()
            raise HardwareError(f"{self.path}: cannot set SPI mode 0 at {hz} Hz: {error.strerror or error}") from None
        limit = min(spi_bufsiz(bufsiz_file), SPIDEV_MAX_BLOCK)
        if size > limit:
            spi.close()
            what = f"a frame of {count} LEDs at {hz / 1e6:g} MHz is {size} bytes"
            if size > SPIDEV_MAX_BLOCK:
                raise HardwareError(
                    f"{what}, more than spidev sends in one transfer ({SPIDEV_MAX_BLOCK}): "
                    "use fewer LEDs or a lower leds.spi_hz"
                )
            raise HardwareError(
                f"{what} but the kernel's SPI buffer is {limit} bytes, so frames would go out in pieces "
                f"and the strip would flicker: {BUFSIZ_FIX}"
            )
        self._spi = spi
        self._open = True

    def _write(self, frame: Sequence[RGB]) -> None:
        try:
            self._spi.writebytes2(ws2812.spi_bytes(frame, self.hz))  # one frame, one transfer
        except OSError as error:
            raise HardwareError(f"{self.path}: cannot send to the LED strip: {error.strerror or error}") from None

    def show(self, frame: Sequence[RGB]) -> None:
        if not self._open:
            raise HardwareError("the LED strip is closed")
        self._write(self.pipeline.render(frame))

    def set_brightness(self, level: float) -> None:
        self.pipeline.set_brightness(level)

    def close(self) -> None:
        if self._open:
            self._open = False
            try:
                self._write([OFF] * self.count)
            finally:
                self._spi.close()


def _device_error(path: str, error: OSError) -> HardwareError:
    """The spidev open error as a message that says what to change."""
    if isinstance(error, FileNotFoundError):
        return DeviceNotFoundError(
            f"no {path}: enable SPI: raspi-config nonint do_spi 0 or dtparam=spi=on "
            "in /boot/firmware/config.txt, then reboot"
        )
    if isinstance(error, PermissionError):
        return HardwareError(
            f"{path}: permission denied: add the board's user to the spi group "
            "(sudo usermod -aG spi USER) and start it again"
        )
    return HardwareError(f"{path}: cannot open the LED strip: {error.strerror or error}")


def open_strip(
    driver: str,
    count: int,
    pin: int = SPI_PIN,
    power: PowerSettings | None = None,
    hz: int = ws2812.DEFAULT_HZ,
    model: str | None | bool = False,
    **options,
) -> LedStrip:
    """Open the strip with ``driver`` ("auto", "spi" or "ws281x"); ``model`` is the Pi
    model (False: look it up). ``options`` go to the driver (``library=`` in tests).

    "auto" is spi on every model (see :func:`hardware.model.led_driver_for`); a
    ws281x strip is never constructed on a board rpi_ws281x does not support. Off a
    Pi, spi opens the strip only where the kernel has its device (``/dev/spidev0.0``:
    another board, or a test machine's own SPI controller); else the error says to
    use the mock.
    """
    from .model import led_driver_for, pi_model, ws281x_problem

    model = pi_model() if isinstance(model, bool) else model  # False (a bool): look it up
    name = driver.strip().lower() if isinstance(driver, str) else driver
    if name not in LED_DRIVERS:
        raise HardwareError(f"leds.driver = {driver!r}: use one of {', '.join(LED_DRIVERS)}")
    if name == "auto":
        name, _why = led_driver_for(model)
    if model is None and options.get("library") is None and not (name == "spi" and spi_device_present()):
        raise DeviceNotFoundError("the LED strip needs a Raspberry Pi and this is not one: use --backend mock")
    if name == "spi":
        if pin != SPI_PIN:
            raise HardwareError(
                f'leds.pin = {pin}: the spi driver sends on GPIO10 only: set leds.pin = 10 '
                '(or leds.driver = "ws281x" for a PWM pin)'
            )
        return SpiStrip(count, power, hz, **options)
    problem = ws281x_problem(model)
    if problem:
        raise DeviceNotFoundError(problem)
    return Ws281xStrip(count, pin, power, **options)
