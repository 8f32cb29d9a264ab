"""Benchmark: the web view's pages, the board's start and the current game's replay as the ledger grows.

Ledgers of 10, 100, 1,000 and 10,000 finished six-card games (one match) and a
game in play after them, each served by a real ``cribbage-board web`` process of
its own. Round by round, in a new order each round, each page is asked of each
server over one kept-alive connection, with ``Accept-Encoding: gzip`` and
without: the time to its last byte (median) and its bytes as sent (the body on
the wire, after gzip if it was asked for). Each figure is also a ratio to the
same figure over 10 games, measured in the same run (the target: ``/games`` over
1,000 games at most 64 KB and within 1.5x its time over 10). In this process,
also side by side: the board's start (``LedgerWriter`` opened with
``check="later"`` as the board opens it, and closed), the current game replayed
(``LedgerReader.book``), and what a game ending costs the history: a page of
``/games`` made again, and ``/stats`` made again after the game in play is
played to its end and the next begun (untimed; the statistics of every game
before it already counted, as the server counts them at its first visit).

The ledgers are written once by the project's ``LedgerWriter`` (unsynced, for
speed: about 6 minutes for 10,000 games here) and kept in
``build/bench-history/`` for later runs.

Run: ``.venv/bin/python bench/history.py`` (``--short``: 10 and 100 games, a few rounds, nothing kept).
"""

from __future__ import annotations

import argparse
import http.client
import random
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]  # the project's ledger package first

from firmware.web.follow import LedgerFollower  # noqa: E402
from firmware.web.site import PAGE_GAMES, Site  # noqa: E402
from ledger.reader import LedgerReader  # noqa: E402
from ledger.schema import SCHEMA_VERSION  # noqa: E402
from ledger.writer import LedgerWriter  # noqa: E402
from scorer.game import Entry  # noqa: E402
from scorer.record import parse_line  # noqa: E402

from board import play_out  # noqa: E402
from table import print_table  # noqa: E402
from web_games import web_server  # noqa: E402

KEPT = ROOT / "build" / "bench-history"
TARGET_BYTES = 64 * 1024
TARGET_RATIO = 1.5
LIVE_ENTRIES = 12  # entries of the game in play
LOCAL_ORDER = ("the board's start (LedgerWriter opened, closed)", "the current game replayed (LedgerReader.book)",
               "/games made again (a game ended)", "/stats made again (a game ended)")
PAGE_ORDER = ("/games", "/games?before= (a middle page)", "/stats", "/", "/api/state", "/games/ID (the middle game)")


def fill(store: LedgerWriter, games: int, rng: random.Random) -> None:
    """``games`` more finished six-card games of Red and Blue, pegged and counted at random."""
    for _ in range(games):
        header = "game six-card seats=Red,Blue" + ("" if store.game is not None else " dealer=Red")
        store.apply(parse_line(header))
        play_out(store, rng)


def end_a_game(path: Path, rng: random.Random) -> None:
    """The ledger's game in play played to its end, and the next begun, as the board writes them."""
    with LedgerWriter(path) as store:
        play_out(store, rng)
        store.apply(parse_line("game six-card seats=Red,Blue"))
        for _ in range(LIVE_ENTRIES):
            store.apply(Entry.peg(rng.choice(["Red", "Blue"]), rng.randint(1, 3)))


def ledgers(sizes: list[int], folder: Path, keep: Path) -> dict[int, Path]:
    """A ledger of each size of finished games in ``folder``, copied from ``keep`` (written there
    first, one writer adding to the last size, if missing), each with a game in play added."""
    keep.mkdir(parents=True, exist_ok=True)
    kept = {size: keep / f"games-{size}-schema{SCHEMA_VERSION}.sqlite3" for size in sizes}
    missing = [size for size in sizes if not kept[size].exists()]
    if missing:
        scratch = keep / "writing.sqlite3"
        for stale in keep.glob("writing.sqlite3*"):
            stale.unlink()
        rng, written = random.Random(5), 0
        for size in sorted(sizes):
            with LedgerWriter(scratch) as store:
                store._conn.execute("PRAGMA synchronous=OFF")
                began = time.monotonic()
                fill(store, size - written, rng)
                print(f"wrote {size - written:,} games in {time.monotonic() - began:.0f} s", file=sys.stderr)
            written = size
            if size in missing:
                shutil.copyfile(scratch, kept[size])  # closed: the -wal is checkpointed into it
        for stale in keep.glob("writing.sqlite3*"):
            stale.unlink()
    out = {}
    for size in sizes:
        out[size] = folder / f"games-{size}.sqlite3"
        shutil.copyfile(kept[size], out[size])
        with LedgerWriter(out[size]) as store:
            store.apply(parse_line("game six-card seats=Red,Blue"))
            rng = random.Random(size)
            for _ in range(LIVE_ENTRIES):
                store.apply(Entry.peg(rng.choice(["Red", "Blue"]), rng.randint(1, 3)))
    return out


def fetch(connection: http.client.HTTPConnection, path: str, gzip: bool) -> tuple[float, bytes, int]:
    """(seconds to the last byte, the body as sent, status) of one GET on a kept-alive connection."""
    headers = {"Accept-Encoding": "gzip"} if gzip else {}
    for _ in range(3):
        began = time.perf_counter()
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
        except (http.client.RemoteDisconnected, ConnectionError):  # the server's keep-alive ran out: again
            connection.close()
            continue
        took = time.perf_counter() - began
        break
    else:
        raise SystemExit(f"{path}: the server closed the connection 3 times")
    if gzip != (response.getheader("Content-Encoding") == "gzip") and len(body) >= 1024:
        raise SystemExit(f"{path}: gzip asked {gzip}, answered {response.getheader('Content-Encoding')}")
    return took, body, response.status


