"""The LED strip: brightness cap, gamma, current budget; mock and rpi_ws281x backends."""

import atexit

import pytest

from hardware.errors import DeviceNotFoundError, HardwareError
from hardware.leds import (
    FramePipeline,
    MockStrip,
    PowerSettings,
    Ws281xStrip,
    estimate_ma,
)

WHITE = (255, 255, 255)


def test_full_white_242_leds_is_about_14_amps():
    """The estimate matches the WS2812 rule of thumb: 60 mA a LED at full white."""
    assert 14_000 <= estimate_ma([WHITE] * 242) <= 15_000


def test_brightness_cap_and_gamma():
    """Output is capped by max_brightness and gamma-corrected."""
    pipeline = FramePipeline(1, PowerSettings(max_brightness=0.5, budget_ma=10_000, gamma=2.0))
    assert pipeline.render([WHITE]) == [(64, 64, 64)]  # (128/255)^2 * 255
    pipeline.set_brightness(2.0)  # asked past 1: still the cap
    assert pipeline.render([WHITE]) == [(64, 64, 64)]
    pipeline.set_brightness(0)
    assert pipeline.render([WHITE]) == [(0, 0, 0)]


def test_frames_over_the_budget_are_scaled_down():
    """A frame that would draw more than the budget is dimmed to fit."""
    power = PowerSettings(max_brightness=1.0, budget_ma=2000, gamma=1.0)
    pipeline = FramePipeline(242, power)
    out = pipeline.render([WHITE] * 242)
    assert estimate_ma(out) <= 2000
    assert pipeline.last_scale < 0.2
    assert out[0][0] == out[-1][2] > 0
    small = pipeline.render([WHITE] + [(0, 0, 0)] * 241)
    assert small[0] == WHITE and pipeline.last_scale == 1.0


def _reference(frame, power, level):
    """Each channel by the definition: brightness (capped), gamma, then the budget's scale."""
    brightness = max(0.0, min(level, 1.0)) * power.max_brightness

    def channel(v):
        return round(255 * (min(255, max(0, int(v * brightness + 0.5))) / 255) ** power.gamma)
    out = [tuple(channel(v) for v in colour) for colour in frame]
    wanted, idle = estimate_ma(out), len(frame) * 1.0
    if wanted > power.budget_ma and wanted > idle:
        scale = (power.budget_ma - idle) / (wanted - idle)
        out = [tuple(int(v * scale) for v in colour) for colour in out]
    return out


@pytest.mark.parametrize("budget", [300.0, 4000.0, 20_000.0])
def test_remembered_colours_give_what_the_definition_gives(budget):
    """The pipeline remembers each colour's output until the brightness changes: every frame,
    lists and repeated colours included, is still the channel-by-channel result."""
    import random

    rng = random.Random(int(budget))
    power = PowerSettings(max_brightness=0.8, budget_ma=budget, gamma=2.2)
    pipeline = FramePipeline(60, power)
    for level in (1.0, 0.3, 1.0, 0.7):
        pipeline.set_brightness(level)
        palette = [tuple(rng.randrange(256) for _ in range(3)) for _ in range(6)] + [[9, 200, 30]]
        for _ in range(3):
            frame = [rng.choice(palette) for _ in range(60)]
            assert pipeline.render(frame) == _reference(frame, power, level)


def test_bad_power_settings_are_refused():
    """Brightness, budget and gamma out of range are clear errors."""
    for kwargs, message in [({"max_brightness": 0}, "max_brightness"),
                            ({"budget_ma": -1}, "budget_ma"), ({"gamma": 5}, "gamma")]:
        with pytest.raises(ValueError, match=message):
            PowerSettings(**kwargs)


def test_mock_strip_records_every_frame_and_turns_off_on_close():
    """The mock records each frame shown; closing shows an all-off frame."""
    strip = MockStrip(3, PowerSettings(max_brightness=1.0, gamma=1.0))
    strip.show([(255, 0, 0), (0, 255, 0), (0, 0, 0)])
    strip.show([(0, 0, 255)] * 3)
    assert list(strip.frames) == [[(255, 0, 0), (0, 255, 0), (0, 0, 0)], [(0, 0, 255)] * 3]
    strip.close()
    assert strip.last_frame == [(0, 0, 0)] * 3
    with pytest.raises(HardwareError, match="closed"):
        strip.show([(0, 0, 0)] * 3)


def test_mock_strip_keeps_a_bounded_history():
    """A long session keeps only the last frames: memory stays flat, the last frame is right."""
    strip = MockStrip(2, PowerSettings(max_brightness=1.0, gamma=1.0), history=5)
    for level in range(1000):
        strip.show([(level % 256, 0, 0), (0, 0, 0)])
    assert len(strip.frames) == len(strip.wanted) == 5
    assert strip.wanted[-1] == [(999 % 256, 0, 0), (0, 0, 0)] and strip.last_frame == strip.frames[-1]
    assert [frame[0][0] for frame in strip.wanted] == [(995 + k) % 256 for k in range(5)]


