"""The OLED: the mock on luma's dummy device, and clear errors for a missing one."""

import pytest
from PIL import Image, ImageDraw

from hardware.display import DisplaySettings, MockDisplay, open_display
from hardware.errors import DeviceNotFoundError, HardwareError


def test_mock_display_keeps_the_last_image_and_saves_png(tmp_path):
    """The mock keeps the last image shown and can save it as PNG."""
    display = MockDisplay()
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).rectangle((0, 0, 9, 9), fill=1)
    display.show(image)
    assert display.image.getbbox() == (0, 0, 10, 10)
    path = display.save_png(tmp_path / "oled.png")
    assert Image.open(path).size == (128, 64)
    assert display.shown == 1


def test_mock_display_refuses_a_wrong_size():
    """An image of another size is a clear error."""
    with pytest.raises(HardwareError, match="shows 128x64 images"):
        MockDisplay().show(Image.new("1", (64, 32)))


def test_missing_i2c_bus_is_a_clear_error(tmp_path):
    """No /dev/i2c-1: the error names the bus, the address and the fix."""
    with pytest.raises(DeviceNotFoundError) as caught:
        open_display(DisplaySettings(i2c_port=97))
    assert str(caught.value) == "OLED not found on I2C bus 97 at 0x3c: enable I2C with raspi-config"


@pytest.mark.parametrize("kwargs, message", [
    ({"chip": "ssd1331"}, "use one of ssd1306, sh1106"),
    ({"bus": "usb"}, "use i2c or spi"),
    ({"rotate": 4}, "rotate must be"),
])
def test_bad_display_settings(kwargs, message):
    """Unknown chips, buses and rotations are refused."""
    with pytest.raises(ValueError, match=message):
        DisplaySettings(**kwargs)


class FakeSerial:
    """A stand-in for luma's I2C/SPI transport: records what the driver sends."""

    def __init__(self):
        self.commands, self.sent = [], []

    def command(self, *cmd):
        self.commands.append(cmd)

    def data(self, data):
        self.sent.extend(data)

    def cleanup(self):
        pass


@pytest.mark.parametrize("chip", ["ssd1306", "sh1106"])
def test_real_drivers_send_the_image_over_their_transport(chip):
    """The real luma drivers, on a fake transport, receive the 128x64 image as 1024 bytes."""
    from luma.oled import device as oled

    from hardware.display import LumaDisplay

    serial = FakeSerial()
    display = LumaDisplay(getattr(oled, chip)(serial, width=128, height=64), "OLED")
    serial.sent.clear()
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).rectangle((0, 0, 127, 7), fill=1)  # the top 8 rows lit: page 0 all on
    display.show(image)
    assert len(serial.sent) == 1024
    assert serial.sent[:128] == [0xFF] * 128 and set(serial.sent[128:]) == {0}
    display.close()
    assert display.closed
