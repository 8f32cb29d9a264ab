"""Fault tests: kill -9 at random moments, button mashing, broken devices and files.

Each is bounded in count and time; none depends on the machine's speed.
"""

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from firmware.board.pc.simulator import Simulator
from firmware.board.screens import oled_image
from firmware.config import load_config
from hardware.errors import HardwareError
from hardware.inputs import KNOB
from ledger.writer import LedgerWriter
from scorer.record import replay
from scorer.report import state_dict

ROOT = Path(__file__).resolve().parent.parent

# A child board: runs physical actions through the mock pins, and after each
# one prints the current game's ledger as acknowledged (as JSON, one line).
CHILD = textwrap.dedent("""
    import json, random, sys
    sys.path.insert(0, {root!r})
    from firmware.config import load_config
    from firmware.board.pc.simulator import Simulator
    sim = Simulator(load_config(), sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    print("ack", json.dumps(sim.store.export()), flush=True)
    while True:
        if sim.board.controller.game.is_over:
            sim.act("hold", "knob"); sim.act("click", "knob")  # new game
            print("ack", json.dumps(sim.store.export()), flush=True)
        roll = rng.random()
        if roll < 0.45:
            sim.act("turn", str(rng.randint(1, 12)))
            sim.act("click", rng.choice(["red", "blue"]))
        elif roll < 0.9:
            sim.act("turn", str(rng.randint(0, 14)))
            sim.act("click", "knob")
        else:
            sim.act("click", "undo")
        print("ack", json.dumps(sim.store.export()), flush=True)
""")


def _run_and_kill(path: Path, seed: int, delay: float) -> list[str]:
    """Run the child board, SIGKILL it after ``delay`` seconds; the last ledger it acknowledged."""
    import json
    import threading

    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(root=str(ROOT)), str(path), str(seed)],
        stdout=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(child.stdout), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 30
        while not lines and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(delay)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        reader.join(timeout=10)
    complete = [line for line in lines if line.endswith("\n")]
    assert complete, "the child board never started"
    return json.loads(complete[-1].split(" ", 1)[1])


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path):
    """Twelve kills at random moments: each restart holds what was acknowledged, the file is sound."""
    rng = random.Random(2026)
    path = tmp_path / "ledger.sqlite3"
    for round_ in range(12):
        acked = _run_and_kill(path, seed=round_, delay=rng.uniform(0.05, 0.5))
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
        with LedgerWriter(path) as store:
            assert store.messages == []
            lines = store.export()
            # All that was acknowledged is there; at most one action more was
            # committed before the kill but not yet reported (perhaps a new game's first line).
            if lines[:len(acked)] == acked:
                assert len(lines) - len(acked) <= 1
            else:
                assert len(lines) == 1 and lines[0].startswith("game ") and replay(acked).book.game.is_over
            restored, replayed = state_dict(store.book), state_dict(replay(lines).book)
            restored.pop("match"), replayed.pop("match")  # the tally also counts earlier games
            assert restored == replayed
        assert not list(tmp_path.glob("*.corrupt-*"))


@pytest.mark.slow
def test_button_mashing_keeps_every_invariant(tmp_path):
    """Thousands of random presses and turns: no crash, and the rules' invariants hold throughout."""
    sim = Simulator(load_config(overrides=["game.muggins=true"]), tmp_path / "ledger.sqlite3")
    rng = random.Random(7)
    buttons = ["red", "blue", "green", "yellow", "undo", "menu", KNOB]
    try:
        for _ in range(2000):
            roll = rng.random()
            if roll < 0.4:
                sim.act("turn", str(rng.randint(-8, 12)))
            elif roll < 0.97:
                sim.act("click", rng.choice(buttons))
            elif roll < 0.985:
                sim.act("hold", rng.choice(["undo", KNOB]))
            else:
                name = rng.choice(buttons)
                sim.act("down", name)
                sim.act("up", name)
            if sim.ended:  # Shut down from the menu: start again on the same ledger
                sim.close()
                sim = Simulator(load_config(overrides=["game.muggins=true"]), tmp_path / "ledger.sqlite3")
                continue
            game = sim.board.controller.game
            state = game.state
            assert min(state.scores) >= 0
            assert all(back <= front for back, front in zip(state.backs, state.scores))
            assert max(state.scores) <= game.variant.target
            if game.is_over:
                assert game.next_count() is None
        # The ledger in force replays with nothing refused: every count was in order,
        # nothing was pegged after a game was over.
        for game_id in sim.store.game_ids():
            result = replay(sim.store.export(game_id))
            assert result.rejected == []
    finally:
        sim.close()


