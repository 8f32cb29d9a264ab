"""The spi LED driver (spidev) and the driver choice, with a fake spidev module and fake Pi models."""

import errno
import sys

import pytest

from hardware.errors import DeviceNotFoundError, HardwareError
from hardware.leds import PowerSettings, SpiStrip, Ws281xStrip, open_strip, spi_bufsiz
from hardware.model import led_driver_for, ws281x_problem

from test_leds import FakeWs281x
from wire import decode

PI5 = "Raspberry Pi 5 Model B Rev 1.0"
PI4 = "Raspberry Pi 4 Model B Rev 1.5"
ZERO2 = "Raspberry Pi Zero 2 W Rev 1.0"
PI3 = "Raspberry Pi 3 Model B Plus Rev 1.3"
PI500 = "Raspberry Pi 500 Rev 1.0"
CM5 = "Raspberry Pi Compute Module 5 Rev 1.0"
MODELS = (PI5, PI4, ZERO2, PI3, None)
PLAIN = PowerSettings(max_brightness=1.0, budget_ma=100_000, gamma=1.0)  # colours go out as given
BUFSIZ_FIX = ("add spidev.bufsiz=65536 at the end of the single line in /boot/firmware/cmdline.txt "
              "and reboot (systemd/install.sh sets it)")


class FakeSpidev:
    """A stand-in for the spidev module: records open, mode, clock, writes and close.

    Like spidev 3.8's writebytes2, a write is cut into transfers of the kernel's
    buffer size (at most 65535 bytes); ``transfers`` holds what went out in each.
    """

    def __init__(self, bufsiz=4096, open_error=None, write_error=None, speed_error=None):
        self.devices = []
        outer = self

        class SpiDev:
            def __init__(self):
                self.opened = None
                self.mode = self.lsbfirst = self.bits_per_word = self._speed = None
                self.writes, self.transfers = [], []
                self.closed = False
                outer.devices.append(self)

            def open(self, bus, device):
                if open_error:
                    raise open_error
                self.opened = (bus, device)

            @property
            def max_speed_hz(self):
                return self._speed

            @max_speed_hz.setter
            def max_speed_hz(self, hz):
                if speed_error:
                    raise speed_error
                self._speed = hz

            def writebytes2(self, data):
                if write_error:
                    raise write_error
                data = bytes(data)
                self.writes.append(data)
                block = min(bufsiz, 65535)
                self.transfers += [data[i:i + block] for i in range(0, len(data), block)]

            def close(self):
                self.closed = True

        self.SpiDev = SpiDev

    @property
    def device(self):
        return self.devices[-1]


@pytest.fixture
def bufsiz(tmp_path):
    """Write a fake /sys/module/spidev/parameters/bufsiz; returns its path."""
    path = tmp_path / "bufsiz"

    def write(value):
        path.write_text(f"{value}\n")
        return path
    write(4096)
    return write


def test_spi_strip_opens_spidev0_0_in_mode_0_at_the_clock(bufsiz):
    """Bus 0 device 0 (/dev/spidev0.0, MOSI = GPIO10), mode 0, MSB first, 8-bit words, max_speed_hz = the clock."""
    library = FakeSpidev()
    strip = SpiStrip(3, PLAIN, hz=4_800_000, library=library, bufsiz_file=bufsiz(4096))
    spi = library.device
    assert (spi.opened, spi.mode, spi.lsbfirst, spi.bits_per_word, spi.max_speed_hz) == ((0, 0), 0, False, 8, 4_800_000)
    assert strip.count == 3 and library.device.writes == []


def test_spi_strip_sends_each_frame_in_one_transfer_that_decodes_to_the_colours(bufsiz):
    """show() writes once; the bytes, read as the strip reads them, are the frame's colours."""
    library = FakeSpidev()
    strip = SpiStrip(3, PLAIN, library=library, bufsiz_file=bufsiz(4096))
    frame = [(255, 0, 0), (0, 128, 1), (7, 7, 7)]
    strip.show(frame)
    strip.show(frame[::-1])
    assert len(library.device.writes) == 2 and len(library.device.transfers) == 2
    assert decode(library.device.writes[0], 2_400_000).colours() == frame
    assert decode(library.device.writes[1], 2_400_000).colours() == frame[::-1]


def test_spi_strip_goes_through_the_pipeline(bufsiz):
    """Brightness and gamma apply before encoding: at brightness 0 white goes out as off."""
    library = FakeSpidev()
    strip = SpiStrip(2, PowerSettings(max_brightness=0.5, gamma=2.0), library=library, bufsiz_file=bufsiz(4096))
    strip.show([(255, 255, 255)] * 2)
    strip.set_brightness(0)
    strip.show([(255, 255, 255)] * 2)
    assert decode(library.device.writes[0], 2_400_000).colours() == [(64, 64, 64)] * 2
    assert decode(library.device.writes[1], 2_400_000).colours() == [(0, 0, 0)] * 2


