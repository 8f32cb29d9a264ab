"""A board in a club (firmware/board/club/link.py) against a real Mosquitto: what it publishes, and the faults it survives."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import jinja2
import pytest

from firmware.board.club.link import RETRY_LEDGER_S, ClubLink, open_link
from firmware.board.club.outbox import Watermark
from firmware.config import ConfigError, load_config
from firmware.hub.ledger import HubReader
from firmware.wire import schema
from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.errors import CribbageError
from scorer.record import GameHeader, Scorebook, parse_line

from broker import Listener, Mosquitto, environment
from club_hub import HubProcess, until
from waits import CEILING_S, eventually

pytestmark = pytest.mark.broker  # a real Mosquitto (tests/broker.py)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = (ROOT / "tests" / "data" / "example-game.txt").read_text().splitlines()
CLUB = ("--set", "club.name=thursday", "--set", "club.table=3")


def club_args(broker: Mosquitto, *more: str) -> list[str]:
    return ["--set", f"club.broker={broker.url}", *CLUB, *more]


def console(state: Path, lines, *args: str, timeout: float = CEILING_S) -> subprocess.CompletedProcess:
    """``cribbage-board console`` on ``state`` with ``args``, fed ``lines``, to its end."""
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", "console", "--state", str(state), *args],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=timeout, env=environment(),
    )


def accepted_lines(lines) -> list[str]:
    """The lines a ledger keeps of ``lines``: those the rules accept, without comments (the game
    line as the record writes it)."""
    book, kept = Scorebook(), []
    for line in lines:
        action = parse_line(line)
        if action is None:
            continue
        try:
            book.apply(action)
        except CribbageError:
            continue
        kept.append(book.game.header() if isinstance(action, GameHeader) else line.split("#")[0].strip())
    return kept


def keys(listener: Listener, kind: str = "entry") -> list[tuple]:
    return [(p["ledger"], p["game"], p["seq"] if kind == "entry" else p["rev"]) for p in listener.payloads(kind)]


def decoded(listener: Listener) -> list[dict]:
    """Every message on a table topic, through the schema's door (raises if one breaks it)."""
    found = []
    for topic, payload, _ in list(listener.messages):
        where = schema.Topics("thursday").parse(topic)
        if where and payload:
            found.append(schema.decode(where[1], where[0], payload))
    return found


@pytest.fixture
def listener(broker):
    heard = Listener(broker, "cribbage/thursday/#")
    yield heard
    heard.close()


def test_a_console_in_a_club_publishes_every_entry_its_result_and_its_state(tmp_path, broker, listener):
    """Every game line and entry once, in order, numbered from 0; the result; the live board; online then offline."""
    state = tmp_path / "l.sqlite3"
    done = console(state, EXAMPLE, *club_args(broker))
    assert done.returncode == 0, done.stderr
    assert "club: connected to" in done.stderr
    kept = accepted_lines(EXAMPLE)
    assert eventually(lambda: len(listener.payloads("entry")) >= len(kept))
    entries = listener.payloads("entry")
    with LedgerReader(state) as ledger:
        assert [e["line"] for e in entries] == ledger.export(1)
    assert [e["seq"] for e in entries] == list(range(len(kept)))
    assert len({e["ledger"] for e in entries}) == 1 and {e["game"] for e in entries} == {1}
    assert eventually(lambda: listener.payloads("result"))
    result = listener.payloads("result")[-1]
    assert (result["status"], result["winner"], result["scores"], result["rev"]) == (
        "finished", "Alice", {"Alice": 121, "Bob": 73}, len(kept) - 1)
    assert result["losers"][0]["result"] == "skunk" and result["skunk"] is True and result["margin"] == 48
    assert eventually(lambda: listener.payloads("state") and listener.payloads("state")[-1]["seq"] == len(kept) - 1)
    assert listener.payloads("state")[-1]["state"]["winner"] == "Alice"
    assert eventually(lambda: [s["online"] for s in listener.payloads("status")][-1:] == [False])
    assert [s["online"] for s in listener.payloads("status")][0] is True
    assert decoded(listener)  # every one of them passes the schema's checks


