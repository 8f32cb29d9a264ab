"""The menus through the mock pins: the way out at the top, wrapping, a hold to leave, and options at once."""

import pytest
from helpers import make

from firmware.board.menu import APPLIES_NEXT_GAME, APPLIES_NOW
from firmware.palette import PALETTES
from ledger.reader import LedgerReader

# The main menu's items from New game, where it opens (Close is one turn back, at the top).
MAIN = ["New game", "New match", "Variant", "First dealer", "Options", "Brightness", "Check my count",
        "Shut down", "Players", "Phones", "Display"]
# The options menu from Muggins, where it opens (Back is one turn back, at the top).
OPTIONS = ["Muggins", "Tones", "Palette", "Exact-out", "Skunk lines"]


def cursor_label(sim):
    screen = sim.board.controller.screen()
    return screen.lines[screen.highlight]


def open_item(sim, label):
    sim.act("hold", "knob")
    sim.act("turn", str(MAIN.index(label)))
    sim.act("click", "knob")


def choose_option(sim, label):
    """In the options menu (on Muggins, as it opens or after a change): choose ``label``."""
    menu = sim.board.controller.panels[-1]
    sim.act("turn", str(OPTIONS.index(label) + 1 - menu.cursor))
    sim.act("click", "knob")


def play_a_little(sim):
    """Heels for Red, 2 for Blue in the play, Blue's hand of 4: a game under way."""
    sim.act("click", "red")
    for points, button in ((2, "blue"), (4, "knob")):
        sim.act("turn", str(points - sim.board.controller.dial))
        sim.act("click", button)
    assert sim.board.controller.game.score("Blue") == 6


@pytest.mark.parametrize("label, way_out", [
    ("Variant", "Back"), ("First dealer", "Back"), ("Options", "Back"), ("Brightness", "Back"),
    ("Players", "Back"), ("Display", "Back"), ("New match", "No"),
])
def test_the_way_out_is_at_the_top_of_every_menu(sim, label, way_out):
    """The main menu has Close on its top line and opens below it; so does each menu it opens."""
    sim.act("hold", "knob")
    main = sim.board.controller.panels[-1]
    assert main.items[0].label == "Close" and main.cursor == 1
    assert sim.board.controller.screen().lines[0] == "Close"
    sim.act("turn", str(MAIN.index(label)))
    sim.act("click", "knob")
    menu = sim.board.controller.panels[-1]
    assert menu.items[0].label == way_out
    sim.act("turn", str(-menu.cursor))
    sim.act("click", "knob")
    assert sim.board.controller.panels == [main]


def test_the_main_menu_wraps_both_ways(sim):
    """One turn back from New game is Close, one more the last item; forward from the last is Close again."""
    sim.act("hold", "knob")
    assert cursor_label(sim) == "New game"
    sim.act("turn", "-1")
    assert cursor_label(sim) == "Close"
    sim.act("turn", "-1")
    assert cursor_label(sim).startswith("Display")
    sim.act("turn", "1")
    assert cursor_label(sim) == "Close"
    sim.act("turn", "1")
    assert cursor_label(sim) == "New game"
    sim.act("turn", str(-2 - (len(MAIN) + 1)))  # round once backwards (Close too), and one more
    assert cursor_label(sim).startswith("Display")


def test_a_sub_menu_wraps_both_ways(sim):
    """In the options menu, back from Back is the last option; on from the last option is Back."""
    open_item(sim, "Options")
    sim.act("turn", "-1")
    assert cursor_label(sim) == "Back"
    sim.act("turn", "-1")
    assert cursor_label(sim).startswith("Skunk lines")
    sim.act("turn", "1")
    assert cursor_label(sim) == "Back"