def test_spi_strip_close_turns_the_leds_off_and_closes_the_device(bufsiz):
    """close() sends an all-off frame, closes spidev, and is safe twice; show() after it is an error."""
    library = FakeSpidev()
    strip = SpiStrip(4, PLAIN, library=library, bufsiz_file=bufsiz(4096))
    strip.show([(9, 9, 9)] * 4)
    strip.close()
    strip.close()
    assert decode(library.device.writes[-1], 2_400_000).colours() == [(0, 0, 0)] * 4
    assert len(library.device.writes) == 2 and library.device.closed
    with pytest.raises(HardwareError, match="closed"):
        strip.show([(0, 0, 0)] * 4)


@pytest.mark.parametrize("count, hz, size, fits", [
    (243, 2_400_000, 4096, True),  # classic-121: 2365 bytes
    (485, 2_400_000, 4096, False),  # four-track-121: 4543 bytes
    (485, 2_400_000, 65536, True),
    (243, 4_800_000, 4096, False),
    (243, 4_800_000, 65536, True),
    (485, 6_400_000, 65536, True),
])
def test_a_frame_goes_out_in_one_transfer_or_the_strip_refuses_to_open(bufsiz, count, hz, size, fits):
    """Against the kernel's buffer: a frame that fits is one write and one transfer; one that does not is refused."""
    library = FakeSpidev(bufsiz=size)
    if not fits:
        with pytest.raises(HardwareError) as caught:
            SpiStrip(count, PLAIN, hz=hz, library=library, bufsiz_file=bufsiz(size))
        assert str(caught.value).endswith(f"the kernel's SPI buffer is {size} bytes, so frames would go out "
                                          f"in pieces and the strip would flicker: {BUFSIZ_FIX}")
        assert f"a frame of {count} LEDs at {hz / 1e6:g} MHz is " in str(caught.value)
        assert library.device.closed
        return
    strip = SpiStrip(count, PLAIN, hz=hz, library=library, bufsiz_file=bufsiz(size))
    strip.show([(200, 100, 50)] * count)
    [write] = library.device.writes
    assert library.device.transfers == [write] and len(write) <= size
    assert decode(write, hz).colours() == [(200, 100, 50)] * count


def test_unreadable_bufsiz_counts_as_the_default_4096(tmp_path):
    """No bufsiz file: spidev itself falls back to 4096, and so does the check."""
    assert spi_bufsiz(tmp_path / "missing") == 4096
    (tmp_path / "junk").write_text("lots\n")
    assert spi_bufsiz(tmp_path / "junk") == 4096
    with pytest.raises(HardwareError, match="SPI buffer is 4096 bytes"):
        SpiStrip(485, library=FakeSpidev(), bufsiz_file=tmp_path / "missing")


def test_a_frame_longer_than_spidev_can_ever_send_is_refused(bufsiz):
    """writebytes2 never sends more than 65535 bytes at once, whatever bufsiz says."""
    with pytest.raises(HardwareError, match=r"7500 LEDs at 2.4 MHz is \d+ bytes, more than spidev sends in one "
                                            r"transfer \(65535\): use fewer LEDs or a lower leds.spi_hz"):
        SpiStrip(7500, library=FakeSpidev(bufsiz=1 << 20), bufsiz_file=bufsiz(1 << 20))


@pytest.mark.parametrize("error, kind, message", [
    (FileNotFoundError(errno.ENOENT, "No such file or directory"), DeviceNotFoundError,
     "no /dev/spidev0.0: enable SPI: raspi-config nonint do_spi 0 or dtparam=spi=on in /boot/firmware/config.txt"),
    (PermissionError(errno.EACCES, "Permission denied"), HardwareError,
     "/dev/spidev0.0: permission denied: add the board's user to the spi group"),
    (OSError(errno.EIO, "Input/output error"), HardwareError, "/dev/spidev0.0: cannot open the LED strip: Input"),
])
def test_device_errors_name_the_device_and_the_fix(bufsiz, error, kind, message):
    """No device, no permission, other failures: each a hardware error naming /dev/spidev0.0."""
    with pytest.raises(kind) as caught:
        SpiStrip(3, library=FakeSpidev(open_error=error), bufsiz_file=bufsiz(4096))
    assert str(caught.value).startswith(message)


