"""Benchmark: a paired phone as the board's input, beside the board's own buttons. Prints a table.

- latency, side by side in one run on one board: a phone's tap (an HTTP POST to
  ``/api/phone/entry`` of a real ``cribbage-board web`` process on 127.0.0.1, relayed over the
  board's socket to the real main loop, ``Board.run()`` in a thread on mock devices and the real
  clock) to the board's answer read by the client; and a colour button's click (from the mock pin's
  release) to its accepted outcome in the main loop. Each tap is also split at that outcome: the way
  there (HTTP, the web view, the socket, the loop waking) and the answer's way back. Each round is a
  tap pegging Blue 1, a tap undoing it, the same two asked of the board's socket directly as the web
  view asks (``firmware.wire.relay.ask``: the relay without HTTP), a click of Red's button pegging 1 and a
  click of the undo button (each timed), so the game never ends; every timed tap and click must be accepted, and the ledger must
  hold each afterwards, or the run stops. The client keeps one HTTP connection open (as a phone's
  browser does) and paces its actions (``--gap``): the web view limits how fast a phone may tap
  (``firmware.web.phones.RATE``).
  The phone is paired by writing the board's sessions file (``LEDGER.phones.json``: the SHA-256 of a
  session and its seat) before the board starts; tests/test_phones.py pairs by the OLED's QR code.
- actions a deal: the board's detents and presses, and a phone's taps, for the same deals played by
  the rules (tests/played_deals.py; tests/test_phone_taps.py checks the ratio).

    .venv/bin/python bench/phones.py [--taps 300] [--where disk|tmpfs|both] [--games 20]
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from played_deals import count_actions, played_deals  # noqa: E402

from firmware.board.devices import open_devices  # noqa: E402
from firmware.board.loop import Board  # noqa: E402
from firmware.board.pc.simulator import MOCK  # noqa: E402
from firmware.board.phones import sessions_path  # noqa: E402
from firmware.config import load_config  # noqa: E402
from firmware.wire.relay import HEADER, ask, header_token, socket_path  # noqa: E402
from hardware.inputs import MockControls  # noqa: E402
from ledger.reader import LedgerReader  # noqa: E402
from ledger.writer import LedgerWriter  # noqa: E402

from table import print_table  # noqa: E402

WAIT_S = 30.0  # the longest any one step may take before the run stops
WARM_ROUNDS = 10  # untimed rounds first: the web view's first requests import and compile


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_web(ledger: Path) -> tuple[subprocess.Popen, int]:
    """``cribbage-board web`` for ``ledger`` on a free port of 127.0.0.1, answering."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli", "web", "--state", str(ledger), "--host", "127.0.0.1",
         "--port", str(port)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + WAIT_S
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the web view stopped (exit {process.returncode})")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=2).close()
            return process, port
        except urllib.error.HTTPError:
            return process, port  # it answers
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise
            time.sleep(0.05)


class RunningBoard:
    """Board.run() in a thread on mock devices; the time of each accepted outcome, noted in the loop."""

    def __init__(self, ledger: Path):
        self.config = load_config()
        self.devices = open_devices(self.config, MOCK)
        self.accepted = threading.Event()
        self.at = 0.0  # perf_counter() of the last accepted outcome
        ready = threading.Event()

        def main():  # SQLite: the ledger belongs to the loop's own thread
            self.board = Board(self.config, LedgerWriter(ledger), self.devices, log=lambda line: None)
            show_outcome = self.board.show_outcome

            def timed_show_outcome(outcome):
                if outcome.accepted:
                    self.at = time.perf_counter()
                    self.accepted.set()
                show_outcome(outcome)
            self.board.show_outcome = timed_show_outcome  # type: ignore[method-assign]
            ready.set()
            self.board.run()

        self.thread = threading.Thread(target=main, name="board", daemon=True)
        self.thread.start()
        if not ready.wait(WAIT_S):
            raise RuntimeError("the board did not start")

    def outcome(self, what: str) -> float:
        """Wait for the accepted outcome of what was just done; its time."""
        if not self.accepted.wait(WAIT_S):
            raise AssertionError(f"{what}: no accepted outcome (see the OLED: {self.board.controller.footer.message!r})")
        self.accepted.clear()
        return self.at

    def stop(self) -> None:
        self.board.stop()
        self.thread.join(WAIT_S)