def test_a_hold_of_the_knob_leaves_the_menus(sim):
    """Two menus deep, holding the knob closes them all; the game is as it was."""
    play_a_little(sim)
    state = sim.board.controller.game.state
    open_item(sim, "Options")
    assert len(sim.board.controller.panels) == 2
    sim.act("hold", "knob")
    assert sim.board.controller.panels == [] and sim.board.controller.game.state == state
    sim.act("click", "menu")  # and the menu button still opens it
    assert sim.board.controller.panels[-1].title == "Menu"


def test_menu_and_undo_go_back_one_menu(sim):
    """In a sub-menu, menu or undo goes back to the main menu, then out of it."""
    open_item(sim, "Options")
    sim.act("click", "undo")
    assert sim.board.controller.panels[-1].title == "Menu"
    sim.act("click", "menu")
    assert sim.board.controller.panels == []


def test_muggins_on_mid_game_applies_at_once_and_the_game_goes_on(tmp_path):
    """Muggins turned on mid-game: the same game goes on, a claim is taken at once, the ledger records
    the change where it was made, no game is abandoned, and a restart replays the same game."""
    board = make(tmp_path)
    try:
        play_a_little(board)
        game = board.board.controller.game
        open_item(board, "Options")
        assert board.board.controller.screen().footer == APPLIES_NOW
        choose_option(board, "Muggins")
        controller = board.board.controller
        assert controller.game is game and game.options.muggins and controller.settings.options.muggins
        assert cursor_label(board) == "Muggins: on" and controller.footer.message == "Muggins on: from now"
        board.act("hold", "knob")
        board.act("turn", "2")
        board.act("hold", "red")  # Red claims 2 Blue missed in the hand
        assert game.score("Red") == 4 and game.score("Blue") == 6
        exported = board.store.export()
        assert exported[-2:] == ["option muggins on", "muggins Red 2"] and "muggins" not in exported[0]
        state = game.state
    finally:
        board.close()
    again = make(tmp_path)
    try:
        assert again.board.controller.game.state == state and again.board.controller.game.options.muggins
        assert again.board.controller.settings.options.muggins
    finally:
        again.close()
    with LedgerReader(tmp_path / "ledger.sqlite3") as reader:
        assert [row.status for row in reader.games()] == []  # one game, in play: nothing finished or abandoned
        assert reader.current_game_id() is not None


def test_muggins_off_mid_game_refuses_claims_from_then_on(sim):
    """Muggins on, then off again in the same game: a claim is refused afterwards, the lines record both."""
    play_a_little(sim)
    open_item(sim, "Options")
    choose_option(sim, "Muggins")
    choose_option(sim, "Muggins")
    controller = sim.board.controller
    assert not controller.game.options.muggins and cursor_label(sim) == "Muggins: off"
    sim.act("hold", "knob")
    sim.act("turn", "2")
    sim.act("hold", "red")
    assert controller.footer.alert and "Muggins is off" in controller.footer.message
    assert sim.store.export()[-2:] == ["option muggins on", "option muggins off"]


def test_the_next_game_after_muggins_at_once_is_the_same_match(sim):
    """After muggins mid-game, the next new game carries on the match: its game line has muggins."""
    play_a_little(sim)
    open_item(sim, "Options")
    choose_option(sim, "Muggins")
    sim.act("hold", "knob")
    match = sim.store.book.match
    sim.board.controller.start_game()
    assert sim.store.book.match is match and sim.board.controller.game.options.muggins
    assert "muggins" in sim.store.export()[0]


def test_tones_off_silences_the_buzzer_at_once(tmp_path):
    """With the buzzer on, Tones off: the next entry plays nothing; Tones on again: it plays."""
    board = make(tmp_path, "buzzer.enabled=true")
    try:
        buzzer = board.devices.buzzer
        board.act("click", "red")  # heels
        played = len(buzzer.played)
        assert played
        open_item(board, "Options")
        choose_option(board, "Tones")
        assert cursor_label(board) == "Tones: off" and board.board.controller.footer.message == "Tones off"
        board.act("hold", "knob")
        board.act("turn", "2")
        board.act("click", "blue")
        assert board.board.controller.game.score("Blue") == 2 and len(buzzer.played) == played
        open_item(board, "Options")
        choose_option(board, "Tones")
        board.act("hold", "knob")
        board.act("turn", "2")
        board.act("click", "blue")
        assert len(buzzer.played) == played + 1
    finally:
        board.close()


