"""The club's Mosquitto config and ACL (systemd/mosquitto-cribbage.*), run in a real Mosquitto."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from firmware.board.club.link import ClubLink
from firmware.config import load_config
from firmware.wire import schema
from ledger.writer import LedgerWriter
from scorer.record import parse_line

from broker import Listener, Mosquitto, environment, free_port, need_mosquitto, port_open
from waits import eventually

pytestmark = pytest.mark.broker  # a real Mosquitto (tests/broker.py)

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "systemd" / "mosquitto-cribbage.conf"
ACL = ROOT / "systemd" / "mosquitto-cribbage.acl"
USERS = {"hub": "hub-secret", "3": "three", "4": "four"}


def club_acl(club: str = "thursday") -> str:
    """The shipped ACL for one club, as club-broker.sh writes it."""
    return ACL.read_text().replace("@CLUB@", club)


def club_broker(tmp_path: Path) -> Mosquitto:
    """A Mosquitto with the club's config and ACL as shipped and a user for the hub and tables 3 and 4."""
    return Mosquitto(tmp_path / "broker", users=USERS, acl=club_acl(), shipped=True)


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
    (tmp_path / "acl").write_text(club_acl())
    text = (text.replace("listener 1883", f"listener {port} 127.0.0.1")
            .replace("/etc/mosquitto/cribbage.passwd", str(tmp_path / "passwd"))
            .replace("/etc/mosquitto/cribbage.acl", str(tmp_path / "acl")))
    config = tmp_path / "mosquitto.conf"
    config.write_text(f"persistence true\npersistence_location {tmp_path}/\nuser root\n{text}")
    process = subprocess.Popen([program, "-c", str(config)], stderr=subprocess.PIPE, text=True)
    try:
        assert eventually(lambda: port_open(port) or process.poll() is not None)
        assert process.poll() is None, process.stderr.read()
        # the hub logs in (the password file loaded), and the broker answering is in its loop: a SIGTERM
        # sent before that, once the port is open, can be lost (tests/broker.py, answers_mqtt)
        assert connects(port, "hub", "x") == 0
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
        writer.join_club("thursday", "3")
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


SETUP = ROOT / "systemd" / "club-broker.sh"


def set_up(tmp_path: Path, *args: str, restart: str = "no") -> subprocess.CompletedProcess:
    """systemd/club-broker.sh with its Mosquitto folder in tmp_path/etc, run from tmp_path (no restart)."""
    env = {**environment(), "CRIBBAGE_MOSQUITTO_DIR": str(tmp_path / "etc"), "CRIBBAGE_BROKER_RESTART": restart}
    return subprocess.run(["bash", str(SETUP), *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)


def club_sections(output: str) -> dict[str, dict[str, str]]:
    """Each table's [club] section as the set-up prints it ([club]   # table 3: ...), read as TOML."""
    import tomllib

    sections = {}
    for block in re.split(r"^(?=\[club\])", output, flags=re.M)[1:]:
        table = re.match(r"\[club\]\s+# table (\S+):", block).group(1)
        text = block.split("\n\n", 1)[0]
        sections[table] = tomllib.loads(text)["club"]
    return sections


def passwords(output: str) -> dict[str, str]:
    """Each table's password from the set-up's [club] sections."""
    return {table: section["password"] for table, section in club_sections(output).items()}


def connects(port: int, user: str, password: str) -> int:
    """The broker's CONNACK reason code for this user and password (0: accepted)."""
    one = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"probe-{user}", clean_session=True)
    one.username_pw_set(user, password)
    codes: list[int] = []
    one.on_connect = lambda client, userdata, flags, reason, properties: codes.append(reason.value)
    one.connect("127.0.0.1", port)
    one.loop_start()
    try:
        assert eventually(lambda: codes)
        return codes[0]
    finally:
        one.disconnect()
        one.loop_stop()


