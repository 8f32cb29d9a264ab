"""The club link's outbox without a broker: what it sends of a ledger, the watermark, and when it sends again."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from helpers import FakeClock

from firmware.board.club import outbox as outbox_module
from firmware.board.club.outbox import (
    IN_FLIGHT,
    RESEND_MAX_S,
    RESEND_S,
    STATE_EVERY_S,
    WATERMARK_SUFFIX,
    Outbox,
    ResendPolicy,
    Watermark,
)
from firmware.config import load_config
from firmware.wire import schema
from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.errors import CribbageError
from scorer.record import parse_line

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = (ROOT / "tests" / "data" / "example-game.txt").read_text().splitlines()
TABLE = "3"


class Wire:
    """Stands in for the broker: what the outbox sent, each message checked by the schema, and its id."""

    def __init__(self):
        self.sent: list[tuple[str, dict, bool, int]] = []  # (kind, payload, retained, message id)

    def __call__(self, topic: str, payload: bytes, retain: bool) -> int:
        mid = len(self.sent) + 1
        where = schema.Topics("thursday").parse(topic)
        if where is None:  # Home Assistant's discovery: not the club's schema
            self.sent.append((topic, {}, retain, mid))
        else:
            self.sent.append((where[1], schema.decode(where[1], where[0], payload), retain, mid))
        return mid

    def of(self, kind: str) -> list[dict]:
        return [payload for sent_kind, payload, _, _ in self.sent if sent_kind == kind]

    def mids(self, kind: str) -> list[int]:
        return [mid for sent_kind, _, _, mid in self.sent if sent_kind == kind]

    def clear(self) -> None:
        self.sent.clear()


class Table:
    """A board's ledger in a club, and its outbox on a fake clock and a fake wire."""

    def __init__(self, tmp_path: Path, *club: str):
        self.config = load_config(None, ["club.broker=mqtt://localhost", "club.name=thursday",
                                         f"club.table={TABLE}", *club]).club
        self.path = tmp_path / "l.sqlite3"
        self.writer = LedgerWriter(self.path)
        self.writer.join_club("thursday", TABLE)
        self.clock, self.wire, self.said = FakeClock(1000.0), Wire(), []
        self.outbox = self.new_outbox()
        self.reader: LedgerReader | None = None

    def new_outbox(self) -> Outbox:
        return Outbox(self.config, self.path.with_name(self.path.name + WATERMARK_SUFFIX), self.wire,
                      self.said.append, self.clock)

    def play(self, lines) -> int:
        """Apply the lines the rules accept; how many were kept."""
        kept = 0
        for line in lines:
            action = parse_line(line)
            if action is None:
                continue
            try:
                self.writer.apply(action)
            except CribbageError:
                continue
            kept += 1
        return kept

    def look(self) -> LedgerReader:
        if self.reader is None:
            self.reader = LedgerReader(self.path)
        return self.reader

    def connect(self, hub_online: bool = False) -> bool:
        """A connection, as the link makes it: join, the hub's presence heard, whether sending waits."""
        self.outbox.join(self.look())
        self.outbox.reconnected()
        return self.outbox.waits(hub_online, early=False)

    def send(self, hub_online: bool = False) -> bool:
        return self.outbox.send(self.look(), hub_online)

    def acknowledge_all(self) -> None:
        for _, _, _, mid in self.wire.sent:
            self.outbox.acknowledged(mid)

    def word(self, games: list[list], first: int = 1, refused: list[list] | None = None) -> None:
        """The hub's word on this ledger, as its retained ``kept`` says it."""
        ledger = self.outbox.watermark.key["ledger"]
        payload = schema.decode("kept", TABLE, schema.encode(schema.kept_payload(TABLE, ledger, first, games,
                                                                                 refused)))
        self.outbox.hub_kept(self.look(), payload)

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()
        self.writer.close()


@pytest.fixture
def table(tmp_path):
    made = Table(tmp_path)
    try:
        yield made
    finally:
        made.close()


def test_a_new_board_sends_its_status_every_line_of_its_game_and_the_live_board(table):
    """No watermark and no hub: it says so once, then sends the status (retained, with its ledger and
    floor), the game line and every entry (QoS 1, not retained) and the live board (retained)."""
    kept = table.play(EXAMPLE[:10])
    assert not table.connect()
    assert table.said == ["club: the hub has not said what it has of this board's games: sending every game "
                          "of the club's (the hub keeps each once)"]
    assert not table.send()  # sent, but the broker has acknowledged none of it yet
    status, = table.wire.of("status")
    assert status["online"] and status["floor"] == 1 and status["ledger"] == table.outbox.watermark.key["ledger"]
    entries = table.wire.of("entry")
    assert [entry["seq"] for entry in entries] == list(range(kept))
    assert entries[0]["line"].startswith("game six-card seats=Alice,Bob") and entries[1]["line"] == "heels Alice"
    assert [retained for kind, _, retained, _ in table.wire.sent] == [True] + [False] * kept + [True]
    assert table.wire.of("state")[0]["seq"] == kept - 1
    table.acknowledge_all()
    assert table.outbox.sent == kept
    table.wire.clear()
    assert table.send() and table.wire.sent == []  # all sent, nothing new: caught up


