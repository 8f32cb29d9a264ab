"""The menu through the mock pins: variants only as the board can show them, current choices, player names."""


from docs_text import doc_text
from helpers import make

from firmware.board.menu import Item, Menu, tracks_reason
from firmware.board.screens import oled_image
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
