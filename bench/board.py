"""Benchmark: the board app on mock hardware. Prints a table.

- latency of an accepted press: from the mock pin edge (the release that pegs
  points) to the entry durable in the ledger, and on to the LED frame handed to
  the strip's show(), against a bare SQLite WAL ``synchronous=FULL`` transaction
  on the same disk, side by side; every timed press is checked accepted and
  written (the ledger's rows are counted afterwards)
- composing one LED frame and one OLED image, for 2 and 4 tracks
- start-up to READY=1, with an empty ledger and with 1,000 finished games
- CPU used while idle for 10 s, and peak memory
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware.board.frames import LedStyle, led_frame  # noqa: E402
from firmware.board.pc.simulator import Simulator  # noqa: E402
from firmware.board.screens import Screen, oled_image  # noqa: E402
from firmware.board.view import GameView  # noqa: E402
from firmware.config import load_config  # noqa: E402
from hardware.layout import load_layout  # noqa: E402
from hardware.leds import FramePipeline  # noqa: E402
from ledger.writer import LedgerWriter  # noqa: E402
from scorer.game import Entry, Game  # noqa: E402
from scorer.record import parse_line  # noqa: E402
from scorer.variants import find_variant  # noqa: E402

from table import print_table  # noqa: E402

US_PER_LED = 30.0  # 24 bits at 1.25 us
RESET_US = 280.0


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class BareTransaction:
    """One committed WAL synchronous=FULL insert: the floor of a durable entry."""

    def __init__(self, directory: Path):
        self.conn = sqlite3.connect(directory / "bare.sqlite3", isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, line TEXT NOT NULL)")
        self.times: list[float] = []

    def __call__(self) -> None:
        start = time.perf_counter()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute("INSERT INTO t (line) VALUES (?)", (f"peg Red {len(self.times) % 6 + 1}",))
        self.conn.execute("COMMIT")
        self.times.append(time.perf_counter() - start)

    def close(self) -> None:
        self.conn.close()


class Presses(NamedTuple):
    """Seconds from each timed press (the release that pegs) to the LED frame handed to the
    strip (``shown``), and to its entry durable in the ledger before that (``durable``)."""

    shown: list[float]
    durable: list[float]


def latency(directory: Path, presses: int = 400, between=None) -> Presses:
    """Time ``presses`` clicks of a colour button that each peg 1-3 points in the play, and
    check that every one was accepted and written (its row in the ledger) before its frame
    was shown. ``between()`` runs after each press, untimed (a floor measured side by side).
    The pegs are taken back with undo (untimed) before a side nears the game hole."""
    sim = Simulator(load_config(), directory / "ledger.sqlite3")
    strip, controls, board = sim.devices.strip, sim.controls, sim.board
    # A click: released after the debounce and before the hold time (a hold would be a muggins claim).
    down_s = (controls.pins.debounce_s + controls.pins.hold_s) / 2
    marks: dict[str, float] = {}
    show, apply = strip.show, sim.store.apply

    def timed_show(frame):
        if "durable" in marks:
            marks.setdefault("shown", time.perf_counter())
        show(frame)

    def timed_apply(action, source=None):
        result = apply(action, source)  # returns once the entry is durable
        marks.setdefault("durable", time.perf_counter())
        return result
    strip.show, sim.store.apply = timed_show, timed_apply
    shown, durable = [], []
    rng = random.Random(1)
    try:
        for k in range(presses):
            button = "red" if k % 2 else "blue"
            controls.turn(rng.randint(1, 3))
            board.step(0)
            controls.press(button)
            board.step(0)
            controls.clock.advance(down_s)
            marks.clear()
            start = time.perf_counter()
            controls.release(button)  # the click that pegs
            board.step(0)
            assert "shown" in marks, f"press {k + 1}: no entry written, or no frame shown after it"
            shown.append(marks["shown"] - start)
            durable.append(marks["durable"] - start)
            sim.finish_animation()  # untimed: the peg's slide ends, as it would before the next press
            if between is not None:
                between()
            if max(board.controller.game.state.scores) > 100:
                for _ in range(40):  # keep the game going: take pegs back
                    controls.click("undo")
                    board.step(0)
    finally:
        sim.close()
    conn = sqlite3.connect(directory / "ledger.sqlite3")
    written = conn.execute("SELECT count(*) FROM actions WHERE line LIKE 'peg %'").fetchone()[0]
    conn.close()
    assert written == presses, f"{written} of {presses} timed presses were written to the ledger"
    return Presses(shown, durable)


def compose(tracks: int, repeats: int = 300) -> tuple[float, float, float]:
    """Seconds to compose one LED frame, to pass it through the power pipeline, and one OLED image."""
    layout = load_layout({2: "classic-121", 4: "four-track-121"}[tracks])
    variant = find_variant("six-card" if tracks == 2 else "four-hand-individual")
    seats = ["A", "B", "C", "D"][:variant.players]
    game = Game(variant, seats, "A")
    for k, seat in enumerate(seats * 10):
        game.push(Entry.peg(seat, 1 + k % 7))
    view = GameView.of(game).board
    style = LedStyle()
    pipeline = FramePipeline(layout.strip_leds)
    start = time.perf_counter()
    for _ in range(repeats):
        frame = led_frame(layout, view, style)
    frame_s = (time.perf_counter() - start) / repeats
    start = time.perf_counter()
    for _ in range(repeats):
        pipeline.render(frame)
    pipe_s = (time.perf_counter() - start) / repeats
    scores = "  ".join(f"{s}* {10 + k}" for k, s in enumerate(seats))
    screen = Screen(title=scores, lines=("deal 3, play",), big="12",
                    big_caption="knob: B hand > C hand > A hand > A crib", footer="B peg 2")
    start = time.perf_counter()
    for _ in range(repeats):
        oled_image(screen)
    return frame_s, pipe_s, (time.perf_counter() - start) / repeats


def fill_ledger(path: Path, games: int) -> None:
    """A ledger with ``games`` finished six-card games in one match (written unsynced, for speed)."""
    rng = random.Random(5)
    with LedgerWriter(path) as store:
        store._conn.execute("PRAGMA synchronous=OFF")
        header = "game six-card seats=Red,Blue dealer=Red"
        for _ in range(games):
            store.apply(parse_line(header if store.game is None or not store.game.is_over
                                   else "game six-card seats=Red,Blue"))
            play_out(store, rng)


def play_out(store: LedgerWriter, rng: random.Random) -> None:
    """The writer's game pegged and counted at random to its end."""
    game = store.game
    while not game.is_over:
        for _ in range(rng.randint(1, 4)):
            store.apply(Entry.peg(rng.choice(["Red", "Blue"]), rng.randint(1, 6)))
            if game.is_over:
                break
        for seat, what in game.remaining_show():
            if game.is_over:
                break
            points = rng.choice([0, 2, 4, 6, 8, 12])
            store.apply(Entry.crib(points) if what == "crib" else Entry.hand(seat, points))


