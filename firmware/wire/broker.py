"""A club's broker: its address (``mqtt://host:1883``, ``mqtts://host:8883`` with a CA file)
and a paho-mqtt 2.x client for it with a persistent session.

Both sides use MQTT 3.1.1 with ``clean_session=False`` and a stable client id (a
table's, the hub's): the broker keeps what is queued for a client that is away
and its subscriptions, so nothing sent at QoS 1 is lost while it is.
"""

from __future__ import annotations

import ssl
import weakref

from ..club_settings import Broker, BrokerError, parse_broker

__all__ = ["Broker", "BrokerError", "parse_broker", "make_client", "refusal", "tls_failure"]

KEEPALIVE_S = 30  # a dead link is noticed within one and a half of this (MQTT's rule)
RECONNECT_MIN_S, RECONNECT_MAX_S = 1, 30  # paho's back-off between attempts to reconnect
# CONNACK refusals that no retry mends: the config must change (MQTT 3.1.1 codes 4 and 5;
# Mosquitto 2 answers a wrong password with 5, "not authorised")
REFUSED_FOR_GOOD = {"Bad user name or password": "wrong user name or password",
                    "Not authorized": "wrong user name or password (not authorised)"}


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
        context.sslsocket_class = _watched(client, broker.ca_file)
        client.tls_set_context(context)
    return client


_FAILURES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # client -> its last handshake's failure


def _watched(client, ca_file: str | None) -> type[ssl.SSLSocket]:
    """An SSLSocket class that notes, for ``client``, why its handshake failed to verify the broker
    (paho's reconnect drops the exception and reports only that the connection failed)."""
    where = f"CA file {ca_file}" if ca_file else "the system's CA certificates"

    class Watched(ssl.SSLSocket):
        def do_handshake(self, *args, **kwargs):
            try:
                result = super().do_handshake(*args, **kwargs)
            except ssl.SSLCertVerificationError as error:
                _FAILURES[client] = (f"its certificate does not verify against {where}: "
                                     f"{error.verify_message or error.reason or error}")
                raise
            _FAILURES.pop(client, None)
            return result

    return Watched


def tls_failure(client) -> str | None:
    """Why ``client``'s last TLS handshake did not verify the broker's certificate, in words (None: it did,
    or there was none)."""
    return _FAILURES.get(client)


def refusal(reason_code) -> tuple[str, bool]:
    """(what to say, whether it is for good) of a failed CONNACK's reason code."""
    text = str(reason_code)
    for said, meaning in REFUSED_FOR_GOOD.items():
        if said.lower() in text.lower():
            return meaning, True
    return f"refused: {text}", False
