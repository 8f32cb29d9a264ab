"""The menus (firmware/board/menu.py) through the mock pins: variants only as the board can show them, current
choices, player names; the way out at the top, wrapping, a hold to leave, and options at once."""

import pytest
from docs_text import doc_text
from helpers import make

from firmware.board.menu import APPLIES_NEXT_GAME, APPLIES_NOW, Item, Menu, tracks_reason
from firmware.board.screens import oled_image
from firmware.palette import PALETTES
from ledger.reader import LedgerReader
from scorer.variants import VARIANTS

# The main menu from the item it opens on (New game); Close is at the top, one turn back.
MENU = ["New game", "New match", "Variant", "First dealer", "Options", "Brightness", "Check my count",
        "Shut down", "Players", "Phones", "Display"]




def open_item(sim, label):
    """Open the menu and choose the item whose label starts with ``label``."""
    sim.act("hold", "knob")
    sim.act("turn", str(MENU.index(label)))
    sim.act("click", "knob")


def cursor_label(sim):
    screen = sim.board.controller.screen()
    return screen.lines[screen.highlight]


def test_variants_the_board_cannot_show_say_why_and_which_layout_would(sim):
    """On a two-track board three-hand and four-hand-individual are in brackets with the layout that shows them."""
    open_item(sim, "Variant")
    menu = sim.board.controller.panels[-1]
    reasons = {item.label: item.reason for item in menu.items}
    assert reasons["three-hand"] == "needs 3 tracks: layout three-track-121"
    assert reasons["four-hand-individual"] == "needs 4 tracks: layout four-track-121"
    assert [name for name, why in reasons.items() if not why] == [
        "Back", "six-card", "five-card", "seven-card", "four-hand", "low-ball"]
    sim.act("turn", "3")
    screen = sim.board.controller.screen()
    assert cursor_label(sim) == "(three-hand)" and screen.footer == "needs 3 tracks: layout three-track-121"


def test_an_unshowable_variant_cannot_be_started(sim):
    """Choosing it asks nothing and starts nothing: the reason shows as a refusal, the menu stays."""
    open_item(sim, "Variant")
    sim.act("turn", "3")
    sim.act("click", "knob")
    controller = sim.board.controller
    assert controller.screen().title == "Variant" and controller.screen().alert
    assert controller.screen().footer == "needs 3 tracks: layout three-track-121"
    assert controller.game.variant.name == "six-card" and controller.settings.variant == "six-card"


def test_the_variant_menu_opens_on_the_current_choice(sim):
    """After a refused variant and after a started one, the menu opens on the game being played."""
    open_item(sim, "Variant")
    sim.act("turn", "3")
    sim.act("click", "knob")  # refused
    sim.act("click", "menu")
    sim.act("click", "knob")  # Variant again
    assert cursor_label(sim) == "six-card"
    sim.act("turn", "2")  # seven-card
    sim.act("click", "knob")
    assert sim.board.controller.screen().title == "Start seven-card?"
    sim.act("turn", "1")
    sim.act("click", "knob")  # Yes
    assert sim.board.controller.game.variant.name == "seven-card"
    open_item(sim, "Variant")
    assert cursor_label(sim) == "seven-card"


def test_every_variant_starts_on_a_board_with_four_tracks(tmp_path):
    """On the four-track board nothing is refused: each variant starts from the menu."""
    board = make(tmp_path, "leds.layout=four-track-121")
    try:
        for index, name in enumerate(VARIANTS):
            open_item(board, "Variant")
            menu = board.board.controller.panels[-1]
            assert not any(item.reason for item in menu.items)
            board.act("turn", str(index + 1 - menu.cursor))  # Back first
            board.act("click", "knob")
            if board.board.controller.panels:  # Start NAME? (no question when the game is the same)
                board.act("turn", "1")
                board.act("click", "knob")
            assert board.board.controller.game.variant.name == name
    finally:
        board.close()