def test_a_clock_the_controller_refuses_closes_the_device(bufsiz):
    """An error setting the SPI clock is a HardwareError naming the device, and the device is closed."""
    library = FakeSpidev(speed_error=OSError(errno.EINVAL, "Invalid argument"))
    with pytest.raises(HardwareError, match="/dev/spidev0.0: cannot set SPI mode 0 at 2400000 Hz: Invalid argument"):
        SpiStrip(3, library=library, bufsiz_file=bufsiz(4096))
    assert library.device.closed


def test_a_failed_write_is_a_hardware_error_naming_the_device(bufsiz):
    """An I/O error while sending is a HardwareError, not an OSError."""
    strip = SpiStrip(1, library=FakeSpidev(write_error=OSError(errno.EIO, "Input/output error")),
                     bufsiz_file=bufsiz(4096))
    with pytest.raises(HardwareError, match="/dev/spidev0.0: cannot send to the LED strip: Input/output error"):
        strip.show([(1, 1, 1)])


def test_a_clock_it_cannot_use_is_refused_before_the_device_is_opened(bufsiz):
    """A bad clock names the config key and opens nothing."""
    library = FakeSpidev()
    with pytest.raises(HardwareError, match="leds.spi_hz: an SPI clock of 3200000 Hz cannot make WS2812 timing"):
        SpiStrip(3, hz=3_200_000, library=library, bufsiz_file=bufsiz(4096))
    assert library.devices == []


def test_spidev_is_imported_in_the_constructor(bufsiz, monkeypatch):
    """Without library=, the constructor imports spidev (here a fake put in sys.modules)."""
    fake = FakeSpidev()
    monkeypatch.setitem(sys.modules, "spidev", fake)
    SpiStrip(3, bufsiz_file=bufsiz(4096))
    assert fake.device.opened == (0, 0)


def test_missing_spidev_is_a_clear_error(bufsiz, monkeypatch):
    """No spidev package: say how to install it."""
    monkeypatch.setitem(sys.modules, "spidev", None)  # makes the import fail
    with pytest.raises(DeviceNotFoundError, match="spidev is not installed: on the Pi run pip install spidev"):
        SpiStrip(3, bufsiz_file=bufsiz(4096))


@pytest.mark.parametrize("model", MODELS + (PI500, CM5))
def test_auto_is_spi_on_every_model(model, bufsiz):
    """auto means spi on every Pi (and off one); open_strip opens a SpiStrip on /dev/spidev0.0."""
    driver, reason = led_driver_for(model)
    assert driver == "spi" and (model or "not a Raspberry Pi") in reason
    library = FakeSpidev()
    strip = open_strip("auto", 243, 10, PLAIN, model=model, library=library, bufsiz_file=bufsiz(4096))
    assert isinstance(strip, SpiStrip) and library.device.opened == (0, 0)


@pytest.mark.parametrize("model, message", [
    (PI5, 'ws281x does not support the Raspberry Pi 5: set leds.driver = "spi"'),
    (PI500, 'ws281x does not support the Raspberry Pi 5 family (this is a Raspberry Pi 500 Rev 1.0): '
            'set leds.driver = "spi"'),
    (CM5, 'ws281x does not support the Raspberry Pi 5 family (this is a Raspberry Pi Compute Module 5 Rev 1.0): '
          'set leds.driver = "spi"'),
    ("Raspberry Pi 6 Model B Rev 1.0", 'ws281x does not know the Raspberry Pi 6 Model B Rev 1.0: '
                                       'set leds.driver = "spi"'),
])
def test_ws281x_is_refused_on_the_pi_5_family_before_a_pixelstrip_exists(model, message):
    """On a board rpi_ws281x does not support, no PixelStrip is ever constructed."""
    library = FakeWs281x()
    with pytest.raises(DeviceNotFoundError) as caught:
        open_strip("ws281x", 243, 10, PLAIN, model=model, library=library)
    assert str(caught.value) == message and ws281x_problem(model) == message
    assert library.strips == []


@pytest.mark.parametrize("model", [PI4, ZERO2, PI3, "Raspberry Pi 400 Rev 1.0", "Raspberry Pi Model B Plus Rev 1.2"])
@pytest.mark.parametrize("pin", [10, 18])
def test_ws281x_when_asked_on_a_pi_4_or_older(model, pin):
    """leds.driver = "ws281x" opens rpi_ws281x on the boards it supports, on SPI or a PWM pin."""
    library = FakeWs281x()
    strip = open_strip("ws281x", 5, pin, PLAIN, model=model, library=library)
    assert isinstance(strip, Ws281xStrip) and library.strips[0].args[:2] == (5, pin)
    assert ws281x_problem(model) is None