def test_the_directors_broker_set_up_makes_a_user_for_the_hub_and_each_table(tmp_path):
    """club-broker.sh 3 4: the config and ACL in place, hub, Home Assistant and tables log in with the
    passwords it gives (a wrong one is refused), table 3 may publish on its table only; run again with
    table 5 added, 3 keeps its password (Home Assistant's is not printed again); a bad table name is one
    line, exit 2, and changes nothing."""
    program = need_mosquitto()
    first = set_up(tmp_path, "--club", "thursday", "--address", "192.168.1.20", "3", "4")
    assert first.returncode == 0, first.stderr
    sections = club_sections(first.stdout)
    for table in ("3", "4"):  # each complete, as its board's config takes it
        assert set(sections[table]) == {"broker", "name", "table", "username", "password"}, sections[table]
        assert sections[table]["broker"] == "mqtt://192.168.1.20:1883" and sections[table]["name"] == "thursday"
        assert sections[table]["table"] == sections[table]["username"] == table
        load_config(None, [f"club.{key}={value}" for key, value in sections[table].items()])
    given = passwords(first.stdout)
    assert set(given) == {"3", "4"} and given["3"] != given["4"]
    hub_line = next(line for line in first.stdout.splitlines() if line.startswith("hub: "))
    assert hub_line == (f"hub: cribbage-board hub --broker mqtt://localhost:1883 --club thursday --username hub "
                        f"--password-file {tmp_path}/hub.password")
    hub_password = (tmp_path / "hub.password").read_text().strip()
    assert oct((tmp_path / "hub.password").stat().st_mode & 0o777) == "0o600" and hub_password
    ha_password = (tmp_path / "homeassistant.password").read_text().strip()
    assert oct((tmp_path / "homeassistant.password").stat().st_mode & 0o777) == "0o600"
    assert ha_password and ha_password != hub_password
    assert (f"home assistant: MQTT broker 192.168.1.20, port 1883, username homeassistant, password {ha_password} "
            f"(also in {tmp_path}/homeassistant.password)") in first.stdout.splitlines()
    etc = tmp_path / "etc"
    assert oct((etc / "cribbage-passwords.txt").stat().st_mode & 0o777) == "0o600"
    assert (etc / "cribbage.acl").read_text() == club_acl()

    port = free_port()
    text = (etc / "conf.d" / "cribbage.conf").read_text()
    assert f"password_file {etc}/cribbage.passwd" in text and f"acl_file {etc}/cribbage.acl" in text
    config = tmp_path / "mosquitto.conf"
    config.write_text(f"persistence false\nuser root\n{text.replace('listener 1883', f'listener {port} 127.0.0.1')}")
    process = subprocess.Popen([program, "-c", str(config)], stderr=subprocess.PIPE, text=True)
    try:
        assert eventually(lambda: port_open(port) or process.poll() is not None)
        assert process.poll() is None, process.stderr.read()
        assert connects(port, "hub", hub_password) == 0
        assert connects(port, "homeassistant", ha_password) == 0
        assert connects(port, "3", given["3"]) == 0
        assert connects(port, "3", given["4"]) != 0  # another table's password
        assert connects(port, "nobody", "x") != 0
    finally:
        process.terminate()
        process.wait(10)

    again = set_up(tmp_path, "--club", "thursday", "3", "4", "5")
    assert again.returncode == 0, again.stderr
    assert passwords(again.stdout)["3"] == given["3"] and "5" in passwords(again.stdout)
    assert (tmp_path / "hub.password").read_text().strip() == hub_password
    assert (tmp_path / "homeassistant.password").read_text().strip() == ha_password
    assert ha_password not in again.stdout and f"password in {tmp_path}/homeassistant.password" in again.stdout

    before = (etc / "cribbage.passwd").read_text()
    bad = set_up(tmp_path, "--club", "thursday", "3", "table 9")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "table name 'table 9'" in bad.stderr
    assert (etc / "cribbage.passwd").read_text() == before


