"""What every request to the board's web view or the club hub passes before a route: GET or
HEAD, a Host that can be this machine, and the security headers on every answer.

Only names that can be this machine are answered (localhost, an IP literal, the
machine's hostname or the name given to ``--host``, any ``*.local`` name), with a
port or not; any other Host gets 421 and one line. A page that a browser loaded
from another name (DNS rebinding: evil.example resolved to the board's address)
so gets nothing. Each server gives its own headers (its pages' Content-Security-Policy).
"""

from __future__ import annotations

import ipaddress
import socket
from functools import lru_cache

from starlette.responses import PlainTextResponse

READ_METHODS = ("GET", "HEAD")


def security_headers(policy: str, *more: tuple[bytes, bytes]) -> tuple[tuple[bytes, bytes], ...]:
    """The headers every answer carries: the Content-Security-Policy ``policy``, nosniff, no
    referrer, and ``more``."""
    return ((b"content-security-policy", policy.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            *more)


def served_names(extra=()) -> frozenset[str]:
    """The names this machine answers to besides localhost, IP literals and ``*.local``: the
    machine's hostname and ``extra`` (the name given to --host), lower case."""
    names = {socket.gethostname(), *extra}
    return frozenset(name.lower().rstrip(".") for name in names if name)


def known_host(value: str, names: frozenset[str]) -> bool:
    """Whether a Host header's value names this machine (see the module)."""
    host = value.lower()
    if host.startswith("["):  # an IPv6 literal, [::1] or [::1]:8121
        literal, bracket, port = host[1:].partition("]")
        return bool(bracket) and (not port or _port(port)) and _address(literal, ipaddress.IPv6Address)
    name, colon, port = host.partition(":")
    if colon and not _port(colon + port):
        return False
    name = name.removesuffix(".")
    return (name == "localhost" or name in names or (name.endswith(".local") and len(name) > 6)
            or _address(name, ipaddress.IPv4Address))


def _port(text: str) -> bool:
    """Whether ``text`` is ":" and a port number."""
    return text.startswith(":") and text[1:].isascii() and text[1:].isdigit() and len(text) <= 6


def _address(text: str, kind) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware: 405 for any method but GET and HEAD (and POST to ``writes``), 421 for a Host that is not this
    machine, and ``headers`` (see :func:`security_headers`) on every answer. ``who`` is what the
    421 says answers ("this board", "this hub")."""

    def __init__(self, app, names: frozenset[str], headers: tuple[tuple[bytes, bytes], ...], who: str,
                 writes: frozenset[str] = frozenset()):
        self.app = app
        self.writes = writes  # the paths that also take POST (a paired phone's, which check their own rights)
        self.names = names
        self.headers = headers
        self._known = lru_cache(maxsize=64)(lambda value: known_host(value, names))
        shown = ", ".join(sorted(names))
        self._misdirected = PlainTextResponse(
            f"misdirected request: {who} answers to localhost, its IP addresses, {shown} and *.local names\n",
            status_code=421)
        self._read_only = PlainTextResponse("read-only: this server only answers GET and HEAD\n", status_code=405,
                                            headers={"Allow": ", ".join(READ_METHODS)})

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = self.headers

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *headers]}
            await send(message)

        if scope["method"] not in READ_METHODS and not (scope["method"] == "POST" and scope["path"] in self.writes):
            await self._read_only(scope, receive, send_with_headers)
            return
        for key, value in scope["headers"]:
            if key == b"host":
                if not self._known(value.decode("latin-1")):
                    await self._misdirected(scope, receive, send_with_headers)
                    return
                break
        await self.app(scope, receive, send_with_headers)
