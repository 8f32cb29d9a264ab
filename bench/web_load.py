"""Benchmark: the web view under load, side by side with a bare server (issue 21's table).

Measured in one run, each figure a ratio to its baseline measured in the same run,
candidates and baselines in turn, round by round, each figure a median:

- ``/`` requests a second (wrk, 8 connections, one thread) of ``cribbage-board web``
  against a minimal Starlette app serving the same bytes with the same headers, on
  plain uvicorn (h11, asyncio, no access log, as the web view) and on uvicorn's
  defaults (``uvicorn.run(app, host, port)``); goal at least 0.8x of each;
- the server's CPU over IDLE_SECONDS with 100 idle ``/events`` clients against 1
  client (the ledger does not change); goal at most 1.5x;
- a burst of 1,005 console entries (``cribbage-board console`` fed the lines on
  standard input, the ledger on tmpfs) with 100 ``/events`` clients reading, against
  none; goal at most 1.1x the time;
- a real request while 1,100 idle connections and 200 half-sent requests are held,
  the server run with the web unit's LimitNOFILE (prlimit); goal within 1 s;
- the server's memory after crawling ``/games/1`` to ``/games/1500``; goal under 100 MB.

``--tree DIR`` runs the web view and the console from another source tree (say a
``git archive`` of main) with this script, this venv and the same clients: the
"before" of a change. Needs wrk (``apt-get install wrk``) and prlimit (util-linux).

Run: ``.venv/bin/python bench/web_load.py [--tree DIR] [--rounds N] [--rows page,idle,burst,held,crawl]``
"""

from __future__ import annotations

import argparse
import os
import re
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the project's ledger package before bench/ledger.py

from ledger.writer import LedgerWriter  # noqa: E402

from table import print_table  # noqa: E402
from web_games import free_port, game_record, match_records, stop, write_games  # noqa: E402

WRK_SECONDS = 5
IDLE_SECONDS = 10
CLIENTS = 100
BURST = 1005
CRAWL = 1500
HELD_IDLE, HELD_HALF = 1100, 200
UNIT = ROOT / "systemd" / "cribbage-board-web.service"
TMPFS = Path("/dev/shm") if Path("/dev/shm").is_dir() else None

MINIMAL = r'''
import json, sys
import uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

body = open(sys.argv[1], "rb").read()
headers = json.load(open(sys.argv[2]))

async def board(request):
    return Response(body, headers=headers)

app = Starlette(routes=[Route("/", board)])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[3]), log_level="warning", access_log=False, lifespan="off",
            http="h11", loop="asyncio", ws="none", server_header=False)
'''

# The same app on uvicorn's defaults (access log on, standard output to nowhere; h11 and asyncio,
# as neither httptools nor uvloop is installed): the baseline as a user would first run it.
MINIMAL_DEFAULTS = MINIMAL.replace('log_level="warning", access_log=False, lifespan="off",\n'
                                   '            http="h11", loop="asyncio", ws="none", server_header=False', "")

# N clients of /events that read and drop what comes, cheaply (one selector, one buffer);
# "ready" once each has had its first event; they read until this process is ended.
SSE_CLIENTS = r'''
import selectors, socket, sys
host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
selector = selectors.DefaultSelector()
for n in range(count):  # from many devices: the web view lets one device hold only a few streams
    sock = socket.create_connection((host, port), source_address=(f"127.0.2.{1 + n // 4}", 0))
    sock.sendall(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    sock.setblocking(False)
    selector.register(sock, selectors.EVENT_READ, [b""])
buffer, waiting = bytearray(1 << 20), count
while True:
    for key, _ in selector.select():
        n = key.fileobj.recv_into(buffer)
        if not n:
            selector.unregister(key.fileobj)
            if waiting and key.data[0] is not None:
                sys.exit("a /events client was closed before its first event")
            continue
        if waiting and key.data[0] is not None:
            key.data[0] += bytes(buffer[:n])
            if b"\ndata: " in key.data[0]:
                key.data[0] = None
                waiting -= 1
                if not waiting:
                    print("ready", flush=True)
'''


