"""The board page's QR code: the address a phone opens to follow the game, drawn as SVG (segno).

The page is rendered once per change of the ledger; the QR code is put in per
request, as the address depends on how the page was reached: opened as
``localhost`` (on the board's own screen) the code gives this machine's address
on the network instead (:func:`firmware.lan.lan_hosts`), with the port the view
really serves on; opened by its network address, that address.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from html import escape
from typing import Callable

from ..lan import lan_hosts

MARK = "<!--qr-->"  # where the board page takes the QR code


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


def phone_url(scheme: str, host: str | None, authority: str, port: int,
              hosts: Callable[[], list[str]] = lan_hosts) -> str | None:
    """The address a phone on the network opens for the page reached as ``scheme://authority/``
    (``host`` its host alone) on a server listening on ``port``; None if it has none."""
    if not loopback(host):
        return f"{scheme}://{authority}/"
    found = hosts()
    if not found:
        return None
    lan = found[0]
    return f"{scheme}://{f'[{lan}]' if ':' in lan else lan}:{port}/"


@lru_cache(maxsize=32)
def qr_html(url: str | None) -> str:
    """The QR code of ``url`` with the address written under it (a note if there is none)."""
    if url is None:
        return ('<p class="qr muted">No network address to show for a phone: '
                "this machine has no route to a network.</p>")
    import segno  # only when a board page is asked for

    code = segno.make(url, error="m", micro=False)
    svg = code.svg_inline(scale=1, border=4, dark="#000", light="#fff", omitsize=True, svgclass="qr-code",
                          title=f"QR code: {url}")
    shown = escape(url)
    return (f'<figure class="qr" data-url="{shown}">{svg}<figcaption>Follow the game on a phone: '
            f'scan, or open <a href="{shown}">{shown}</a></figcaption></figure>')