def test_entries_kept_while_the_broker_is_down_are_delivered_once_it_is_back(tmp_path):
    """A board that plays on with the broker away (even restarted meanwhile) sends everything when it is back."""
    broker = Mosquitto(tmp_path / "broker").start()
    try:
        heard = Listener(broker, "cribbage/thursday/table/3/entry", client_id="test-hub", clean=False)
        state = tmp_path / "l.sqlite3"
        broker.stop()
        first = console(state, EXAMPLE[:20], *club_args(broker))  # the broker is away all along
        assert first.returncode == 0 and "the board keeps every entry" in first.stderr
        broker.start()
        second = console(state, EXAMPLE[20:], *club_args(broker))
        assert second.returncode == 0, second.stderr
        kept = accepted_lines(EXAMPLE)
        assert eventually(lambda: len(set(keys(heard))) >= len(kept))
        assert sorted(set(keys(heard)), key=lambda k: k[2]) == [(keys(heard)[0][0], 1, n) for n in range(len(kept))]
        heard.close()
    finally:
        broker.stop()


def test_the_broker_restarted_mid_game_loses_nothing(tmp_path, broker):
    """Mosquitto restarted while a board sends: every entry arrives (a repeat is allowed, a gap is not).
    The board stays on, as at a table, until it has sent them: a board closed while the broker is
    still away keeps the rest in its ledger for its next start (the test above)."""
    heard = Listener(broker, "cribbage/thursday/table/3/+", client_id="test-hub", clean=False)
    state = tmp_path / "l.sqlite3"
    kept = accepted_lines(EXAMPLE)
    board = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli", "console", "--state", str(state), *club_args(broker)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment())
    try:
        for number, line in enumerate(EXAMPLE):
            board.stdin.write(line + "\n")
            board.stdin.flush()
            if number == 15:
                broker.restart()
        arrived = eventually(lambda: len(set(keys(heard))) >= len(kept))
        board.stdin.close()
        assert board.wait(CEILING_S + 10) == 0
    finally:
        if board.poll() is None:
            board.kill()
    assert arrived, board.stderr.read()
    assert {key[2] for key in keys(heard)} == set(range(len(kept)))
    assert eventually(lambda: any(r["status"] == "finished" for r in heard.payloads("result")))
    heard.close()


def test_a_board_started_again_sends_only_what_the_hub_has_not_kept(tmp_path, broker, listener):
    """The watermark moves on the hub's word alone: a second run sends its new entries, not the first
    run's again; without a hub, nothing moves it."""
    state = tmp_path / "l.sqlite3"
    hub = HubProcess(tmp_path / "hub", broker.url, club="thursday").start()
    try:
        assert console(state, EXAMPLE[:20], *club_args(broker)).returncode == 0
        first = keys(listener)
        mark = json.loads((tmp_path / "l.sqlite3.club").read_text())
        with LedgerReader(state) as reader:
            last = reader.feed(lambda conn: conn.execute("SELECT max(id) FROM actions").fetchone()[0])
        assert mark["key"] == {"ledger": first[0][0], "club": "thursday", "table": "3"} and mark["place"] == [1, last]
        assert console(state, EXAMPLE[20:], *club_args(broker)).returncode == 0
        kept = accepted_lines(EXAMPLE)
        assert eventually(lambda: len(keys(listener)) >= len(kept))
        time.sleep(0.3)  # a repeat, if any were sent, would be here by now
        assert len(keys(listener)) == len(set(keys(listener))) == len(kept) > len(first)  # each once
        with HubReader(hub.state) as rows:
            assert rows.counts()["entries"] == len(kept)
        with LedgerReader(state) as reader:
            last = reader.feed(lambda conn: conn.execute("SELECT max(id) FROM actions").fetchone()[0])
        assert eventually(lambda: json.loads((tmp_path / "l.sqlite3.club").read_text())["place"] == [1, last])
    finally:
        hub.stop()
    assert console(state, ["game six-card seats=Cy,Di", "peg Di 2"], *club_args(broker)).returncode == 0  # no hub
    assert eventually(lambda: (2, 1) in {key[1:] for key in keys(listener)})  # sent to the broker, for the hub
    assert json.loads((tmp_path / "l.sqlite3.club").read_text())["place"] == [1, last]  # but not forgotten