def test_too_few_names_is_a_reason_too(tmp_path):
    """With two players named, the three-player games ask for names first."""
    board = make(tmp_path, 'game.players=["Ann","Bob"]', "leds.layout=four-track-121")
    try:
        open_item(board, "Variant")
        reasons = {item.label: item.reason for item in board.board.controller.panels[-1].items}
        assert reasons["three-hand"] == "needs 3 players: name them in Players"
        assert reasons["six-card"] == ""
    finally:
        board.close()


def test_a_midgame_variant_change_says_the_game_ends_unfinished(sim):
    """Start another variant with entries pegged: the question says what Yes does to this game."""
    sim.act("turn", "3")
    sim.act("click", "blue")
    open_item(sim, "Variant")
    sim.act("turn", "1")
    sim.act("click", "knob")
    assert sim.board.controller.screen().footer == "ends this game unfinished"


def test_first_dealer_and_options_open_on_the_current_choice(sim):
    """The dealer menu opens on the dealer chosen; a toggled option keeps the cursor on it."""
    open_item(sim, "First dealer")
    sim.act("turn", "1")
    sim.act("click", "knob")  # Blue
    sim.act("click", "knob")  # First dealer again (the menu is still open)
    assert cursor_label(sim) == "Blue"
    sim.act("click", "menu")
    sim.act("turn", "1")
    sim.act("click", "knob")  # Options, on Muggins (Back above it)
    sim.act("click", "knob")  # Muggins: on
    assert cursor_label(sim) == "Muggins: on"