def test_tones_without_a_buzzer_say_why(sim):
    """With no buzzer in the config the Tones item says so (in brackets: it cannot be chosen) and how to have one."""
    open_item(sim, "Options")
    sim.act("turn", "1")
    screen = sim.board.controller.screen()
    assert cursor_label(sim) == "(Tones: no buzzer)" and screen.footer == "no buzzer: set [buzzer] enabled"
    sim.act("click", "knob")  # refused: it says why, and nothing changes
    screen = sim.board.controller.screen()
    assert screen.alert and screen.footer == "no buzzer: set [buzzer] enabled"
    assert sim.board.controller.options.tones and cursor_label(sim) == "(Tones: no buzzer)"


def test_the_palette_applies_at_once(sim):
    """Palette colour-blind: the very next frame lights the pegs in its colours, the game unchanged."""
    play_a_little(sim)
    state = sim.board.controller.game.state
    before = sim.shown_frame()
    open_item(sim, "Options")
    choose_option(sim, "Palette")
    assert cursor_label(sim) == "Palette: colour-blind"
    assert sim.board.style.colours == PALETTES["colour-blind"] and sim.board.style.blink_back
    sim.act("hold", "knob")
    after = sim.shown_frame()
    assert after != before and sim.board.controller.game.state == state
    assert sim.strip_pegs()[1]["front"] == 6  # Blue's peg, read in the new colours
    open_item(sim, "Options")
    choose_option(sim, "Palette")  # standard again: the config's colours
    assert sim.board.style.colours == sim.board.config.leds.colours and not sim.board.style.blink_back


def test_the_standard_palette_is_the_configs_colours_when_started_colour_blind(tmp_path):
    """Started colour-blind, Palette standard lights the [leds] colours, not the colour-blind ones."""
    board = make(tmp_path, "leds.palette=colour-blind")
    try:
        open_item(board, "Options")
        choose_option(board, "Palette")
        assert board.board.style.colours == ((255, 0, 0), (0, 80, 255), (0, 192, 0), (255, 176, 0))
    finally:
        board.close()


def test_brightness_applies_at_once(sim):
    """Brightness 3 from the menu: the strip is dimmer at once and the game goes on."""
    play_a_little(sim)
    strip = sim.devices.strip
    full = strip.pipeline.brightness
    open_item(sim, "Brightness")
    sim.act("turn", "-7")  # from 10 to 3
    sim.act("click", "knob")
    assert sim.board.controller.options.brightness == pytest.approx(0.3)
    assert strip.pipeline.brightness == pytest.approx(full * 0.3)
    assert sim.board.controller.panels == [] and sim.board.controller.game.score("Blue") == 6


@pytest.mark.parametrize("label, said", [
    ("Exact-out", "Exact-out on: from the next new game"),
    ("Skunk lines", "Skunk lines lurch: from the next new game"),
])
def test_options_that_change_the_game_say_next_game(sim, label, said):
    """Exact-out and the skunk lines say they apply next game, and the game under way keeps its own."""
    play_a_little(sim)
    open_item(sim, "Options")
    sim.act("turn", str(OPTIONS.index(label)))
    assert sim.board.controller.screen().footer == APPLIES_NEXT_GAME
    sim.act("click", "knob")
    controller = sim.board.controller
    assert controller.footer.message == said
    assert controller.game.options == controller.game.start_options  # unchanged in the game
    assert controller.settings.options != controller.game.options
    assert sim.store.export()[-1] == "hand Blue 4"
