"""What the OLED shows (firmware/board/screens.py): "lap 2" in a 181 game, the large-scores mode, the
screens against their reference PNGs, and the text stamped from its cache."""

from __future__ import annotations

import random
import string

import pytest
from helpers import DOUBLE, script_to_win
from PIL import Image, ImageDraw

from firmware.board import screens
from firmware.board.pc.simulator import Simulator, run_script
from firmware.board.screens import Screen, font, lap_note, oled_image, scores_screen
from firmware.board.view import GameView, scores_titles, status_texts
from firmware.config import load_config
from hardware.layout import lap_of
from scorer.game import Phase
from scorer.record import replay
from scorer.variants import VARIANTS

from golden import assert_matches_golden

SEVEN_CARD = ["game.variant=seven-card"]


def test_laps_are_counted_from_one():
    """Scores 1-120 are lap 1, 121-180 lap 2 of a 181 game; 0 and the game hole count as lap 1."""
    assert [lap_of(s, 181) for s in (0, 1, 120, 121, 180, 181)] == [1, 1, 1, 2, 2, 1]
    assert lap_of(250, 300) == 3
    assert lap_note(("Alice", "Bob"), (130, 95), 181) == "Alice lap 2"
    assert lap_note(("Alice", "Bob"), (130, 125), 181) == "lap 2"
    assert lap_note(("Alice", "Bob"), (100, 95), 181) == ""


@pytest.mark.slow
def test_the_oled_says_lap_2_in_a_181_game(tmp_path):
    """Seven-card past 120: the play screen's line says whose peg is on lap 2, whole."""
    result = run_script(script_to_win(target=140), load_config(overrides=SEVEN_CARD), tmp_path / "l.sqlite3")
    red, blue = (side["score"] for side in result["sides"])
    assert red > 120 >= blue
    assert result["screen"]["lines"][0] == "deal 9, show, Red lap 2"  # "the show" in a word, for the room


def test_large_scores_show_every_side_and_the_next_count():
    """The large-scores screen: each side's name (dealer starred) and score, the lap, and whose count is next."""
    game = GameView.of(replay(["game seven-card seats=Alice,Bob dealer=Alice", "peg Bob 15", "hand Bob 29"]).book.game)
    screen = scores_screen(game)
    assert screen.scores == (("Alice*", "0", ""), ("Bob", "44", "")) and screen.footer == "next: Alice hand"
    assert scores_screen(game, dial=12).footer == "dial 12: Alice hand"
    alert = scores_screen(game, 0, "Alice counts next", alert=True)
    assert alert.footer == "Alice counts next" and alert.alert


def test_large_scores_are_drawn_large():
    """Two sides' scores are drawn about 30 px high, each in its own half; four sides in a 2x2 grid."""
    image = oled_image(Screen(scores=(("Alice", "88", ""), ("Bob", "121", "lap 2")), footer="next: Bob hand"))
    left = image.crop((0, 12, 63, 40)).getbbox()
    right = image.crop((64, 12, 127, 40)).getbbox()
    assert left and right and left[3] - left[1] >= 20 and right[3] - right[1] >= 20
    four = oled_image(Screen(scores=tuple((n, "7", "") for n in "ABCD"), footer="next: A hand"))
    quarters = [four.crop((x, y, x + 63, y + 26)).getbbox() for y in (0, 26) for x in (0, 64)]
    assert all(quarters)


def test_the_board_in_large_scores_mode(tmp_path):
    """display.mode = scores: the OLED shows the large scores; the menu still shows in full."""
    sim = Simulator(load_config(overrides=["display.mode=scores"]), tmp_path / "l.sqlite3")
    try:
        sim.act("turn", "6")
        sim.act("click", "blue")
        view = sim.board.view()
        expected = oled_image(scores_screen(view, 0, sim.board.controller.screen().footer))
        assert sim.devices.display.image.convert("1").tobytes() == expected.tobytes()
        sim.act("click", "menu")
        assert sim.board.oled_screen().highlight is not None
    finally:
        sim.close()


