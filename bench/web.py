"""Benchmark: the web view's start-up, memory, page loads and live-event latency, side by side.

Two servers over the same ledger (100 finished games and one in play), each in
a process of its own:

- ``starlette``: the real ``cribbage-board web`` (Starlette on uvicorn, h11, asyncio);
- ``aiohttp``: the same ledger view (``firmware.web.follow`` and ``pages``) behind
  aiohttp's own server, serving ``/``, ``/api/state`` and ``/events`` the same way.

Measured in one run: the statistics warm-up (every finished game replayed once,
what the server does in a low-priority thread at start so that /stats is quick); start-up (spawn to the first 200 of ``/``) as a ratio to
``python -c pass``; the server's resident memory (VmRSS, and VmHWM its peak) after
``/`` and ``/api/state``, and for the real server after every page; page load
times; and the live-event latency: the time from an entry made durable by a
``LedgerWriter`` writer in this process to its event arriving on ``/events``
(median, target at most 250 ms). A Raspberry Pi Zero 2 W (512 MB) runs CPython
8-15x slower than one core here; memory is about the same on arm64.

Run: ``.venv/bin/python bench/web.py`` (aiohttp is installed by the bench extra).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]  # the project's ledger package before bench/ledger.py

from ledger.writer import LedgerWriter  # noqa: E402
from scorer.record import parse_line  # noqa: E402

from table import print_table  # noqa: E402
from web_games import free_port, game_record, match_records, write_games  # noqa: E402

RUNS = 5
GAMES = 100  # finished games in the ledger served
EVENTS = 30
TARGET_EVENT_MS = 250
AIOHTTP_SERVER = r'''
import asyncio, json, sys
from aiohttp import web
from firmware.web.site import Site
POLL_SECONDS = 0.05
from firmware.web.follow import LedgerFollower
from firmware.web import pages

ledger = LedgerFollower(sys.argv[1])
site = Site(ledger)

async def board(request):
    live = site.live()
    return web.Response(text=pages.board_page(live["state"], live["problem"], live["recent"], live["messages"]),
                        content_type="text/html")

async def state(request):
    snap = ledger.snapshot()
    return web.json_response(snap.state if snap.state is not None else {"error": snap.problem},
                             status=200 if snap.state is not None else 503)

async def events(request):
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    last = None
    while True:
        live = site.live()
        if live["html"] != last:
            last = live["html"]
            data = json.dumps({"html": live["html"], "title": live["title"], "state": live["state"]})
            await response.write(f"data: {data}\n\n".encode())
        await asyncio.sleep(POLL_SECONDS)

app = web.Application()
app.router.add_get("/", board)
app.router.add_get("/api/state", state)
app.router.add_get("/events", events)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[2]), print=None, access_log=None)
'''


def make_ledger(folder: Path, games: int | None = None) -> tuple[Path, list[str]]:
    """A ledger of ``games`` finished games and a game in play; the rest of that game's record."""
    path = folder / "ledger.sqlite3"
    records = match_records(GAMES if games is None else games)
    live = game_record("game six-card seats=Ann,Ben dealer=Ann new-match", seed=999)
    with LedgerWriter(path) as store:
        write_games(store, records + [live[:2]])
    return path, live[2:]


def server_argv(kind: str, ledger: Path, port: int) -> list[str]:
    if kind == "starlette":
        return [sys.executable, "-m", "firmware.cli", "web", "--state", str(ledger), "--host", "127.0.0.1",
                "--port", str(port)]
    return [sys.executable, "-c", AIOHTTP_SERVER, str(ledger), str(port)]


def start(kind: str, ledger: Path) -> tuple[subprocess.Popen, str, float]:
    """(process, base URL, seconds from spawn to the first 200 of /)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    began = time.perf_counter()
    process = subprocess.Popen(server_argv(kind, ledger, port), cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    while True:
        try:
            with urllib.request.urlopen(base + "/", timeout=5) as response:
                response.read()
                if response.status == 200:
                    return process, base, time.perf_counter() - began
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{kind} server stopped") from None
            time.sleep(0.005)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process, in MB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def fetch_seconds(url: str, runs: int | None = None) -> float:
    times = []
    for _ in range(RUNS if runs is None else runs):
        began = time.perf_counter()
        with urllib.request.urlopen(url, timeout=60) as response:
            response.read()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def baseline_seconds() -> float:
    times = []
    for _ in range(RUNS):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def event_latencies(base: str, store: LedgerWriter, lines: list[str], count: int | None = None) -> list[float]:
    """Seconds from each entry's apply() returning to its event arriving on /events."""
    count = EVENTS if count is None else count
    arrived: list[tuple[float, int]] = []
    ready = threading.Event()

    def listen():
        with urllib.request.urlopen(base + "/events", timeout=60) as response:
            for raw in response:
                if raw.startswith(b"data: "):
                    arrived.append((time.perf_counter(), json.loads(raw[6:])["state"]["entries"]))
                    ready.set()
                    if len(arrived) > count:
                        return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    ready.wait(30)
    rng = random.Random(5)
    latencies = []
    for line in lines[:count]:
        time.sleep(rng.uniform(0.15, 0.35))  # entries at a player's pace, off the poll's phase
        seen = len(arrived)
        store.apply(parse_line(line))
        written = time.perf_counter()
        entries = len(store.game.pegged)
        deadline = written + 5
        while time.perf_counter() < deadline:
            if len(arrived) > seen and arrived[-1][1] == entries:
                latencies.append(arrived[-1][0] - written)
                break
            time.sleep(0.001)
    listener.join(10)
    return latencies


