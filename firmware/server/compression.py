"""Responses compressed for browsers that ask (``Accept-Encoding: gzip``): pages, styles, scripts and
JSON; never an event stream (each event must reach the page as it is sent), nor a body too small to gain."""

from __future__ import annotations

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp

SMALLEST = 1024  # bytes: below this gzip's header and a round of deflate gain next to nothing
LEVEL = 6  # zlib's default: most of the gain of level 9 for a fraction of its time
UNCHANGED = ("text/event-stream", "image/png", "image/x-icon", "video/webm", "video/mp4", "application/zip")


class Compressed(GZipMiddleware):
    """An app's responses gzipped for clients that accept it (with ``Vary: Accept-Encoding``)."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app, minimum_size=SMALLEST, compresslevel=LEVEL, exclude_content_types=UNCHANGED)
