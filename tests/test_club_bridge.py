"""A regional event over bridged brokers (docs/club.md, "A regional event"): each room's boards on the
room's own Mosquitto, bridged by Mosquitto's own bridge to a central one, where the real hub runs.

Everything is set up by systemd/club-broker.sh as a director would run it (the centre's run prints each
room's command, which the test runs as printed; only the ports and folders are the test's), and each
broker runs the config it wrote. Tables are real ``cribbage-board console`` processes.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sqlite3
import subprocess
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from firmware.wire import schema
from ledger.feed import items_after
from ledger.reader import LedgerReader
from scorer.record import replay

from broker import Mosquitto, environment, free_port, need_mosquitto
from club_hub import Cable, ConsoleTable, HubProcess, acc_standings, feed_of, game_lines, until, wait_for
from waits import CEILING_S, eventually

pytestmark = pytest.mark.broker  # a real Mosquitto (tests/broker.py)

ROOT = Path(__file__).resolve().parent.parent
SETUP = ROOT / "systemd" / "club-broker.sh"
CLUB = "thu"
ROOMS = {"north": ["1", "2"], "south": ["3", "4"]}
PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
WATCHER = ("homeassistant", "watcher-secret")  # the shipped ACL's reader of the whole club, for the test's eyes


def set_up(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """club-broker.sh run in ``folder`` (its Mosquitto folder folder/etc), Mosquitto left alone."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {**environment(), "CRIBBAGE_MOSQUITTO_DIR": str(folder / "etc"), "CRIBBAGE_BROKER_RESTART": "no"}
    done = subprocess.run(["bash", str(SETUP), *args], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def room_commands(output: str) -> dict[str, list[str]]:
    """Each room's command as the centre's set-up prints it, as arguments after club-broker.sh."""
    found = {}
    for name, line in re.findall(r"^room (\S+): .*\n  (sudo systemd/club-broker\.sh .*)$", output, re.M):
        found[name] = shlex.split(line)[2:]
    return found


def club_sections(output: str) -> dict[str, dict[str, str]]:
    """Each table's [club] section as the set-up prints it."""
    import tomllib

    return {re.match(r"\[club\]\s+# table (\S+):", block).group(1): tomllib.loads(block.split("\n\n", 1)[0])["club"]
            for block in re.split(r"^(?=\[club\])", output, flags=re.M)[1:]}


def broker_as_set_up(folder: Path, port: int | None = None) -> Mosquitto:
    """Mosquitto running the config club-broker.sh wrote in folder/etc, its listener moved to a free port of
    127.0.0.1, its state and log in folder/run; with a login for the test's watcher."""
    broker = Mosquitto(folder / "run", port=port)
    etc = folder / "etc"
    subprocess.run(["mosquitto_passwd", "-b", str(etc / "cribbage.passwd"), *WATCHER], check=True, capture_output=True)
    written = (etc / "conf.d" / "cribbage.conf").read_text()
    assert len(re.findall(r"^listener (1883|8883)$", written, re.M)) == 1
    text = re.sub(r"^listener (1883|8883)$", f"listener {broker.port} 127.0.0.1", written, flags=re.M)
    head = ["persistence true", f"persistence_location {broker.folder}/", f"log_dest file {broker.log}",
            "log_type error", "log_type warning", "log_type notice", "log_type information"]
    if os.geteuid() == 0:  # as root it would run as the user "mosquitto", who cannot write here
        head.append("user root")
    broker.config.write_text("\n".join([*head, text]))
    return broker


class Watch:
    """A plain client of the watcher's login keeping what it receives on ``topics`` (TLS with ``ca``)."""

    def __init__(self, port: int, *topics: str, ca: Path | None = None):
        self.messages: list[tuple[str, bytes, bool]] = []
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=WATCHER[0], clean_session=True)
        self.client.username_pw_set(*WATCHER)
        if ca is not None:
            self.client.tls_set(ca_certs=str(ca))
        self.client.on_message = lambda client, userdata, message: self.messages.append(
            (message.topic, message.payload, bool(message.retain)))
        self.subscribed = 0
        self.client.on_connect = lambda client, userdata, flags, code, properties: [
            client.subscribe(topic, qos=1) for topic in topics]
        self.client.on_subscribe = lambda *args: setattr(self, "subscribed", self.subscribed + 1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert eventually(lambda: self.subscribed >= len(topics)), f"could not subscribe to {topics}"

    def last(self, topic: str) -> bytes | None:
        found = [payload for where, payload, _ in list(self.messages) if where == topic]
        return found[-1] if found else None

    def payloads_of(self, kind: str) -> list[dict]:
        """The JSON payloads received on topics ending in ``/kind``, in order."""
        return [json.loads(payload) for topic, payload, _ in list(self.messages)
                if topic.endswith("/" + kind) and payload]

    def on(self, topic: str) -> list[tuple[bytes, bool]]:
        return [(payload, retained) for where, payload, retained in list(self.messages) if where == topic]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def finished_of(board: ConsoleTable) -> dict[int, dict[str, int]]:
    """Each finished game of a board's ledger: {game: scores}, by the scorer's own replay."""
    found = {}
    with LedgerReader(board.state) as reader:
        for game_id in reader.game_ids():
            game = replay(reader.export(game_id)).book.game
            if game is not None and game.outcome is not None:
                found[game_id] = {side.name: game.state.scores[k] for k, side in enumerate(game.sides)}
    return found


def played(boards: dict[str, ConsoleTable]) -> list[tuple[str, int, str, int]]:
    """Every finished game of every board, as (winner, their score, loser, theirs)."""
    games = []
    for board in boards.values():
        for scores in finished_of(board).values():
            (winner, won), (loser, lost) = sorted(scores.items(), key=lambda item: -item[1])
            games.append((winner, won, loser, lost))
    return games


def hub_entries(hub: HubProcess) -> list[tuple[str, str, int, int, str]]:
    """Every entry row of the hub's ledger, read-only: (table, ledger, game, seq, line)."""
    with sqlite3.connect(f"file:{hub.state}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT tbl, ledger, game, seq, line FROM entries").fetchall()


def test_a_regional_event_carries_on_through_a_rooms_cut_link_and_comes_out_exact(tmp_path):
    """Two rooms (tables 1, 2 and 3, 4), each on its own broker bridged to the centre (TLS) as
    club-broker.sh sets them up; the hub at the centre. Mid-round 1 room north's link is cut (a relay
    between its broker and the centre's drops every connection and refuses new ones) while its
    tables play their games to the end; then the link is restored and round 2 is played. The hub's
    standings are the tables', each game's result is the board's, every entry the boards sent is in
    the hub's ledger once, and the hub's kept words reach every board through its room's bridge."""
    need_mosquitto()
    centre_dir = tmp_path / "centre"
    centre_port = free_port()
    done = set_up(centre_dir, "--club", CLUB, "--tls", "--address", "127.0.0.1",
                  *[f"--room={name}={','.join(tables)}" for name, tables in ROOMS.items()])
    commands = room_commands(done.stdout)
    assert set(commands) == set(ROOMS)
    centre = broker_as_set_up(centre_dir, centre_port).start()
    ca = centre_dir / "etc" / "cribbage-tls" / "ca.crt"
    cable = Cable(centre.port)  # room north's link to the centre, which the test cuts
    rooms: dict[str, Mosquitto] = {}
    boards: dict[str, ConsoleTable] = {}
    watches: list[Watch] = []
    in_room: dict[str, Watch] = {}
    hub = None
    try:
        sections = {}
        for name, args in commands.items():
            folder = tmp_path / name
            folder.mkdir()
            (folder / f"bridge-{name}.password").write_bytes((centre_dir / f"bridge-{name}.password").read_bytes())
            (folder / "centre-ca.crt").write_bytes(ca.read_bytes())  # as the centre says: copied there
            to = args.index("--bridge-to") + 1
            assert args[to] == "127.0.0.1:8883", args
            args[to] = f"127.0.0.1:{cable.port if name == 'north' else centre.port}"
            room = set_up(folder, *args, "--address", "127.0.0.1")
            assert args[-len(ROOMS[name]):] == ROOMS[name]
            sections.update(club_sections(room.stdout))
            rooms[name] = broker_as_set_up(folder).start()
        at_centre = Watch(centre.port, f"cribbage/{CLUB}/room/+/bridge", ca=ca)
        in_room.update({name: Watch(broker.port, f"cribbage/{CLUB}/room/+/bridge", f"cribbage/{CLUB}/table/+/+")
                        for name, broker in rooms.items()})
        watches.append(at_centre)
        for name in ROOMS:
            wait_for(lambda: at_centre.last(f"cribbage/{CLUB}/room/{name}/bridge") == b"1",
                     f"room {name}'s bridge did not connect: {rooms[name].log_text()[-2000:]}")

        password = centre_dir / "hub.password"
        hub = HubProcess(tmp_path / "hub", f"mqtts://127.0.0.1:{centre.port}", "--username", "hub",
                         "--password-file", str(password), "--ca-file", str(ca), "--players", ",".join(PLAYERS),
                         "--tables", ",".join(t for tables in ROOMS.values() for t in tables), "--rounds", "2",
                         club=CLUB).start()
        room_of = {table: name for name, tables in ROOMS.items() for table in tables}
        for table, name in room_of.items():
            section = sections[table]
            boards[table] = ConsoleTable(tmp_path, rooms[name].url, table, club=CLUB,
                                         settings=[f"club.username={section['username']}",
                                                   f"club.password={section['password']}"])

        def pairings(number: int) -> dict[str, list[str]]:
            wait_for(lambda: hub.rounds()["round"] >= number, f"round {number} was not made: {hub.log()}")
            return {p["table"]: p["players"] for p in hub.rounds()["list"][number - 1]["pairings"]}

        def hub_has(tables: list[str]) -> bool:
            return {row[0] for row in hub_entries(hub)} >= set(tables)

        # Round 1: the first half of every game goes through; then north's link is cut.
        games = {table: game_lines(players, f"bridge round 1 table {table}") for table, players in pairings(1).items()}
        for table, lines in games.items():
            boards[table].feed(lines[:len(lines) // 2])
        wait_for(lambda: hub_has(list(room_of)), f"the first entries did not reach the hub: {hub.log()}")
        cable.pull()
        wait_for(lambda: at_centre.last(f"cribbage/{CLUB}/room/north/bridge") == b"0",
                 "the centre did not see room north's link drop")
        wait_for(lambda: in_room["north"].last(f"cribbage/{CLUB}/room/north/bridge") == b"0",
                 "room north's broker did not see its link drop")

        # The tables play on: north's games end on their boards, south's at the hub too.
        for table, lines in games.items():
            boards[table].feed(lines[len(lines) // 2:])
        for table in ROOMS["north"]:
            wait_for(lambda: len(finished_of(boards[table])) == 1, f"table {table}'s game did not end on its board")
        wait_for(lambda: all(p["result"] and p["result"]["status"] == "finished"
                             for p in hub.rounds()["list"][0]["pairings"] if p["table"] in ROOMS["south"]),
                 f"room south's games did not reach the hub: {hub.log()}")
        # Hearing no word from the hub (whose presence the room's broker still holds, online), north's boards
        # send again from the hub's last word; it all waits in the room's broker for the bridge.
        sent = {table: feed_of(boards[table], table) for table in ROOMS["north"]}
        wait_for(lambda: all(sum(p["table"] == t for p in in_room["north"].payloads_of("entry")) > len(sent[t][1])
                             for t in ROOMS["north"]),
                 "north's boards did not send again while the link was down")
        held = hub_entries(hub)
        for table in ROOMS["north"]:
            assert sum(row[0] == table for row in held) < len(sent[table][1]), "the cut did not cut"
        assert all(p["result"] is None or p["result"]["status"] != "finished"
                   for p in hub.rounds()["list"][0]["pairings"] if p["table"] in ROOMS["north"])
        assert hub.rounds()["round"] == 1

        # The link is back: the room's broker sends what it queued, the hub catches up and makes round 2.
        cable.plug()
        wait_for(lambda: at_centre.last(f"cribbage/{CLUB}/room/north/bridge") == b"1",
                 f"room north's bridge did not connect again: {rooms['north'].log_text()[-2000:]}")
        second = pairings(2)
        for table, players in second.items():  # the new pairing reaches each table through its room's bridge
            wait_for(lambda: any(json.loads(p).get("round") == 2 for p, _ in
                                 in_room[room_of[table]].on(f"cribbage/{CLUB}/table/{table}/pairing") if p),
                     f"round 2's pairing did not reach table {table}")
            boards[table].feed(game_lines(players, f"bridge round 2 table {table}"))
        wait_for(lambda: hub.rounds()["over"], f"the night did not end: {hub.rounds()} {hub.log()}")

        # The standings and every game's result are the tables' own.
        everything = played(boards)
        assert len(everything) == 8
        expected = acc_standings(everything)
        assert until(lambda: hub.standings() == expected), (hub.standings(), expected)
        results = {(p["result"]["table"], p["result"]["ledger"], p["result"]["game"]): p["result"]
                   for each in hub.rounds()["list"] for p in each["pairings"]}
        for table, board in boards.items():
            ledger, _ = feed_of(board, table)
            for game, scores in finished_of(board).items():
                result = results[(table, ledger, game)]
                assert result["status"] == "finished" and result["scores"] == scores, (table, game, result, scores)

        # Every entry each board sent is in the hub's ledger, as sent, once.
        rows = hub_entries(hub)
        assert len(rows) == len({row[:4] for row in rows})
        for table, board in boards.items():
            ledger, lines = feed_of(board, table)
            kept = {(game, seq): line for tbl, led, game, seq, line in rows if tbl == table}
            assert {row[1] for row in rows if row[0] == table} == {ledger}
            assert kept == lines, f"table {table}: the hub kept {len(kept)} entries of the {len(lines)} sent"
        # (north's boards sent some twice: the hub kept one of each)
        for table in ROOMS["north"]:
            assert sum(p["table"] == table for p in in_room["north"].payloads_of("entry")) > len(sent[table][1])

        # The hub's kept word reached every board through its room's bridge, and moved its watermark to its
        # last entry; a client that joins the room's broker now is given it, retained.
        for table, board in boards.items():
            ledger, lines = feed_of(board, table)
            last = {game: max(seq for g, seq in lines if g == game) for game, _ in lines}

            def word() -> dict | None:
                found = [json.loads(p) for p, _ in in_room[room_of[table]].on(f"cribbage/{CLUB}/table/{table}/kept")
                         if p]
                return found[-1] if found else None

            wait_for(lambda: word() and {g: (s, status) for g, s, _, status in word()["games"]}
                     == {g: (s, "finished") for g, s in last.items()},
                     f"table {table}: the hub's last word did not reach its room: {word()}")
            mark = board.state.with_name(board.state.name + ".club")
            with LedgerReader(board.state) as reader:
                end = reader.feed(lambda conn: items_after(conn, (0, 0), 1_000_000, (CLUB, table)))[-1].place

            def moved() -> bool:
                try:
                    return tuple(json.loads(mark.read_text())["place"]) == end
                except (OSError, ValueError):
                    return False

            wait_for(moved, f"table {table}'s watermark did not move to its last entry {end}: {board.log()}")
        for name, broker in rooms.items():
            in_room[name].close()  # one client per login: the late one would take its session
            late = Watch(broker.port, f"cribbage/{CLUB}/table/+/kept", f"cribbage/{CLUB}/hub")
            watches.append(late)
            for table in ROOMS[name]:
                wait_for(lambda: late.on(f"cribbage/{CLUB}/table/{table}/kept"),
                         f"room {name} holds no kept word for table {table}")
                assert late.on(f"cribbage/{CLUB}/table/{table}/kept")[-1][1] is True  # retained
            wait_for(lambda: late.last(f"cribbage/{CLUB}/hub") is not None,  # its own subscription: may come after
                     "the hub's presence was not retained in the room")
            assert json.loads(late.last(f"cribbage/{CLUB}/hub"))["online"] is True

        for table in list(boards):
            assert boards.pop(table).close() == 0
    finally:
        for board in boards.values():
            board.close()
        for watch in [*watches, *in_room.values()]:
            watch.close()
        if hub is not None:
            hub.stop()
        cable.pull()
        for broker in rooms.values():
            broker.stop()
        centre.stop()


def login(port: int, user: str, password: str) -> mqtt.Client:
    one = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user, clean_session=True)
    one.username_pw_set(user, password)
    one.connect("127.0.0.1", port)
    one.loop_start()
    assert eventually(one.is_connected), f"{user} could not log in"
    return one


def test_a_rooms_bridge_may_publish_only_its_own_tables_at_the_centre(tmp_path):
    """At the centre, as club-broker.sh --room sets it up: room north's bridge login publishes entries
    for another room's table, a kept word and a pairing for its own (the hub's words), and one for a
    table named as its login: the broker drops the first three; the hub ignores the last (no table may
    be named bridge-...); its own tables' entries and its link's state go through."""
    need_mosquitto()
    folder = tmp_path / "centre"
    set_up(folder, "--club", CLUB, "--address", "127.0.0.1", "--room", "north=1,2", "--room", "south=3")
    with broker_as_set_up(folder) as centre:
        watch = Watch(centre.port, f"cribbage/{CLUB}/#")
        bridge = login(centre.port, "bridge-north", (folder / "bridge-north.password").read_text().strip())
        try:
            sends = [("3", "entry"), ("1", "kept"), ("1", "pairing"), ("bridge-north", "entry"), ("1", "entry"),
                     ("2", "entry")]
            for table, kind in sends:  # in order: once the last is through, the others would have been
                payload = schema.encode({"v": 1, "table": table, "sent": kind})
                bridge.publish(f"cribbage/{CLUB}/table/{table}/{kind}", payload, qos=1).wait_for_publish(CEILING_S)
            bridge.publish(f"cribbage/{CLUB}/room/north/bridge", b"1", qos=1, retain=True).wait_for_publish(CEILING_S)
            wait_for(lambda: watch.last(f"cribbage/{CLUB}/room/north/bridge") == b"1", "the link's state was refused")
            through = [topic for topic, _, _ in watch.messages if "/table/" in topic]
            assert through == [f"cribbage/{CLUB}/table/bridge-north/entry", f"cribbage/{CLUB}/table/1/entry",
                               f"cribbage/{CLUB}/table/2/entry"]
            assert schema.Topics(CLUB).parse(through[0]) is None  # not one of the club's tables, to the hub
        finally:
            bridge.disconnect()
            bridge.loop_stop()
            watch.close()


def run_set_up(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**environment(), "CRIBBAGE_MOSQUITTO_DIR": str(folder / "etc"), "CRIBBAGE_BROKER_RESTART": "no"}
    return subprocess.run(["bash", str(SETUP), *args], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=120)


def test_the_set_up_keeps_its_rooms_and_refuses_what_cannot_work_in_one_line(tmp_path):
    """The centre run again with one room changed keeps the other and every password; a table in two
    rooms, a table named bridge-..., --room without its tables or --bridge-to, a room without its
    bridge's password: one line each, exit 2, nothing changed. A room's broker bridges without TLS
    on 1883 (an IPv6 centre with its port), has no hub login, and its config is not world-readable."""
    need_mosquitto()  # the set-up makes the logins with mosquitto_passwd, which comes with Mosquitto
    centre = tmp_path / "centre"
    set_up(centre, "--club", CLUB, "--room", "north=1,2", "--room", "south=3")
    passwords = {name: (centre / f"bridge-{name}.password").read_text() for name in ("north", "south")}
    again = set_up(centre, "--club", CLUB, "--room", "south=3,5")
    assert set(room_commands(again.stdout)) == {"north", "south"}
    assert room_commands(again.stdout)["south"][-2:] == ["3", "5"]
    assert (centre / "etc" / "cribbage-rooms.txt").read_text() == "north 1,2\nsouth 3,5\n"
    acl = (centre / "etc" / "cribbage.acl").read_text()
    assert "user bridge-north\n" in acl and f"topic write cribbage/{CLUB}/table/5/entry" in acl
    assert {name: (centre / f"bridge-{name}.password").read_text() for name in passwords} == passwords
    for args, said in [(("--room", "east=5"), "table '5' is both"),
                       (("--room", "east=7", "7"), "table '7' is both"),
                       (("--room", "east=bridge-x"), "table name 'bridge-x' is a reserved user name"),
                       (("bridge-north",), "table name 'bridge-north' is a reserved user name"),
                       (("--room", "east"), "--room 'east': at the centre, name the room's tables"),
                       (("--room", "east", "--bridge-to", "10.0.0.1", "1"), "give the bridge's password"),
                       (("--room", "east=1", "--bridge-to", "10.0.0.1", "1"), "name this room once"),
                       (("--bridge-ca", "x.crt", "1"), "are for a room's broker")]:
        refused = run_set_up(centre, "--club", CLUB, *args)
        assert refused.returncode == 2 and refused.stdout == "", (args, refused.stdout)
        assert refused.stderr.count("\n") == 1 and said in refused.stderr, (args, refused.stderr)
    assert (centre / "etc" / "cribbage.acl").read_text() == acl

    room = tmp_path / "room"
    room.mkdir()
    (room / "pw").write_text("s3cret&|\\x@TABLE@\n")  # taken literally
    (room / "etc").mkdir()
    (room / "etc" / "cribbage.passwd").write_text("")
    subprocess.run(["mosquitto_passwd", "-b", str(room / "etc" / "cribbage.passwd"), "hub", "old"], check=True,
                   capture_output=True)
    set_up(room, "--club", CLUB, "--room", "east", "--bridge-to", "[fd00::20]", "--bridge-password-file", "pw", "7")
    conf = room / "etc" / "conf.d" / "cribbage.conf"
    text = conf.read_text()
    assert "\naddress fd00::20:1883\n" in text and "\nremote_password s3cret&|\\x@TABLE@\n" in text
    bridge = text[text.index("\n# The bridge to the centre"):]
    assert "bridge_cafile" not in bridge and "#tls" not in bridge and bridge.count("@") == 2  # the password's
    assert f"\ntopic cribbage/{CLUB}/table/7/kept in 1\n" in text and "/table/1/" not in text
    assert oct(conf.stat().st_mode & 0o777) == "0o640"
    assert [line.split(":")[0] for line in (room / "etc" / "cribbage.passwd").read_text().splitlines()] == [
        "homeassistant", "7"]  # no hub: a room's hub is the centre's
