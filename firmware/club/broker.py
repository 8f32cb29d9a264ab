"""A club's broker: its address (``mqtt://host:1883``, ``mqtts://host:8883`` with a CA file)
and a paho-mqtt 2.x client for it with a persistent session.

Both sides use MQTT 3.1.1 with ``clean_session=False`` and a stable client id (a
table's, the hub's): the broker keeps what is queued for a client that is away
and its subscriptions, so nothing sent at QoS 1 is lost while it is.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

SCHEMES = {"mqtt": 1883, "mqtts": 8883}
KEEPALIVE_S = 30  # a dead link is noticed within 1.5x this
RECONNECT_MIN_S, RECONNECT_MAX_S = 1, 30  # paho's back-off between attempts to reconnect
# CONNACK refusals that no retry mends: the config must change (MQTT 3.1.1 codes 4 and 5)
REFUSED_FOR_GOOD = {"Bad user name or password": "wrong user name or password",
                    "Not authorized": "not authorised by the broker"}


class BrokerError(ValueError):
    """A broker address or its settings cannot be used; the message says how to mend it."""


@dataclass(frozen=True)
class Broker:
    """Where a club's broker is, and how to reach it."""

    host: str
    port: int
    tls: bool = False
    ca_file: str | None = None  # a CA bundle for mqtts (None: the system's)
    username: str | None = None
    password: str | None = None

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_broker(url: str, username: str | None = None, password: str | None = None,
                 ca_file: str | None = None) -> Broker:
    """``mqtt://host[:port]`` or ``mqtts://host[:port]``; BrokerError, in one line, for anything else."""
    if not isinstance(url, str) or not url or len(url) > 300 or not url.isprintable():
        raise BrokerError("the broker is an address like mqtt://192.168.1.20:1883")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise BrokerError(f"broker {url!r}: {error}: use mqtt://host:1883") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise BrokerError(f"broker {url!r}: use mqtt://host:1883, or mqtts://host:8883 for TLS")
    if not parts.hostname:
        raise BrokerError(f"broker {url!r}: name the broker's host, e.g. mqtt://192.168.1.20:1883")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise BrokerError(f"broker {url!r}: give only the host and port (the user name and password are "
                          "[club] username and password)")
    if ca_file and scheme != "mqtts":
        raise BrokerError(f"a CA file is for mqtts:// brokers; {url!r} is plain MQTT")
    if password and not username:
        raise BrokerError("a broker password needs a user name ([club] username)")
    return Broker(parts.hostname, port or SCHEMES[scheme], scheme == "mqtts", ca_file or None,
                  username or None, password or None)


def make_client(broker: Broker, client_id: str, manual_ack: bool = False):
    """A paho client for ``broker`` with a persistent session under ``client_id`` (not yet
    connected: call ``connect_async`` and ``loop_start``). BrokerError if the CA file cannot be read."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False,
                         protocol=mqtt.MQTTv311, manual_ack=manual_ack)
    client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls:
        try:
            context = ssl.create_default_context(cafile=broker.ca_file)
        except (OSError, ssl.SSLError) as error:
            raise BrokerError(f"CA file {broker.ca_file}: {getattr(error, 'strerror', None) or error}: "
                              "give a readable PEM file in [club] ca_file") from None
        client.tls_set_context(context)
    return client


def refusal(reason_code) -> tuple[str, bool]:
    """(what to say, whether it is for good) of a failed CONNACK's reason code."""
    text = str(reason_code)
    for said, meaning in REFUSED_FOR_GOOD.items():
        if said.lower() in text.lower():
            return meaning, True
    return f"refused: {text}", False