@pytest.mark.parametrize("driver", ["auto", "spi", "SPI"])
def test_spi_needs_gpio10(driver, bufsiz):
    """The spi driver (and auto, which is spi) only sends on GPIO10; the message names the key."""
    library = FakeSpidev()
    with pytest.raises(HardwareError, match='leds.pin = 18: the spi driver sends on GPIO10 only: set leds.pin = 10'):
        open_strip(driver, 3, 18, model=PI4, library=library, bufsiz_file=bufsiz(4096))
    assert library.devices == []


@pytest.mark.parametrize("driver", ["auto", "spi", "ws281x"])
def test_off_a_pi_the_real_strip_says_use_the_mock(driver):
    """Not a Pi and no fake library: a clear error before any driver is touched."""
    with pytest.raises(DeviceNotFoundError, match="needs a Raspberry Pi and this is not one: use --backend mock"):
        open_strip(driver, 3, 10, model=None)


def test_an_unknown_driver_is_refused():
    """leds.driver takes auto, spi or ws281x."""
    with pytest.raises(HardwareError, match="leds.driver = 'pwm': use one of auto, spi, ws281x"):
        open_strip("pwm", 3, 10, model=PI4, library=FakeSpidev())


@pytest.fixture
def pi5_board(monkeypatch):
    """A fake Pi 5: its model, a fake spidev, no rpi_ws281x, and gpiozero's mock pins."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    import hardware.model

    fake = FakeSpidev()
    monkeypatch.setitem(sys.modules, "spidev", fake)
    monkeypatch.setitem(sys.modules, "rpi_ws281x", None)  # importing it fails: it must not be needed
    monkeypatch.setattr(hardware.model, "pi_model", lambda: PI5)
    Device.pin_factory = MockFactory()
    try:
        yield fake
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = None


def test_the_board_opens_the_spi_strip_on_a_pi_5(pi5_board):
    """open_devices on a Pi 5 with the default driver: a SpiStrip at 2.4 MHz, frames that decode."""
    from firmware.board.devices import open_devices
    from firmware.config import load_config
    from hardware.backend import PiBackend

    config = load_config(overrides=["display.enabled=false"])
    devices = open_devices(config, PiBackend("argument", "real hardware"))
    try:
        assert isinstance(devices.strip, SpiStrip) and devices.strip.count == 243
        assert (pi5_board.device.opened, pi5_board.device.max_speed_hz) == ((0, 0), 2_400_000)
        devices.strip.show([(0, 0, 0)] * 242 + [(255, 255, 255)])
        assert decode(pi5_board.device.writes[-1], 2_400_000).colours()[-1] != (0, 0, 0)
    finally:
        devices.strip.close()
        devices.controls.close()
    assert pi5_board.device.closed


def test_the_board_on_a_pi_5_with_ws281x_says_use_spi(pi5_board):
    """leds.driver = "ws281x" on a Pi 5 is refused with the key to change, before rpi_ws281x is imported."""
    from firmware.board.devices import open_devices
    from firmware.config import load_config
    from hardware.backend import PiBackend

    config = load_config(overrides=["display.enabled=false", "leds.driver=ws281x"])
    devices = open_devices(config, PiBackend("argument", "real hardware"))
    try:
        assert devices.strip is None  # not fatal: the buttons still run, the strip is retried
        assert devices.problems["strip"].endswith(
            'ws281x does not support the Raspberry Pi 5: set leds.driver = "spi"')
        assert any('set leds.driver = "spi"' in line for line in devices.warnings)
    finally:
        devices.controls.close()


@pytest.mark.parametrize("driver", ["auto", "spi"])
def test_off_a_pi_the_spi_driver_opens_where_the_kernel_has_spidev(driver, bufsiz, monkeypatch):
    """Not a Pi, but /dev/spidev0.0 is there (another board, a test VM's SPI controller): the strip opens on it."""
    import hardware.leds

    library = FakeSpidev()
    monkeypatch.setitem(sys.modules, "spidev", library)
    monkeypatch.setattr(hardware.leds, "spi_device_present", lambda device=(0, 0): True)
    strip = open_strip(driver, 3, 10, model=None, bufsiz_file=bufsiz(4096))
    assert isinstance(strip, SpiStrip) and library.device.opened == (0, 0)


def test_off_a_pi_ws281x_is_refused_even_where_spidev_is(monkeypatch):
    """rpi_ws281x crashes off a Pi: a spidev device changes nothing for it."""
    import hardware.leds

    monkeypatch.setattr(hardware.leds, "spi_device_present", lambda device=(0, 0): True)
    with pytest.raises(DeviceNotFoundError, match="needs a Raspberry Pi and this is not one: use --backend mock"):
        open_strip("ws281x", 3, 10, model=None)


def test_spi_device_present_looks_for_the_device_node():
    """spidev's device node, /dev/spidevB.C: a bus no machine has is not present."""
    from hardware.leds import spi_device_present

    assert spi_device_present((4095, 4095)) is False