def test_a_refusal_shows_in_large_scores_mode(tmp_path):
    """A refused press shows its reason, inverted, at the bottom of the large-scores screen."""
    sim = Simulator(load_config(overrides=["display.mode=scores"]), tmp_path / "l.sqlite3")
    try:
        sim.act("click", "blue")
        screen = sim.board.oled_screen()
        assert screen.scores and screen.alert and screen.footer == "Dial the points first, then press"
        image = sim.devices.display.image.convert("1")
        assert image.getpixel((0, 63)) and image.getpixel((127, 54))  # the bottom line inverted
    finally:
        sim.close()


GOLDEN_SCREENS = {
    "scores-2": Screen(scores=(("Red*", "141", "lap 2"), ("Blue", "86", "")), footer="next: Red crib"),
    "scores-4": Screen(scores=(("Alice*", "0", ""), ("Bob", "13", ""), ("Carol", "12", ""), ("Dan", "0", "")),
                       footer="Bob counts first: hand Bob", alert=True),
    "play-lap2": Screen(title="Red* 141  Blue 86", lines=("deal 9, show, Red lap 2",), big="0",
                        big_caption="knob: Red crib", footer="Red hand 12"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_SCREENS))
def test_lap_and_large_score_screens_match_golden_images(name):
    """The large-scores screens and the lap-2 play screen match their reference PNGs (a few pixels allowed)."""
    assert_matches_golden(oled_image(GOLDEN_SCREENS[name]), f"oled-{name}")


def test_a_text_stamped_from_its_cache_is_the_pixels_pillow_draws():
    """screens._text (each line rendered once, then pasted) draws what ImageDraw.text draws, for every
    size the screens use, either ink, on either ground, and cut by any edge of the screen."""
    rng = random.Random(31)
    letters = string.ascii_letters + string.digits + string.punctuation + " éü~…→·"
    for size in (10, 12, 20, 26, 30):
        for _ in range(12):
            text = "".join(rng.choice(letters) for _ in range(rng.randint(0, 14)))
            for xy in ((0, -1), (1, -2), (2, 9), (100, 50), (-3, 60), (120, -8)):
                for fill, ground in ((1, 0), (0, 1), (1, 1), (0, 0)):
                    drawn, stamped = Image.new("1", (128, 64), ground), Image.new("1", (128, 64), ground)
                    ImageDraw.Draw(drawn).text(xy, text, font=font(size), fill=fill)
                    screens._text(stamped, xy, text, size, fill)
                    assert stamped.tobytes() == drawn.tobytes(), (text, size, xy, fill)


SCREENS = {
    "play": Screen(title="Red* 14  Blue 10", lines=("deal 3, the play",),
                   big="12", big_caption="colour: play points; knob: Blue hand",
                   footer="Blue peg 2"),
    "refused": Screen(title="Red* 14  Blue 10", lines=("deal 3, the show",), big="19",
                      big_caption="knob: Red hand > Red crib",
                      footer="Red counts next: Red hand > Red crib", alert=True),
    "over": Screen(title="Red 121  Blue* 88", lines=("Red wins by 33, a skunk", "Red won 1 game (3", "game points)"),
                   footer="hold knob: new game"),
    "menu": Screen(title="Menu", lines=("New game", "Variant: six-card", "First dealer: Red", "Options"),
                   highlight=1),
}


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_oled_screens_match_golden_images(name):
    """The main OLED screens match their reference PNGs (a few pixels of font hinting allowed)."""
    assert_matches_golden(oled_image(SCREENS[name]), f"oled-{name}")


@pytest.mark.parametrize("message", [DOUBLE, "Play over: Blue hand 12 (undo if not)"])
def test_the_new_messages_fit_the_oleds_two_footer_lines(message):
    """The double press's and the end of the play's lines are whole in an alert's two footer lines."""
    from PIL import Image, ImageDraw

    from firmware.board.screens import _wrap
    from hardware.display import HEIGHT, WIDTH

    draw = ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT)))
    assert " ".join(_wrap(draw, message, 10, WIDTH - 2, 2)) == message