def test_a_board_joining_a_club_sends_the_game_on_the_board_not_the_games_before(tmp_path, broker, listener):
    """A finished game from before the club is not the club's; the game being played is, from its game line."""
    state = tmp_path / "l.sqlite3"
    lines = EXAMPLE + ["game six-card seats=Cy,Di dealer=Cy", "peg Di 2"]
    assert console(state, lines).returncode == 0  # no club yet
    assert console(state, ["peg Cy 1"], *club_args(broker)).returncode == 0
    assert eventually(lambda: len(listener.payloads("entry")) >= 3)
    time.sleep(0.3)
    entries = listener.payloads("entry")
    assert [(e["game"], e["seq"], e["line"]) for e in entries] == [
        (2, 0, "game six-card seats=Cy,Di dealer=Cy"), (2, 1, "peg Di 2"), (2, 2, "peg Cy 1")]
    assert listener.payloads("result") == []


def _writer_and_link(tmp_path, broker, **club) -> tuple[LedgerWriter, ClubLink, list[str]]:
    config = load_config(None, ["club.broker=" + broker.url, "club.name=thursday", "club.table=3",
                                *(f"club.{key}={value}" for key, value in club.items())])
    writer = LedgerWriter(tmp_path / "l.sqlite3")
    writer.join_club("thursday", "3")
    said: list[str] = []
    link = ClubLink(config.club, writer.path, log=said.append).start()
    writer.on_commit = link.wake
    return writer, link, said


def test_undoing_the_winning_entry_takes_the_result_back_and_redo_gives_it_again(tmp_path, broker, listener):
    """finished, then open (the end undone), then finished again: each with a higher rev."""
    writer, link, _ = _writer_and_link(tmp_path, broker)
    try:
        for line in accepted_lines(EXAMPLE):
            writer.apply(parse_line(line))
        assert eventually(lambda: [r["status"] for r in listener.payloads("result")][-1:] == ["finished"])
        writer.apply(parse_line("undo"))
        assert eventually(lambda: [r["status"] for r in listener.payloads("result")][-1:] == ["open"])
        writer.apply(parse_line("redo"))
        assert eventually(lambda: [r["status"] for r in listener.payloads("result")][-1:] == ["finished"])
        revs = [r["rev"] for r in listener.payloads("result")]
        assert revs == sorted(revs) and len(set(revs)) == 3
        writer.apply(parse_line("game six-card seats=Cy,Di"))
        writer.apply(parse_line("peg Cy 2"))
        writer.apply(parse_line("game six-card seats=Ed,Fa"))  # Cy v Di replaced before its end
        assert eventually(lambda: any(r["status"] == "abandoned" for r in listener.payloads("result")))
        abandoned = [r for r in listener.payloads("result") if r["status"] == "abandoned"][0]
        assert (abandoned["game"], abandoned["winner"], abandoned["scores"]) == (2, None, {"Cy": 2, "Di": 0})
    finally:
        link.close()
        writer.close()


def test_a_wrong_password_is_one_clear_line_and_the_board_plays_on(tmp_path):
    """The broker refuses the board: one line says so; every entry is still kept in the ledger."""
    with Mosquitto(tmp_path / "broker", users={"table3": "right"}) as broker:
        state = tmp_path / "l.sqlite3"
        done = console(state, EXAMPLE, *club_args(broker, "--set", "club.username=table3",
                                                  "--set", "club.password=wrong"))
    assert done.returncode == 0
    said = [line for line in done.stderr.splitlines() if "club" in line]
    assert len(said) == 1 and "wrong user name or password" in said[0] and "playing on" in said[0], said
    writer = LedgerWriter(state)
    try:
        assert len(writer.export()) == len(accepted_lines(EXAMPLE)) and writer.game.is_over
    finally:
        writer.close()