def hub_commands(text: str) -> list[list[str]]:
    """Each `cribbage-board hub ...` command of a text (its continued lines joined), as arguments;
    a synopsis (`[--host H --port P]`) is not a command."""
    import shlex

    joined = text.replace("\\\n", " ")
    return [shlex.split(line.split("#", 1)[0])[1:] for line in joined.splitlines()
            if line.lstrip().startswith("cribbage-board hub ") and "[" not in line]


def test_the_hub_commands_the_docs_and_the_unit_give_are_the_hubs():
    """The director's command in docs/club.md, and the unit's ExecStart, parse as given:
    every option they name is one the hub takes (a renamed option would leave them lying)."""
    from firmware.cli.command import parse_args

    unit = (ROOT / "systemd" / "cribbage-hub.service").read_text()
    exec_start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    exec_start = exec_start.replace("${CLUB_BROKER}", "mqtt://localhost:1883").replace("${CLUB_NAME}", "thursday")
    commands = hub_commands((ROOT / "docs" / "club.md").read_text())
    assert commands, "docs/club.md gives no hub command"
    commands.append(exec_start.split()[1:])
    for argv in commands:
        args = parse_args(argv)
        assert args.command == "hub" and args.broker.startswith("mqtt://") and args.club == "thursday", argv


def test_the_set_up_without_systemd_prints_everything_and_says_how_to_start_mosquitto(tmp_path):
    """Where there is no systemd to restart Mosquitto (a container, another init), club-broker.sh still
    prints the hub's command and every table's section, then how to start Mosquitto; exit 0."""
    if Path("/run/systemd/system").is_dir():
        import pytest

        pytest.skip("this machine runs systemd: club-broker.sh would restart its Mosquitto")
    need_mosquitto()
    done = set_up(tmp_path, "--club", "thursday", "1", "2", restart="yes")
    assert done.returncode == 0, done.stderr
    assert set(club_sections(done.stdout)) == {"1", "2"} and "\nhub: cribbage-board hub " in "\n" + done.stdout
    last = done.stdout.rstrip().splitlines()[-1]
    assert last.startswith("No systemd here to restart Mosquitto: start it with  mosquitto -d -c ")
    named = Path(last.split(" -c ", 1)[1].split()[0])  # a folder of one's own: its conf.d file, a whole config
    assert named == tmp_path / "etc" / "conf.d" / "cribbage.conf", last
    port = free_port()
    config = tmp_path / "as-told.conf"
    config.write_text(named.read_text().replace("listener 1883", f"listener {port} 127.0.0.1") + "user root\n")
    process = subprocess.Popen([need_mosquitto(), "-c", str(config)], stderr=subprocess.PIPE, text=True)
    try:
        assert eventually(lambda: port_open(port) or process.poll() is not None)
        assert process.poll() is None, process.stderr.read()
        assert connects(port, "hub", (tmp_path / "hub.password").read_text().strip()) == 0
    finally:
        process.terminate()
        process.wait(10)
    missing = set_up(tmp_path, "1", "2")
    assert missing.returncode == 2 and missing.stdout == "" and missing.stderr.count("\n") == 1
    assert "name the club" in missing.stderr


def test_an_ipv6_address_is_given_to_the_boards_in_brackets(tmp_path):
    """--address fd00::20 (or hostname -I's first address, when the machine has only IPv6): each
    board's broker is mqtt://[fd00::20]:1883, which its config takes."""
    need_mosquitto()  # the set-up makes the logins with mosquitto_passwd, which comes with Mosquitto
    done = set_up(tmp_path, "--club", "thursday", "--address", "fd00::20", "1")
    assert done.returncode == 0, done.stderr
    section = club_sections(done.stdout)["1"]
    assert section["broker"] == "mqtt://[fd00::20]:1883"
    club = load_config(None, [f"club.{key}={value}" for key, value in section.items()]).club
    assert (club.address().host, club.address().port) == ("fd00::20", 1883)