class Server:
    """``cribbage-board web`` from ``tree`` on a free port (run by ``wrap``), until stopped."""

    def __init__(self, tree: Path, ledger: Path, wrap=(), log: Path | None = None):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [*wrap, sys.executable, "-m", "firmware.cli", "web", "--state", str(ledger), "--host", "127.0.0.1",
             "--port", str(self.port)], cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
            stdout=subprocess.DEVNULL, stderr=open(log, "w") if log else subprocess.DEVNULL)
        wait_for(self.base + "/", self.process)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def memory_mb(self) -> tuple[float, float]:
        """(VmRSS, VmHWM) in MB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return tuple(int(re.search(rf"{key}:\s+(\d+)", status).group(1)) / 1024 for key in ("VmRSS", "VmHWM"))

    def stop(self) -> None:
        stop(self.process)


def unit_nofile() -> int:
    """The web unit's LimitNOFILE (this tree's unit file)."""
    return int(re.search(r"^LimitNOFILE=(\d+)$", UNIT.read_text(), re.MULTILINE).group(1))


def wait_for(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"no answer from {url}") from None
            time.sleep(0.02)


def make_ledger(path: Path, games: int) -> None:
    with LedgerWriter(path) as store:
        write_games(store, match_records(games) + [game_record("game six-card seats=Ann,Ben dealer=Ann new-match",
                                                               seed=999, entries=20)])


def burst_lines(count: int) -> list[str]:
    """``count`` console lines: whole games of a new match (each dealt first by the last game's
    loser), then as much of one more as fits."""
    records = match_records(count // 60 + 2, seats="Cat,Dan", seed=500)
    records[0][0] += " new-match"
    return [line for record in records for line in record][:count]


# ---- the rows ------------------------------------------------------------------------


def wrk_rps(url: str, seconds: int = WRK_SECONDS, pid: int | None = None) -> tuple[float, float | None]:
    """Requests a second (wrk: one thread, 8 connections, ``seconds``), and requests per second of the
    server's CPU (``pid``'s user and system time meanwhile; None without ``pid``); stops on any answer but 200."""
    before = cpu_seconds(pid) if pid else None
    out = subprocess.run(["wrk", "-t1", "-c8", f"-d{seconds}s", url], capture_output=True, text=True,
                         check=True).stdout
    used = cpu_seconds(pid) - before if pid else None
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+)", out)
    if "Non-2xx" in out or (errors and any(int(n) for n in errors.groups())):  # only whole 200 answers count
        raise RuntimeError(f"wrk {url}: {out}")
    total = int(re.search(r"(\d+) requests in", out).group(1))
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), (total / used if used else None)


def cpu_seconds(pid: int) -> float:
    """A process's user and system CPU seconds so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def page_row(tree: Path, ledger: Path, rounds: int, folder: Path) -> tuple[str, str]:
    """/ requests a second, the web view against a minimal Starlette app serving its bytes."""
    server = Server(tree, ledger)
    try:
        with urllib.request.urlopen(server.base + "/") as response:
            body, headers = response.read(), dict(response.headers)
        # not "Connection: close" either: urllib asks for it, and copied into the bare app's every answer it
        # made wrk connect afresh for each request there (the 1.46x this row once gave the web view)
        dropped = ("date", "content-length", "transfer-encoding", "connection")
        kept = {k: v for k, v in headers.items() if k.lower() not in dropped}
        (folder / "body.html").write_bytes(body)
        (folder / "headers.json").write_text(__import__("json").dumps(kept))
        bare = []
        for script in (MINIMAL, MINIMAL_DEFAULTS):
            port = free_port()
            bare.append((port, subprocess.Popen([sys.executable, "-c", script, str(folder / "body.html"),
                                                 str(folder / "headers.json"), str(port)],
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)))
        try:
            urls = [server.base + "/"] + [f"http://127.0.0.1:{port}/" for port, _ in bare]
            for url, (_, process) in zip(urls[1:], bare):
                wait_for(url, process)
            pids = dict(zip(urls, [server.process.pid] + [process.pid for _, process in bare]))
            figures = {url: [] for url in urls}
            for url in urls:
                wrk_rps(url, 2)  # untimed: the web view's start-up warm-up (statistics) is over, all are warm
            for r in range(rounds):
                for url in urls[r % 3:] + urls[:r % 3]:  # each in turn first
                    figures[url].append(wrk_rps(url, pid=pids[url]))
        finally:
            for _, process in bare:
                stop(process)
    finally:
        server.stop()
    (a, a_cpu), (b, b_cpu), (c, c_cpu) = ((statistics.median(f[0] for f in figures[url]),
                                           statistics.median(f[1] for f in figures[url])) for url in urls)
    return [("/ requests/s, web view : minimal Starlette, same settings (goal >= 0.8x)",
             f"{a / b:.2f}x ({a:.0f} against {b:.0f} req/s, {len(body)} bytes); per CPU second "
             f"{a_cpu / b_cpu:.2f}x ({a_cpu:.0f} against {b_cpu:.0f})"),
            ("/ requests/s, web view : minimal Starlette, uvicorn's defaults (goal >= 0.8x)",
             f"{a / c:.2f}x ({a:.0f} against {c:.0f} req/s); per CPU second {a_cpu / c_cpu:.2f}x "
             f"({a_cpu:.0f} against {c_cpu:.0f})")]


