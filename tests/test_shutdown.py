"""Shut down from the menu: ledger closed and LEDs dark first, then "safe to unplug", then the power-off."""

import io
import subprocess

import pytest
from PIL import Image, ImageDraw

from firmware.board.devices import open_devices
from firmware.board.loop import MOCK_STOPPED, POWER_OFF_FAILED, SAFE_TO_UNPLUG, SHUTTING_DOWN
from firmware.board.pc.simulator import MOCK, Simulator, run_script
from firmware.board.pc.terminal import run_terminal
from firmware.board.screens import font, oled_image
from firmware.config import load_config
from hardware import backend, power
from hardware.display import LumaDisplay
from hardware.power import POWER_OFF_COMMAND, PowerOffError
from ledger.writer import LedgerWriter

from board_thread import BoardThread

SHUT_DOWN = ["click menu", "turn 7", "click knob", "turn 1", "click knob"]  # Menu > Shut down > Yes
SCREENS = {"shutting down": SHUTTING_DOWN, "safe": SAFE_TO_UNPLUG, "refused": POWER_OFF_FAILED,
           "mock stopped": MOCK_STOPPED}


class PoweringOff(backend.MockBackend):
    """The mock devices, with a power-off of the test's own: a real board's, faked."""

    powers_off = True

    def __init__(self, power_off):
        super().__init__("test", "mock devices, a fake power-off")
        self._power_off = power_off

    def power_off(self):
        self._power_off()


class ShutdownRun(BoardThread):
    """A board on mock devices with a fake power-off, run in its own thread; every step recorded."""

    def __init__(self, tmp_path, power_off):
        self.events: list[str] = []
        devices = open_devices(load_config(), MOCK, hold_s=0.05)
        self.strip, self.display = devices.strip, devices.display
        devices.backend = PoweringOff(self._recorded(power_off))
        self._record_devices()
        super().__init__(tmp_path, devices)

    def opened_store(self, store):
        close = store.close
        store.close = lambda: (close(), self.events.append("ledger closed"))
        return store

    def _recorded(self, power_off):
        def recorded():
            self.events.append("power-off")
            power_off()
        return recorded

    def _record_devices(self):
        strip, display = self.strip, self.display
        close_strip, show, close_display = strip.close, display.show, display.close
        images = {oled_image(screen).tobytes(): name for name, screen in SCREENS.items()}

        def strip_closed():
            close_strip()
            self.events.append("strip dark" if set(strip.frames[-1]) == {(0, 0, 0)} else "strip lit")

        def shown(image):
            show(image)
            if image.tobytes() in images:
                self.events.append(f"oled: {images[image.tobytes()]}")

        def display_closed(keep_image=False):
            close_display(keep_image)
            self.events.append("oled left showing" if keep_image else "oled cleared")

        strip.close, display.show, display.close = strip_closed, shown, display_closed

    def press(self, lines):
        controls = self.devices.controls
        for line in lines:
            verb, argument = line.split()
            controls.turn(int(argument)) if verb == "turn" else controls.click(argument)


def test_shut_down_closes_the_ledger_goes_dark_says_safe_then_powers_off(tmp_path):
    """The order: "Shutting down...", ledger closed, strip dark, "safe to unplug", power-off once; the OLED keeps it."""
    calls = []
    run = ShutdownRun(tmp_path, lambda: calls.append("off"))
    run.press(["turn 4", "click red"])
    run.press(SHUT_DOWN)
    run.join()
    assert run.result == 0 and calls == ["off"]
    assert run.events == [
        "oled: shutting down", "ledger closed", "strip dark", "oled: safe", "power-off", "oled left showing",
    ]
    assert set(run.strip.frames[-1]) == {(0, 0, 0)}
    assert run.display.image.tobytes() == oled_image(SAFE_TO_UNPLUG).convert("1").tobytes()
    assert run.journal[-1] == "power-off requested"
    reopened = LedgerWriter(tmp_path / "l.sqlite3")
    try:
        assert reopened.game.state.scores == (4, 0)  # the entry before the shutdown is kept
    finally:
        reopened.close()


def test_a_refused_power_off_says_so_with_the_fix_and_ends_cleanly(tmp_path):
    """The power-off fails: the OLED says so and how to fix it, the journal has the error; the program ends."""
    def refused():
        raise PowerOffError(f"power off refused (Access denied); {power.FIX}")

    run = ShutdownRun(tmp_path, refused)
    run.press(SHUT_DOWN)
    run.join()
    assert run.result == 0
    assert run.events == [
        "oled: shutting down", "ledger closed", "strip dark", "oled: safe", "power-off", "oled: refused",
        "oled left showing",
    ]
    assert run.journal[-1] == f"power off refused (Access denied); {power.FIX}"
    assert run.display.image.tobytes() == oled_image(POWER_OFF_FAILED).convert("1").tobytes()


