"""The printable controls card and the controls table it shares with the terminal board."""

from __future__ import annotations

import re

from docs_text import doc_text, section

from firmware.board.controller import Controller, GameSettings
from firmware.board.controls import CONTROLS, MENU_ITEMS, controls_card, key_names
from firmware.board.pc.terminal import HELP, KEYS
from firmware.cli import card as card_module
from firmware.cli import main
from firmware.config import load_config
from hardware.inputs import COLOUR_BUTTONS, KNOB
from ledger.writer import LedgerWriter

A6_POINTS = (105 / 25.4 * 72, 148 / 25.4 * 72)


def make_card(tmp_path, capsys, *sets, config=None):
    """Run ``controls-card`` and return the PDF's bytes."""
    out = tmp_path / "card.pdf"
    argv = ["controls-card", "-o", str(out)]
    if config:
        argv += ["--config", str(config)]
    for value in sets:
        argv += ["--set", value]
    assert main(argv) == 0
    assert "A6" in capsys.readouterr().out
    return out.read_bytes()


def pdf_text(pdf: bytes) -> str:
    """The words drawn on the page, in drawing order, one space between strings."""
    strings = re.findall(rb"\(((?:\\.|[^\\)])*)\) Tj", pdf)
    unescaped = [re.sub(rb"\\(.)", rb"\1", s).decode("latin-1") for s in strings]
    return " ".join(unescaped)


def fill_colours(pdf: bytes) -> list[tuple[float, ...]]:
    """Every fill colour the page sets (``r g b rg``)."""
    return [tuple(float(v) for v in m) for m in re.findall(rb"([\d.]+) ([\d.]+) ([\d.]+) rg", pdf)]


def has_colour(pdf: bytes, rgb: tuple[int, int, int]) -> bool:
    return any(all(abs(a - b / 255) < 0.002 for a, b in zip(fill, rgb)) for fill in fill_colours(pdf))


def test_card_is_one_a6_page(tmp_path, capsys):
    """The page is A6 (105 x 148 mm) within a point, and there is one page."""
    pdf = make_card(tmp_path, capsys)
    box = re.search(rb"/MediaBox \[ *([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) *\]", pdf)
    x0, y0, x1, y1 = (float(v) for v in box.groups())
    assert abs((x1 - x0) - A6_POINTS[0]) <= 1 and abs((y1 - y0) - A6_POINTS[1]) <= 1
    assert re.search(rb"/Count 1\b", pdf) and len(re.findall(rb"/Type /Page\b", pdf)) == 1


def test_card_shows_every_control_players_pins_and_menu(tmp_path, capsys):
    """Each control's description, the players on their buttons, the pins and the menu are on the card."""
    pdf = make_card(tmp_path, capsys, 'game.players=["Ann","Bob"]')
    text = pdf_text(pdf)
    for control in CONTROLS:
        assert control.does in text, control.does
    for label, does in MENU_ITEMS[1:]:  # Close is on the navigation line
        assert f"{label} {does}" in text
    assert MENU_ITEMS[0][0] == "Close" and "Close (top), menu, undo: back; hold knob: leave" in " ".join(text.split())
    assert "Ann red button, GPIO 5" in text and "Bob blue button, GPIO 6" in text
    assert "no player green button, GPIO 16" in text and "no player yellow button, GPIO 26" in text
    assert "knob A 17, knob B 27, knob press 22, undo 13, menu 19" in text
    assert "hold 1 s" in text and "six-card to 121; Ann deals first" in text
    assert has_colour(pdf, (255, 0, 0)) and has_colour(pdf, (0, 80, 255))


def test_changed_config_gives_a_changed_card(tmp_path, capsys):
    """Another pin, hold time, colour, variant or option shows on the card."""
    config = tmp_path / "board.toml"
    config.write_text('[leds]\ncolours = ["#ff00ff", "#00ffff", "#00c000", "#ffb000"]\n'
                      '[inputs]\nred = 4\nhold_ms = 1500\n')
    before = pdf_text(make_card(tmp_path, capsys))
    pdf = make_card(tmp_path, capsys, "game.variant=three-hand", 'leds.layout="three-track-121"', "game.muggins=true",
                    'game.players=["Ann","Bob","Cy"]', 'game.dealer="Cy"', config=config)
    text = pdf_text(pdf)
    assert text != before
    assert "Ann red button, GPIO 4" in text and "Cy green button, GPIO 16" in text
    assert "hold 1.5 s" in text and "three-hand to 121; Cy deals first" in text
    assert "muggins on" in text and "/board.toml with 5 --set" in text
    assert has_colour(pdf, (255, 0, 255)) and has_colour(pdf, (0, 255, 255)) and has_colour(pdf, (0, 192, 0))
    assert not has_colour(pdf, (255, 0, 0))


def test_partners_share_their_sides_colour(tmp_path):
    """In four-hand the partners' buttons show their team's one colour."""
    config = load_config(overrides=["game.variant=four-hand", 'leds.layout="four-track-121"'])
    buttons = controls_card(config).buttons
    assert buttons[0].colour == buttons[2].colour != buttons[1].colour == buttons[3].colour


def test_longest_names_still_fit_above_the_footer(tmp_path):
    """Four 12-letter names in a partnership and a long config path leave the footer clear."""
    config = load_config(overrides=[
        "game.variant=four-hand", 'leds.layout="four-track-121"', "inputs.hold_ms=1500",
        'game.players=["WWWWWWWWWWWW","MMMMMMMMMMMM","Bartholomews","Christophers"]',
    ])
    lowest = card_module.draw_card(controls_card(config), tmp_path / "card.pdf")
    assert lowest > card_module.MARGIN + 8 + 8  # the two footer lines


def test_bad_output_or_config_is_one_line_and_exit_2(tmp_path, capsys):
    """An unwritable output or a bad --set: one line on stderr, exit status 2."""
    assert main(["controls-card", "-o", str(tmp_path / "missing" / "card.pdf")]) == 2
    assert main(["controls-card", "--set", "inputs.red=99", "-o", str(tmp_path / "card.pdf")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "cannot write" in err[0] and "[inputs] red" in err[1]
    assert not (tmp_path / "card.pdf").exists()


def test_menu_items_are_the_controllers_menu(tmp_path):
    """The card's menu lists the controller's menu items, in its order."""
    with LedgerWriter(tmp_path / "ledger.sqlite3") as store:
        controller = Controller(store, GameSettings())
        controller.open_menu()
        labels = [item.label.split(":")[0] for item in controller.panels[-1].items]
    assert labels == [label for label, _ in MENU_ITEMS]


def test_terminal_keys_are_the_controls_table():
    """Each key the table names does that control on the terminal board, and each action is described."""
    kinds = {"press": "click", "hold": "hold", "turn": "turn"}
    described = set()
    for control in CONTROLS:
        for key in control.keys:
            kind, source = KEYS[key]
            source = KNOB if kind == "turn" else source  # a turn's "source" is its steps
            assert kind == kinds[control.gesture]
            assert source in COLOUR_BUTTONS if control.part == "colour" else source == control.part
            described.add((kind, source))
        assert all(f" {key} " in f" {HELP} " for key in key_names(control).split()) and control.short in HELP
    assert {(kind, KNOB if kind == "turn" else source) for kind, source in KEYS.values()} <= described



def test_readme_key_table_names_every_terminal_key():
    """docs/mock-board.md's key table shows each key the terminal board takes (Enter and = aside)."""
    table = section(doc_text("docs/mock-board.md"), "The terminal board")
    for key in KEYS:
        if key.isprintable() and not key.isspace() and key != "=":
            assert f"`{key}`" in table, key