def clients(base_port: int, count: int) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", SSE_CLIENTS, "127.0.0.1", str(base_port), str(count)],
                               stdout=subprocess.PIPE, text=True)
    if process.stdout.readline().strip() != "ready":
        raise RuntimeError("the /events clients did not get their first events")
    return process


def idle_row(tree: Path, ledger: Path, rounds: int) -> tuple[str, str]:
    """The server's CPU over IDLE_SECONDS with CLIENTS idle /events clients against 1."""
    server = Server(tree, ledger)
    used = {1: [], CLIENTS: []}
    try:
        for r in range(rounds):
            for count in ((1, CLIENTS) if r % 2 == 0 else (CLIENTS, 1)):
                readers = clients(server.port, count)
                try:
                    time.sleep(1)  # settle after the first events
                    before = server.cpu_seconds()
                    time.sleep(IDLE_SECONDS)
                    used[count].append(server.cpu_seconds() - before)
                finally:
                    stop(readers)
    finally:
        server.stop()
    one, many = statistics.median(used[1]), statistics.median(used[CLIENTS])
    return (f"CPU, {CLIENTS} idle /events clients : 1 (goal <= 1.5x)",
            f"{many / max(one, 0.01):.2f}x ({many / IDLE_SECONDS:.1%} against {one / IDLE_SECONDS:.1%} of a core)")


def burst_seconds(tree: Path, ledger: Path, lines: list[str]) -> tuple[float, int]:
    """(seconds, entries acknowledged): from the console being ready (its ledger open: it
    says so) to its last answer, the lines fed at once on standard input. Unbuffered (``-u``):
    into a pipe, the line that says the ledger is open would otherwise wait in a buffer."""
    console = subprocess.Popen([sys.executable, "-u", "-m", "firmware.cli", "console", "--state", str(ledger)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree,
                               env={**os.environ, "PYTHONPATH": str(tree)})
    while not console.stdout.readline().startswith("cribbage-board: ledger "):  # said once it is open
        if console.poll() is not None:
            raise RuntimeError("the console did not start")
    began = time.perf_counter()
    console.stdin.write("\n".join(lines) + "\nquit\n")
    console.stdin.close()
    answers = console.stdout.readlines()
    took = time.perf_counter() - began
    if console.wait() != 0:
        raise RuntimeError("the console failed")
    refused = [line for line in answers if line.startswith("!")]
    if refused:  # every line must be kept, or the burst is not what it says
        raise RuntimeError(f"the console refused {len(refused)} line(s), the first: {refused[0].strip()}")
    return took, sum(line.startswith("  ok:") for line in answers)


def burst_row(tree: Path, base_ledger: Path, rounds: int, folder: Path) -> tuple[str, str]:
    """A burst of BURST console entries with CLIENTS /events clients reading, against none."""
    lines = burst_lines(BURST)
    times, cpu = {0: [], CLIENTS: []}, []
    for r in range(rounds):
        for count in ((0, CLIENTS) if r % 2 == 0 else (CLIENTS, 0)):
            ledger = folder / f"burst-{r}-{count}.sqlite3"
            shutil.copyfile(base_ledger, ledger)
            server = Server(tree, ledger)
            readers = clients(server.port, count) if count else None
            try:
                before = server.cpu_seconds()
                took, acknowledged = burst_seconds(tree, ledger, lines)
                times[count].append(took)
                if count:
                    cpu.append(server.cpu_seconds() - before)
            finally:
                if readers:
                    stop(readers)
                server.stop()
    alone, watched = statistics.median(times[0]), statistics.median(times[CLIENTS])
    return (f"{BURST} console entries, {CLIENTS} /events clients : none (goal <= 1.1x)",
            f"{watched / alone:.2f}x ({watched:.2f} s against {alone:.2f} s, the web view's CPU meanwhile "
            f"{statistics.median(cpu):.2f} s; every line kept, "
            f"{acknowledged} entries and {BURST - acknowledged} games; the ledger on {'tmpfs' if TMPFS else 'disk'})")


def held_row(tree: Path, ledger: Path, folder: Path) -> tuple[str, str]:
    """Real requests while HELD_IDLE idle connections and HELD_HALF half-sent requests are held
    (the slowest of five), how long the server keeps the held ones, and what it logs meanwhile."""
    nofile = unit_nofile()
    log = folder / "held.log"
    server = Server(tree, ledger, wrap=("prlimit", f"--nofile={nofile}:{nofile}"), log=log)
    held, waits = [], []
    try:
        opened = time.monotonic()
        for k in range(HELD_IDLE + HELD_HALF):
            try:
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=2)
            except OSError:
                break  # the server no longer accepts
            if k >= HELD_IDLE:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slowly: ")
            held.append(sock)
        for _ in range(5):
            began = time.perf_counter()
            try:
                with urllib.request.urlopen(server.base + "/api/state", timeout=10) as response:
                    response.read()
                waits.append(time.perf_counter() - began)
            except OSError:
                waits.append(float("inf"))
            time.sleep(0.2)
        closed_after = closed_within(held, opened, 60)
        time.sleep(1)
    finally:
        for sock in held:
            sock.close()
        server.stop()
    slowest = max(waits)
    answer = ("no answer within 10 s" if slowest == float("inf") else
              f"answered in {slowest * 1000:.0f} ms at most ({', '.join(f'{w * 1000:.0f}' for w in waits)} ms)")
    closed = ("never closed (60 s)" if closed_after is None else
              f"all closed by the server {closed_after:.1f} s after the first was opened")
    text = log.read_text()
    return (f"real requests while {HELD_IDLE} idle and {HELD_HALF} half-sent connections are held "
            f"(the unit's LimitNOFILE={nofile}; goal within 1 s, closed within seconds)",
            f"{answer}; {len(held)} held, {closed}; log {len(text.splitlines())} lines, {len(text)} bytes")


