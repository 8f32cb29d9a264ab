"""A club's settings, as the configuration knows them: a broker's address and the rule for club and
table names.

Checked when the config is read (:mod:`firmware.config`, ``[club]``) and by the hub's command line,
and used by the board's club link (:mod:`firmware.board.club`) and the hub, which talk to a broker.
It sits in firmware's base, so that the config reads no program's part (docs/architecture.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from scorer.errors import CribbageBoardError

NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")  # a club's or a table's name: safe in an MQTT topic
# The broker's logins that are not tables (the shipped ACL's users): the ACL's patterns let every
# login write the table topics of its own name, so no table may have one of these names, nor
# begin with the prefix of a regional event's room bridges' logins (bridge-<room>).
RESERVED_USERS = ("hub", "homeassistant")
BRIDGE_PREFIX = "bridge-"
SCHEMES = {"mqtt": 1883, "mqtts": 8883}
SHOWN_MOST = 40  # characters of a value that is not what was asked for, shown in a message at most


class BrokerError(CribbageBoardError, ValueError):
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
    host = _host(parts.hostname)
    if scheme == "mqtt" and port == SCHEMES["mqtts"]:  # a plain CONNECT, password and all, to the TLS port
        raise BrokerError(f"broker {url!r}: {port} is the TLS port and mqtt:// would send the password in clear: "
                          f"write mqtts://{host}:{port} with its CA file, or mqtt://{host}:{SCHEMES['mqtt']}")
    if scheme == "mqtts" and port == SCHEMES["mqtt"]:
        raise BrokerError(f"broker {url!r}: {port} is plain MQTT's port: write mqtt://{host}:{port}, "
                          f"or mqtts://{host}:{SCHEMES['mqtts']} for TLS")
    if ca_file and scheme != "mqtts":
        raise BrokerError(f"a CA file is for mqtts:// brokers; {url!r} is plain MQTT")
    if password and not username:
        raise BrokerError("a broker password needs a user name ([club] username)")
    return Broker(parts.hostname, port or SCHEMES[scheme], scheme == "mqtts", ca_file or None,
                  username or None, password or None)


def _host(name: str) -> str:
    """A host as an address writes it (an IPv6 address in brackets)."""
    return f"[{name}]" if ":" in name else name


def shown(value: object) -> str:
    """``value``'s repr for a message, cut to SHOWN_MOST characters (a payload or a line may hold anything)."""
    text = repr(value)
    return text if len(text) <= SHOWN_MOST else text[:SHOWN_MOST - 3] + "..."


def club_name_problem(kind: str, name: object) -> str | None:
    """Why ``name`` cannot be a club's or a table's name (``kind``: "club" or "table"), or None if it
    can. (A player's name has its own rule: :func:`scorer.names.name_problem`.)"""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        return f"{kind} {shown(name)}: use 1 to 32 letters, digits, - or _"
    if kind == "table" and name in RESERVED_USERS:  # a table's login is its name: these are others'
        return f"table {name!r}: the broker's user {name!r} is not a table's (systemd/club-broker.sh): name it otherwise"
    if kind == "table" and name.startswith(BRIDGE_PREFIX):
        return (f"table {name!r}: {BRIDGE_PREFIX}... names a room's bridge on the broker (systemd/club-broker.sh), "
                "not a table: name it otherwise")
    return None
