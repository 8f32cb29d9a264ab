"""A real Mosquitto for the club tests: started on a free port as a subprocess, stopped after.

``Mosquitto(folder)`` writes a config (a listener on 127.0.0.1, persistence in
the folder, optionally a password file and an ACL) and :meth:`start` runs
Debian's ``mosquitto`` with it; :meth:`restart` stops it (SIGTERM: it saves its
sessions and queued messages, as ``systemctl restart`` does) and starts it again
on the same port; ``stop(signal.SIGKILL)`` is a crash. With ``shipped`` the
broker runs the settings of systemd/mosquitto-cribbage.conf as shipped (one
identity per login, the message size limit, queues saved only every 60 s), so
a crash loses what the broker held, as it would at the club. Tests skip, saying why, where Mosquitto is not installed
(``.ci/run`` installs it).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from waits import CEILING_S, eventually


def mosquitto_program() -> str | None:
    """Where the broker is: on PATH, or Debian's /usr/sbin (not on a user's PATH)."""
    return shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")


def need_mosquitto() -> str:
    program = mosquitto_program()
    if program is None:
        pytest.skip("Mosquitto is not installed: apt install mosquitto (.ci/run does)")
    return program


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
    except OSError:
        return False
    return True


# MQTT 3.1.1 CONNECT, clean session, no client id and no login: any broker answers it with a CONNACK.
CONNECT = bytes([0x10, 12, 0, 4]) + b"MQTT" + bytes([4, 0x02, 0, 60, 0, 0])


def answers_mqtt(port: int, tls: bool = False) -> bool:
    """Whether the broker on ``port`` (a TLS listener if ``tls``; its certificate is not checked) answers a
    CONNECT (accepted or refused): its main loop runs. Mosquitto 2.0 opens its port and logs "running" just
    before, and sets its run flag only after installing its SIGTERM handler, so a SIGTERM sent in between is
    lost (3 of 900 stops at once here, 40 of 409 under qemu arm64)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as plain:
            probe = plain
            if tls:
                context = ssl.create_default_context()
                context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
                probe = context.wrap_socket(plain)
            with probe:
                probe.sendall(CONNECT)
                return probe.recv(1) == b"\x20"
    except OSError:  # ssl.SSLError is one
        return False


