"""The QR code that takes a phone to the web view (firmware/web/qr.py) and the addresses it and the `web`
command give (firmware/server/lan.py, firmware/web/server.py): only what the server listens on."""

import re

import pytest

from ledger.writer import LedgerWriter

from web_games import up_to_a_crib, write_games


def test_the_qr_code_gives_the_pages_address_on_the_network():
    """Reached by a network address the QR code gives that; reached as localhost, this machine's first
    address on the network with the port the server listens on; with none, a note and no code."""
    from firmware.web.qr import loopback, phone_url, qr_html

    lan = lambda: ["192.168.1.23", "10.0.0.5"]  # noqa: E731
    assert phone_url("http", "192.168.1.23", "192.168.1.23:8121", 8121, lan) == "http://192.168.1.23:8121/"
    assert phone_url("http", "pi.local", "pi.local:9000", 9000, lan) == "http://pi.local:9000/"
    for host in ("localhost", "127.0.0.1", "::1", "127.1.2.3", "board.localhost"):
        assert loopback(host)
        assert phone_url("http", host, f"{host}:9000", 9000, lan) == "http://192.168.1.23:9000/"
    assert phone_url("http", "localhost", "localhost:9000", 9000, lambda: ["fe80::1"]) == "http://[fe80::1]:9000/"
    assert phone_url("http", "localhost", "localhost:9000", 9000, lambda: []) is None
    assert "no route" in qr_html(None) and "<svg" not in qr_html(None)
    html = qr_html("http://192.168.1.23:9000/")
    assert '<figure class="qr" data-url="http://192.168.1.23:9000/"><svg viewBox=' in html
    assert 'href="http://192.168.1.23:9000/"' in html



def test_the_qr_code_offers_only_what_the_server_listens_on():
    """On loopback only (127.0.0.1, ::1, localhost) the page offers no QR code and no network address, only a
    note; on every address (0.0.0.0, ::) this machine's network address, looked up at most every LAN_SECONDS;
    on one address, the address the page was reached by."""
    from firmware.web.qr import LAN_SECONDS, PhoneLink

    asked, now = [], [0.0]

    def lan():
        asked.append(now[0])
        return ["192.168.1.23"]

    for host in ("127.0.0.1", "::1", "localhost"):
        link = PhoneLink(host, 9000, lan, lambda: now[0])
        assert link.url("http", "127.0.0.1:9000") is None
        html = link.html("http", "127.0.0.1:9000")
        assert "No QR code" in html and "<svg" not in html and "192.168" not in html and "--host 0.0.0.0" in html
    assert asked == []  # the network is not even looked at
    for host in ("0.0.0.0", "::"):
        link = PhoneLink(host, 9000, lan, lambda: now[0])
        assert link.url("http", "127.0.0.1:9000") == "http://192.168.1.23:9000/"
        assert link.url("http", "localhost:9000") == "http://192.168.1.23:9000/"
        assert link.url("http", "192.168.1.23:9000") == "http://192.168.1.23:9000/"  # reached by it: as reached
        assert 'data-url="http://192.168.1.23:9000/"' in link.html("http", "[::1]:9000")
    asked.clear()
    link = PhoneLink("0.0.0.0", 9000, lan, lambda: now[0])
    for _ in range(100):
        link.url("http", "127.0.0.1:9000")
    now[0] += LAN_SECONDS
    link.url("http", "127.0.0.1:9000")
    assert asked == [0.0, LAN_SECONDS]  # once, then again after LAN_SECONDS: never once a request
    assert PhoneLink("192.168.1.23", 9000, lan).url("http", "192.168.1.23:9000") == "http://192.168.1.23:9000/"



@pytest.mark.slow
def test_a_server_on_loopback_shows_no_network_address(tmp_path):
    """``cribbage-board web --host 127.0.0.1``: its lines and its board page name no address but 127.0.0.1 (no QR code)."""
    from firmware.server.lan import host_addresses, lan_hosts

    from web_games import get, web_server

    state = tmp_path / "ledger.sqlite3"
    with LedgerWriter(state) as store:
        write_games(store, [up_to_a_crib()])
    with web_server(state) as base:
        status, _, body = get(base + "/")
    page = body.decode()
    assert status == 200 and "No QR code" in page and 'class="qr-code"' not in page
    for address in lan_hosts(others=host_addresses):
        assert address not in page
    assert not re.findall(r"https?://(?!127\.0\.0\.1|www\.w3\.org/2000/svg)[^\s\"<]+", page.split("<main>", 1)[1])



def test_lan_hosts_lists_each_address_once_and_falls_back_to_the_name():
    """The route's address first, then the name's others, each once; HOST.local when only the name can be known."""
    from firmware.server.lan import lan_hosts

    assert lan_hosts(ip=lambda: "192.168.1.23", others=lambda: ["192.168.1.23", "10.0.0.5"]) == ["192.168.1.23", "10.0.0.5"]
    assert lan_hosts(ip=lambda: None, up=lambda: True, hostname=lambda: "pi.lan") == ["pi.local"]
    assert lan_hosts(ip=lambda: None, up=lambda: False, private=lambda: False) == []



def test_web_says_its_network_addresses_and_a_port_the_board_does_not_show():
    """``cribbage-board web`` names localhost and each network address; started on another port than the
    config's [web] port, it says that the board's QR code gives the config's, and how to match them."""
    from firmware.web.server import addresses

    lines = addresses("0.0.0.0", 8121, 8121, lan=lambda: ["192.168.1.23", "fe80::1"])
    assert lines == ["on http://localhost:8121/ (all addresses)",
                     "on the network: http://192.168.1.23:8121/, http://[fe80::1]:8121/"]
    assert "no network address" in addresses("::", 8121, 8121, lan=lambda: [])[1]
    assert addresses("127.0.0.1", 8000, None) == ["on http://127.0.0.1:8000/"]
    note = addresses("0.0.0.0", 9000, 8121, lan=lambda: ["192.168.1.23"])[-1]
    assert "gives port 8121" in note and "port = 9000 under [web]" in note



@pytest.mark.slow
def test_the_web_command_prints_the_network_address_and_answers_favicon(tmp_path):
    """The real command's first lines name the network address (when this machine has one) and the
    note for --port; /favicon.ico is an icon (an ICO holding a 32x32 PNG)."""
    import io
    import subprocess
    import sys

    from PIL import Image

    from firmware.server.lan import host_addresses, lan_hosts

    from broker import free_port
    from web_games import ROOT, get

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "firmware.cli", "web", "--state", str(tmp_path / "l.sqlite3"),
                                "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT)
    try:
        said = [process.stdout.readline() for _ in range(3)]
        status, headers, body = get(f"http://127.0.0.1:{port}/favicon.ico")
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert said[0].startswith(f"cribbage-board web: serving {tmp_path / 'l.sqlite3'} read-only on http://localhost:{port}/")
    hosts = lan_hosts(others=host_addresses)
    if hosts:
        assert f"on the network: http://{hosts[0]}:{port}/" in said[1]
    assert "note: the board's phone view" in said[2] and "gives port 8121" in said[2]
    assert status == 200 and headers["Content-Type"] == "image/x-icon"
    image = Image.open(io.BytesIO(body))
    assert image.format == "ICO" and image.size == (32, 32)
