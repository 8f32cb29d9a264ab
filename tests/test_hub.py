"""The hub's writer (firmware/hub/hub.py) in this process, without a broker: each kind of inbox
message to its handler, in the order a take of the inbox is acted on."""

from __future__ import annotations

import pytest

from firmware.hub import hub as hub_module
from firmware.hub.hub import Hub, Journal, Settings
from firmware.hub.inbox import Connected, Job, PresenceAsked, Received
from firmware.hub.ledger import HubLedger
from firmware.wire import schema
from firmware.wire.broker import parse_broker
from ledger.errors import LedgerError

from club_hub import peg_lines
from waits import eventually

LEDGER = "0123456789abcdef"


def entries(table: str, game: int, players=("Ann", "Bob"), scores=(121, 90)) -> list[Received]:
    """A game's lines as a table sends them, each a message the writer is to keep."""
    return [Received("entry", table, schema.entry_payload(table, LEDGER, game, seq, line, None), seq + 1, 1, 0)
            for seq, line in enumerate(peg_lines(list(players), scores))]


@pytest.fixture
def hub(tmp_path):
    """A hub with its writer not yet started: what the test puts in the inbox is one take."""
    said: list[str] = []
    made = Hub(Settings("thu", parse_broker("mqtt://127.0.0.1:1"), "n1", tables=("1", "2")),
               HubLedger(tmp_path / "hub.sqlite3", holder="test"), Journal(write=said.append))
    made.said = said
    try:
        yield made
    finally:
        made.stop()
        made.ledger.close()


def test_a_takes_entries_are_kept_before_the_directors_command_in_it_runs(hub):
    """Entries and a command in one take: the command sees every entry kept, and they are acknowledged."""
    acked: list[int] = []
    hub.link.ack = lambda mid, qos, generation=None: acked.append(mid)
    sent = entries("1", 1)
    for item in sent:
        hub.inbox.put(item)
    job = Job(lambda: hub.ledger.reader().entry_counts(hub.night.id))
    hub.inbox.put(job)
    hub.start()
    assert job.done.wait(10) and job.error is None
    assert sum(job.value.values()) == len(sent)
    assert acked == [item.mid for item in sent]


def test_a_failed_write_keeps_the_messages_unacknowledged_and_tries_again(hub, monkeypatch):
    """The ledger refuses a write: one line says so, nothing is acknowledged, and the next try keeps them."""
    monkeypatch.setattr(hub_module, "RETRY_S", (0.05,))
    acked: list[int] = []
    hub.link.ack = lambda mid, qos, generation=None: acked.append(mid)
    store, failures = hub._store, []

    def failing_once(batch):
        if not failures:
            failures.append(len(batch))
            raise LedgerError("disk full: nothing kept")
        return store(batch)

    hub._store = failing_once
    sent = entries("1", 1)
    for item in sent:
        hub.inbox.put(item)
    hub.start()

    def kept() -> int:
        return sum(hub.run(lambda: hub.ledger.reader().entry_counts(hub.night.id)).values())

    assert eventually(lambda: kept() == len(sent))  # tried again RETRY_S later
    assert failures == [len(sent)]
    assert acked == [item.mid for item in sent]
    assert [line for line in hub.said if "disk full" in line] == [
        f"disk full: nothing kept; {len(sent)} messages wait, unacknowledged"]


def test_a_presence_asked_with_a_connection_in_the_same_take_is_said_once(hub):
    """A connection says the hub's presence (with everything retained); a question in the same take adds none."""
    presences: list[dict] = []
    publish = hub.link.publish

    def recording(topic, payload, force=False, qos=1):
        if topic == hub.topics.hub:
            presences.append(payload)
        publish(topic, payload, force, qos)

    hub.link.publish = recording
    hub.inbox.put(PresenceAsked())
    hub.inbox.put(Connected())
    hub.start()
    hub.run(lambda: None)
    assert len(presences) == 1
    hub.inbox.put(PresenceAsked())
    hub.run(lambda: None)
    assert len(presences) == 2  # asked on its own: said again