def test_the_oled_shows_the_club_connection_and_the_tables_next_pairing(tmp_path, broker, capsys):
    """The mock board in a club: "club ok" in the status line, the hub's pairing in the footer."""
    from firmware.board.footer import MESSAGE_SECONDS
    from firmware.board.pc.simulator import Simulator

    config = load_config(None, ["club.broker=" + broker.url, "club.name=thursday", "club.table=3"])
    sim = Simulator(config, tmp_path / "l.sqlite3")
    hub = Listener(broker, "cribbage/thursday/hub", client_id="test-hub")
    said: list[str] = []  # the board's journal (standard error)
    try:
        def shown():
            sim.board.step(0)
            return sim.board.oled_screen()

        def journal() -> str:
            said.append(capsys.readouterr().err)
            return "".join(said)

        assert until(lambda: shown().lines[0].startswith("club ok | deal 1"))
        sim.clock.skip(MESSAGE_SECONDS)  # the new game's message has had its time: the footer is the club's
        pairing = schema.pairing_payload("3", "2026-12-03", 2, ["Ann", "Bob"])
        hub.client.publish("cribbage/thursday/table/3/pairing", schema.encode(pairing), qos=1, retain=True)
        assert until(lambda: shown().footer == "R2: Ann v Bob")
        hub.client.publish("cribbage/thursday/table/3/pairing", b'{"v": 1, "table": "4"}', qos=1)
        assert until(lambda: "a pairing for table 3 was ignored" in journal())
        assert shown().footer == "R2: Ann v Bob"  # a pairing for another table is ignored
    finally:
        hub.close()
        sim.close()


def test_home_assistant_discovery_makes_each_sides_score_a_sensor(tmp_path, broker):
    """[club] homeassistant: retained discovery configs whose templates, rendered as Home Assistant
    does (Jinja2), give each side's score and the table's availability."""
    heard = Listener(broker, "homeassistant/#", "cribbage/thursday/table/3/+")
    writer, link, _ = _writer_and_link(tmp_path, broker, homeassistant="true")
    try:
        for line in accepted_lines(EXAMPLE)[:12]:
            writer.apply(parse_line(line))
        expected = writer.book.game.state.scores
        assert eventually(lambda: heard.payloads("state") and heard.payloads("state")[-1]["seq"] == 11)
    finally:
        link.close()
        writer.close()
    configs = {topic: json.loads(payload) for topic, payload, _ in heard.messages
               if topic.startswith("homeassistant/") and payload}
    assert set(configs) == {"homeassistant/sensor/cribbage-thursday-table-3/side1/config",
                            "homeassistant/sensor/cribbage-thursday-table-3/side2/config",
                            "homeassistant/sensor/cribbage-thursday-table-3/next/config"}
    removed = {topic for topic, payload, _ in heard.messages if topic.startswith("homeassistant/") and not payload}
    assert removed == {"homeassistant/sensor/cribbage-thursday-table-3/side3/config",
                       "homeassistant/sensor/cribbage-thursday-table-3/side4/config"}
    state = json.loads([p for t, p, _ in heard.messages if t.endswith("/state")][-1])
    status = json.loads([p for t, p, _ in heard.messages if t.endswith("/status")][0])
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    for index in (1, 2):
        config = configs[f"homeassistant/sensor/cribbage-thursday-table-3/side{index}/config"]
        assert config["state_topic"] == "cribbage/thursday/table/3/state"
        score = env.from_string(config["value_template"]).render(value_json=state)
        assert int(score) == expected[index - 1]
        attributes = json.loads(env.from_string(config["json_attributes_template"]).render(value_json=state))
        assert attributes["player"] == ["Alice", "Bob"][index - 1]
        assert env.from_string(config["availability_template"]).render(value_json=status) == "online"
        assert config["unique_id"] == f"cribbage-thursday-table-3_side{index}"
    nxt = configs["homeassistant/sensor/cribbage-thursday-table-3/next/config"]
    assert env.from_string(nxt["value_template"]).render(value_json=state) == (
        f"{state['state']['next']['seat']} {state['state']['next']['count']}")
    heard.close()


