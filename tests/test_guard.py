"""What every request passes before a route (firmware/server/guard.py), against a real web view: the
security headers on every answer, only Host names that can be this machine, HEAD of the event stream."""

import re
import socket

import pytest

from web_games import exchange, get, request, status_of, two_games, web_server

ANSWERS = ("/", "/games", "/games/1", "/games/1.txt", "/games.csv", "/stats", "/api/state", "/api/games/1",
           "/games/99", "/nowhere")
BOARD_HOSTS = ["127.0.0.1", "127.0.0.1:8121", "localhost", "LocalHost:80", "localhost.", "[::1]", "[::1]:8121",
               "192.168.1.20", "10.0.0.7:8121", "[fe80::1]", "board.local", "Board.Local:8121", "cribbage.local."]
OTHER_HOSTS = ["evil.example", "evil.example:8121", "localhost.evil.example", "127.0.0.1.nip.io", "board.local.evil",
               "local", ".local", "[::1", "[evil]", "127.0.0.1:http", "::1", "127.0.0.1:80:80", "10.0.0.256"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One server on a ``ledger`` ledger for the tests that ask it and read no log (a server costs about
    1 s of CPU to start): its base URL."""
    with web_server(two_games(tmp_path_factory.mktemp("served"))) as base:
        yield base


def policy(headers) -> dict[str, str]:
    """The Content-Security-Policy header as {directive: value}."""
    return dict((part.strip().split(" ", 1) + [""])[:2] for part in headers["Content-Security-Policy"].split(";"))


def test_every_answer_sends_the_security_headers(served):
    """Pages, JSON, downloads, 404s and refusals all send a CSP (no inline script, no framing),
    nosniff and a Referrer-Policy; the board page runs no inline script and its one inline style
    is the one the policy's hash allows."""
    import base64
    import hashlib

    base = served
    answers = {url: get(base + url) for url in ANSWERS}
    answers["POST /"] = get(base + "/", method="POST")
    script = re.search(r'<script src="([^"]+)"', answers["/"][2].decode()).group(1)
    answers[script] = get(base + script)
    for url, (_, headers, _) in answers.items():
        rules = policy(headers)
        assert rules["frame-ancestors"] == "'none'" and rules["default-src"] == "'none'", url
        assert rules["script-src"] == "'self'" and "unsafe" not in headers["Content-Security-Policy"], url
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "no-referrer", url
    status, headers, page = answers["/"]
    page = page.decode()
    assert re.findall(r"<script(?![^>]*\bsrc=)", page) == [] and " on" not in re.sub(r">[^<]*<", "><", page)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    digest = base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode()
    assert len(styles) == 1 and policy(headers)["style-src"] == f"'sha256-{digest}'" and " style=" not in page
    assert answers[script][0] == 200 and answers[script][1]["Content-Type"].startswith("text/javascript")


def test_only_host_names_that_can_be_this_board_are_answered(served):
    """localhost, IP literals (v4, [v6]), the machine's hostname and *.local names are answered,
    with a port or not; any other Host gets 421 and one line (DNS rebinding gets nothing)."""
    base = served
    ours = {host: exchange(base, request("/api/state", host)) for host in [*BOARD_HOSTS, socket.gethostname()]}
    theirs = {host: exchange(base, request(path, host)) for host in OTHER_HOSTS for path in ("/api/state", "/", "/events")}
    assert {host: status_of(answer) for host, answer in ours.items()} == {host: 200 for host in ours}
    for host, answer in theirs.items():
        head, _, body = answer.partition(b"\r\n\r\n")
        assert status_of(answer) == 421, host
        assert body.count(b"\n") == 1 and b"misdirected request" in body and b"Alice" not in body
        assert b"content-security-policy" in head.lower()


def test_head_events_ends(served):
    """HEAD /events answers the stream's headers and ends (the connection closes as asked)."""
    answer = exchange(served, request("/events", method="HEAD"))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert status_of(answer) == 200 and b"text/event-stream" in head.lower() and body == b""
