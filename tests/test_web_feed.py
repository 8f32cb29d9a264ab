"""The web view's /events (firmware/web/feed.py): one watcher of the ledger for every client, and the
gap it keeps after an event."""

import asyncio
import json

from firmware.web.follow import LedgerFollower
from firmware.web.site import Site
from ledger.writer import LedgerWriter
from scorer.record import parse_line

from waits import CEILING_S
from web_games import game_record, write_games

SIX = "game six-card seats=Alice,Bob dealer=Alice"


def test_one_watcher_looks_at_the_ledger_for_every_events_client(tmp_path):
    """Ten /events clients: after their first event the ledger is looked at from one task only,
    and an entry reaches every client as the same bytes."""
    from firmware.web.feed import LiveFeed

    path = tmp_path / "ledger.sqlite3"
    record = game_record(SIX, seed=3, entries=8)
    lookers = set()

    async def clients(store):
        follower = LedgerFollower(path)
        token = follower.token

        def looked():
            lookers.add(asyncio.current_task())
            return token()

        follower.token = looked
        feed = LiveFeed(Site(follower))
        streams = [feed.stream(f"192.0.2.{n}") for n in range(10)]  # ten devices
        try:
            firsts = [await anext(stream) for stream in streams]
            lookers.clear()
            store.apply(parse_line(record[-1]))
            seconds = await asyncio.wait_for(asyncio.gather(*(anext(stream) for stream in streams)), CEILING_S)
        finally:
            for stream in streams:
                await stream.aclose()
            follower.close()
        return firsts, seconds

    with LedgerWriter(path) as store:
        write_games(store, [record[:-1]])
        firsts, seconds = asyncio.run(clients(store))
    assert len(set(firsts)) == 1 and len(set(seconds)) == 1 and firsts[0] != seconds[0]
    assert json.loads(seconds[0].decode().split("data: ", 1)[1])["state"]["entries"] == 8
    assert len(lookers) == 1


def test_after_an_event_the_watcher_waits_the_event_gap_and_a_bursts_last_entry_arrives(tmp_path, monkeypatch):
    """A burst of entries: after each event the one watcher pauses EVENT_GAP_SECONDS (after a look
    that found nothing new, POLL_SECONDS), and the client's last event holds the burst's last entry."""
    from firmware.web import feed as feed_module

    path = tmp_path / "ledger.sqlite3"
    record = game_record(SIX, seed=4, entries=12)
    steps = []
    real_sleep = asyncio.sleep

    class NoPause:  # the feed module's asyncio: each pause is noted and none is taken
        def __getattr__(self, name):
            return getattr(asyncio, name)

        @staticmethod
        async def sleep(seconds):
            steps.append(("pause", seconds))
            await real_sleep(0)

    monkeypatch.setattr(feed_module, "asyncio", NoPause())

    async def client(store):
        follower = LedgerFollower(path)
        feed = feed_module.LiveFeed(Site(follower))
        update = feed.update
        feed.update = lambda: steps.append(("look", changed := update())) or changed
        stream = feed.stream()
        try:
            events = [await anext(stream)]
            for line in record[6:]:
                store.apply(parse_line(line))
                events.append(await asyncio.wait_for(anext(stream), CEILING_S))
        finally:
            await stream.aclose()
            follower.close()
        return events

    with LedgerWriter(path) as store:
        write_games(store, [record[:6]])
        events = asyncio.run(client(store))
    entries = [json.loads(event.decode().split("data: ", 1)[1])["state"]["entries"] for event in events]
    assert entries == list(range(5, 13))
    pauses = [(steps[k - 1], step[1]) for k, step in enumerate(steps) if step[0] == "pause"]
    assert pauses and all(look == ("look", True) and pause == feed_module.EVENT_GAP_SECONDS or
                          look == ("look", False) and pause == feed_module.POLL_SECONDS for look, pause in pauses)
    assert ("look", True) in [look for look, _ in pauses]