class PhoneClient:
    """A paired phone: its cookies and header token, on one kept-alive HTTP connection."""

    def __init__(self, port: int, session: str, seat: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
        self.headers = {"Content-Type": "application/json", HEADER: header_token(session),
                        "Cookie": f"cribbage_phone={session}; cribbage_seat={seat}"}
        self.sent = 0

    def tap(self, act: str, points: int = 0) -> dict:
        self.sent += 1
        body = json.dumps({"id": f"bench-{self.sent}", "act": act, "points": points})
        self.conn.request("POST", "/api/phone/entry", body=body, headers=self.headers)
        response = self.conn.getresponse()
        answer = json.loads(response.read())
        if response.status != 200 or not answer.get("ok"):
            raise AssertionError(f"tap {self.sent} ({act} {points}): {response.status} {answer}")
        return answer

    def close(self) -> None:
        self.conn.close()


def latency(directory: Path, taps: int, gap: float) -> dict[str, list[float]]:
    """Seconds of each timed tap (to the client's answer, and split at the board's outcome) and click."""
    ledger = directory / "ledger.sqlite3"
    session = secrets.token_urlsafe(32)
    sessions_path(ledger).write_text(json.dumps({"sessions": {hashlib.sha256(session.encode()).hexdigest(): 1}}))
    board = RunningBoard(ledger)
    web, port = start_web(ledger)
    phone = PhoneClient(port, session, 1)
    controls = board.devices.controls
    if not isinstance(controls, MockControls):
        raise RuntimeError("the board's controls are not the mock's")
    down_s = (controls.pins.debounce_s + controls.pins.hold_s) / 2  # a click, not a hold
    times: dict[str, list[float]] = {"tap": [], "tap_there": [], "tap_back": [], "socket": [], "click": []}
    last = [time.perf_counter()]

    def paced() -> float:
        wait = last[0] + gap - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        last[0] = time.perf_counter()
        return last[0]

    def tap(act: str, points: int, timed: bool) -> None:
        start = paced()
        answer = phone.tap(act, points)
        end = time.perf_counter()
        there = board.outcome(f"tap {act}")
        assert answer["text"] == ("Blue peg 1" if act == "peg" else "Undone: Blue peg 1"), answer
        if timed:
            times["tap"].append(end - start)
            times["tap_there"].append(there - start)
            times["tap_back"].append(end - there)

    def relayed(act: str, points: int, timed: bool) -> None:
        """The same entry asked of the board's socket as the web view asks it, without HTTP."""
        phone.sent += 1
        start = paced()
        answer = ask(socket_path(ledger), {"op": "enter", "session": session, "id": f"bench-{phone.sent}",
                                           "act": act, "points": points})
        end = time.perf_counter()
        board.outcome(f"socket {act}")
        assert answer.get("ok"), answer
        if timed:
            times["socket"].append(end - start)

    def click(timed: bool) -> None:
        controls.turn(1)
        controls.press("red")
        controls.clock.advance(down_s)
        start = paced()
        controls.release("red")  # the click that pegs
        there = board.outcome("click red")
        if timed:
            times["click"].append(there - start)
        controls.press("undo")
        controls.clock.advance(down_s)
        start = paced()
        controls.release("undo")  # the click that takes it back
        there = board.outcome("click undo")
        if timed:
            times["click"].append(there - start)

    rounds = (taps + 1) // 2
    try:
        for k in range(WARM_ROUNDS + rounds):
            timed = k >= WARM_ROUNDS
            if k == WARM_ROUNDS:
                web_cpu = cpu_seconds(web.pid)
            tap("peg", 1, timed)
            tap("undo", 0, timed)
            relayed("peg", 1, timed)
            relayed("undo", 0, timed)
            click(timed)
        times["web_cpu"] = [(cpu_seconds(web.pid) - web_cpu) / (2 * rounds)]
    finally:
        phone.close()
        web.terminate()
        web.wait(WAIT_S)
        board.stop()
    with LedgerReader(ledger) as reader:
        lines = reader.export()
    made = WARM_ROUNDS + rounds
    counts = (lines.count("peg Blue 1  # via phone Blue") // 2, lines.count("undo  # via phone Blue") // 2,
              sum(line.startswith("peg Red 1") for line in lines),
              sum(line.startswith("undo") and "phone" not in line for line in lines))
    assert counts == (made,) * 4, f"ledger: {counts} phone pegs and undos, board pegs and undos; {made} of each made"
    return times


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.2f} / {percentile(values, 0.99) * 1e3:.2f} ms"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="phones.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--taps", type=int, default=300, help="timed taps (and as many clicks)")
    parser.add_argument("--where", choices=("disk", "tmpfs", "both"), default="both", help="the ledger's folder")
    parser.add_argument("--gap", type=float, default=0.1, help="seconds from one action's start to the next")
    parser.add_argument("--games", type=int, default=20, help="games played for the actions a deal")
    args = parser.parse_args(argv)
    rows = []
    places = {"disk": ROOT, "tmpfs": Path("/dev/shm")}
    for label in (("disk", "tmpfs") if args.where == "both" else (args.where,)):
        if not places[label].is_dir():
            continue
        with tempfile.TemporaryDirectory(dir=places[label], prefix="bench-phones-") as scratch:
            times = latency(Path(scratch), args.taps, args.gap)
        tap_p99, click_p99 = percentile(times["tap"], 0.99), percentile(times["click"], 0.99)
        rows += [
            (f"ledger on {label}: tap to its answer at the client: p50 / p99", ms(times["tap"])),
            ("  tap to the board's accepted outcome (HTTP, web view, socket, loop)", ms(times["tap_there"])),
            ("  the outcome to the answer at the client", ms(times["tap_back"])),
            ("  the web view's CPU a tap (user and system, over the timed taps)", f"{times['web_cpu'][0] * 1e3:.2f} ms"),
            ("  the same entry on the board's socket, no HTTP (firmware.wire.relay.ask)", ms(times["socket"])),
            ("  colour button click to its accepted outcome: p50 / p99", ms(times["click"])),
            ("  tap / click, p50 and p99 (goal: under 2x)",
             f"{statistics.median(times['tap']) / statistics.median(times['click']):.2f}x, "
             f"{tap_p99 / click_p99:.2f}x ({len(times['tap'])} taps, {len(times['click'])} clicks, "
             "each accepted and in the ledger)"),
            ("  tap p99 under 100 ms", "yes" if tap_p99 < 0.1 else "NO"),
        ]
    counted = count_actions(played_deals(args.games))
    rows += [
        (f"actions a deal, {counted.deals} deals of {args.games} games ({counted.entries:.1f} entries a deal)", ""),
        ("  board: detents and presses", f"{counted.knob:.1f}"),
        ("  board on the terminal's keys (< > turn 5 detents)", f"{counted.keys:.1f}"),
        ("  phone: taps", f"{counted.phone:.1f}"),
        ("  phone / board (goal: at most 0.5)",
         f"{counted.ratio:.2f}x ({counted.phone / counted.keys:.2f}x the terminal's keys)"),
    ]
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
