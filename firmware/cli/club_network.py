"""The board's unit and the club's broker: ``cribbage-board club-network`` (:func:`club_network`).

The installed board has no network at all; a board in a club needs exactly one peer, its broker,
and this writes the drop-in that allows it and nothing else.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from pathlib import Path

from ledger.files import replace_durably
from scorer.errors import CribbageBoardError

from ..config import ClubConfig

DROP_IN = Path("/etc/systemd/system/cribbage-board.service.d/club.conf")
RESOLV_CONF = Path("/etc/resolv.conf")
APPLY = "sudo systemctl daemon-reload && sudo systemctl restart cribbage-board"
AGAIN = "sudo /opt/cribbage-board/venv/bin/cribbage-board club-network"  # as systemd/install.sh installs it


class NetworkError(CribbageBoardError, OSError):
    """The drop-in cannot be worked out or written; the message says what to do."""


def literal(host: str) -> str | None:
    """``host`` as an IP address (brackets and all), or None for a name."""
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` has now (IPv4 and IPv6), in the order the resolver gives them."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise NetworkError(f"the broker's host {host!r} cannot be resolved ({error}): give [club] broker as an "
                           "IP address (club-broker.sh prints it), or mend the name") from None
    return list(dict.fromkeys(str(info[4][0]) for info in found))  # (host, port, ...): host is a str


def name_servers(text: str) -> list[str]:
    """The ``nameserver`` addresses of a resolv.conf."""
    found = []
    for line in text.splitlines():
        words = line.split()
        address = literal(words[1].split("%")[0]) if len(words) >= 2 and words[0] == "nameserver" else None
        if address:
            found.append(address)
    return list(dict.fromkeys(found))


def allowed(club: ClubConfig, resolver: Callable[[str, int], list[str]] = resolve,
            resolv_conf: str = "") -> tuple[list[str], list[str]]:
    """(the broker's addresses, the name servers the board needs to find it: none for an IP address)."""
    broker = club.address()
    address = literal(broker.host)
    if address is not None:
        return [address], []
    if broker.host == "localhost" or broker.host.endswith(".localhost"):
        return ["localhost"], []
    addresses = resolver(broker.host, broker.port)
    servers = [server for server in name_servers(resolv_conf) if server not in addresses]
    return addresses, servers


def drop_in_text(club: ClubConfig, source: str, addresses: Iterable[str], servers: Iterable[str]) -> str:
    """The drop-in for a board in ``club`` (its broker at ``addresses``), read from config ``source``."""
    addresses, servers = list(addresses), list(servers)
    lines = [
        f"# Written by `cribbage-board club-network` from {source} ([club] broker = {club.broker}):",
        "# the board may reach its club's broker and nothing else. After changing [club] broker:",
        f"#   {AGAIN} && {APPLY}",
        "[Service]",
        "PrivateNetwork=no",
        "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
        "IPAddressDeny=any",
        "# localhost: paho's loop wakes itself through a socket pair on 127.0.0.1",
        f"IPAddressAllow={' '.join(dict.fromkeys(['localhost', *addresses]))}",
    ]
    if servers:
        lines.insert(-1, "# the broker is given by name: the name servers too, to find it")
        lines.append(f"IPAddressAllow={' '.join(servers)}")
    return "\n".join(lines) + "\n"


def club_network(club: ClubConfig, source: str, drop_in: Path = DROP_IN,
                 resolver: Callable[[str, int], list[str]] = resolve) -> str:
    """Write (club on) or remove (club off) the drop-in; the line that says what was done.

    The installed board (systemd/cribbage-board.service) has no network at all:
    ``PrivateNetwork=yes`` and ``RestrictAddressFamilies=AF_UNIX``. A board in a
    club needs exactly one peer, its broker. This writes a drop-in beside the unit
    that opens the IP families and allows, by address, the broker and nothing
    else (``IPAddressDeny=any``, ``IPAddressAllow=`` the broker's addresses, and
    the name servers when the broker is given by name), but for localhost: paho's
    network loop wakes itself through a TCP socket pair on 127.0.0.1, and without
    it the club link cannot even start; with the club off, it
    removes the drop-in and the unit is as private as shipped. systemd/install.sh
    runs it; run it again after changing ``[club] broker``.
    """
    if not club.enabled:
        try:
            drop_in.unlink()
        except FileNotFoundError:
            return f"club off in {source}: the board's unit stays without a network (no {drop_in})"
        except OSError as error:
            raise NetworkError(f"{drop_in}: {error.strerror or error}: {_remedy(error)}") from None
        return f"club off in {source}: removed {drop_in}, the unit is without a network again; now: {APPLY}"
    try:
        resolv_conf = RESOLV_CONF.read_text(errors="replace")
    except OSError:
        resolv_conf = ""
    addresses, servers = allowed(club, resolver, resolv_conf)
    text = drop_in_text(club, source, addresses, servers)
    try:
        if drop_in.is_file() and drop_in.read_text(errors="replace") == text:
            return f"{drop_in} already lets the board reach {club.broker} ({', '.join(addresses)}) and localhost only"
        drop_in.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        replace_durably(drop_in, text.encode("utf-8"), mode=0o644)
    except OSError as error:
        raise NetworkError(f"{drop_in}: {error.strerror or error}: {_remedy(error)}") from None
    also = f", and the name servers {', '.join(servers)}" if servers else ""
    return f"wrote {drop_in}: the board may reach {club.broker} ({', '.join(addresses)}){also} and localhost only; now: {APPLY}"


def _remedy(error: OSError) -> str:
    return "run it as root (sudo)" if isinstance(error, PermissionError) else "give --drop-in a file it can write"