CLUB_STATES = ("", "club ok", "club off", "club...", "no club")  # firmware.board.club.link's connection words
MARKS = (("", ""), ("", "RAM!"), ("no club", "RAM!"))  # none, the ledger in RAM, and the widest club words with it


COLOURS = ("Red", "Blue", "Green", "Yellow")
LONG_NAMES = ("Maximilianus", "Bartholomew", "Christabel", "Dorothea")


def _view(variant, deal: int, phase, laps: tuple[int, ...], scores: tuple[int, ...] | None = None,
          names: tuple[str, ...] = COLOURS) -> GameView:
    """A view of ``variant`` at ``deal`` and ``phase``, its sides named from ``names`` (partners joined with
    "+"), each side on its lap of ``laps`` (the first's repeated), on ``scores`` (one short of the target)."""
    rules = VARIANTS[variant]
    players = names[:rules.players]
    sides = (f"{players[0]}+{players[2]}", f"{players[1]}+{players[3]}") if rules.partnership else players
    count = len(sides)
    laps = (laps * count)[:count]
    return GameView(variant, rules.target, sides, scores or (rules.target - 1,) * count,
                    (0,) * count, laps, 0, None, (), deal, phase, (), None)


@pytest.mark.slow
def test_the_status_line_is_shortened_on_purpose_never_cut():
    """Every variant x phase x deal 1-99 x laps, plain, with "RAM!" and with a club's connection too (each
    connection's words at deal 99): the status line under the dial is one of its own forms and fits the
    OLED's 126 px in the 10 px font, so it is never cut with "~"."""
    lines = set()
    for variant in VARIANTS:
        for phase in Phase:
            for deal in range(1, 100):
                for laps in ((1,), (2,), (3,), (1, 2, 3, 2)):
                    view = _view(variant, deal, phase, laps, names=LONG_NAMES)
                    for club, mark in MARKS:
                        forms = status_texts(view, club, mark)
                        if forms not in lines:  # the same words for another variant: measured once
                            lines.add(forms)
                            line = screens.game_status(view, club, mark)
                            assert line in forms and screens.fits(line, 10, 126), line
    for club in CLUB_STATES:  # each connection's words, beside "RAM!", in the widest deal
        for phase in Phase:
            view = _view("four-hand-individual", 99, phase, (1, 2, 3, 2), names=LONG_NAMES)
            assert screens.fits(screens.game_status(view, club, "RAM!"), 10, 126)
    assert len(lines) > 5_000
    plain = _view("four-hand", 1, Phase.HEELS, (1,))
    assert screens.game_status(plain) == "deal 1, the cut"  # room enough: said in full
    assert screens.game_status(_view("three-hand", 12, Phase.SHOW, (1, 2, 3)), "club off", "RAM!") == "club off|RAM! d12 show"


def test_the_title_holds_every_side_and_score_without_a_cut():
    """Every variant with every side one short of the target: the title is one of its forms and fits 128 px,
    in the title's 12 px font while one form does, else in the 10 px font ("R* 120 B 120 G 120 Y 120")."""
    for variant in VARIANTS:
        for names in (COLOURS, LONG_NAMES):
            view = _view(variant, 1, Phase.PLAY, (1,), names=names)
            title = screens.game_title(view)
            assert title in scores_titles(view)
            assert screens.fits(title, screens.title_size(title), 128), (variant, title)
    four = _view("four-hand-individual", 1, Phase.PLAY, (1,))
    assert screens.game_title(four) == "R* 120 B 120 G 120 Y 120" and screens.title_size("R* 120 B 120 G 120 Y 120") == 10
    assert screens.game_title(_view("six-card", 1, Phase.PLAY, (1,), (14, 10))) == "Red* 14  Blue 10"