def test_the_brokers_message_limit_is_the_schemas_largest_and_a_larger_one_is_not_passed_on(tmp_path):
    """message_size_limit in the shipped config is what the schema allows (its standings); a table's
    publish over it is dropped by the broker, the next one comes through."""
    text = CONF.read_text()
    assert re.search(rf"^message_size_limit {schema.LARGEST}$", text, re.M)
    with club_broker(tmp_path) as broker:
        hub = Listener(broker, "cribbage/thursday/table/+/+", client_id="hub", user=("hub", USERS["hub"]))
        table3 = client(broker, "3", "3")
        try:
            table3.publish("cribbage/thursday/table/3/entry", b"x" * (schema.LARGEST + 1), qos=1)
            payload = schema.status_payload("3", True, "test")
            table3.publish("cribbage/thursday/table/3/status", schema.encode(payload), qos=1).wait_for_publish(5)
            assert eventually(lambda: hub.payloads("status"))
            assert [topic for topic, _, _ in hub.messages] == ["cribbage/thursday/table/3/status"]
        finally:
            table3.loop_stop()
            hub.close()


def test_a_tables_login_cannot_take_the_hubs_session_or_another_tables(tmp_path):
    """Table 3's login asks, again and again, for the hub's client id and for table 4's: the broker
    makes it client 3 each time, so the hub and table 4 stay connected and the hub gets all 4 sent."""
    import paho.mqtt.client as paho

    with club_broker(tmp_path) as broker:
        hub = Listener(broker, "cribbage/thursday/table/+/entry", client_id="cribbage-thursday-hub", clean=False,
                       user=("hub", USERS["hub"]))
        dropped: list[str] = []
        hub.client.on_disconnect = lambda *args: dropped.append("hub")
        table4 = client(broker, "4", "cribbage-thursday-table-4")
        table4.on_disconnect = lambda *args: dropped.append("4")
        try:
            for k in range(5):
                for wanted in ("cribbage-thursday-hub", "hub", "cribbage-thursday-table-4", "4"):
                    thief = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=wanted, clean_session=k % 2 == 0)
                    thief.username_pw_set("3", USERS["3"])
                    thief.connect("127.0.0.1", broker.port)
                    thief.loop_start()
                    assert eventually(thief.is_connected)
                    thief.disconnect()
                    thief.loop_stop()
                line = f"peg Bob {k + 1}"
                payload = schema.entry_payload("4", "ab" * 8, 1, k + 1, line, None)
                table4.publish("cribbage/thursday/table/4/entry", schema.encode(payload), qos=1).wait_for_publish(5)
            assert eventually(lambda: len(hub.payloads("entry")) == 5)
            assert dropped == []
        finally:
            table4.loop_stop()
            hub.close()