def name_player(sim, letters):
    """In the name picker: delete what is there, type ``letters`` (A-Z or space), then done."""
    picker = sim.board.controller.panels[-1]
    for _ in range(len(picker.name)):
        sim.act("click", "undo")
    from firmware.board.picker import CHOICES, DONE

    for letter in [*letters, DONE]:
        steps = (CHOICES.index(letter) - picker.cursor) % len(CHOICES)
        sim.act("turn", str(steps if steps <= len(CHOICES) // 2 else steps - len(CHOICES)))
        sim.act("click", "knob")


def test_player_names_set_on_the_board_are_kept_with_the_game(tmp_path):
    """Name red Ann on a fresh game: it starts again with seats=Ann,Blue; after a restart the name stays."""
    board = make(tmp_path)
    try:
        open_item(board, "Players")
        board.act("click", "knob")  # red
        assert board.board.controller.screen().title == "red button's name"
        name_player(board, "ANN")
        controller = board.board.controller
        assert controller.game.header().startswith("game six-card seats=Ann,Blue")
        assert cursor_label(board) == "red: Ann"
        board.act("click", "menu")
        board.act("click", "menu")
        assert not controller.panels
        board.act("turn", "3")
        board.act("click", "blue")  # a game under way now
        open_item(board, "Players")
        board.act("turn", "1")
        board.act("click", "knob")  # blue
        name_player(board, ["B", "O", "space", "J", "O"])
        assert controller.settings.players[:2] == ("Ann", "Bo-Jo")
        assert controller.footer.message == "New names: next game"
        assert controller.game.seats == ("Ann", "Blue")
    finally:
        board.close()
    again = make(tmp_path)
    try:
        assert again.board.controller.settings.players[:2] == ("Ann", "Blue")
    finally:
        again.close()


def test_a_name_taken_or_empty_is_refused(sim):
    """Two players cannot share a name, and done with no letters says what to do."""
    open_item(sim, "Players")
    sim.act("click", "knob")
    name_player(sim, "BLUE")
    controller = sim.board.controller
    assert controller.screen().footer == "Blue is taken: give each player their own name"
    sim.act("turn", "-1")  # delete
    for _ in range(4):
        sim.act("click", "knob")
    sim.act("turn", "1")  # done
    sim.act("click", "knob")
    assert controller.screen().footer == "Type a name first: turn to a letter, press the knob"
    assert controller.game.seats == ("Red", "Blue")


def test_the_menu_screen_shows_the_reason_on_two_lines():
    """A menu on an unavailable item draws two items and its reason; nothing is cut with ~ ."""
    menu = Menu(None, "Variant", [Item("six-card", print), Item("three-hand", print, "needs 3 tracks: layout three-track-121")], 1)
    screen = menu.screen()
    assert screen.lines == ("six-card", "(three-hand)") and screen.highlight == 1
    image = oled_image(screen)
    assert image.getbbox() is not None
    assert tracks_reason(VARIANTS["four-hand"], 2) == ""  # partners peg one side each: two tracks do


def test_the_display_item_switches_to_large_scores_and_back(sim):
    """Display: large scores puts the scores alone on the OLED (menus still in full); full brings the rest back."""
    assert sim.board.oled_screen().scores == ()
    open_item(sim, "Display")
    assert cursor_label(sim) == "full"  # opens on the current mode
    sim.act("turn", "1")
    sim.act("click", "knob")
    assert sim.board.controller.options.display_mode == "scores"
    assert [name for name, _, _ in sim.board.oled_screen().scores] == ["Red*", "Blue"]
    sim.act("hold", "knob")
    assert sim.board.oled_screen().title == "Menu"  # a menu is never hidden by the mode
    sim.act("turn", str(MENU.index("Display")))
    assert sim.board.oled_screen().lines[sim.board.oled_screen().highlight] == "Display: large scores"
    sim.act("click", "knob")
    assert cursor_label(sim) == "large scores"
    sim.act("turn", "-1")
    sim.act("click", "knob")
    assert sim.board.controller.options.display_mode == "full" and sim.board.oled_screen().scores == ()



def test_a_rename_mid_game_is_said_on_the_oled_and_applies_at_the_next_game(sim):
    """Renaming a player while a game is under way: the Players menu says the new names wait for the
    next game, the board's screen says so when the menu closes, and the next new game has them."""
    from dataclasses import replace

    from PIL import Image, ImageDraw

    from firmware.board.menu import NAMES_NEXT_GAME
    from firmware.board.screens import font

    controller = sim.board.controller
    open_item(sim, "Players")
    assert controller.screen().footer == ""  # nothing pegged yet: a name applies at once
    sim.act("click", "menu")
    sim.act("click", "menu")
    sim.act("turn", "3")
    sim.act("click", "blue")  # a game under way
    open_item(sim, "Players")
    assert controller.screen().footer == ""
    sim.act("turn", "1")
    sim.act("click", "knob")  # blue
    name_player(sim, "BO")
    screen = controller.screen()
    assert screen.title == "Players" and screen.footer == NAMES_NEXT_GAME and cursor_label(sim) == "blue: Bo"
    assert ImageDraw.Draw(Image.new("1", (128, 64))).textlength(NAMES_NEXT_GAME, font=font(10)) <= 126  # one line
    assert oled_image(screen).tobytes() != oled_image(replace(screen, footer="")).tobytes()  # drawn
    sim.act("click", "menu")
    sim.act("click", "menu")
    assert not controller.panels
    assert controller.screen().footer == NAMES_NEXT_GAME
    assert controller.game.seats == ("Red", "Blue") and controller.game.state.scores[1] == 3
    open_item(sim, "New game")
    sim.act("turn", "1")
    sim.act("click", "knob")  # Yes
    assert controller.game.seats == ("Red", "Bo")
    open_item(sim, "Players")
    assert controller.screen().footer == ""  # nothing waits now
    playing = " ".join(doc_text("docs/playing.md").split())
    assert f'they apply from the next new game, and the OLED says "{NAMES_NEXT_GAME}"' in playing


# The options menu from Muggins, where it opens (Back is one turn back, at the top).
OPTIONS = ["Muggins", "Tones", "Palette", "Exact-out", "Skunk lines"]



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
    sim.act("turn", str(MENU.index(label)))
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
    sim.act("turn", str(-2 - (len(MENU) + 1)))  # round once backwards (Close too), and one more
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
