"""SIGTERM and SIGINT wake the main loop at once: systemctl stop does not wait for the loop's next wake."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from firmware.board import loop
from firmware.board.devices import open_devices
from firmware.board.loop import Board
from firmware.board.pc.simulator import MOCK
from firmware.board.signals import StopSignals
from firmware.config import load_config
from ledger.lock import writer_running
from ledger.writer import LedgerWriter

from waits import CEILING_S


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_wakes_a_sleeping_board_and_closes_the_ledger(tmp_path, monkeypatch, sig):
    """Board.run() in the main thread with an hour between idle wakes: the signal ends it, the
    LEDs go dark and the ledger is closed (its writer's lock let go), with no KeyboardInterrupt.
    Only the 30 s ceiling's stop() would end it otherwise, and the test says so."""
    monkeypatch.setattr(loop, "IDLE_WAKE_SECONDS", 3600.0)
    path = tmp_path / "ledger.sqlite3"
    devices = open_devices(load_config(), MOCK, hold_s=0.05)
    board = Board(load_config(), LedgerWriter(path), devices, log=lambda line: None)
    fired = threading.Event()
    ceiling = threading.Timer(CEILING_S, lambda: (fired.set(), board.stop()))
    sender = threading.Timer(0.2, os.kill, (os.getpid(), sig))
    ceiling.start()
    sender.start()
    try:
        assert board.run() == 0
    finally:
        sender.cancel()
        ceiling.cancel()
    assert board.stopped_by == sig and not fired.is_set(), "the ceiling's stop() ended it, not the signal"
    assert devices.strip.closed and set(devices.strip.frames[-1]) == {(0, 0, 0)}
    assert writer_running(path) is False
    LedgerWriter(path).close()  # nobody holds it: a new writer opens at once


def test_the_handlers_are_put_back_after_the_loop(tmp_path):
    """Outside Board.run() the signals are as they were: the default SIGINT raises KeyboardInterrupt."""
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    woken = threading.Event()
    with StopSignals(woken.set) as signals:
        os.kill(os.getpid(), signal.SIGTERM)
        assert woken.wait(CEILING_S) and signals.received == signal.SIGTERM
    assert {sig: signal.getsignal(sig) for sig in before} == before
    assert signal.set_wakeup_fd(-1) == -1  # the wake-up pipe is gone too


def test_off_the_main_thread_nothing_is_caught():
    """In another thread (the tests' BoardThread) the signals are left alone."""
    before = signal.getsignal(signal.SIGTERM)
    result = []

    def in_a_thread():
        with StopSignals(lambda: None):
            result.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join(CEILING_S)
    assert result == [before]