def test_the_tls_set_up_carries_a_night_to_the_hub_and_a_board_without_the_ca_is_refused(tmp_path):
    """club-broker.sh --tls: a CA and the broker's certificate made once; Mosquitto with the config it
    wrote (only the port moved); a console table with the printed section (ca_file copied) plays a
    game, the hub (its printed command) counts it; a client without the CA cannot connect, and a board
    given another CA says in one line that the broker's certificate does not verify against that file."""
    import ssl

    from club_hub import ConsoleTable, HubProcess, game_lines, wait_for

    program = need_mosquitto()
    done = set_up(tmp_path, "--club", "thursday", "--tls", "--address", "127.0.0.1", "3")
    assert done.returncode == 0, done.stderr
    section = club_sections(done.stdout)["3"]
    assert set(section) == {"broker", "name", "table", "username", "password", "ca_file"}
    assert section["broker"] == "mqtts://127.0.0.1:8883"
    etc = tmp_path / "etc"
    ca = etc / "cribbage-tls" / "ca.crt"
    assert ca.is_file() and oct((etc / "cribbage-tls" / "ca.key").stat().st_mode & 0o777) == "0o600"
    first_ca = ca.read_bytes()
    assert set_up(tmp_path, "--club", "thursday", "--tls", "--address", "127.0.0.1", "3").returncode == 0
    assert ca.read_bytes() == first_ca  # made once: the boards' copies stay good
    for certificate in (ca, etc / "cribbage-tls" / "broker.crt"):  # P-256 keys (club-broker.sh says why)
        described = subprocess.run(["openssl", "x509", "-in", str(certificate), "-noout", "-text"],
                                   capture_output=True, text=True, check=True).stdout
        assert "id-ecPublicKey" in described and "prime256v1" in described, described

    port = free_port()
    text = (etc / "conf.d" / "cribbage.conf").read_text()
    assert "listener 8883\n" in text and f"certfile {etc}/cribbage-tls/broker.crt" in text
    config = tmp_path / "mosquitto.conf"
    config.write_text(f"persistence false\nuser root\n{text.replace('listener 8883', f'listener {port} 127.0.0.1')}")
    process = subprocess.Popen([program, "-c", str(config)], stderr=subprocess.PIPE, text=True)
    url = f"mqtts://127.0.0.1:{port}"
    hub_line = next(line for line in done.stdout.splitlines() if line.startswith("hub: "))
    hub_args = hub_line.split()[3:]  # after "hub: cribbage-board hub"
    hub_args[hub_args.index("--broker") + 1] = url
    hub = HubProcess(tmp_path / "hub", url, *hub_args[2:], "--players", "Ann,Bob", "--tables", "3", "--rounds", "1",
                     club="thursday")
    board = None
    try:
        assert eventually(lambda: port_open(port) or process.poll() is not None)
        assert process.poll() is None, process.stderr.read()
        with __import__("socket").create_connection(("127.0.0.1", port)) as raw:  # no CA: refused
            try:
                ssl.create_default_context().wrap_socket(raw, server_hostname="127.0.0.1")
                refused = False
            except ssl.SSLCertVerificationError:
                refused = True
        assert refused
        hub.start()
        wait_for(lambda: hub.rounds()["round"] == 1, f"round 1 was not made: {hub.log()}")
        copy = tmp_path / "club-ca.pem"
        copy.write_bytes(ca.read_bytes())
        section["ca_file"] = str(copy)
        board = ConsoleTable(tmp_path, url, "3", club="thursday",
                             settings=[f"club.{key}={value}" for key, value in section.items() if key != "broker"])
        board.feed(game_lines(["Ann", "Bob"], "tls"))
        wait_for(lambda: hub.rounds()["over"], f"the game did not reach the hub: {hub.log()} {board.log()}")
        assert board.close() == 0, board.log()
        assert sum(line["games"] for line in hub.standings()) == 2
        other = tmp_path / "other-ca.pem"  # a CA that did not sign the broker's certificate
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-keyout", str(tmp_path / "other-ca.key"), "-out", str(other), "-days", "1",
                        "-subj", "/CN=another club"], capture_output=True, check=True)
        section["ca_file"] = str(other)
        (tmp_path / "wrong").mkdir()
        board = ConsoleTable(tmp_path / "wrong", url, "3", club="thursday",
                             settings=[f"club.{key}={value}" for key, value in section.items() if key != "broker"])
        wait_for(lambda: "does not verify" in board.log(), f"the board did not say why: {board.log()}")
        said = [line for line in board.log().splitlines() if "does not verify" in line]
        assert len(said) == 1 and f"is not trusted (its certificate does not verify against CA file {other}: " \
            "self-signed certificate in certificate chain)" in said[0], said
    finally:
        if board is not None and board.process.poll() is None:
            board.close()
        hub.stop()
        process.terminate()
        process.wait(10)