def served(paths: dict[int, Path], rounds: int, listed: dict[int, int]) -> dict:
    """{(page, size, gzip): (median seconds, bytes)} over ``rounds`` rounds, each server asked in turn;
    ``listed`` gets the games /games lists over each size."""
    times: dict = {}
    sizes: dict = {}
    with ExitStack() as stack:
        bases = {size: stack.enter_context(web_server(path)) for size, path in paths.items()}
        connections = {size: http.client.HTTPConnection(base.removeprefix("http://"), timeout=600)
                       for size, base in bases.items()}
        middle = {size: f"/games?before={size // 2 + 1}" for size in paths}
        pages = dict(zip(PAGE_ORDER, (lambda size: "/games", lambda size: middle[size], lambda size: "/stats",
                                      lambda size: "/", lambda size: "/api/state", lambda size: f"/games/{size // 2}")))
        for size, connection in connections.items():  # the first visit: templates compiled, /stats counted
            for path_of in pages.values():
                for gzip in (False, True):
                    _, body, status = fetch(connection, path_of(size), gzip)
                    if status != 200:
                        raise SystemExit(f"{path_of(size)} over {size} games: {status}")
            _, body, _ = fetch(connection, "/games", False)
            listed[size] = body.count(b'<td class="id">')
            if listed[size] != min(size, PAGE_GAMES):
                raise SystemExit(f"/games over {size} games lists {listed[size]}")
        order = [(name, size, gzip) for name in pages for size in paths for gzip in (False, True)]
        for _ in range(rounds):
            random.shuffle(order)
            for name, size, gzip in order:
                took, body, _ = fetch(connections[size], pages[name](size), gzip)
                times.setdefault((name, size, gzip), []).append(took)
                sizes[(name, size, gzip)] = len(body)
        for connection in connections.values():
            connection.close()
    return {key: (statistics.median(values), sizes[key]) for key, values in times.items()}


def in_process(paths: dict[int, Path], rounds: int) -> dict:
    """{(what, size): median seconds}: the board's start, the current game replayed, a page of /games
    and /stats made again, each size in turn, round by round."""
    readers = {size: LedgerReader(path) for size, path in paths.items()}
    sites = {size: Site(LedgerFollower(path)) for size, path in paths.items()}
    for site in sites.values():
        site.stats_page()  # every game's figures kept, as after the server's warm-up

    def start(size):
        LedgerWriter(paths[size], check="later").close()

    def game_page(size):
        sites[size]._pages.clear()
        sites[size].games_page()

    def stats_page(size):
        sites[size].stats_page()

    work = dict(zip(LOCAL_ORDER, (start, lambda size: readers[size].book, game_page, stats_page)))
    times: dict = {}
    order = [(name, size) for name in work for size in paths]
    rng = random.Random(1)
    for _ in range(rounds):
        random.shuffle(order)
        for name, size in order:
            if work[name] is stats_page:
                end_a_game(paths[size], rng)  # not timed: what /stats makes again is timed
            began = time.perf_counter()
            work[name](size)
            times.setdefault((name, size), []).append(time.perf_counter() - began)
    for reader in readers.values():
        reader.close()
    for site in sites.values():
        site.follower.close()
    return {key: statistics.median(values) for key, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="10 and 100 games, 3 rounds (no figures to report)")
    parser.add_argument("--rounds", type=int, default=30, help="rounds of requests (default 30)")
    options = parser.parse_args(argv)
    sizes, rounds = ([10, 100], 3) if options.short else ([10, 100, 1000, 10000], options.rounds)
    base = sizes[0]
    with tempfile.TemporaryDirectory() as folder:
        paths = ledgers(sizes, Path(folder), Path(folder) / "kept" if options.short else KEPT)
        listed: dict[int, int] = {}
        web = served(paths, rounds, listed)
        local = in_process(paths, max(3, rounds // 3))  # ends games: after the pages are counted
    rows = [(f"games /games lists (at most {PAGE_GAMES})", "; ".join(f"{size:,}: {listed[size]}" for size in sizes))]
    for name in sorted(dict.fromkeys(name for name, _ in local), key=LOCAL_ORDER.index):
        figures = [f"{size:,}: {local[name, size] * 1e3:.2f} ms ({local[name, size] / local[name, base]:.2f}x)"
                   for size in sizes]
        rows.append((name, "; ".join(figures)))
    for name in sorted(dict.fromkeys(name for name, _, _ in web), key=PAGE_ORDER.index):
        for gzip in (False, True):
            figures = []
            for size in sizes:
                took, length = web[name, size, gzip]
                figures.append(f"{size:,}: {took * 1e3:.2f} ms ({took / web[name, base, gzip][0]:.2f}x), "
                               f"{length / 1024:.1f} KB")
            rows.append((f"{name}, {'gzip' if gzip else 'identity'}", "; ".join(figures)))
    if 1000 in sizes:
        for gzip in (False, True):
            took, length = web["/games", 1000, gzip]
            ratio = took / web["/games", base, gzip][0]
            verdict = "ok" if length <= TARGET_BYTES and ratio <= TARGET_RATIO else "OVER"
            rows.append((f"target: /games over 1,000 games, {'gzip' if gzip else 'identity'}",
                         f"{length / 1024:.1f} KB (<= 64 KB), {ratio:.2f}x its time over {base} (<= 1.5x): {verdict}"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