def main(argv: list[str] | None = None) -> int:
    global RUNS, GAMES, EVENTS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true",
                        help="a quick check: one round, 10 games, 5 events (no figures to report)")
    if parser.parse_args(argv).short:
        RUNS, GAMES, EVENTS = 1, 10, 5
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        ledger, rest = make_ledger(Path(folder))
        spare = Path(folder) / "spare.sqlite3"  # the same ledger, for the second server
        shutil.copyfile(ledger, spare)
        base_s = baseline_seconds()
        rows.append(("python -c pass (baseline)", f"{base_s * 1000:.0f} ms"))
        warm_s = float(subprocess.run(
            [sys.executable, "-c", "import sys, time; from firmware.web.warm import warm; t = time.perf_counter(); "
             "n = warm(sys.argv[1]); print(time.perf_counter() - t)", str(ledger)],
            cwd=ROOT, check=True, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
        ).stdout)
        rows.append((f"statistics warm-up ({GAMES} games, fresh process)",
                     f"{warm_s * 1000:.0f} ms ({warm_s / GAMES * 1000:.1f} ms a game; in a background thread at start)"))
        summary = {}
        starts: dict[str, list[float]] = {"starlette": [], "aiohttp": []}
        for _ in range(RUNS):  # interleaved, so a busy moment of the machine hits both alike
            for kind in starts:
                process, base, seconds = start(kind, ledger)
                starts[kind].append(seconds)
                stop(process)
        for kind in ("starlette", "aiohttp"):
            process, base, _ = start(kind, ledger)
            try:
                fetch_seconds(base + "/api/state", 3)
                rss, peak = memory_mb(process.pid)
                page = fetch_seconds(base + "/")
                store = LedgerWriter(ledger)
                try:
                    lat = event_latencies(base, store, rest[:EVENTS])
                finally:
                    store.close()
                startup = statistics.median(starts[kind])
                summary[kind] = (startup, rss, statistics.median(lat) if lat else float("nan"))
                rows.append((f"{kind}: start-up to first 200 of /",
                             f"median {startup * 1000:.0f} ms (min {min(starts[kind]) * 1000:.0f}) "
                             f"= {startup / base_s:.1f}x python -c pass"))
                rows.append((f"{kind}: memory after / and /api/state", f"RSS {rss:.1f} MB (peak {peak:.1f} MB)"))
                rows.append((f"{kind}: GET / (board page)", f"{page * 1000:.1f} ms"))
                if lat:
                    ok = "meets" if statistics.median(lat) * 1000 <= TARGET_EVENT_MS else "MISSES"
                    rows.append((f"{kind}: entry -> event ({len(lat)} entries)",
                                 f"median {statistics.median(lat) * 1000:.0f} ms, max {max(lat) * 1000:.0f} ms "
                                 f"({ok} the {TARGET_EVENT_MS} ms target)"))
                if kind == "starlette":
                    for url in ("/games", "/games/1", "/stats", "/api/games"):
                        cold = fetch_seconds(base + url, 1)
                        warm = fetch_seconds(base + url)
                        rows.append((f"starlette: GET {url}", f"first {cold * 1000:.0f} ms, then {warm * 1000:.1f} ms"))
                    rss, peak = memory_mb(process.pid)
                    rows.append(("starlette: memory after every page", f"RSS {rss:.1f} MB (peak {peak:.1f} MB)"))
            finally:
                stop(process)
            ledger = spare  # the next server gets the ledger as it was, before these entries
        s, a = summary["starlette"], summary["aiohttp"]
        rows.append(("starlette / aiohttp", f"start-up {s[0] / a[0]:.2f}x, RSS {s[1] / a[1]:.2f}x, "
                                            f"event latency {s[2] / a[2]:.2f}x"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
