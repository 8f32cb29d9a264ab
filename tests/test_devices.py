"""A board that survives a failing device: it runs without it, says what to fix, and tries it again."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware.board.devices import open_devices
from firmware.board.pc.simulator import MOCK
from firmware.board.screens import font, oled_image
from firmware.config import load_config
from hardware.display import MockDisplay
from hardware.errors import DeviceNotFoundError, HardwareError
from hardware.inputs import MockControls
from hardware.leds import MockStrip

from board_thread import BoardThread

ROOT = Path(__file__).parent.parent
RETRY_S = 0.05
STRIP_FIX = "LED strip on GPIO10 did not start: ws281x does not support the Pi 5; set leds.driver = \"spi\""


class Flaky:
    """A device factory that raises ``failures`` times, then opens the device; counts its calls."""

    def __init__(self, make, failures, error=None):
        self.make, self.failures, self.calls = make, failures, 0
        self.error = error or DeviceNotFoundError(STRIP_FIX)

    def __call__(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return self.make()


def pins_controls():

    return MockControls(load_config().inputs.pins(hold_s=0.05))


def devices_with(**openers):
    return open_devices(load_config(), MOCK, hold_s=0.05, openers=openers, retry_s=RETRY_S)


def test_a_strip_that_cannot_start_is_not_fatal_and_is_retried_until_it_works(tmp_path):
    """The strip fails to start: the board keeps score on the buttons and OLED, says the fix, and
    opens the strip at a later try; then the strip shows the game."""
    strip = Flaky(lambda: MockStrip(load_config().layout.strip_leds), failures=3)
    devices = devices_with(strip=strip)
    assert devices.strip is None and devices.warnings == [f"{STRIP_FIX}; trying again every 0.05 s"]
    running = BoardThread(tmp_path, devices)
    try:
        controller = running.board.controller
        notice = controller.screen()  # the whole fix on the OLED until the next input
        assert notice.title == "LED strip problem"
        assert notice.lines == ("ws281x does not", "support the Pi 5; set", 'leds.driver = "spi"')  # the fix
        expected = oled_image(notice).convert("1").tobytes()
        assert running.wait_until(lambda: devices.display.image is not None)
        assert devices.display.image.tobytes() == expected
        assert controller.footer.alert and STRIP_FIX in controller.footer.message
        devices.controls.turn(6)
        devices.controls.click("blue")
        assert running.wait_until(lambda: controller.game.state.scores == (0, 6))
        assert running.wait_until(lambda: running.journal[-1:] == ["LED strip working again"])
        assert strip.calls == 4 and devices.strip is not None
        layout = devices.layout
        assert running.wait_until(lambda: devices.strip.wanted and devices.strip.wanted[-1][layout.led(1, 6)] == (0, 80, 255))
    finally:
        running.stop()


@pytest.mark.slow
def test_a_missing_device_is_retried_now_and_then_not_in_a_busy_loop(tmp_path):
    """An OLED that never starts is tried about once per retry interval; the loop sleeps between."""
    display = Flaky(MockDisplay, failures=10**6, error=DeviceNotFoundError(
        "OLED not found on I2C bus 1 at 0x3c: enable I2C with raspi-config"))
    devices = devices_with(display=display)
    started = time.monotonic()
    running = BoardThread(tmp_path, devices)
    try:
        assert running.wait_until(lambda: display.calls - 1 >= 2)  # the first was at the start
        time.sleep(10 * RETRY_S)
        tries, elapsed = display.calls - 1, time.monotonic() - started
        assert tries <= elapsed / RETRY_S + 2  # at most one try per interval, however slow the machine
        assert running.board.frames_shown <= 3  # nothing to animate: the loop slept
        assert running.journal == []  # the same problem is not written again at every try
        devices.controls.turn(3)
        devices.controls.click("red")
        assert running.wait_until(lambda: running.board.controller.game.state.scores == (3, 0))
    finally:
        running.stop()


def test_an_oled_that_fails_then_works_comes_back_and_shows_the_board(tmp_path):
    """The OLED starts at a later try and then shows the screen; the journal says so."""
    display = Flaky(MockDisplay, failures=2, error=DeviceNotFoundError("OLED not found on I2C bus 1 at 0x3c"))
    devices = devices_with(display=display)
    running = BoardThread(tmp_path, devices)
    try:
        assert running.wait_until(lambda: devices.display is not None and devices.display.image is not None)
        assert running.wait_until(lambda: "OLED working again" in running.journal)
        assert devices.problems == {}
    finally:
        running.stop()


def test_buttons_that_cannot_start_are_retried_and_then_work(tmp_path):
    """Without buttons the loop sleeps on its stop flag, shows the fix, and opens the buttons later."""
    controls = Flaky(pins_controls, failures=2, error=HardwareError(
        "buttons and encoder could not be set up: Unable to load any default pin factory!"))
    devices = devices_with(controls=controls)
    assert devices.controls is None and devices.strip is not None
    running = BoardThread(tmp_path, devices)
    try:
        assert "pin factory" in running.board.controller.footer.message
        assert "pin factory" in running.board.devices.problems["controls"]
        assert running.wait_until(lambda: devices.controls is not None)
        devices.controls.turn(3)
        devices.controls.click("blue")
        assert running.wait_until(lambda: running.board.controller.game.state.scores == (0, 3))
    finally:
        running.stop()


def test_a_strip_that_stops_working_is_dropped_and_reopened(tmp_path):
    """A strip whose show() fails is closed and opened again at the next try; the journal says both."""
    made = []

    def make():
        made.append(MockStrip(load_config().layout.strip_leds))
        return made[-1]

    devices = devices_with(strip=make)

    def broken(frame):
        raise HardwareError("ws2811_render failed with code -5 (DMA error)")

    made[0].show = broken
    running = BoardThread(tmp_path, devices)
    try:
        assert running.wait_until(lambda: len(made) == 2 and devices.strip is made[1])
        assert running.wait_until(lambda: running.journal[-1:] == ["LED strip working again"])
        assert running.wait_until(lambda: made[1].wanted)  # said before the first frame is drawn
        assert made[0].closed
        assert running.journal[0].startswith("LED strip failed (ws2811_render failed")
    finally:
        running.stop()


def test_no_device_at_all_is_one_line_and_exit_2(tmp_path):
    """With every device failing there is nothing to run on: one line naming each, exit 2."""
    fail = Flaky(MockStrip, failures=1)
    with pytest.raises(HardwareError) as raised:
        open_devices(load_config(), MOCK, openers={
            "strip": fail, "display": Flaky(MockDisplay, 1, DeviceNotFoundError("OLED not found")),
            "controls": Flaky(pins_controls, 1, HardwareError("no buttons")),
        })
    assert str(raised.value) == f"no device could be opened: {STRIP_FIX}; OLED not found; no buttons"


def test_real_backend_off_a_pi_stops_with_one_line(tmp_path):
    """cribbage-board --backend real on a PC: no strip, no OLED, no pins; one line, exit 2, no traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "--backend", "real", "--state", str(tmp_path / "l.sqlite3")],
        cwd=ROOT, capture_output=True, text=True, timeout=60, input="")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("cribbage-board: no device could be opened: the LED strip needs a Raspberry Pi")
    assert "Traceback" not in result.stderr and len(lines) == 2  # the backend line, then the error