class FailingStrip:
    """A strip whose show() fails, as a strip with a broken data line might."""

    count = 243

    def __init__(self):
        self.calls = 0

    def show(self, frame):
        self.calls += 1
        raise HardwareError("ws2811_render failed with code -5 (DMA error)")

    def set_brightness(self, level):
        pass

    def close(self):
        pass


def test_failing_strip_does_not_stop_the_scoring(tmp_path):
    """The strip fails on every frame: entries are still pegged and the OLED says why."""
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3")
    try:
        sim.devices.strip = FailingStrip()
        sim.act("turn", "6")
        sim.act("click", "blue")
        assert sim.board.controller.game.state.scores == (0, 6)
        assert sim.devices.strip is None and sim.devices.problems["strip"] == (
            "LED strip failed (ws2811_render failed with code -5 (DMA error)); scores are safe")
        assert "LED strip failed" in sim.board.controller.footer.message or \
            sim.board.controller.screen().footer.startswith("Blue peg 6")
    finally:
        sim.close()


def test_oled_that_stops_answering_is_dropped_and_scoring_goes_on(tmp_path):
    """An OLED that raises on show is dropped with a message; the board carries on."""
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3")
    try:
        def broken(image):
            raise OSError(121, "Remote I/O error")
        sim.devices.display.show = broken
        sim.act("turn", "3")
        assert sim.devices.display is None
        assert "OLED stopped" in sim.board.controller.footer.message
        sim.act("click", "red")
        sim.act("turn", "2")
        sim.act("click", "blue")
        assert sim.board.controller.game.state.scores == (3, 2)
    finally:
        sim.close()


def test_a_slides_frames_leave_the_oled_alone_and_a_new_screen_is_drawn(tmp_path, monkeypatch):
    """The frames of a peg's slide redraw the strip, not the OLED: each screen is drawn once, and a
    screen that changes is drawn and shown."""
    from firmware.board import loop
    from firmware.board.pc.simulator import SimClock

    drawn = []
    monkeypatch.setattr(loop, "oled_image", lambda screen: drawn.append(screen) or oled_image(screen))
    clock = SimClock(lambda: 1000.0)  # time moves only as the test skips it
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3", animate=True, clock=clock)
    try:
        sim.act("turn", "6")
        sim.act("click", "red")  # the peg slides from here
        frames, screens = sim.board.frames_shown, len(drawn)
        while sim.board.settles_at(clock()) is not None:
            clock.skip(0.02)
            sim.board.step(0)
        assert sim.board.frames_shown - frames > 5 and len(drawn) == screens  # frames, and no screen again
        assert all(a != b for a, b in zip(drawn, drawn[1:]))
        sim.act("turn", "3")
        assert len(drawn) == screens + 1 and drawn[-1] == sim.board.oled_screen()
        assert sim.devices.display.image.tobytes() == oled_image(drawn[-1]).tobytes()
    finally:
        sim.close()


@pytest.mark.slow
@pytest.mark.parametrize("config_text, message", [
    ("[leds]\nbrightness = 1\n", "unknown key [leds] brightness"),
    ("[inputs]\nred = 5\nblue = 5\n", "blue and red are both on GPIO5"),
    ("[game]\nvariant = \"four-hand-individual\"\n", "has 4 sides but the layout classic-121 has 2 tracks"),
])
def test_bad_configs_stop_with_one_line(tmp_path, config_text, message):
    """Bad config files stop the board with exit 2 and one line; no traceback."""
    config = tmp_path / "config.toml"
    config.write_text(config_text)
    result = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "--backend", "mock", "--headless", "--config", str(config),
         "--state", str(tmp_path / "l.sqlite3")],
        cwd=ROOT, capture_output=True, text=True, timeout=60, input="")
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_corrupt_database_at_start_is_kept_and_the_board_starts(tmp_path):
    """A corrupt ledger is moved aside (not deleted), said out loud, and a new game starts."""
    state = tmp_path / "ledger.sqlite3"
    state.write_bytes(b"\x00garbage" * 512)
    sim = Simulator(load_config(), state)
    try:
        kept = list(tmp_path.glob("ledger.sqlite3.corrupt-*"))
        assert len(kept) == 1 and kept[0].read_bytes() == b"\x00garbage" * 512
        assert "could not be read" in sim.board.controller.footer.message
        sim.act("turn", "4")
        sim.act("click", "red")
        assert sim.board.controller.game.state.scores == (4, 0)
    finally:
        sim.close()