def test_no_more_than_IN_FLIGHT_await_the_broker(table):
    """The broker's acknowledgements pace the sending: at most IN_FLIGHT unacknowledged, and each
    acknowledgement makes room for one more."""
    kept = table.play(EXAMPLE[:-2])  # all but the winning count: no result to send
    assert kept > IN_FLIGHT + 5
    table.connect()
    table.send()
    first = table.wire.mids("entry")
    assert len(first) == IN_FLIGHT
    for mid in first[:5]:
        table.outbox.acknowledged(mid)
    table.outbox.acknowledged(10**6)  # an id it never sent: no room made
    table.send()
    entries = table.wire.of("entry")
    assert len(entries) == IN_FLIGHT + 5 and [entry["seq"] for entry in entries] == list(range(IN_FLIGHT + 5))


def test_a_finished_game_sends_its_result(table):
    """The game's end is sent as its result, with the winner and the scores, after its entries."""
    table.play(EXAMPLE)
    table.connect()
    for _ in range(5):  # a few looks, each acknowledged: room for every entry
        table.send()
        table.acknowledge_all()
    result, = table.wire.of("result")
    assert (result["status"], result["winner"], result["game"]) == ("finished", "Alice", 1)
    assert result["rev"] == table.wire.of("entry")[-1]["seq"]


def test_the_hubs_word_moves_the_watermark_and_never_back(table, tmp_path):
    """What the hub says it kept moves the watermark (kept beside the ledger); an older word moves nothing."""
    kept = table.play(EXAMPLE[:10])
    table.connect()
    table.send()
    table.word([[1, 3, None, None]])
    mark = table.outbox.watermark
    assert mark.place == (1, 3)
    table.word([[1, kept - 1, None, None]])
    assert mark.place[1] > 3
    place = mark.place
    table.word([[1, 2, None, None]])  # an older word, delivered late
    assert mark.place == place
    table.outbox.save(force=True)
    saved, why = Watermark.load(table.path.with_name(table.path.name + WATERMARK_SUFFIX), mark.key)
    assert why is None and saved.place == place


def test_a_word_for_another_ledger_at_the_table_is_not_taken(table):
    """Another board's word at the same table moves nothing of this one."""
    table.play(EXAMPLE[:10])
    table.connect()
    table.send()
    ledger = "0123456789abcdef"
    assert ledger != table.outbox.watermark.key["ledger"]
    payload = schema.kept_payload(TABLE, ledger, 1, [[1, 5, None, None]])
    table.outbox.hub_kept(table.look(), schema.decode("kept", TABLE, schema.encode(payload)))
    assert table.outbox.watermark.place == (0, 0)


def test_without_its_watermark_a_board_waits_for_the_hubs_word(table):
    """A hub online, its word not in yet: sending waits while it may come; the word comes and it sends."""
    table.play(EXAMPLE[:10])
    table.outbox.join(table.look())
    assert table.outbox.waits(hub_online=True, early=True)
    table.word([[1, 3, None, None]])
    assert not table.outbox.waits(hub_online=True, early=True)
    assert table.said == [] and table.outbox.watermark.place == (1, 3)


def test_without_its_watermark_or_the_hubs_word_a_board_sends_every_game(table):
    """No hub, or no word from it in time: sending waits no more, and says so once."""
    table.play(EXAMPLE[:10])
    table.outbox.join(table.look())
    assert not table.outbox.waits(hub_online=True, early=False)
    assert not table.outbox.waits(hub_online=True, early=True)  # asked once: it waits no more
    assert len(table.said) == 1 and "sending every game of the club's" in table.said[0]


def test_a_board_restarted_sends_only_what_the_hub_has_not_kept(tmp_path):
    """The watermark written at the end is taken up by the next outbox of the same ledger."""
    first = Table(tmp_path)
    try:
        kept = first.play(EXAMPLE[:10])
        first.connect()
        first.send()
        first.word([[1, 4, None, None]])
        first.outbox.save(force=True)
        said = len(first.said)
        first.outbox = first.new_outbox()
        assert not first.connect(hub_online=True)
        assert first.said[said:] == []  # it has its watermark: nothing to ask
        first.wire.clear()
        first.send(hub_online=True)
        assert [entry["seq"] for entry in first.wire.of("entry")] == list(range(5, kept))
    finally:
        first.close()


def test_a_silent_hub_gets_everything_again_after_RESEND_S_then_twice_as_long(table):
    """The hub online, its word behind what was sent: after RESEND_S it all goes again from the hub's
    word, then after twice as long; the broker's acknowledgements alone change nothing."""
    kept = table.play(EXAMPLE[:10])
    table.connect(hub_online=True)
    table.send(hub_online=True)
    table.acknowledge_all()
    table.wire.clear()
    assert table.outbox.resend_at(hub_online=True) == table.clock.now + RESEND_S
    assert table.outbox.resend_at(hub_online=False) is None
    table.clock.now += RESEND_S - 0.1
    table.send(hub_online=True)
    assert table.wire.of("entry") == []
    table.clock.now += 0.1
    table.send(hub_online=True)
    assert [entry["seq"] for entry in table.wire.of("entry")] == list(range(kept))
    assert table.said[-1] == "club: sending again from what the hub has kept (the hub has confirmed nothing " \
                             "more for 5 s)"
    assert table.outbox.resends.count == 1
    assert table.outbox.resend_at(hub_online=True) == table.clock.now + 2 * RESEND_S
    table.word([[1, kept - 1, None, None]])  # the hub has it all: nothing owed
    assert table.outbox.resend_at(hub_online=True) is None


