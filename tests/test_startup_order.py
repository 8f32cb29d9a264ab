"""Start-up order: READY=1 once the LEDs, the buttons and the ledger are up; the OLED right after."""

import threading

import pytest

from firmware.board.devices import open_devices
from firmware.board.loop import Board
from firmware.board.pc.simulator import MOCK
from firmware.board.screens import oled_image
from firmware.board.sdnotify import Notifier
from firmware.config import load_config
from hardware.display import MockDisplay
from hardware.errors import DeviceNotFoundError, HardwareError
from ledger.writer import LedgerWriter


class ReadyProbe(Notifier):
    """A notifier that notes which devices were open when READY=1 was sent, then stops the board."""

    def __init__(self):
        super().__init__({})
        self.board = None
        self.open_at_ready = None

    def ready(self, status=None):
        devices = self.board.devices
        self.open_at_ready = {kind: getattr(devices, kind) is not None for kind in ("strip", "display", "controls")}
        self.strip_frames_at_ready = self.board.frames_shown
        threading.Timer(0.2, self.board.stop).start()
        return True


def run_board(tmp_path, devices):
    probe = ReadyProbe()
    journal = []
    with LedgerWriter(tmp_path / "l.sqlite3") as store:
        board = Board(load_config(), store, devices, notifier=probe, log=journal.append)
        probe.board = board
        board.run()
    return board, probe, journal


def test_the_oled_opens_after_ready_and_shows_the_screen(tmp_path):
    """With the display left for later, READY=1 comes with the strip lit and the buttons open,
    and the OLED opens right after it and shows the board's screen."""
    devices = open_devices(load_config(), MOCK, hold_s=0.05, later=("display",))
    assert devices.display is None and devices.later == ["display"] and devices.warnings == []
    board, probe, journal = run_board(tmp_path, devices)
    assert probe.open_at_ready == {"strip": True, "display": False, "controls": True}
    assert probe.strip_frames_at_ready >= 1
    assert devices.display is not None and devices.display.image is not None
    expected = oled_image(board.controller.screen()).convert("1").tobytes()
    assert devices.display.image.tobytes() == expected
    assert journal == []


def test_an_oled_that_fails_after_ready_is_said_and_retried(tmp_path):
    """An OLED opened after READY that cannot start: the journal line of a failed start, retried later."""
    def broken():
        raise DeviceNotFoundError("OLED not found on I2C bus 1 at 0x3C")
    devices = open_devices(load_config(), MOCK, hold_s=0.05, later=("display",),
                           openers={"display": broken}, retry_s=60)
    board, probe, journal = run_board(tmp_path, devices)
    assert journal == ["OLED not found on I2C bus 1 at 0x3C; trying again every 60 s"]
    assert devices.missing() == ["display"] and "display" in board._retry_at
    assert board.controller.footer.alert and "OLED not found" in board.controller.footer.message


def test_later_is_opened_now_when_nothing_else_opens(tmp_path):
    """If neither the strip nor the buttons open, the OLED is opened at once (something to run on),
    and with nothing at all the one-line error names each device in order."""
    def fails(message):
        def opener():
            raise HardwareError(message)
        return opener
    devices = open_devices(load_config(), MOCK, later=("display",),
                           openers={"strip": fails("no strip"), "controls": fails("no buttons")})
    assert isinstance(devices.display, MockDisplay) and devices.later == []
    assert devices.warnings == ["no strip; trying again every 30 s", "no buttons; trying again every 30 s"]
    with pytest.raises(HardwareError) as raised:
        open_devices(load_config(), MOCK, later=("display",), openers={
            "strip": fails("no strip"), "display": fails("no OLED"), "controls": fails("no buttons")})
    assert str(raised.value) == "no device could be opened: no strip; no OLED; no buttons"
