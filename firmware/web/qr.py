"""The board page's QR code: the address a phone opens to follow the game, drawn as SVG (segno).

The page is rendered once per change of the ledger; the QR code is put in per request, as the
address depends on what the server listens on and how the page was reached (:class:`PhoneLink`).
"""

from __future__ import annotations

import ipaddress
import time
from functools import lru_cache
from typing import Callable

from markupsafe import Markup

from ..server.lan import lan_hosts
from .render import part

MARK = "<!--qr-->"  # where the board page takes the QR code
WILDCARDS = ("0.0.0.0", "::", "")  # a host that means every address this machine has
LAN_SECONDS = 10.0  # the network's addresses are looked up again at most this often
KEPT_LINKS = 64  # the phone addresses kept (one per scheme and Host header seen)


def loopback(host: str | None) -> bool:
    """Whether ``host`` (a name or an address, no port) is this machine only."""
    if not host:
        return True
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_of(authority: str) -> str:
    """The host of a Host header's value (``[::1]:8121`` -> ``::1``, ``pi.local:80`` -> ``pi.local``)."""
    if authority.startswith("["):
        return authority[1:].partition("]")[0]
    return authority.rpartition(":")[0] if authority.count(":") == 1 else authority


def phone_url(scheme: str, host: str | None, authority: str, port: int,
              hosts: Callable[[], list[str]] = lan_hosts) -> str | None:
    """The address a phone on the network opens for the page reached as ``scheme://authority/``
    (``host`` its host alone) on a server listening on every address on ``port``; None if it has none."""
    if not loopback(host):
        return f"{scheme}://{authority}/"
    found = hosts()
    if not found:
        return None
    lan = found[0]
    return f"{scheme}://{f'[{lan}]' if ':' in lan else lan}:{port}/"


class PhoneLink:
    """The QR code's HTML for each request of a server listening on ``listen_host``:``port``
    (see below); ``hosts`` and ``clock`` stand in for lan_hosts and time.monotonic.

    - listening on loopback only (``--host 127.0.0.1``): no phone can reach it, so no
      code and no address but a note saying how to serve the network;
    - listening on every address (``0.0.0.0``, ``::``): opened as ``localhost`` (on the
      board's own screen) the code gives this machine's address on the network
      (:func:`firmware.server.lan.lan_hosts`, looked up at most every LAN_SECONDS), with the
      port the view really serves on; opened by its network address, that address;
    - listening on one address: that address, as the page was reached by it.
    """

    def __init__(self, listen_host: str, port: int, hosts: Callable[[], list[str]] = lan_hosts,
                 clock: Callable[[], float] = time.monotonic):
        self.listen_host = listen_host
        self.port = port
        self.hosts = hosts
        self.clock = clock
        self.local_only = listen_host not in WILDCARDS and loopback(listen_host)
        self._kept: dict[tuple[str, str], tuple[float, str | None]] = {}

    def url(self, scheme: str, authority: str) -> str | None:
        """The address a phone opens, for the page reached as ``scheme://authority/``; None if none can."""
        if self.local_only:
            return None
        key = (scheme, authority)
        now = self.clock()
        hit = self._kept.get(key)
        if hit is not None and now - hit[0] < LAN_SECONDS:
            return hit[1]
        host = host_of(authority) or self.listen_host
        if self.listen_host in WILDCARDS:
            found = phone_url(scheme, host, authority, self.port, self.hosts)
        else:  # one address: the page was reached by it (or a name of it)
            found = f"{scheme}://{authority or self.listen_host}/"
        if len(self._kept) >= KEPT_LINKS:
            self._kept.clear()
        self._kept[key] = (now, found)
        return found

    def html(self, scheme: str, authority: str) -> Markup:
        """The QR code and the address under it, or the note that says why there is none."""
        if self.local_only:
            return local_only_html(self.listen_host, self.port)
        return qr_html(self.url(scheme, authority))


@lru_cache(maxsize=8)
def local_only_html(host: str, port: int) -> Markup:
    """The note in place of the QR code on a server that only this machine can reach."""
    return part("qr.html", {"local": f"[{host}]" if ":" in host else host, "port": port, "url": None, "code": None})


@lru_cache(maxsize=32)
def qr_html(url: str | None) -> Markup:
    """The QR code of ``url`` with the address written under it (a note if there is none)."""
    if url is None:
        return part("qr.html", {"local": None, "url": None, "code": None})
    import segno  # only when a board page is asked for

    code = segno.make(url, error="m", micro=False)
    svg = code.svg_inline(scale=1, border=4, dark="#000", light="#fff", omitsize=True, svgclass="qr-code",
                          title=f"QR code: {url}")
    return part("qr.html", {"local": None, "url": url, "code": Markup(svg)})  # segno's SVG escapes the title