@pytest.mark.parametrize("problem", [
    STRIP_FIX,
    "OLED not found on I2C bus 1 at 0x3c: enable I2C with raspi-config",
    "buttons and encoder could not be set up: Unable to load any default pin factory! "
    "(Falling back from lgpio: No module named 'lgpio')",
    "x" * 200,
])
def test_a_problem_notice_fits_the_oled_and_goes_at_the_next_input(tmp_path, problem):
    """The notice wraps the whole message in the OLED's width (or points to the journal); any input ends it."""
    from PIL import Image, ImageDraw

    from firmware.board.pc.simulator import Simulator

    sim = Simulator(load_config(), tmp_path / "l.sqlite3")
    try:
        controller = sim.board.controller
        controller.notices.show("buttons", problem)
        notice = controller.screen()
        draw = ImageDraw.Draw(Image.new("1", (128, 64)))
        assert all(draw.textlength(line, font=font(10)) <= 126 for line in notice.lines)
        assert problem.endswith(" ".join(notice.lines)) or notice.lines[-1] == "(more in the journal)"
        assert 1 <= len(notice.lines) <= 4
        sim.act("turn", "2")  # the input acts as usual, and the game's screen is back
        assert controller.dial == 2 and controller.screen().big == "2"
    finally:
        sim.close()
