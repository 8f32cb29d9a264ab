"""Every message the board can show is whole: on the OLED, and in the mock board's OLED box at 80x24."""

from __future__ import annotations

import pytest

from firmware.board.pc.terminal import OLED_TEXT_ROWS, OLED_TEXT_WIDTH, PAGE_SECONDS, compose, keyed, oled_text
from firmware.board.picker import PAGE_LINES, Breakdown, fits
from firmware.board.screens import FOOTER_MOST, Screen, footer_lines, oled_image
from scorer.cards import parse_cards

from test_docs import code_refusals

NAME = "Bartholomews"  # a placeholder as long as a player's name may be (12 letters), for any value
# The refusals the board itself says (the rest are a record's or a config's, said by the commands).
BOARD_SOURCES = ("firmware/board/", "scorer/game.py")


def words(text: str) -> str:
    """The text without its spaces: what wrapping (at a space, or inside a word too long for a line) keeps."""
    return "".join(text.split())


def filled(pieces: list[str | None]) -> str:
    return "".join(NAME if piece is None else piece for piece in pieces)


REFUSALS = sorted({(where.split(":")[0], filled(pieces)) for where, pieces in code_refusals()})


def box_text(sim, columns: int = 80, rows: int = 24, pages: int = 1) -> str:
    """The OLED box's rows at ``columns`` x ``rows``, every page of a paged footer, as one text."""
    seen = []
    for _ in range(pages):
        lines = compose(sim, columns, rows, colour=False).lines()
        label = "┌─ OLED text" if any("┌─ OLED text" in line for line in lines) else "┌─ OLED"
        top = next(n for n, line in enumerate(lines) if label in line)
        left = lines[top].index(label)
        seen += [line[left + 1:left + 1 + OLED_TEXT_WIDTH] for line in lines[top + 1:top + 1 + OLED_TEXT_ROWS]]
        sim.clock.skip(PAGE_SECONDS)
    return words("".join(seen))


@pytest.mark.parametrize("where, message", REFUSALS)
def test_every_refusal_is_whole_in_the_80x24_oled_box(sim, where, message):
    """Each refusal the code makes, said on the board, reads whole in the OLED box (paged if need be)."""
    sim.board.controller.say(message, alert=True)
    shown = keyed(sim.board.oled_screen())
    rows = oled_text(shown, colour=False)
    assert all(len(text) <= OLED_TEXT_WIDTH for text, _ in rows)
    expected = words("! " + shown.footer)
    pages = -(-len(words(expected)) // (OLED_TEXT_ROWS * (OLED_TEXT_WIDTH - 8))) + 1
    assert expected in box_text(sim, pages=pages), where


@pytest.mark.parametrize("where, message", [(w, m) for w, m in REFUSALS if w.startswith(BOARD_SOURCES)])
def test_every_refusal_the_board_says_is_whole_on_the_oled(where, message):
    """The OLED's footer takes the lines a refusal needs: none is cut (no "..." or "~")."""
    lines = footer_lines(message)
    assert len(lines) <= FOOTER_MOST and words(" ".join(lines)) == words(message), (where, lines)


HANDS = [  # a hand or crib and its starter: long breakdowns, long lines, a claim
    ("4H 5H 6H 6D", "7C", False), ("5H 5D 5S JC", "5C", False), ("3C 3D 4H 4S", "5D", False),
    ("7H 7D 8S 8C", "9H", False), ("4H 4D 5S 6C", "6H", False), ("10H JH QH KH", "9H", False),
    ("2H 4H 6H 8H", "10H", True), ("3H 3D 3S 4C", "5H", False), ("5C 5D JC QC", "5H", False),
    ("AH 2H 3H 4H", "5H", True), ("10C 10D 10H 5S", "5D", False), ("6C 7D 8H 8S", "9D", False),
    ("3C 4C 5C 5D 6C", "7C", False), ("10H JH QH KH 9H", "AH", False),
]


@pytest.mark.parametrize("cards, starter, crib", HANDS)
def test_every_breakdown_page_is_whole_on_the_oled_and_in_the_box(cards, starter, crib):
    """Each page of check my count's breakdown fits the OLED (lines that fit, no more than it holds)
    and reads whole in the OLED box at 80x24."""
    from firmware.board.picker import Claim

    hand, (top,) = parse_cards(cards.split()), parse_cards([starter])
    for claim in (None, Claim("Bartholomews", "crib" if crib else "hand", 2, 12)):
        breakdown = Breakdown(hand, top, crib, claim)
        for page in range(len(breakdown.pages)):
            screen = breakdown.screen(page)
            assert all(fits(line) for line in screen.lines)
            assert len(screen.lines) <= (PAGE_LINES - 1 if screen.footer else PAGE_LINES), screen.lines
            shown = keyed(screen)
            box = words(" ".join(text for text, _ in oled_text(shown, colour=False)))
            for text in (shown.title, *shown.lines, shown.footer):
                assert words(text) in box, (page, text)


@pytest.mark.parametrize("size", [(80, 24), (110, 36)])
def test_the_check_my_count_breakdown_shows_the_runs_in_the_box(sim, size):
    """4H 5H 6H 6D with 7C: the summary's runs and their 8 read whole at 80x24 and beside the
    OLED's pixels at 110x36 (they were cut off)."""
    sim.act("hold", "menu")
    for turn, button in ((-1, "green"), (1, "green"), (1, "green"), (0, "blue"), (1, "red")):
        if turn:
            sim.act("turn", str(turn))
        sim.act("click", button)
    assert words("fifteens 4, pairs 2, runs 8") in box_text(sim, *size)


@pytest.mark.parametrize("problem", [
    "LED strip: /dev/spidev0.0 not found: enable SPI (dtparam=spi=on in /boot/firmware/config.txt) and reboot",
    "OLED: no reply at I2C address 0x3C on bus 1: check the wiring and the address",
])
def test_a_device_notice_is_whole_in_the_box(sim, problem):
    """A device's problem, as the OLED shows it, reads whole in the box (each of its lines)."""
    sim.board.controller.notices.show("LED strip", problem)
    screen = sim.board.oled_screen()
    box = box_text(sim)
    for text in (screen.title, *screen.lines):
        assert words(text) in box


def test_a_footer_longer_than_the_box_is_paged():
    """A footer of more lines than the box holds shows a page at a time, every word on some page."""
    long = " ".join(f"word{n}" for n in range(60))
    screen = Screen(title="Title", footer=long, alert=True)
    pages = [oled_text(screen, colour=False, page=k) for k in range(3)]
    assert all(len(rows) == OLED_TEXT_ROWS for rows in pages)
    assert words(" ".join(text for rows in pages for text, _ in rows)).startswith(words("! " + long))


def test_an_alert_is_whole_in_the_large_scores_mode(sim):
    """The large-scores OLED mode gives a long refusal the lines it needs, inverted, over the scores."""
    from firmware.board.screens import scores_screen

    message = "Muggins is off in this game: turn it on in the options"
    screen = scores_screen(sim.board.view(), 0, message, alert=True)
    image = oled_image(screen)
    lines = footer_lines(message)
    assert len(lines) > 1 and words(" ".join(lines)) == words(message)
    top = 64 - 11 * len(lines)
    assert image.getpixel((127, top)) and image.getpixel((127, 63))  # the inverted band, all its lines
