"""What /club/events sends at a regional event's size (firmware.hub.pages.delta_events over the hub's own
state, in process): 1,000 tables and 2,000 players. Each change's events stay within EVENT_BYTES, a new
round of 1,000 cards comes as several such events, and a viewer that puts each change in place by its
keys (as club.js does) ends with the cards and standings of the snapshot itself."""

from __future__ import annotations

import json
import random

import pytest

from firmware.hub import pages
from firmware.hub.night import next_pairings
from firmware.hub.state import NightState, Shown
from ledger.hub import HubLedger

from club_hub import peg_lines, result_payload

TABLES = [str(k) for k in range(1, 1001)]
PLAYERS = [f"P{k:04}" for k in range(2000)]


class Viewer:
    """The cards' keys and the standings rows' keys, as a viewer keeps them from the events."""

    def __init__(self, layout: pages.Layout):
        self.version = layout.snap.version
        self.cards, self.rows = list(layout.card_keys), list(layout.players)

    def take(self, event: dict) -> None:
        if event.get("reset"):
            self.cards = []
        for kind, keys in (("tables", self.cards), ("standings", self.rows)):
            for item in event[kind]:
                key = item["table"] if kind == "tables" else item["key"]
                if key in keys:
                    keys.remove(key)
                if item.get("gone") or (kind == "tables" and "html" not in item):
                    continue
                keys.insert(0 if item["after"] is None else keys.index(item["after"]) + 1, key)
        if not event.get("more"):
            self.version = event["version"]


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    """A hub's ledger and state: 2,000 players, round 1 made for 1,000 tables."""
    ledger = HubLedger(tmp_path_factory.mktemp("hub") / "hub.sqlite3", holder="test")
    row = ledger.night("thu", "regional", "acc", "acc", 3)
    with ledger.write() as w:
        for name in PLAYERS:
            w.add_player(row.id, name)
    state = NightState(row, "thu", TABLES)
    state.load(ledger.reader())
    with ledger.write() as w:
        w.add_round(row.id, 1, next_pairings(state.book.view(), TABLES), "start")
    state.read(ledger.reader())
    yield ledger, row, state
    ledger.close()


def sizes(events: list[bytes]) -> list[int]:
    return [len(event) for event in events]


@pytest.mark.slow
def test_a_busy_second_at_a_thousand_tables_is_events_of_at_most_16_kb(night):
    """400 entries, 300 live scores and 30 results in one change (a second at ten times a player's pace):
    every event within EVENT_BYTES, and the viewer's cards and standings are the snapshot's."""
    ledger, row, state = night
    rng = random.Random(7)
    before = state.put("connected", None)
    viewer = Viewer(pages.Layout(before))
    pairings = {p.table: p.players for p in state.book.view().rounds[0].pairings}
    for second in range(3):
        state.kept([rng.choice(TABLES) for _ in range(400)])
        for table in rng.sample(TABLES, 300):
            a, b = pairings[table]
            state.table_said(table, "status", {"online": True, "problem": None})
            state.table_said(table, "state", {"ledger": "a" * 16, "game": 1,
                                              "state": {"sides": [{"name": a, "score": rng.randint(0, 120)},
                                                                  {"name": b, "score": rng.randint(0, 120)}]}})
        with ledger.write() as w:
            for table in rng.sample(TABLES, 30):
                a, b = pairings[table]
                lost = rng.randint(40, 120)
                lines = peg_lines((a, b), (121, lost))
                for seq, line in enumerate(lines):
                    w.add_entry(row.id, "thu", table, "a" * 16, 10 + second, seq, line, None)
                payload = result_payload(table, "a" * 16, 10 + second, len(lines) - 1, {a: 121, b: lost})
                w.add_result(row.id, 1, "thu", payload)
        state.read(ledger.reader(), ("entries", "results"))
        snap = state.put("connected", None)
        latest, shown = state.since(before.version)
        assert latest is snap and len(shown.tables) >= 300 and len(shown.players) >= 50
        sent = pages.delta_events(pages.Layout(snap), before.version, shown)
        assert max(sizes(sent)) <= pages.EVENT_BYTES, sizes(sent)
        events = [json.loads(event) for event in sent]
        for event in events:
            viewer.take(event)
        after = pages.Layout(snap)
        assert (viewer.version, viewer.cards, viewer.rows) == (snap.version, after.card_keys, after.players)
        before = snap


def test_a_new_round_of_a_thousand_cards_comes_in_events_of_at_most_16_kb(night):
    """A new round redraws every card: several events, each within EVENT_BYTES, all but the last saying more."""
    ledger, row, state = night
    before = state.put("connected", None)
    viewer = Viewer(pages.Layout(before))
    with ledger.write() as w:
        w.add_round(row.id, 2, next_pairings(state.book.view(), TABLES), "next")
    state.read(ledger.reader(), ("rounds",))
    snap = state.put("connected", None)
    _, shown = state.since(before.version)
    assert shown.round
    sent = pages.delta_events(pages.Layout(snap), before.version, shown)
    assert len(sent) > 5 and max(sizes(sent)) <= pages.EVENT_BYTES
    events = [json.loads(event) for event in sent]
    assert all(event.get("more") for event in events[:-1]) and not events[-1].get("more")
    assert events[0]["reset"] and "Round 2" in events[0]["round_head"]
    for event in events:
        viewer.take(event)
    assert viewer.cards == pages.Layout(snap).card_keys and len(viewer.cards) == 1000


def test_a_viewer_too_far_behind_gets_the_whole_snapshot(night):
    """Changes are kept for the last CHANGE_LOG snapshots: further behind, ``since`` says to send it whole."""
    _, _, state = night
    first = state.put("connected", None)
    for _ in range(4100):
        state.put("connected", None)
    latest, shown = state.since(first.version)
    assert shown is None and latest.version == first.version + 4100
    assert state.since(latest.version - 3)[1] == Shown(frozenset(), frozenset(), False)