def test_home_assistant_entities_follow_the_sides_of_each_game(tmp_path, broker):
    """Three players, then two others: each game's configs come before its state, named after its
    players; the third side's config is removed for the game of two."""
    heard = Listener(broker, "homeassistant/#", "cribbage/thursday/table/3/state")
    writer, link, _ = _writer_and_link(tmp_path, broker, homeassistant="true")
    try:
        writer.apply(parse_line("game three-hand seats=Ann,Bob,Cy dealer=Ann"))
        assert eventually(lambda: heard.payloads("state") and heard.payloads("state")[-1]["game"] == 1)
        writer.apply(parse_line("game six-card seats=Di,Ed dealer=Di"))
        assert eventually(lambda: heard.payloads("state") and heard.payloads("state")[-1]["game"] == 2)
    finally:
        link.close()
        writer.close()
    node = "homeassistant/sensor/cribbage-thursday-table-3"
    said = [(topic, json.loads(payload) if payload else None) for topic, payload, _ in heard.messages]
    names = [(topic.split("/")[3], config and config["name"]) for topic, config in said if topic.startswith(node)]
    assert names == [("side1", "Ann score"), ("side2", "Bob score"), ("side3", "Cy score"), ("side4", None),
                     ("next", "Next count"),
                     ("side1", "Di score"), ("side2", "Ed score"), ("side3", None), ("side4", None),
                     ("next", "Next count")]
    games = [config["game"] if topic.endswith("/state") else topic.split("/")[3] for topic, config in said]
    assert games.index(1) > games.index("next") and games.index(2) > len(games) - 1 - games[::-1].index("next")
    heard.close()


def test_a_link_waiting_for_its_broker_wakes_about_once_a_second(tmp_path, broker):
    """A board that sent entries a hub (online) has not confirmed, and a live board not yet sent, when
    the broker goes away: while it is away the link's thread sleeps (a look a second at most), it
    does not spin on a resend or a state it cannot send."""
    hub = Listener(broker, "cribbage/thursday/hub")  # a hub online, saying nothing of what it keeps
    hub.client.publish("cribbage/thursday/hub", schema.encode(schema.hub_payload(True, "0.1.0", "ab" * 8,
                       "2026-12-04T09:00:00.000Z")), qos=1, retain=True).wait_for_publish(5)
    writer = LedgerWriter(tmp_path / "l.sqlite3")
    said: list[str] = []
    link = open_link(load_config(None, ["club.broker=" + broker.url, "club.name=thursday", "club.table=3"]).club,
                     writer, log=said.append)
    looks = []
    taken = link._take_acks
    link._take_acks = lambda: (looks.append(time.monotonic()), taken())[1]  # once per look of its thread
    try:
        assert eventually(lambda: link.state == "connected")
        for line in EXAMPLE[:12]:
            action = parse_line(line)
            if action is not None:
                writer.apply(action)
        assert eventually(lambda: link.outbox.sent >= 5), said
        broker.stop()
        assert eventually(lambda: link.state == "offline"), said
        time.sleep(0.5)
        writer.apply(parse_line(EXAMPLE[12]))  # a state now due, which cannot be sent
        begun = time.monotonic()
        time.sleep(3)
        during = [at for at in looks if at >= begun]
        assert len(during) <= 6, f"{len(during)} looks in 3 s with the broker away"
    finally:
        link.close(0.1)
        writer.close()
        hub.close()