def test_reconnecting_to_a_hub_that_is_behind_sends_again(table):
    """A new connection with a hub online that has not confirmed everything: it all goes again at once."""
    kept = table.play(EXAMPLE[:10])
    table.connect(hub_online=True)
    table.send(hub_online=True)
    table.word([[1, 2, None, None]])
    table.wire.clear()
    assert not table.connect(hub_online=True)
    assert table.said[-1] == "club: sending again from what the hub has kept (connected again)"
    table.send(hub_online=True)
    assert table.wire.of("status") and [entry["seq"] for entry in table.wire.of("entry")] == list(range(3, kept))


def test_no_hub_online_no_resend(table):
    """While no hub is online, what was sent is not sent again: the broker queues it for the hub."""
    table.play(EXAMPLE[:10])
    table.connect()
    table.send()
    table.acknowledge_all()
    table.wire.clear()
    table.clock.now += 10 * RESEND_MAX_S
    assert table.connect() is False and table.send()
    assert table.wire.of("entry") == [] and table.outbox.resends.count == 0


def test_the_live_board_goes_at_most_every_STATE_EVERY_S(table):
    """A change soon after the last state waits its turn (state_at says when), then goes."""
    table.play(EXAMPLE[:3])
    table.connect()
    table.send()
    table.acknowledge_all()
    table.play(EXAMPLE[3:5])
    table.wire.clear()
    table.clock.now += STATE_EVERY_S / 2
    assert not table.send()  # the state waits
    assert table.wire.of("state") == [] and table.outbox.state_at() == table.clock.now + STATE_EVERY_S / 2
    table.acknowledge_all()
    table.clock.now += STATE_EVERY_S / 2
    table.send()
    assert len(table.wire.of("state")) == 1 and table.outbox.state_at() is None


def test_home_assistant_entities_go_before_the_state_they_read(tmp_path):
    """With Home Assistant on, each side's entities are announced (retained) before the first state."""
    table = Table(tmp_path, "club.homeassistant=true")
    try:
        table.play(EXAMPLE[:3])
        table.connect()
        table.send()
        kinds = [kind for kind, _, _, _ in table.wire.sent]
        discovery = [at for at, kind in enumerate(kinds) if kind.startswith("homeassistant/")]
        assert discovery and max(discovery) < kinds.index("state")
    finally:
        table.close()


def test_the_resend_policy_doubles_up_to_its_ceiling():
    """Each resend that brought nothing doubles the wait, up to RESEND_MAX_S; the hub's word resets it."""
    clock = FakeClock(0.0)
    policy = ResendPolicy(clock)
    waits = []
    for _ in range(6):
        due = policy.due_at()
        clock.now = due - 0.1
        assert policy.why(owed=True) is None  # not yet
        clock.now = due
        assert policy.why(owed=True) is not None
        policy.sent_again()
        waits.append(policy.due_at() - clock.now)
    assert waits == [2 * RESEND_S, 4 * RESEND_S, 8 * RESEND_S, RESEND_MAX_S, RESEND_MAX_S, RESEND_MAX_S]
    assert policy.count == 6
    policy.progress()
    assert policy.due_at() == clock.now + RESEND_S
    clock.now += 100
    assert policy.why(owed=False) is None and policy.due_at() == clock.now + RESEND_S


def test_the_examples_in_its_docstrings_hold():
    """The module's doctests run."""
    assert doctest.testmod(outbox_module).failed == 0


def test_a_refusal_in_the_hubs_word_is_said_once_and_nothing_is_sent_again(table):
    """The hub's word counts a refused entry as kept and names it: one journal line and one notice for
    the OLED, however often the word comes; the watermark passes it, and no resend follows."""
    kept = table.play(EXAMPLE[:6])
    table.connect(hub_online=True)
    table.send(hub_online=True)
    table.acknowledge_all()
    table.said.clear()
    refusal = [1, "entry", 0, "entry: line 'game ...' is not a valid value"]
    for _ in range(3):
        table.word([[1, kept - 1, None, None]], refused=[refusal])
    assert table.said == ["club: the hub refused game 1's game line (table 3): entry: line 'game ...' is not a valid "
                          "value; it is not sent again, and the game counts only by the club director's word: "
                          "tell the director"]
    assert list(table.outbox.refusals) == ["The hub refused game 1: it counts only if the director says so"]
    assert not table.outbox.lagging()
    table.wire.clear()
    table.clock.now += RESEND_MAX_S * 2
    assert table.send(hub_online=True) and table.wire.of("entry") == []
