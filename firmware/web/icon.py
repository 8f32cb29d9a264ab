"""The site's icon (``/favicon.ico``): a red peg in a hole of the board's wood, drawn here, 32x32.

An ICO file holding one PNG image (as every current browser reads it), made with
zlib alone: nothing to ship, nothing to import that the web view does not have.
"""

from __future__ import annotations

import struct
import zlib
from functools import lru_cache

SIZE = 32
WOOD, PEG, RING, EDGE = (0x6B, 0x45, 0x26), (0xE8, 0x32, 0x2F), (0xFF, 0xFF, 0xFF), (0x14, 0x11, 0x0F)


def _pixel(x: int, y: int, size: int = SIZE) -> tuple[int, int, int, int]:
    scale = size / SIZE
    cx = cy = (size - 1) / 2
    corner = 5 * scale  # a rounded square of wood
    dx, dy = max(abs(x - cx) - (cx - corner), 0), max(abs(y - cy) - (cy - corner), 0)
    if dx * dx + dy * dy > corner * corner:
        return (*EDGE, 0)  # outside: transparent
    r = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
    if r <= 9.5 * scale:
        return (*PEG, 255)
    if r <= 11.5 * scale:
        return (*RING, 255)
    return (*WOOD, 255)


def png(size: int = SIZE) -> bytes:
    """The icon as a PNG (8-bit RGBA)."""
    rows = b"".join(b"\x00" + bytes(v for x in range(size) for v in _pixel(x, y, size)) for y in range(size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


@lru_cache(maxsize=4)
def app_icon(size: int) -> bytes:
    """The installed app's icon (the web manifest's), ``size`` pixels square, as PNG."""
    return png(size)


@lru_cache(maxsize=1)
def favicon() -> bytes:
    """``/favicon.ico``: an ICO file of one 32x32 image, stored as PNG."""
    image = png()
    directory = struct.pack("<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), 6 + 16)
    return struct.pack("<HHH", 0, 1, 1) + directory + image