def test_sigterm_or_stop_is_not_a_shutdown(tmp_path):
    """Stopping the loop (SIGTERM from systemd) closes everything, clears the OLED and never powers off."""
    calls = []
    run = ShutdownRun(tmp_path, lambda: calls.append("off"))
    run.board.stop()
    run.join()
    assert calls == [] and "oled cleared" in run.events and "power-off" not in run.events


def test_the_mock_board_ends_on_shut_down_without_powering_off(tmp_path, monkeypatch):
    """simulate: Shut down ends the board (the rest of the script is not run), dark, no power-off call."""
    def never():
        raise AssertionError("the mock board must not power off")

    monkeypatch.setattr(backend, "power_off", never)  # what the real backend would call
    monkeypatch.setattr(power, "power_off", never)
    result = run_script(["turn 3", "click blue", *SHUT_DOWN, "click red"], load_config(), tmp_path / "l.sqlite3")
    assert [s["score"] for s in result["sides"]] == [0, 3]
    assert result["rejected"] == [{"line": 8, "entry": "click red", "error": "not run: the board was shut down"}]
    assert result["strip"] == [{"front": None, "back": None}] * 2  # the strip is dark


def test_simulator_shut_down_leaves_the_strip_dark_and_the_oled_saying_so(tmp_path):
    """The simulator's board after Shut down: strip closed with an all-off frame, the OLED's last screen."""
    sim = Simulator(load_config(), tmp_path / "l.sqlite3")
    strip = sim.devices.strip
    try:
        for line in SHUT_DOWN:
            sim.act(*line.split())
        assert sim.ended and strip.closed and set(strip.frames[-1]) == {(0, 0, 0)}
        assert sim.devices.display.image.tobytes() == oled_image(MOCK_STOPPED).convert("1").tobytes()
        with pytest.raises(RuntimeError, match="shut down"):
            sim.act("click", "red")
    finally:
        sim.close()


def test_terminal_board_ends_on_shut_down(tmp_path):
    """The terminal board: Menu, Shut down, Yes ends it; keys after that are not played."""
    keys = "m" + "." * 7 + " " + "." + " " + "r"
    out = io.StringIO()
    assert run_terminal(load_config(), tmp_path / "l.sqlite3", stdin=io.StringIO(keys), stdout=out) == 0
    store = LedgerWriter(tmp_path / "l.sqlite3")
    try:
        assert store.game.pegged == []  # the "r" (heels) after the shutdown was not played
    finally:
        store.close()
    assert "mock board keys:" in out.getvalue()


def test_shutdown_screens_fit_the_oled():
    """Every line of the shutdown screens fits 128 pixels (nothing cut short with ~)."""
    draw = ImageDraw.Draw(Image.new("1", (128, 64)))
    for screen in SCREENS.values():
        assert draw.textlength(screen.title, font=font(12)) <= 128, screen.title
        for line in screen.lines:
            assert draw.textlength(line, font=font(10)) <= 126, line
        assert len(screen.lines) <= 4


def test_luma_display_can_be_left_showing_its_last_image():
    """close(keep_image=True) leaves the image on (luma's exit cleanup too); close() blanks it."""
    from luma.core.device import dummy

    device = dummy(width=128, height=64, mode="1")
    display = LumaDisplay(device)
    display.show(oled_image(SAFE_TO_UNPLUG))
    display.close(keep_image=True)
    device.cleanup()  # what luma runs at exit
    assert device.persist and device.image.getbbox() is not None
    other = LumaDisplay(dummy(width=128, height=64, mode="1"))
    other.show(oled_image(SAFE_TO_UNPLUG))
    other.close()
    assert other.device.image.getbbox() is None


# ---- power.py ----------------------------------------------------------------

class FakeRun:
    """subprocess.run as a fake: records the call, answers with ``returncode``/``stderr`` or raises."""

    def __init__(self, returncode=0, stderr="", raises=None):
        self.returncode, self.stderr, self.raises, self.calls = returncode, stderr, raises, []

    def __call__(self, args, **kwargs):
        self.calls.append((args, kwargs))
        if self.raises is not None:
            raise self.raises
        return subprocess.CompletedProcess(args, self.returncode, "", self.stderr)