def start_board(state: Path, idle_seconds: float = 0.0, command: list[str] | None = None,
                stop: bool = False) -> dict:
    """Start the headless mock board; time to READY=1; optionally idle CPU and peak memory, or
    (``stop``) the time from SIGTERM to its exit with the ledger closed.
    ``command`` starts it (default: this interpreter's ``-m firmware.cli``)."""
    command = command or [sys.executable, "-m", "firmware.cli"]
    with tempfile.TemporaryDirectory() as scratch:
        address = os.path.join(scratch, "notify")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        server.bind(address)
        server.settimeout(60)
        env = dict(os.environ, NOTIFY_SOCKET=address)
        env.pop("WATCHDOG_USEC", None)
        start = time.perf_counter()
        child = subprocess.Popen(
            [*command, "--backend", "mock", "--headless", "--state", str(state)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            message = server.recv(512)
            ready = time.perf_counter() - start
            assert message.startswith(b"READY=1"), message
            result = {"ready_s": ready}
            if stop:  # systemctl stop: SIGTERM, then the board closes the ledger and exits
                time.sleep(0.5)  # past start-up: the loop is asleep
                stopping = time.perf_counter()
                child.terminate()
                assert server.recv(512) == b"STOPPING=1"
                assert child.wait(timeout=60) == 0
                result["stop_s"] = time.perf_counter() - stopping
                assert not Path(f"{state}.lock").exists()  # the ledger closed: its writer's lock let go
            if idle_seconds:
                time.sleep(1.0)  # past start-up
                before, woken = _cpu_seconds(child.pid), _wakeups(child.pid)
                time.sleep(idle_seconds)
                result["idle_cpu_s"] = _cpu_seconds(child.pid) - before
                result["idle_wakeups"] = _wakeups(child.pid) - woken
                result["peak_rss_mb"] = _peak_rss_mb(child.pid)
            return result
        finally:
            child.terminate()
            child.wait(timeout=20)
            server.close()


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wakeups(pid: int) -> int:
    """Context switches of every thread of a process so far: each is a wake-up."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            for line in (task / "status").read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                    total += int(line.split()[1])
        except OSError:
            pass  # a thread that ended meanwhile
    return total


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def durable_row(presses: int) -> tuple[str, str]:
    """Press to durable entry over a bare WAL FULL transaction, side by side, ledger on disk."""
    with tempfile.TemporaryDirectory(dir=ROOT) as scratch:
        bare = BareTransaction(Path(scratch))
        timed = latency(Path(scratch), presses=presses, between=bare)
        bare.close()
    durable, floor = statistics.median(timed.durable), statistics.median(bare.times)
    return (f"press to durable entry / bare WAL FULL transaction, disk ({presses} presses)",
            f"{durable / floor:.2f}x: {durable * 1e3:.3f} ms vs {floor * 1e3:.3f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true",
                        help="a quick check: 20 presses, 20 games, one start each, idle 1 s (no figures to report)")
    parser.add_argument("--durable", action="store_true",
                        help="only press to durable entry, ledger on disk, against a bare WAL FULL transaction")
    args = parser.parse_args(argv)
    short = args.short
    presses, games, starts, idle_s = (20, 20, 1, 1.0) if short else (400, 1000, 5, 10.0)
    if args.durable:
        print_table([durable_row(presses)])
        return 0
    rows = []
    layout = load_layout("classic-121")
    wire_ms = (layout.strip_leds * US_PER_LED + RESET_US) / 1000
    for label, base in (("tmpfs", Path("/dev/shm")), ("disk", ROOT)):
        if not base.is_dir():
            continue
        with tempfile.TemporaryDirectory(dir=base) as scratch:
            bare = BareTransaction(Path(scratch))
            timed = latency(Path(scratch), presses=presses, between=bare)
            bare.close()
        floor = statistics.median(bare.times)
        rows.append((f"press to entry durable, ledger on {label}: median / p99",
                     f"{statistics.median(timed.durable) * 1e3:.2f} / {percentile(timed.durable, 0.99) * 1e3:.2f} ms"))
        rows.append((f"  press to the LED frame handed to show() ({label}): median / p99",
                     f"{statistics.median(timed.shown) * 1e3:.2f} / {percentile(timed.shown, 0.99) * 1e3:.2f} ms"))
        rows.append((f"  a bare WAL FULL transaction ({label}), side by side: median", f"{floor * 1e3:.2f} ms"))
        rows.append(("  press to show() / bare transaction",
                     f"{statistics.median(timed.shown) / floor:.2f}x ({len(timed.shown)} presses, "
                     "each accepted and written)"))
    rows.append((f"wire time of one frame, {layout.strip_leds} LEDs", f"{wire_ms:.2f} ms"))
    for tracks in (2, 4):
        frame_s, pipe_s, oled_s = compose(tracks)
        rows.append((f"compose LED frame, {tracks} tracks", f"{frame_s * 1e3:.3f} ms"))
        rows.append((f"  brightness/gamma/budget pipeline, {tracks} tracks", f"{pipe_s * 1e3:.3f} ms"))
        rows.append((f"compose OLED image, {tracks} sides", f"{oled_s * 1e3:.3f} ms"))
    with tempfile.TemporaryDirectory() as scratch:
        empty = Path(scratch) / "empty.sqlite3"
        one = Path(scratch) / "one.sqlite3"
        full = Path(scratch) / "full.sqlite3"
        fill_ledger(one, 1)
        fill_start = time.perf_counter()
        fill_ledger(full, games)
        fill_s = time.perf_counter() - fill_start
        size_mb = full.stat().st_size / 1e6
        for label, path in (("empty ledger", empty), ("1 finished game", one), (f"{games:,} finished games", full)):
            times = []
            for _ in range(starts):
                times.append(start_board(path)["ready_s"])
                if path is empty:
                    for extra in empty.parent.glob("empty.sqlite3*"):
                        extra.unlink()
            rows.append((f"start to READY=1, {label} (median of {starts})", f"{statistics.median(times) * 1e3:.0f} ms"))
        rows.append((f"  ({games:,} games: ledger size, time to write it unsynced)", f"{size_mb:.1f} MB, {fill_s:.1f} s"))
        idle = start_board(full, idle_seconds=idle_s)
        rows.append((f"CPU while idle for {idle_s:g} s",
                     f"{idle['idle_cpu_s'] * 1e3:.0f} ms ({idle['idle_cpu_s'] / idle_s * 100:.2f}%)"))
        rows.append((f"wake-ups while idle for {idle_s:g} s, all threads (target <= {2 * idle_s:g})", f"{idle['idle_wakeups']}"))
        rows.append(("peak memory (VmHWM)", f"{idle['peak_rss_mb']:.1f} MB"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
