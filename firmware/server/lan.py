"""This machine's addresses on the network, found without sending anything (the board's phone
view and the web view share them; nothing here imports hardware).

``connect()`` on a UDP socket only asks the kernel which source address it would
use. Where a process has no route of its own (the board's service runs with
``PrivateNetwork=yes``) but the machine has a network interface up, or it sees no
interface but loopback at all (so cannot tell), the address is the host name with
``.local`` (mDNS, as Raspberry Pi OS answers it).
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Callable, Iterable

PROBE = ("192.0.2.1", 9)  # TEST-NET-1 (documentation only): a UDP connect() to it sends nothing


def route_ip() -> str | None:
    """The address this machine would send from (no packet is sent), or None without a route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(PROBE)
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith(("127.", "0.")) else address


def network_up(interfaces: Path = Path("/sys/class/net")) -> bool:
    """Whether an interface other than loopback is up (read from sysfs, which the
    service's private network namespace does not hide)."""
    try:
        entries = list(interfaces.iterdir())
    except OSError:
        return False
    for entry in entries:
        if entry.name == "lo":
            continue
        try:
            if (entry / "operstate").read_text().strip() == "up":
                return True
        except OSError:
            continue
    return False


def confined(devices: Path = Path("/proc/net/dev")) -> bool:
    """Whether this process sees no network interface but loopback: a private network namespace
    (the board's service runs with PrivateNetwork=yes), where the machine's network cannot be seen.
    (A machine without a network still lists its interfaces, down.)"""
    try:
        lines = devices.read_text().splitlines()[2:]
    except OSError:
        return False
    return [line.split(":")[0].strip() for line in lines] == ["lo"]


def host_addresses() -> list[str]:
    """The IPv4 addresses this machine's name resolves to, loopback left out ([] if it does not resolve)."""
    try:
        found = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET, socket.SOCK_STREAM)
    except OSError:
        return []
    addresses = [str(info[4][0]) for info in found]  # an AF_INET address is (host, port)
    return [address for address in addresses if not address.startswith(("127.", "0."))]


def lan_hosts(
    ip: Callable[[], str | None] | None = None,
    up: Callable[[], bool] | None = None,
    hostname: Callable[[], str] | None = None,
    private: Callable[[], bool] | None = None,
    others: Callable[[], Iterable[str]] = lambda: (),
) -> list[str]:
    """The hosts a phone on the network reaches this machine by: the address it would send from,
    then ``others()`` (pass :func:`host_addresses` for every address its name has); else
    ``HOST.local`` when only the name can be known; [] without a network. (``ip``, ``up``,
    ``hostname`` and ``private`` stand in for route_ip, network_up, the host's name and confined.)"""
    found = []
    address = (ip or route_ip)()
    for host in ([address] if address else []) + list(others()):
        if host not in found:
            found.append(host)
    if not found and ((up or network_up)() or (private or confined)()):
        name = (hostname or socket.gethostname)().split(".")[0]
        if name:
            found.append(f"{name}.local")
    return found