def test_power_off_asks_systemctl_without_a_password_prompt():
    """The command is ``systemctl --no-ask-password poweroff``, with a timeout."""
    run = FakeRun()
    assert power.power_off(run=run) is None
    (args, kwargs), = run.calls
    assert args == ["systemctl", "--no-ask-password", "poweroff"] == list(POWER_OFF_COMMAND)
    assert kwargs["timeout"] == power.TIMEOUT_SECONDS and kwargs["capture_output"]


@pytest.mark.parametrize("run, start", [
    (FakeRun(1, "Call to PowerOff failed: Access denied\n"),
     "power off refused (Call to PowerOff failed: Access denied); "),
    (FakeRun(1, ""), "power off refused (exit status 1); "),
    (FakeRun(raises=subprocess.TimeoutExpired(["systemctl"], 20)),
     "systemctl --no-ask-password poweroff gave no answer in 20 s; "),
    (FakeRun(raises=FileNotFoundError(2, "No such file")), "systemctl not found: power off needs systemd; "),
    (FakeRun(raises=PermissionError(13, "Permission denied")),
     "systemctl --no-ask-password poweroff could not run (Permission denied); "),
])
def test_power_off_failures_are_one_line_with_the_fix(run, start):
    """Each way the power-off fails is one PowerOffError line that ends with the polkit fix."""
    with pytest.raises(PowerOffError) as raised:
        power.power_off(run=run)
    message = str(raised.value)
    assert message == start + power.FIX and "\n" not in message


def test_power_off_runs_a_real_command_and_reads_its_failure():
    """The real subprocess path, with a harmless command that fails (``false``) and one that is missing."""
    with pytest.raises(PowerOffError, match=r"^power off refused \(exit status 1\)"):
        power.power_off(command=("false",))
    with pytest.raises(PowerOffError, match="not found"):
        power.power_off(command=("/nonexistent/systemctl", "poweroff"))
    assert power.power_off(command=("true",)) is None


def test_the_real_backend_powers_off_and_the_mock_does_not(monkeypatch):
    """open_devices: the real backend's power-off asks power.power_off; the mock board has none."""
    from hardware.backend import PiBackend
    from hardware.leds import MockStrip

    assert open_devices(load_config(), MOCK, hold_s=0.05).power_off is None
    calls = []
    monkeypatch.setattr(backend, "power_off", lambda: calls.append("power-off"))
    devices = open_devices(load_config(), PiBackend("argument", "real"), openers={"strip": lambda: MockStrip(243)})
    try:
        devices.power_off()
        assert calls == ["power-off"]
    finally:
        devices.strip.close()


def test_every_text_gives_the_one_safe_shutdown_instruction(tmp_path, capsys):
    """The menu, the controls card, the OLED, the board's log and the docs all say to unplug once
    the Pi's green light stays off, not when the LEDs go dark; none says the LEDs going dark is enough."""
    import re
    from pathlib import Path

    from firmware.board.controls import MENU_ITEMS, UNPLUG_WHEN
    from firmware.cli import main

    root = Path(__file__).resolve().parent.parent
    assert UNPLUG_WHEN == "the Pi's green light stays off"
    card = tmp_path / "card.pdf"
    assert main(["controls-card", "-o", str(card)]) == 0
    strings = re.findall(rb"\(((?:\\.|[^\\)])*)\) Tj", card.read_bytes())
    card_text = " ".join(re.sub(rb"\\(.)", rb"\1", s).decode("latin-1") for s in strings)
    loop = (root / "firmware" / "board" / "loop.py").read_text()
    texts = {
        "menu": dict(MENU_ITEMS)["Shut down"],
        "controls card": card_text,
        "OLED": " ".join(SAFE_TO_UNPLUG.lines),
        "log": re.search(r'self\.log\(f"(ledger closed[^"]*)"\)', loop).group(1).replace("{UNPLUG_WHEN}", UNPLUG_WHEN),
        "docs/playing.md": (root / "docs" / "playing.md").read_text(),
        "hardware/README.md": (root / "hardware" / "README.md").read_text(),
    }
    for where, text in texts.items():
        flat = " ".join(text.split())
        assert f"once {UNPLUG_WHEN}" in flat, where
        assert where == "log" or "not when the LEDs go dark" in flat, where
    others = [root / "docs" / name for name in ("rules.md", "architecture.md")]
    others += [root / "README.md", root / "systemd" / "README.md"]
    for text in [*texts.values(), *(path.read_text() for path in others)]:
        flat = " ".join(text.split())
        assert not re.search(r"unplug[^.;]*(?<!not )when the (LEDs|lights) (are|go) (dark|off)", flat)
