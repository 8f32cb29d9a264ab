"""Phone view: the web view's address on the OLED, as text and as a QR code (made with segno).

The board's address is found without sending anything: ``connect()`` on a UDP
socket only asks the kernel which source address it would use. Where the
board has no route of its own (the service runs with ``PrivateNetwork=yes``)
but the machine has a network interface up, or the board sees no interface
but loopback at all (so cannot tell), the address is the host name with
``.local`` (mDNS, as Raspberry Pi OS answers it).
"""

from __future__ import annotations

import socket
from typing import Callable

from PIL import Image, ImageDraw

from hardware.inputs import InputEvent

from .. import WEB_PORT
from ..server.lan import confined, network_up, route_ip
from .panels import PHONE_VIEW, PanelHost
from .screens import HEIGHT, WIDTH, Screen, font

NO_NETWORK = ("No network: connect", "the Pi to Wi-Fi or a", "cable, then try again")


def phone_address(
    port: int = WEB_PORT,
    ip: Callable[[], str | None] | None = None,
    up: Callable[[], bool] | None = None,
    hostname: Callable[[], str] | None = None,
    private: Callable[[], bool] | None = None,
) -> str | None:
    """``http://IP:PORT/``; ``http://HOST.local:PORT/`` when only the name can be known (an interface is
    up but this process has no route, or it cannot see the network at all); None without a network.
    (``ip``, ``up``, ``hostname`` and ``private`` stand in for route_ip, network_up, the host's name and confined.)"""
    address = (ip or route_ip)()
    if address:
        return f"http://{address}:{port}/"
    if (up or network_up)() or (private or confined)():
        name = (hostname or socket.gethostname)().split(".")[0]
        if name:
            return f"http://{name}.local:{port}/"
    return None


def qr_matrix(url: str) -> list[list[bool]]:
    """The QR code's modules (True dark), without the quiet zone."""
    import segno  # only when the phone view opens

    code = segno.make(url, error="m", micro=False)
    return [[bool(v) for v in row] for row in code.matrix_iter(scale=1, border=0)]


def qr_geometry(modules: int) -> tuple[int, int]:
    """(scale, offset): pixels a module and where the code starts, so that it fits the
    OLED's height with a light quiet zone of at least one module around it."""
    scale = max(1, HEIGHT // (modules + 2))
    return scale, (HEIGHT - modules * scale) // 2


def _address_lines(url: str) -> list[str]:
    """The address in pieces that fit beside the code: host, then port."""
    rest = url.removeprefix("http://").rstrip("/")
    host, _, port = rest.rpartition(":")
    parts: list[str] = []
    for piece in host.split("."):
        if parts and len(parts[-1]) + len(piece) + 1 <= 11:
            parts[-1] += "." + piece
        else:
            parts.append(piece if not parts else "." + piece)
    return ["http://", *parts, f":{port}/"]


def _broken(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> list[str]:
    """``text`` cut into pieces that each fit ``width`` pixels (a long host name over several lines)."""
    pieces = [""]
    for char in text:
        if pieces[-1] and draw.textlength(pieces[-1] + char, font=font(size)) > width:
            pieces.append("")
        pieces[-1] += char
    return pieces


def phone_image(url: str, caption: list[str] | None = None) -> Image.Image:
    """The OLED picture: the QR code on a lit square at the left (dark modules unlit, as
    printed codes are), the address written out at the right (or ``caption``'s lines)."""
    matrix = qr_matrix(url)
    scale, offset = qr_geometry(len(matrix))
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    side = len(matrix) * scale + 2 * offset
    draw.rectangle((0, 0, side - 1, HEIGHT - 1), fill=1)
    for y, row in enumerate(matrix):
        for x, dark in enumerate(row):
            if dark:
                left, top = offset + x * scale, offset + y * scale
                draw.rectangle((left, top, left + scale - 1, top + scale - 1), fill=0)
    x = side + 3
    size = 10
    shown = caption if caption is not None else _address_lines(url)
    while size > 8 and any(draw.textlength(line, font=font(size)) > WIDTH - x for line in shown):
        size -= 1
    lines = [piece for line in shown for piece in _broken(draw, line, size, WIDTH - x)]
    step = size + 1
    top = max(0, (HEIGHT - step * len(lines)) // 2)
    for k, line in enumerate(lines):
        draw.text((x, top + k * step - 1), line, font=font(size), fill=1)
    return image


class PhoneView:
    """The phone view screen; any press goes back."""

    screen_name = PHONE_VIEW

    def __init__(self, host: PanelHost, port: int = WEB_PORT, finder: Callable[[int], str | None] | None = None):
        self.host = host
        self.url = (finder or phone_address)(port)
        self.picture = phone_image(self.url) if self.url else None

    def handle(self, event: InputEvent) -> None:
        if event.kind in ("click", "hold"):
            self.host.back()

    def screen(self) -> Screen:
        if self.url is None:
            return Screen(title="Phone view", lines=NO_NETWORK)
        return Screen(title="Phone view", lines=(self.url,), picture=self.picture)
