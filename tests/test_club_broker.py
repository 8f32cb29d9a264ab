"""The club's Mosquitto config and ACL (systemd/mosquitto-cribbage.*), run in a real Mosquitto."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import paho.mqtt.client as mqtt

from firmware.club import schema
from firmware.club.link import ClubLink
from firmware.config import load_config
from ledger.writer import LedgerWriter
from scorer.record import parse_line

from broker import Listener, Mosquitto, free_port, need_mosquitto, port_open
from waits import eventually

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "systemd" / "mosquitto-cribbage.conf"
ACL = ROOT / "systemd" / "mosquitto-cribbage.acl"
USERS = {"hub": "hub-secret", "3": "three", "4": "four"}


def club_broker(tmp_path: Path) -> Mosquitto:
    """A Mosquitto with the club's ACL file as shipped and a user for the hub and tables 3 and 4."""
    return Mosquitto(tmp_path / "broker", users=USERS, acl=ACL.read_text())


def client(broker: Mosquitto, user: str, client_id: str) -> mqtt.Client:
    one = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
    one.username_pw_set(user, USERS[user])
    one.connect("127.0.0.1", broker.port)
    one.loop_start()
    return one


def test_the_shipped_config_starts_mosquitto(tmp_path):
    """mosquitto.conf's lines for the night load in Mosquitto 2 (paths and port moved into a temp folder)."""
    program = need_mosquitto()
    port = free_port()
    text = CONF.read_text()
    assert re.search(r"^allow_anonymous false$", text, re.M) and "acl_file" in text and "password_file" in text
    (tmp_path / "passwd").write_text("")
    subprocess.run(["mosquitto_passwd", "-b", str(tmp_path / "passwd"), "hub", "x"], check=True)
    (tmp_path / "acl").write_text(ACL.read_text())
    text = (text.replace("listener 1883", f"listener {port} 127.0.0.1")
            .replace("/etc/mosquitto/cribbage.passwd", str(tmp_path / "passwd"))
            .replace("/etc/mosquitto/cribbage.acl", str(tmp_path / "acl")))
    config = tmp_path / "mosquitto.conf"
    config.write_text(f"persistence true\npersistence_location {tmp_path}/\nuser root\n{text}")
    process = subprocess.Popen([program, "-c", str(config)], stderr=subprocess.PIPE, text=True)
    try:
        assert eventually(lambda: port_open(port) or process.poll() is not None)
        assert process.poll() is None, process.stderr.read()
    finally:
        process.terminate()
        process.wait(10)


def test_a_board_may_publish_only_its_own_tables_topics(tmp_path):
    """Table 3's user publishes on table 3 (kept) and on table 4 (dropped by the broker); the hub reads."""
    with club_broker(tmp_path) as broker:
        hub = Listener(broker, "cribbage/thursday/table/+/+", client_id="hub-reader", user=("hub", USERS["hub"]))
        table3 = client(broker, "3", "cribbage-thursday-table-3")
        try:
            for table in ("4", "3"):  # the forged one first: by the time 3's arrives, 4's would have
                payload = schema.status_payload(table, True, "test")
                table3.publish(f"cribbage/thursday/table/{table}/status", schema.encode(payload), qos=1).wait_for_publish(5)
            assert eventually(lambda: hub.payloads("status"))
            time.sleep(0.2)
            assert [p["table"] for p in hub.payloads("status")] == ["3"]
        finally:
            table3.loop_stop()
            hub.close()


def test_the_club_link_works_under_the_acl_and_the_hubs_pairing_reaches_only_its_table(tmp_path):
    """A board logged in as its table sends its entries; the hub's pairing for 3 reaches 3, 4's does not."""
    with club_broker(tmp_path) as broker:
        hub = Listener(broker, "cribbage/thursday/table/+/entry", client_id="hub-reader", user=("hub", USERS["hub"]))
        config = load_config(None, [f"club.broker={broker.url}", "club.name=thursday", "club.table=3",
                                    "club.username=3", "club.password=three"])
        writer = LedgerWriter(tmp_path / "l.sqlite3")
        link = ClubLink(config.club, writer.path, log=lambda line: None).start()
        writer.on_commit = link.wake
        try:
            writer.apply(parse_line("game six-card seats=Ann,Bob"))
            writer.apply(parse_line("peg Bob 2"))
            assert eventually(lambda: len(hub.payloads("entry")) == 2)
            pairing = schema.pairing_payload("4", "night", 1, ["Cy", "Di"])
            hub.client.publish("cribbage/thursday/table/4/pairing", schema.encode(pairing), qos=1, retain=True)
            pairing = schema.pairing_payload("3", "night", 1, ["Ann", "Bob"])
            hub.client.publish("cribbage/thursday/table/3/pairing", schema.encode(pairing), qos=1, retain=True)
            assert eventually(lambda: link.next_game() == "R1: Ann v Bob")
            assert link.connection() == "club ok"
        finally:
            link.close()
            writer.close()
            hub.close()
