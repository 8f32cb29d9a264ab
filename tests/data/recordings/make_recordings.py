"""Write the host's recordings: what the board's real OLED and LED drivers send, caught by fake buses
that write each I2C message and SPI transfer as the test VM's recording adapters do (tests/wire.py).

    python tests/data/recordings/make_recordings.py

i2c-oled-host.txt: luma.oled's ssd1306 opened by ``hardware.display.open_display`` on I2C bus 1 at
0x3C, as the board opens it (luma's managed smbus2 path: a command is ``write_i2c_block_data(addr,
0x00, [cmd, args...])``, which the kernel sends as one I2C write ``00 cmd args...``; GDDRAM data is
one ``i2c_rdwr`` write ``40 data...``), then one scores screen drawn by
``firmware.board.screens.oled_image`` shown and the display closed with the image kept.
i2c-oled-host.pbm: that image, saved by Pillow (binary PBM, P4).

spi-strip-host.txt: ``hardware.leds.SpiStrip`` (243 LEDs, the classic-121 layout, 2.4 MHz, the
default brightness cap and gamma) showing the board's LED frame of the same game, one transfer.
spi-strip-host.json: the colours that frame went out as, after the strip's brightness and gamma.

Timestamps are made up: 22.5 us an I2C byte (400 kHz, 9 clocks a byte) and a gap between messages.
"""

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent))

import smbus2  # noqa: E402

from firmware.board.frames import LedStyle, led_frame  # noqa: E402
from firmware.board.screens import oled_image, scores_screen  # noqa: E402
from firmware.board.view import GameView  # noqa: E402
from hardware.display import DisplaySettings, open_display  # noqa: E402
from hardware.layout import load_layout  # noqa: E402
from hardware.leds import FramePipeline, PowerSettings, SpiStrip  # noqa: E402
from scorer.record import replay  # noqa: E402

GAME = ["game six-card seats=Alice,Bob dealer=Alice", "peg Bob 15", "hand Bob 29", "hand Alice 12", "crib 8"]
I2C_M_RD = 0x0001  # linux/i2c.h


class Clock:
    """Microseconds since the recorder loaded, moved on by each message."""

    def __init__(self, start: int):
        self.us = start

    def after(self, nbytes: int, gap: int = 40) -> int:
        now = self.us
        self.us += gap + round(nbytes * 22.5)
        return now


def recording_bus(lines: list[str], clock: Clock):
    """An smbus2.SMBus stand-in: each message luma sends becomes a recording line."""

    class RecordingBus:
        def __init__(self, port):
            self.port = port

        def _line(self, address: int, direction: str, data: bytes) -> None:
            lines.append(f"{clock.after(1 + len(data))} {address:02x} {direction} {data.hex() or '-'}")

        def write_i2c_block_data(self, address, register, data):
            self._line(address, "w", bytes([register, *data]))  # SMBus I2C-block write: one message

        def i2c_rdwr(self, *messages):
            for message in messages:
                if message.flags & I2C_M_RD:
                    self._line(message.addr, "r", bytes(message.len))
                else:
                    self._line(message.addr, "w", bytes(message))

        def close(self):
            pass

    return RecordingBus


def recording_spidev(lines: list[str], clock: Clock):
    """A spidev module stand-in: each write becomes one transfer's recording line."""

    class SpiDev:
        def open(self, bus, device):
            self.mode, self.lsbfirst, self.bits_per_word, self.max_speed_hz = 0, False, 8, 500_000

        def writebytes2(self, data):
            mode = self.mode | (0x08 if self.lsbfirst else 0)  # SPI_LSB_FIRST
            data = bytes(data)
            lines.append(f"{clock.after(len(data))} {self.max_speed_hz} {self.bits_per_word} {mode} {data.hex()}")

        def close(self):
            pass

    class Module:
        pass

    module = Module()
    module.SpiDev = SpiDev
    return module


def main() -> None:
    view = GameView.of(replay(GAME).book.game)

    lines = ["# cribbage_i2c_rec: bus 1, made on the host by tests/data/recordings/make_recordings.py"]
    image = oled_image(scores_screen(view))
    real_bus = smbus2.SMBus
    smbus2.SMBus = recording_bus(lines, Clock(1000))
    try:
        display = open_display(DisplaySettings(i2c_port=1, i2c_address=0x3C))
        display.show(image)
        display.close(keep_image=True)
    finally:
        smbus2.SMBus = real_bus
    (HERE / "i2c-oled-host.txt").write_text("\n".join(lines) + "\n")
    image.save(HERE / "i2c-oled-host.pbm")

    layout = load_layout("classic-121")
    frame = led_frame(layout, view.board, LedStyle())
    power = PowerSettings()
    lines = ["# cribbage_spi_rec: spi0.0, made on the host by tests/data/recordings/make_recordings.py"]
    with tempfile.TemporaryDirectory() as folder:
        bufsiz = Path(folder) / "bufsiz"
        bufsiz.write_text("4096\n")
        strip = SpiStrip(layout.strip_leds, power, hz=2_400_000, library=recording_spidev(lines, Clock(250_000)),
                         bufsiz_file=bufsiz)
        strip.show(frame)
    meant = FramePipeline(layout.strip_leds, power).render(frame)
    (HERE / "spi-strip-host.txt").write_text("\n".join(lines) + "\n")
    (HERE / "spi-strip-host.json").write_text(
        json.dumps({"hz": 2_400_000, "frames": [[list(c) for c in meant]]}, separators=(",", ":")) + "\n")
    print(f"wrote {HERE}/i2c-oled-host.txt .pbm and spi-strip-host.txt .json")


if __name__ == "__main__":
    main()
