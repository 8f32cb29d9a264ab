"""Phone view: the web view's address found without traffic, and its QR code on the OLED read back."""

import pytest

from firmware.board import phone
from firmware.board.pc.simulator import Simulator
from firmware.board.phone import PhoneView, phone_address, phone_image, qr_geometry, qr_matrix
from firmware.board.screens import HEIGHT, oled_image
from firmware.config import load_config
from firmware.errors import ConfigError

URLS = ["http://192.168.1.23:8121/", "http://10.0.0.7:8080/", "http://raspberrypi.local:8121/",
        "http://cribbage-board-kitchen.local:65535/"]


def test_the_address_is_the_ip_then_the_host_name_then_none():
    """An IP when the machine has a route; HOST.local when only an interface is up; None without a network."""
    assert phone_address(8121, ip=lambda: "192.168.1.23") == "http://192.168.1.23:8121/"
    assert phone_address(8080, ip=lambda: None, up=lambda: True, hostname=lambda: "pi.lan") == "http://pi.local:8080/"
    assert phone_address(8121, ip=lambda: None, up=lambda: False, private=lambda: True,
                         hostname=lambda: "pi") == "http://pi.local:8121/"
    assert phone_address(8121, ip=lambda: None, up=lambda: False, private=lambda: False) is None


def test_a_private_network_namespace_is_told_from_no_network(tmp_path):
    """Only loopback listed: the process is confined (it cannot tell); interfaces listed, down: no network."""
    head = "Inter-|   Receive\n face |bytes\n"
    dev = tmp_path / "dev"
    dev.write_text(head + "    lo: 0 0\n")
    assert phone.confined(dev)
    dev.write_text(head + "    lo: 0 0\n  eth0: 0 0\n wlan0: 0 0\n")
    assert not phone.confined(dev)
    assert not phone.confined(tmp_path / "missing")


def test_route_ip_is_never_loopback():
    """The kernel's choice of source address (nothing is sent) is a real address or None."""
    address = phone.route_ip()
    assert address is None or (address.count(".") == 3 and not address.startswith(("127.", "0.")))


def test_network_up_reads_the_interfaces(tmp_path):
    """An interface other than lo with operstate up counts; lo alone or down ones do not."""
    for name, state in (("lo", "unknown"), ("eth0", "down")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "operstate").write_text(state + "\n")
    assert not phone.network_up(tmp_path)
    (tmp_path / "wlan0").mkdir()
    (tmp_path / "wlan0" / "operstate").write_text("up\n")
    assert phone.network_up(tmp_path)
    assert not phone.network_up(tmp_path / "missing")


@pytest.mark.parametrize("url", URLS)
def test_the_oled_shows_segnos_modules(url):
    """Every module of segno's matrix is drawn: dark modules unlit, light ones lit, a lit quiet zone around."""
    matrix = qr_matrix(url)
    scale, offset = qr_geometry(len(matrix))
    assert offset >= scale and offset + len(matrix) * scale <= HEIGHT
    image = oled_image(_screen(url))
    pixels = image.load()
    for y, row in enumerate(matrix):
        for x, dark in enumerate(row):
            for dy in range(scale):
                for dx in range(scale):
                    lit = pixels[offset + x * scale + dx, offset + y * scale + dy]
                    assert bool(lit) != dark, (x, y)
    side = len(matrix) * scale + 2 * offset
    border = [(x, y) for x in range(side) for y in range(HEIGHT)
              if not offset <= x < offset + len(matrix) * scale or not offset <= y < offset + len(matrix) * scale]
    assert all(pixels[p] for p in border)


def _screen(url):
    view = PhoneView(None, 8121, finder=lambda port: url)
    return view.screen()


@pytest.mark.parametrize("url", URLS)
def test_the_qr_code_decodes_to_the_address(url):
    """A QR reader (zxing-cpp) reads the OLED picture, scaled up as a camera would see it, back to the URL."""
    zxingcpp = pytest.importorskip("zxingcpp", reason="pip install zxing-cpp (the test extra) to read the code")
    image = phone_image(url).convert("L").resize((512, 256))
    assert [code.text for code in zxingcpp.read_barcodes(image)] == [url]


def test_the_address_is_written_beside_the_code():
    """The right half of the picture holds text (the address), the left the code."""
    image = phone_image("http://192.168.1.23:8121/")
    assert image.crop((70, 0, 128, 64)).getbbox() is not None


def test_phone_view_from_the_menu(tmp_path, monkeypatch):
    """Menu > Phones > Phone view shows the address (port from web.port) and the code; any press goes back."""
    monkeypatch.setattr(phone, "route_ip", lambda: "192.168.7.9")
    sim = Simulator(load_config(overrides=["web.port=8080"]), tmp_path / "l.sqlite3")
    try:
        sim.act("hold", "knob")
        sim.act("turn", "9")
        sim.act("click", "knob")
        assert sim.board.controller.screen().title == "Phones"
        sim.act("turn", "-1")
        sim.act("click", "knob")
        screen = sim.board.controller.screen()
        assert screen.title == "Phone view" and screen.lines == ("http://192.168.7.9:8080/",)
        assert sim.devices.display.image.tobytes() == phone_image("http://192.168.7.9:8080/").tobytes()
        sim.act("click", "red")
        assert sim.board.controller.screen().title == "Phones"
    finally:
        sim.close()


def test_phone_view_without_a_network_says_so(tmp_path, monkeypatch):
    """No route and no interface up: the OLED says to connect the Pi."""
    monkeypatch.setattr(phone, "route_ip", lambda: None)
    monkeypatch.setattr(phone, "network_up", lambda: False)
    monkeypatch.setattr(phone, "confined", lambda: False)
    sim = Simulator(load_config(), tmp_path / "l.sqlite3")
    try:
        sim.board.controller.menu.phone_view()
        screen = sim.board.controller.screen()
        assert screen.lines == phone.NO_NETWORK and screen.picture is None
    finally:
        sim.close()


def test_web_port_is_checked_like_the_other_keys():
    """web.port defaults to 8121; a port out of range is one line naming the key."""
    assert load_config().web.port == 8121
    with pytest.raises(ConfigError, match=r"\[web\] port = 70000: must be a whole number from 1 to 65535"):
        load_config(overrides=["web.port=70000"])