def closed_within(socks: list[socket.socket], since: float, limit: float) -> float | None:
    """Seconds from ``since`` until the server closed every one of ``socks`` (None if not within ``limit``)."""
    selector = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    try:
        while selector.get_map():
            if time.monotonic() - since > limit:
                return None
            for key, _ in selector.select(timeout=0.5):
                try:
                    if key.fileobj.recv(65536):
                        continue  # an answer (503, 408) before the close
                except OSError:
                    pass
                selector.unregister(key.fileobj)
        return time.monotonic() - since
    finally:
        selector.close()


def crawl_row(tree: Path, ledger: Path) -> tuple[str, str]:
    """The server's memory after GET /games/1 .. /games/CRAWL."""
    server = Server(tree, ledger)
    try:
        start = server.memory_mb()[0]
        for game_id in range(1, CRAWL + 1):
            with urllib.request.urlopen(f"{server.base}/games/{game_id}", timeout=60) as response:
                response.read()
        rss, peak = server.memory_mb()
    finally:
        server.stop()
    return (f"memory after crawling /games/1 .. /games/{CRAWL} (goal < 100 MB)",
            f"RSS {rss:.0f} MB, peak {peak:.0f} MB (from {start:.0f} MB)")


ROWS = ("page", "idle", "burst", "held", "crawl")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="run the web view and the console from this tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rows", default=",".join(ROWS), help=f"which rows, of {','.join(ROWS)} (all by default)")
    args = parser.parse_args(argv)
    tree, wanted = args.tree.resolve(), args.rows.split(",")
    if set(wanted) - set(ROWS):
        parser.error(f"--rows: one or more of {','.join(ROWS)}")
    if "page" in wanted and not shutil.which("wrk"):
        print("bench/web_load.py needs wrk for its page row: apt-get install wrk (or --rows without page)",
              file=sys.stderr)
        return 2
    rows = [("web view from", str(tree))]
    with tempfile.TemporaryDirectory(dir=TMPFS) as scratch:
        folder = Path(scratch)
        ledger = folder / "ledger.sqlite3"
        make_ledger(ledger, 20)
        for name in ROWS:
            if name not in wanted:
                continue
            if name == "page":
                *more, last = page_row(tree, ledger, args.rounds, folder)
                rows.extend(more)
                for row in more:
                    print(f"{row[0]}: {row[1]}", file=sys.stderr, flush=True)
                rows.append(last)
            elif name == "idle":
                rows.append(idle_row(tree, ledger, max(2, args.rounds - 1)))
            elif name == "burst":
                rows.append(burst_row(tree, ledger, 3 * args.rounds, folder))  # a burst is short: more rounds
            elif name == "held":
                rows.append(held_row(tree, ledger, folder))
            else:
                big = folder / "crawl.sqlite3"
                make_ledger(big, CRAWL)
                rows.append(crawl_row(tree, big))
            print(f"{rows[-1][0]}: {rows[-1][1]}", file=sys.stderr, flush=True)  # as it goes
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
