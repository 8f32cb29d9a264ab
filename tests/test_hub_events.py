"""What /club/events sends at a regional event's size (firmware.hub.pages.delta_events over the hub's own
state, in process): 1,000 tables and 2,000 players. Each change's events stay within EVENT_BYTES, a new
round of 1,000 cards comes as several such events, and a viewer that puts each change in place by its
keys (as club.js does) ends with the cards and standings of the snapshot itself."""

from __future__ import annotations

import json
import random

import pytest

from firmware.hub import pages
from firmware.hub.ledger import HubLedger
from firmware.hub.night import next_pairings
from firmware.hub.state import NightState, Shown

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


def same_layout(made: pages.Layout, whole: pages.Layout) -> None:
    """``made`` (by Layout.after) shows what ``whole`` (made from the snapshot alone) shows."""
    assert made.card_keys == whole.card_keys and made.card_place == whole.card_place
    assert made.live == whole.live
    assert {key: pages.card_html(made.cards[key]) for key in made.card_keys} == \
        {key: pages.card_html(whole.cards[key]) for key in whole.card_keys}
    assert made.players == whole.players and made.player_place == whole.player_place
    lines = whole.snap.view.standings
    assert [made.rank(k) for k in range(len(lines))] == pages.places(lines)


def test_a_layout_made_from_the_one_before_equals_one_made_whole(tmp_path):
    """Random entries, live scores, tables coming and going, results, corrections, players added and removed,
    new rounds: each snapshot's layout made from the one before (what changed only) equals the layout made
    from the snapshot alone, and so do the events made of each."""
    rng = random.Random(47)
    tables = [str(k) for k in range(1, 41)]
    players = [f"Q{k:03}" for k in range(84)]
    ledger = HubLedger(tmp_path / "hub.sqlite3", holder="test")
    row = ledger.night("thu", "small", "acc", "acc", 4)
    with ledger.write() as w:
        for name in players[:80]:
            w.add_player(row.id, name)
    state = NightState(row, "thu", tables[:36])
    state.load(ledger.reader())
    snap = state.put("connected", None)
    layout = pages.Layout(snap)
    number, games, results, made, moved = 0, 0, [], 0, 0
    for _ in range(240):
        view = state.book.view()
        pairings = {p.table: p.players for p in view.rounds[-1].pairings} if view.rounds else {}
        for _ in range(rng.randint(0, 3)):
            kind = rng.random()
            table = rng.choice(tables)
            if kind < 0.3:
                state.kept([table] * rng.randint(1, 3))
            elif kind < 0.5:
                state.table_said(table, "status", {"online": rng.random() < 0.8, "problem": None})
            elif kind < 0.65 and table in pairings:
                a, b = pairings[table]
                state.table_said(table, "state", {"ledger": "b" * 16, "game": games, "state": {
                    "sides": [{"name": a, "score": rng.randint(0, 120)}, {"name": b, "score": rng.randint(0, 120)}],
                    "next": {"seat": a, "count": "hand"} if rng.random() < 0.5 else None}})
            elif kind < 0.85 and (table in pairings or rng.random() < 0.2):
                a, b = pairings.get(table) or rng.sample(players, 2)
                lost = rng.randint(30, 120)
                scores = (121, lost) if rng.random() < 0.5 else (lost, 121)
                games += 1
                lines = peg_lines((a, b), scores)
                with ledger.write() as w:
                    for seq, line in enumerate(lines):
                        w.add_entry(row.id, "thu", table, "b" * 16, games, seq, line, None)
                    payload = result_payload(table, "b" * 16, games, len(lines) - 1, {a: scores[0], b: scores[1]})
                    w.add_result(row.id, max(number, 1), "thu", payload)
                results.append(("thu", table, "b" * 16, games))
            elif kind < 0.9 and results:
                with ledger.write() as w:
                    w.add_correction(row.id, rng.choice(results), rng.choice(("void", "restore")), "test", "director")
            elif kind < 0.95:
                with ledger.write() as w:
                    w.add_player(row.id, rng.choice(players), "add" if rng.random() < 0.6 else "remove")
            elif number < 4 and rng.random() < 0.3:
                number += 1
                with ledger.write() as w:
                    w.add_round(row.id, number, next_pairings(state.book.view(), tables[:36 + number]), "next")
        state.read(ledger.reader())
        snap = state.put("connected", None)
        _, shown = state.since(layout.snap.version)
        after = layout.after(snap, shown)
        whole = pages.Layout(snap)
        same_layout(after, whole)
        base = layout.snap.version
        assert pages.delta_events(after, base, shown) == pages.delta_events(whole, base, shown)
        made += after.card_keys is layout.card_keys
        moved += after.card_keys is layout.card_keys and after.players != layout.players
        layout = after
    assert number >= 2 and made > 100 and moved > 20, (number, made, moved)  # most made from the one before