def test_the_writer_wakes_the_link_only_once_the_entry_is_in_the_file(tmp_path):
    """on_commit runs after COMMIT: another connection already reads the entry."""
    writer = LedgerWriter(tmp_path / "l.sqlite3")
    seen = []

    def look():
        with sqlite3.connect(writer.path) as other:
            seen.append(other.execute("SELECT count(*) FROM actions").fetchone()[0])

    writer.on_commit = look
    try:
        writer.apply(parse_line("game six-card seats=Ann,Bob"))
        writer.apply(parse_line("peg Bob 2"))
        writer.apply(parse_line("peg Ann 1"))
    finally:
        writer.close()
    assert seen == [0, 1, 2]


def test_a_damaged_ledger_set_aside_keeps_its_id_for_the_club(tmp_path):
    """The club knows a board's games by (ledger, game, seq): a ledger begun again keeps the old one's id."""
    path = tmp_path / "l.sqlite3"
    with LedgerWriter(path) as writer:
        writer.apply(parse_line("game six-card seats=Ann,Bob"))
        writer.apply(parse_line("peg Bob 2"))
        before = writer.ledger_id
    assert before and len(before) == 16
    writer = LedgerWriter(path, check="later")
    try:
        writer.set_aside("integrity check failed: planted for the test")
        assert writer.ledger_id == before
        assert writer.export() == ["game six-card seats=Ann,Bob dealer=Ann", "peg Bob 2"]
    finally:
        writer.close()


def test_watermark_for_another_club_or_ledger_is_not_taken(tmp_path):
    """A watermark counts only for its own ledger, club and table (not the broker's address, however it is
    written); an older one, or one that does not read, is none, and says why."""
    path = tmp_path / "l.sqlite3.club"
    key = {"ledger": "0123456789abcdef", "club": "thursday", "table": "3"}
    Watermark(key, (4, 17), 4, {4: ["finished", 9]}).save(path)
    mark, why = Watermark.load(path, key)
    assert (mark.place, mark.first_open_game, mark.results, why) == ((4, 17), 4, {4: ["finished", 9]}, None)
    assert Watermark.load(path, {**key, "club": "friday"}) == (None, f"{path} is for another ledger, club or table")
    assert Watermark.load(tmp_path / "none.club", key) == (None, None)
    path.write_text(json.dumps({"key": {**key, "broker": "mqtt://h:1883"}, "place": [4, 17], "floor": 4,
                                "results": {}}))
    assert Watermark.load(path, key) == (None, f"{path} is from an older cribbage-board")
    path.write_text("{not json")
    assert Watermark.load(path, key)[0] is None and "cannot be read" in Watermark.load(path, key)[1]
    assert not path.with_name(path.name + ".new").exists()


@pytest.mark.parametrize("settings, said", [
    (["club.broker=http://h:1", "club.name=a", "club.table=1"], "use mqtt://host:1883"),
    (["club.broker=mqtt://h:1"], "[club] name: a board in a club needs one"),
    (["club.broker=mqtt://h:1", "club.name=thursday"], "[club] table: a board in a club needs one"),
    (["club.name=a/b"], "use 1 to 32 letters"),
    (["club.broker=mqtt://h:1", "club.name=a", "club.table=1", "club.ca_file=/x.pem"], "a CA file is for mqtts"),
    (["club.broker=mqtt://u:p@h:1", "club.name=a", "club.table=1"], "give only the host and port"),
    (["club.broker=mqtt://h:8883", "club.name=a", "club.table=1"], "8883 is the TLS port and mqtt:// would send "
     "the password in clear: write mqtts://h:8883 with its CA file, or mqtt://h:1883"),
    (["club.broker=mqtts://h:1883", "club.name=a", "club.table=1"], "1883 is plain MQTT's port"),
    (["club.broker=mqtt://h:1", "club.name=a", "club.table=homeassistant"], "is not a table's"),
    (["club.broker=mqtt://h:1", "club.name=a", "club.table=bridge-north"], "names a room's bridge"),
])
def test_club_settings_that_cannot_work_are_one_clear_line(settings, said):
    """A bad [club] key or value is a ConfigError naming it and what to write."""
    with pytest.raises(ConfigError) as refused:
        load_config(None, settings)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_table_number_may_be_written_as_a_number():
    """table = 3 reads as the table "3"; off by default."""
    assert load_config(None, []).club.enabled is False
    club = load_config(None, ["club.broker=mqtt://h", "club.name=thursday", "club.table=3"]).club
    assert (club.table, str(club.address())) == ("3", "mqtt://h:1883")


