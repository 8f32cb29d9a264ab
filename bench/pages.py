"""Benchmark: the time to render each page from its templates, in process (the best of several rounds).

The web view's pages over a ledger of 20 finished games and one in play (the live
part the events send, the board page, a seat's page, the games, one game, the
statistics), and the club hub's /club and the parts its events send at a regional
event's size (1,000 tables, 2,000 players; the first page of a snapshot, then one
whose rows and cards are unchanged). CPU time on this machine: a Raspberry Pi Zero
2 W is 8-15x slower.

Run: ``.venv/bin/python bench/pages.py`` (``--short``: 100 tables, fewer rounds).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from firmware.hub import pages as hub_pages  # noqa: E402
from firmware.hub.ledger import HubLedger  # noqa: E402
from firmware.hub.night import next_pairings  # noqa: E402
from firmware.hub.state import NightState  # noqa: E402
from firmware.web import pages  # noqa: E402
from firmware.web.follow import LedgerFollower  # noqa: E402
from firmware.web.site import Site  # noqa: E402
from ledger.writer import LedgerWriter  # noqa: E402
from scorer.distribution import distribution  # noqa: E402

from table import print_table  # noqa: E402
from web_games import match_records, write_games  # noqa: E402


def best_ms(render, rounds: int) -> float:
    """The fastest of ``rounds`` calls of ``render``, in milliseconds."""
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        render()
        times.append(time.perf_counter() - began)
    return min(times) * 1000


def web_rows(folder: Path, rounds: int) -> list[tuple[str, str]]:
    path = folder / "ledger.sqlite3"
    records = match_records(21, seats="Alice,Bob", seed=1)
    with LedgerWriter(path) as store:
        write_games(store, records[:20] + [records[20][:30]])
    site = Site(LedgerFollower(path))
    live = site.live()
    state = (live["state"], live["problem"], live["recent"], live["messages"])
    games, game, players = site.games(), site.game(1), site.stats()
    tables = {4: distribution(4, False)}
    renders = {
        "the live part": lambda: pages.live_html(*state),
        "/ (the board page)": lambda: pages.board_page(*state),
        "/phone": lambda: pages.render("phone.html", pages.phone_context(live, 0, "token")),
        f"/games ({len(games)} games)": lambda: pages.render("games.html", pages.games_context(games, None)),
        "/games/1": lambda: pages.render("game.html", pages.game_context(*game)),
        "/stats": lambda: pages.render("stats.html", pages.stats_context(players, tables, None)),
    }
    return [(f"web view: {name}", f"{best_ms(render, rounds):.2f} ms") for name, render in renders.items()]


def hub_rows(folder: Path, tables: int, rounds: int) -> list[tuple[str, str]]:
    names = [str(k) for k in range(1, tables + 1)]
    ledger = HubLedger(folder / "hub.sqlite3", holder="bench")
    try:
        night = ledger.night("thu", "regional", "acc", "acc", 3)
        with ledger.write() as w:
            for k in range(2 * tables):
                w.add_player(night.id, f"P{k:04}")
        state = NightState(night, "thu", names)
        state.load(ledger.reader())
        with ledger.write() as w:
            w.add_round(night.id, 1, next_pairings(state.book.view(), names), "start")
        state.read(ledger.reader())
    finally:
        ledger.close()
    snap = state.put("connected", None)
    size = f"{tables:,} tables, {2 * tables:,} players"
    hub_pages.standing_row.cache_clear()
    hub_pages._card_html.cache_clear()
    began = time.perf_counter()
    hub_pages.page(snap)
    first = (time.perf_counter() - began) * 1000
    layout = hub_pages.Layout(snap)
    drawn = layout.cards[layout.card_keys[0]]
    line = snap.view.standings[0]

    def cards():
        for _ in range(100):
            hub_pages._card_html.cache_clear()
            hub_pages.card_html(drawn)

    def rows():
        for _ in range(100):
            hub_pages.standing_row.cache_clear()
            hub_pages.standing_row(1, line)

    return [(f"hub: /club ({size}), a snapshot's first", f"{first:.1f} ms"),
            (f"hub: /club ({size}), rows and cards unchanged", f"{best_ms(lambda: hub_pages.page(snap), rounds):.1f} ms"),
            ("hub: a table's card, drawn anew", f"{best_ms(cards, rounds) * 10:.1f} us"),
            ("hub: a standings row, drawn anew", f"{best_ms(rows, rounds) * 10:.1f} us")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="a quick check: 100 tables, 3 rounds (no figures to report)")
    short = parser.parse_args(argv).short
    rounds, tables = (3, 100) if short else (20, 1000)
    with tempfile.TemporaryDirectory() as folder:
        print_table(web_rows(Path(folder), rounds) + hub_rows(Path(folder), tables, max(3, rounds // 4)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