class Mosquitto:
    """One broker for one test, in ``folder``; ``users`` ({name: password}) turns anonymous
    access off; ``acl`` is the text of an ACL file; ``more``, more lines of config."""

    def __init__(self, folder: Path, users: dict[str, str] | None = None, acl: str | None = None,
                 port: int | None = None, more: str = "", shipped: bool = False):
        self.program = need_mosquitto()
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port_given = port is not None  # else a free port, chosen again if taken before the broker binds it
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None
        self.log = self.folder / "mosquitto.log"
        lines = [
            f"listener {self.port} 127.0.0.1",
            "persistence true",
            f"persistence_location {self.folder}/",
            f"log_dest file {self.log}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "connection_messages true",
        ]
        lines += shipped_settings() if shipped else ["autosave_interval 1", "max_queued_messages 100000"]
        if os.geteuid() == 0:  # as root it would run as the user "mosquitto", who cannot write here
            lines.append("user root")
        if users:
            passwords = self.folder / "passwords"
            passwords.write_text("")
            for name, password in users.items():
                subprocess.run(["mosquitto_passwd", "-b", str(passwords), name, password], check=True,
                               capture_output=True)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        if acl is not None:
            (self.folder / "acl").write_text(acl)
            lines.append(f"acl_file {self.folder / 'acl'}")
        self.config = self.folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n" + more)

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> "Mosquitto":
        """Run the broker and wait until it says it listens. A free port another test's process took between
        its choice and the broker's bind (the tests run in parallel) is replaced by another free port."""
        # TLS where the config gives the listener a certificate, as club-broker.sh --tls does
        tls = re.search(r"^certfile ", self.config.read_text(), re.M) is not None
        for _ in range(5):
            logged = len(self.log_text())
            self.process = subprocess.Popen([self.program, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE)
            if not eventually(lambda: self._listening(logged, tls) or self.process.poll() is not None):
                raise RuntimeError(f"mosquitto did not listen on {self.port} in {CEILING_S} s")
            if self.process.poll() is None:
                return self
            said = self.process.stderr.read().decode(errors="replace") + self.log_text()[logged:]
            self.process.stderr.close()
            self.process = None
            if self.port_given or "Address already in use" not in said:
                raise RuntimeError(f"mosquitto stopped at once: {said[-500:]}")
            taken, self.port = self.port, free_port()
            self.config.write_text(self.config.read_text().replace(f"listener {taken} ", f"listener {self.port} ", 1))
        raise RuntimeError(f"mosquitto found no free port in 5 tries: {said[-500:]}")

    def _listening(self, logged: int, tls: bool) -> bool:
        """Whether this start of the broker says it runs (its listeners bound) and answers MQTT (over TLS if ``tls``)."""
        return " running" in self.log_text()[logged:] and answers_mqtt(self.port, tls)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the broker: SIGTERM saves its state first; SIGKILL does not."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(CEILING_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stderr.close()
        self.process = None

    def save(self) -> None:
        """What the broker holds written to its database now (SIGUSR1), as its autosave does."""
        database = self.folder / "mosquitto.db"

        def seen():
            try:
                found = database.stat()
            except FileNotFoundError:
                return None
            return found.st_ino, found.st_mtime_ns

        before = seen()
        self.process.send_signal(signal.SIGUSR1)  # it writes a new file and renames it over the old
        if not eventually(lambda: seen() not in (None, before)):
            raise RuntimeError(f"mosquitto did not write {database} on SIGUSR1")

    def restart(self, down_s: float = 0.0) -> None:
        self.stop()
        time.sleep(down_s)
        self.start()

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def __enter__(self) -> "Mosquitto":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


SHIPPED = Path(__file__).resolve().parent.parent / "systemd" / "mosquitto-cribbage.conf"
OWN = ("listener", "allow_anonymous", "password_file", "acl_file")


def shipped_settings() -> list[str]:
    """The shipped config's settings, but for the listener, the logins and the ACL (a test's own)."""
    return [line.strip() for line in SHIPPED.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#") and line.split()[0] not in OWN]


def environment() -> dict[str, str]:
    """The environment for a board or hub subprocess: this checkout's modules first."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class Listener:
    """A plain MQTT client that keeps every message it receives on ``topics`` (QoS 1); with
    ``clean`` false its session (and what is queued for it) outlives a disconnection."""

    def __init__(self, broker: Mosquitto, *topics: str, client_id: str = "test-listener", clean: bool = True,
                 user: tuple[str, str] | None = None):
        import paho.mqtt.client as mqtt

        self.messages: list[tuple[str, bytes, bool]] = []  # (topic, payload, retained)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean)
        self.client.on_message = lambda client, userdata, message: self.messages.append(
            (message.topic, message.payload, bool(message.retain)))
        self.subscribed = 0
        if user is not None:
            self.client.username_pw_set(*user)
        self.client.on_connect = lambda client, userdata, flags, code, properties: [
            client.subscribe(topic, qos=1) for topic in topics]
        self.client.on_subscribe = lambda *args: setattr(self, "subscribed", self.subscribed + 1)
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        if not eventually(lambda: self.subscribed >= len(topics)):
            raise RuntimeError(f"could not subscribe to {topics} in {CEILING_S} s")

    def payloads(self, suffix: str) -> list[dict]:
        """The JSON payloads received on topics ending in ``/suffix``, in order."""
        import json

        return [json.loads(payload) for topic, payload, _ in list(self.messages)
                if topic.endswith("/" + suffix) and payload]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