def test_the_oled_says_when_the_broker_refused_the_board(tmp_path):
    """A wrong password: "no club" in the status line, "club: login refused" below; the board plays on."""
    from firmware.board.footer import MESSAGE_SECONDS
    from firmware.board.pc.simulator import Simulator

    with Mosquitto(tmp_path / "broker", users={"table3": "right"}) as broker:
        config = load_config(None, ["club.broker=" + broker.url, "club.name=thursday", "club.table=3",
                                    "club.username=table3", "club.password=wrong"])
        sim = Simulator(config, tmp_path / "l.sqlite3")
        sim.clock.skip(MESSAGE_SECONDS)  # the new game's message has had its time: the footer is the club's
        try:
            def shown():
                sim.board.step(0)
                return sim.board.oled_screen()

            assert until(lambda: shown().footer == "club: login refused")
            assert shown().lines[0].startswith("no club | deal 1")
            sim.act("turn", "3")
            sim.act("click", "red")
            assert sim.board.controller.game.state.scores[0] == 3  # pegged and kept all the same
        finally:
            sim.close()


def test_a_ledger_the_link_cannot_read_is_said_in_the_tables_status(tmp_path, broker, listener):
    """The hub sees why a table sends nothing: its retained status carries the problem, and one log line."""
    config = load_config(None, ["club.broker=" + broker.url, "club.name=thursday", "club.table=3"])
    said: list[str] = []
    link = ClubLink(config.club, tmp_path / "missing.sqlite3", log=said.append)
    tries: list[float] = []  # when each look that could not read the ledger was done
    failed = link._ledger_failed
    link._ledger_failed = lambda problem: (failed(problem), tries.append(time.monotonic()))
    link.start()
    try:
        link.wake()
        assert eventually(lambda: any(s.get("problem") for s in listener.payloads("status")))
        problem = [s for s in listener.payloads("status") if s.get("problem")][-1]["problem"]
        assert "cannot be read: No such file" in problem and problem.count("\n") == 0
        # tried again meanwhile, past RETRY_LEDGER_S (when it opens the ledger again): said once
        assert eventually(lambda: tries and tries[-1] - tries[0] > RETRY_LEDGER_S), tries
        assert len([line for line in said if "cannot be read" in line]) == 1
    finally:
        link.close()


def test_a_console_table_shows_its_pairing_when_the_hub_makes_it(tmp_path, broker):
    """As the board's OLED does: the console says the hub's pairing for its table in one line
    ("club: R1: Ann v Bob"), and again when the next round changes it."""
    process = subprocess.Popen([sys.executable, "-m", "firmware.cli", "console", "--state", str(tmp_path / "t.sqlite3"),
                                *club_args(broker)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=environment(), cwd=ROOT)
    lines: list[str] = []
    import threading

    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    hub = Listener(broker, "cribbage/thursday/table/3/status", client_id="hub-side")
    try:
        assert eventually(lambda: hub.payloads("status")), "the console did not come online"
        for number, players in ((1, ["Ann", "Bob"]), (2, ["Cy", "Ann"])):
            pairing = schema.pairing_payload("3", "night", number, players)
            hub.client.publish("cribbage/thursday/table/3/pairing", schema.encode(pairing), qos=1, retain=True)
            said = f"club: R{number}: {' v '.join(players)}\n"
            assert eventually(lambda: said in lines), lines
        process.stdin.write("quit\n")
        process.stdin.close()
        assert process.wait(CEILING_S) == 0
        assert sum(line.startswith("club: ") for line in lines) == 2
    finally:
        if process.poll() is None:
            process.kill()
        hub.close()
