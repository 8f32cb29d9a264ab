"""The LEDs' palettes on the web view's pages: the colours each palette gives the sides, the palette the
config gives the LEDs as the one every page opens in, and the live state in words beside its dot."""

import re

import pytest

from firmware.palette import PALETTE_NAMES
from firmware.palette import PALETTES as LED_PALETTES
from firmware.web import pages
from firmware.web.board import COLOURS, PALETTES

from web_games import colour_blind_board, get, web_server


def test_each_palette_gives_the_sides_the_leds_colours():
    """The web view has every palette the LEDs have: standard is the board's drawing colours, the
    others the LEDs' own (firmware.palette), one a side, and the page's style says each of them."""
    assert tuple(PALETTES) == PALETTE_NAMES and PALETTES["standard"] == COLOURS
    for name, colours in LED_PALETTES.items():
        assert PALETTES[name] == tuple(f"#{r:02x}{g:02x}{b:02x}" for r, g, b in colours)
        assert len(PALETTES[name]) == len(COLOURS)
        rule = re.search(rf"\.palette-{name} \{{([^}}]*)\}}", pages.STYLE).group(1)
        assert rule.split() == [f"--c{i}:{colour};" for i, colour in enumerate(PALETTES[name])]
    root = re.search(r":root \{ (--c0[^}]*)\}", pages.STYLE).group(1)
    assert root.split() == [f"--c{i}:{colour};" for i, colour in enumerate(COLOURS)]


def test_a_page_opens_in_a_palette_by_its_root_class():
    """in_palette: the page's root element takes the palette's class; standard, a name it does not
    know and what is not a page are left as they are."""
    page = pages.render("games.html", pages.games_context([], None)).encode()
    assert page.startswith(b"<!doctype html><html lang=en><head>")
    assert pages.in_palette(page, "colour-blind").startswith(b'<!doctype html><html lang=en class="palette-colour-blind"><head>')
    assert pages.in_palette(page, "colour-blind").count(b"class=\"palette-") == 1
    assert pages.in_palette(page, "standard") is page
    assert pages.in_palette(page, "plaid") is page
    assert pages.in_palette(b'{"html": "<!doctype html><html lang=en>"}', "colour-blind").startswith(b'{"html"')


def test_every_page_loads_the_palette_script_by_its_address_and_says_the_live_state_in_words():
    """Each page loads palette.js from this server (no inline script, deferred); the live pages
    say the live state in words (a status) beside the dot, "not live" until the script connects."""
    games = pages.render("games.html", pages.games_context([], None))
    for html in (games, pages.board_page(None, None, [])):
        head = html.split("<body>")[0]
        assert f'<script src="{pages.PALETTE_SCRIPT_URL}" defer></script>' in head
    board = pages.board_page(None, None, [])
    assert ('<span class="live-state"><span id="live-dot" class="live-dot" aria-hidden="true"></span>'
            '<span id="live-word" role="status">not live</span></span>') in board
    assert "live-word" not in games
    assert b"PALETTE_NAMES" not in pages.PALETTE_SCRIPT and b'["standard", "colour-blind"]' in pages.PALETTE_SCRIPT
    assert b'"cribbage_palette=" + select.value' in pages.PALETTE_SCRIPT
    assert pages.PALETTE_SCRIPT_URL in pages.SERVICE_WORKER  # the installed app opens in its palette offline


@pytest.mark.slow
def test_the_config_palette_is_the_one_every_page_opens_in(tmp_path):
    """``cribbage-board web`` with a config whose leds.palette is colour-blind: every page, the error
    pages too, opens in it with its length said right; JSON and the scripts are left as they are. A
    browser's choice (its cookie, one of the palettes) comes before the config's."""
    state, config = colour_blind_board(tmp_path)
    with web_server(state, "--config", str(config)) as base:
        for path, status in (("/", 200), ("/games", 200), ("/games/1", 200), ("/stats", 200), ("/phone", 200),
                             ("/offline", 200), ("/games/99", 404), ("/P/ABCDEF", 200)):
            got, headers, body = get(base + path)
            assert got == status, path
            assert body.startswith(b'<!doctype html><html lang=en class="palette-colour-blind"><head>'), path
            assert int(headers["Content-Length"]) == len(body), path
        got, headers, body = get(base + "/api/state")
        assert got == 200 and b"palette" not in body and int(headers["Content-Length"]) == len(body)
        got, headers, body = get(base + pages.PALETTE_SCRIPT_URL)
        assert got == 200 and body == pages.PALETTE_SCRIPT and "immutable" in headers["Cache-Control"]
        got, _, body = get(base + "/", "HEAD")
        assert got == 200 and body == b""
        got, headers, body = get(base + "/stats", cookie="cribbage_palette=standard")  # the browser's choice
        assert got == 200 and body.startswith(b"<!doctype html><html lang=en><head>")
        assert int(headers["Content-Length"]) == len(body)
    with web_server(state) as base:  # the default config: standard, no class, but for a browser's choice
        got, _, body = get(base + "/games")
        assert got == 200 and body.startswith(b"<!doctype html><html lang=en><head>")
        for cookie in ("a=b; cribbage_palette=colour-blind", "cribbage_palette=colour-blind;x=1"):
            got, headers, body = get(base + "/", cookie=cookie)
            assert body.startswith(b'<!doctype html><html lang=en class="palette-colour-blind"><head>'), cookie
            assert int(headers["Content-Length"]) == len(body)
        for cookie in ("cribbage_palette=plaid", "cribbage_palette=<b>", "other_palette=colour-blind"):
            got, _, body = get(base + "/games", cookie=cookie)
            assert body.startswith(b"<!doctype html><html lang=en><head>"), cookie