def test_frame_of_the_wrong_length_is_refused():
    """A frame must give one colour per LED."""
    with pytest.raises(HardwareError, match="a frame needs 3 colours, one per LED, not 2"):
        MockStrip(3).show([(0, 0, 0)] * 2)


class FakeWs281x:
    """A stand-in for the rpi_ws281x module (a real PixelStrip crashes off a Pi)."""

    def __init__(self, fail_begin=False):
        self.strips = []
        self.fail_begin = fail_begin
        outer = self

        class PixelStrip:
            def __init__(self, num, pin, freq_hz, dma, invert, brightness, channel):
                self.args = (num, pin, freq_hz, dma, invert, brightness, channel)
                self.pixels = [0] * num
                self.shown = []
                outer.strips.append(self)
                atexit.register(self._cleanup)  # as rpi_ws281x does: fatal at exit if begin() failed

            def _cleanup(self):
                if getattr(self, "name", None):  # set by the exit test's child process
                    print(f"cleanup of {self.name}")

            def begin(self):
                if outer.fail_begin:
                    raise RuntimeError("ws2811_init failed with code -13 (Unable to initialize SPI)")

            def setPixelColor(self, n, color):
                self.pixels[n] = color

            def show(self):
                self.shown.append(list(self.pixels))

        self.PixelStrip = PixelStrip

    @staticmethod
    def Color(red, green, blue, white=0):
        return (white << 24) | (red << 16) | (green << 8) | blue


def test_ws281x_strip_uses_spi_by_default_and_writes_colours():
    """The real backend opens GPIO10 (SPI, no root) and writes each pixel, then shows."""
    library = FakeWs281x()
    strip = Ws281xStrip(2, power=PowerSettings(max_brightness=1.0, gamma=1.0), library=library)
    assert library.strips[0].args == (2, 10, 800_000, 10, False, 255, 0)
    strip.show([(255, 0, 0), (0, 0, 1)])
    assert library.strips[0].shown == [[0xFF0000, 0x000001]]
    strip.close()
    assert library.strips[0].shown[-1] == [0, 0]


def test_ws281x_pwm_channel_and_bad_pin():
    """PWM pins pick their channel; any other pin is refused with the choices."""
    library = FakeWs281x()
    Ws281xStrip(1, pin=13, library=library)
    assert library.strips[0].args[-1] == 1
    with pytest.raises(HardwareError, match="GPIO4 is not supported: use GPIO10"):
        Ws281xStrip(1, pin=4, library=library)


def test_ws281x_start_failure_names_the_device():
    """A strip that will not start says which device to check."""
    with pytest.raises(DeviceNotFoundError, match="/dev/spidev0.0 \\(enable SPI with raspi-config\\)"):
        Ws281xStrip(1, library=FakeWs281x(fail_begin=True))


EXIT_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
from test_leds import FakeWs281x
from hardware.errors import DeviceNotFoundError
from hardware.leds import Ws281xStrip
library = FakeWs281x(fail_begin=sys.argv[2] == "fail")
try:
    Ws281xStrip(1, library=library)
except DeviceNotFoundError:
    print("did not start")
library.strips[0].name = sys.argv[2]
"""


@pytest.mark.parametrize("begin, output", [("fail", "did not start\n"), ("start", "cleanup of start\n")])
def test_ws281x_start_failure_unregisters_the_exit_cleanup(begin, output):
    """A PixelStrip that did not begin() has no cleanup left for exit (on a Pi that cleanup crashes)."""
    import subprocess
    import sys
    from pathlib import Path

    tests = Path(__file__).parent
    run = subprocess.run([sys.executable, "-c", EXIT_SCRIPT, str(tests), begin], cwd=tests.parent,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == output


def test_real_strip_refuses_to_start_off_a_pi():
    """Off a Pi the real backend refuses before rpi_ws281x is touched (it would crash the process)."""
    from hardware.model import pi_model

    if pi_model() is not None:
        pytest.skip("this is a Raspberry Pi")
    with pytest.raises(DeviceNotFoundError, match="needs a Raspberry Pi and this is not one: use --backend mock"):
        Ws281xStrip(10)


def test_real_backend_on_a_pc_is_a_clear_error(tmp_path, capsys):
    """cribbage-board --backend real on a PC: one line, exit 2, no crash."""
    from firmware.cli import main
    from hardware.model import pi_model

    if pi_model() is not None:
        pytest.skip("this is a Raspberry Pi")
    assert main(["--backend", "real", "--state", str(tmp_path / "l.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert "not a Raspberry Pi" in err and "use --backend mock" in err
