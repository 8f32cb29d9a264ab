"""Responses compressed for browsers that ask, by the web view and the club hub as they run: pages,
scripts, styles and JSON gzipped (the same bytes once inflated), never a live event stream, never
for a client that does not ask."""

from __future__ import annotations

import gzip
import socket
import urllib.parse

import pytest

from firmware.server.compression import SMALLEST
from ledger.writer import LedgerWriter

from club_hub import HubProcess
from web_games import game_record, web_server, write_games

pytestmark = pytest.mark.slow


def get(base: str, path: str, encoding: str | None, first_bytes_only: bool = False) -> tuple[dict[str, str], bytes]:
    """(headers, body as sent) of one GET, asking ``Accept-Encoding: encoding`` (none if None); for a
    stream, its headers and what arrived in the first read."""
    where = urllib.parse.urlsplit(base)
    asked = f"Accept-Encoding: {encoding}\r\n" if encoding else ""
    with socket.create_connection((where.hostname, where.port), timeout=30) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {where.netloc}\r\n{asked}Connection: close\r\n\r\n".encode())
        got = b""
        while b"\r\n\r\n" not in got or not first_bytes_only:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith("HTTP/1.1 200"), lines[0]
    headers = {key.lower(): value for key, value in (line.split(": ", 1) for line in lines[1:])}
    if headers.get("transfer-encoding") == "chunked" and not first_bytes_only:
        body = _unchunked(body)
    return headers, body


def _unchunked(body: bytes) -> bytes:
    whole = b""
    while body:
        size, _, rest = body.partition(b"\r\n")
        n = int(size, 16)
        if n == 0:
            break
        whole, body = whole + rest[:n], rest[n + 2:]
    return whole


def test_the_web_views_pages_scripts_and_json_are_gzipped_and_its_events_never(tmp_path):
    """/, /games, /stats, /api/state, /phone.js, /live.js: gzip when asked, inflating to exactly what a client
    that does not ask gets, Vary: Accept-Encoding; small bodies and /events as they are."""
    ledger = tmp_path / "ledger.sqlite3"
    with LedgerWriter(ledger) as store:
        write_games(store, [game_record("game six-card seats=Alice,Bob dealer=Alice", seed=n, entries=30)
                            for n in range(5)])
    with web_server(ledger) as base:
        for path in ("/", "/games", "/stats", "/api/state", "/api/games", "/phone.js", "/live.js"):
            headers, zipped = get(base, path, "gzip, deflate, br")
            plain_headers, plain = get(base, path, None)
            assert "content-encoding" not in plain_headers
            if len(plain) < SMALLEST:  # too small to gain: as it is
                assert "content-encoding" not in headers and zipped == plain, (path, headers)
                continue
            assert headers.get("content-encoding") == "gzip" and "accept-encoding" in headers.get("vary", "").lower(), \
                (path, headers)
            assert gzip.decompress(zipped) == plain, path
            assert len(zipped) * 2 < len(plain), (path, len(zipped), len(plain))
        headers, _ = get(base, "/favicon.ico", "gzip")
        assert "content-encoding" not in headers
        headers, first = get(base, "/events", "gzip", first_bytes_only=True)
        assert headers["content-type"].startswith("text/event-stream") and "content-encoding" not in headers
        assert b"event: message" in first or headers.get("transfer-encoding") == "chunked"


@pytest.mark.broker
def test_the_hubs_page_and_json_are_gzipped_and_its_events_never(tmp_path, broker):
    """The hub's /club, its script and /api/club/standings: gzip when asked; /club/events as it is."""
    hub = HubProcess(tmp_path / "hub", broker.url, "--players", "Ann,Bob,Cy,Di", "--tables", "1,2").start()
    try:
        for path in ("/club", "/club/club.js", "/club/club.css"):
            headers, zipped = get(hub.base, path, "gzip")
            _, plain = get(hub.base, path, None)
            assert headers.get("content-encoding") == "gzip", (path, headers)
            if path == "/club":  # the night moves on between the two asks (tables come online): the same page
                assert gzip.decompress(zipped).startswith(b"<!doctype html>") and plain.startswith(b"<!doctype html>")
            else:
                assert gzip.decompress(zipped) == plain, path
        headers, zipped = get(hub.base, "/api/club/standings", "gzip")
        _, plain = get(hub.base, "/api/club/standings", None)
        assert headers.get("content-encoding") == ("gzip" if len(plain) >= SMALLEST else None), headers
        headers, _ = get(hub.base, "/club/events", "gzip", first_bytes_only=True)
        assert headers["content-type"].startswith("text/event-stream") and "content-encoding" not in headers
    finally:
        hub.stop()
