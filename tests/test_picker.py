"""Check my count through the mock pins: cards by rank and suit, the paged breakdown, muggins from it."""

import pytest
from docs_text import doc_text
from helpers import make

from firmware.board.pc.script import parse_script
from firmware.board.pc.simulator import run_script
from firmware.board.picker import Breakdown, fits, typed
from firmware.config import load_config
from scorer.cards import parse_card, parse_cards
from scorer.counting import score_hand
from scorer.game import Entry, EntryKind

# 5C 5D JC QC + 5H, the rank dial starting on 5: two presses, 6 detents, a press,
# 1 detent, a press, 6 detents (Q K A 2 3 4 5) and the starter's press.
TYPICAL = """
hold menu    # check my count
click red    # 5C
click blue   # 5D
turn 6
click red    # JC
turn 1
click red    # QC
turn 6
click green  # the starter, 5H
"""


@pytest.fixture
def sim_overrides():
    """The sim fixture's board (conftest.py) plays muggins."""
    return ("game.muggins=true",)


def presses(script: str) -> int:
    """Physical actions in a script: each press or hold, and each detent of a turn."""
    return sum(abs(int(arg)) if verb == "turn" else 1 for _, verb, arg in parse_script(script.splitlines()))


def act(sim, script: str) -> None:
    for _, verb, argument in parse_script(script.splitlines()):
        sim.act(verb, argument)


def enter(sim, cards: str) -> None:
    """Type cards into the open checker: the shortest turn to each rank, then its suit's button."""
    checker = sim.board.controller.panels[-1]
    buttons = dict(zip("CDHS", ("red", "blue", "green", "yellow")))
    for card in (parse_card(text) for text in cards.split()):
        steps = (card.rank - checker.rank) % 13
        sim.act("turn", str(steps if steps <= 6 else steps - 13))
        sim.act("click", buttons[card.suit])


def test_a_typical_hand_in_nineteen_presses(tmp_path):
    """The typical hand takes 19 actions from the game screen to its breakdown."""
    result = run_script(TYPICAL.splitlines(), load_config(), tmp_path / "l.sqlite3")
    assert presses(TYPICAL) == 19
    assert result["screen"]["title"] == "Hand 20  1/4"
    assert result["screen"]["lines"] == ["5C 5D JC QC + 5H", "fifteens 14, pairs 6"]


def test_the_oled_says_which_button_is_which_suit(sim):
    """The entry screen names the suit of each colour button and the card being entered."""
    sim.act("hold", "menu")
    screen = sim.board.controller.screen()
    assert screen.title == "Hand: card 1 of 4" and screen.big == "5"
    assert screen.big_caption == "red:C, blue:D, green:H, yellow:S"
    sim.act("turn", "-4")
    sim.act("click", "yellow")
    screen = sim.board.controller.screen()
    assert screen.title == "Hand: card 2 of 4" and screen.big == "A" and screen.lines == ("AS",)


def test_the_breakdown_is_paged_with_the_knob_and_nothing_is_cut(sim):
    """Turning pages through every item with the running total; each line fits the OLED."""
    sim.act("hold", "menu")
    enter(sim, "5C 5D 5S JH 5H")  # 29: the best hand
    controller = sim.board.controller
    pages = []
    for _ in range(6):
        pages.append(controller.screen())
        sim.act("turn", "1")
    assert pages[0].title == "Hand 29  1/5" and pages[-1] == pages[-2]  # the last page stays
    items = [line for page in pages[1:5] for line in page.lines]
    assert items[0] == "fifteen 2: 5C JH" and items[-1] == "nobs 29: JH"
    assert len(items) == len(score_hand(parse_cards("5C 5D 5S JH".split()), parse_cards(["5H"])[0]).items)
    assert all(fits(line) for page in pages for line in (page.title, *page.lines, page.footer))
    assert all("~" not in line for page in pages for line in page.lines)


def test_long_items_wrap_rather_than_truncate():
    """A run of five tens and court cards is split over two lines, never cut."""
    breakdown = Breakdown(parse_cards("9C 10D JH QS".split()), parse_cards(["KC"])[0], crib=False)
    lines = [line for page in breakdown.pages for line in page]
    assert all(fits(line) for line in lines)
    text = " ".join(line.strip() for line in lines)
    assert "run 5: 9C 10D JH QS KC" in text


def test_knob_switches_to_a_crib_and_the_flush_rule_follows(sim):
    """A four-card flush counts 4 in a hand and nothing in a crib; the crib total shows too."""
    sim.act("hold", "menu")
    sim.act("click", "knob")  # a crib
    assert sim.board.controller.screen().title == "Crib: card 1 of 4"
    enter(sim, "2H 4H 6H 8H QS")
    screen = sim.board.controller.screen()
    assert screen.title == "Crib 0  1/1" and "as a hand: 4" in screen.lines


def test_the_total_lands_on_the_dial_ready_to_peg(sim):
    """Pressing the knob on the breakdown leaves the checker with the total dialled; the knob then pegs it."""
    sim.act("click", "red")  # heels
    sim.act("hold", "menu")
    enter(sim, "5C 5D JC QC 5H")
    sim.act("click", "knob")
    controller = sim.board.controller
    assert controller.dial == 20 and not controller.panels
    sim.act("click", "knob")
    assert controller.game.pegged[-1].describe() == "Blue hand 20"


def test_undo_takes_the_last_card_back_and_menu_leaves(sim):
    """Undo removes the last card (also from the breakdown); menu leaves without changing the dial."""
    sim.act("hold", "menu")
    enter(sim, "AC 2C 3C 4C 5C")
    sim.act("click", "undo")
    controller = sim.board.controller
    assert controller.screen().title == "Hand: the starter" and controller.screen().lines == ("AC 2C 3C 4C",)
    sim.act("click", "undo")
    assert controller.screen().lines == ("AC 2C 3C",)
    sim.act("click", "menu")
    assert not controller.panels and controller.dial == 0


def test_a_card_twice_is_refused_and_shown_over_the_checker(sim):
    """The same card again: an alert on the checker's footer, the cards unchanged; it goes at the next event."""
    sim.act("hold", "menu")
    enter(sim, "7D 7D")
    controller = sim.board.controller
    assert controller.screen().alert and controller.screen().footer == "7D is in already: each card is in the pack once"
    assert controller.panels[-1].hand == parse_cards(["7D"])
    sim.act("turn", "1")
    assert not controller.screen().alert


def test_holding_a_suit_enters_the_starter_first(sim):
    """Hold a suit's button: that card is the starter, whatever comes before; the hand then fills up."""
    sim.act("hold", "menu")
    sim.act("hold", "green")  # 5H, the starter
    enter(sim, "5C 5D JC QC")
    assert sim.board.controller.screen().title == "Hand 20  1/4"


def test_seven_card_hands_have_five_cards_and_the_crib_four(tmp_path):
    """The hand size follows the variant; the crib always has 4 cards."""
    board = make(tmp_path, "game.variant=seven-card")
    try:
        board.act("hold", "menu")
        assert board.board.controller.screen().title == "Hand: card 1 of 5"
        enter(board, "AC 2C 3C 4C 5C")  # the hand; the starter is next
        board.act("click", "knob")
        assert board.board.controller.screen().footer == "A crib has 4 cards: undo one first"
    finally:
        board.close()


def test_check_my_count_after_the_game_is_over(tmp_path):
    """Holding menu opens the checker on a finished game too."""
    board = make(tmp_path)
    try:
        store = board.store
        for entry in (Entry.peg("Red", 15),) * 8 + (Entry.peg("Red", 1),):
            store.apply(entry)
        assert board.board.controller.game.is_over
        board.act("hold", "menu")
        enter(board, "5C 5D JC QC 5H")
        assert board.board.controller.screen().title == "Hand 20  1/4"
    finally:
        board.close()


def test_muggins_claim_starts_from_a_checked_hand(sim):
    """Blue pegs 8 for a 20 hand; the check offers the 12 missed and Red's button claims them."""
    sim.act("click", "red")  # heels: Red 2
    sim.act("turn", "8")
    sim.act("click", "knob")  # Blue hand 8
    sim.act("hold", "menu")
    enter(sim, "5C 5D JC QC 5H")
    screen = sim.board.controller.screen()
    assert "Blue pegged 8: +12" in screen.lines and screen.footer == "colour: claim 12"
    sim.act("click", "red")
    last = sim.board.controller.game.pegged[-1]
    assert (last.kind, last.seat, last.points) == (EntryKind.MUGGINS, "Red", 12)
    assert sim.board.controller.game.state.scores == (14, 8) and not sim.board.controller.panels


def test_a_claim_from_the_check_is_refused_for_the_counter_himself(sim):
    """Blue's own button cannot claim on Blue's count: the rules' refusal shows over the breakdown."""
    sim.act("click", "red")
    sim.act("turn", "8")
    sim.act("click", "knob")
    sim.act("hold", "menu")
    enter(sim, "5C 5D JC QC 5H")
    sim.act("click", "blue")
    screen = sim.board.controller.screen()
    assert screen.alert and screen.footer == "Muggins is for an opponent's missed points"
    assert sim.board.controller.game.state.scores == (2, 8)


def test_muggins_on_the_crib_from_the_checker(sim):
    """After the crib the checker opens on a crib and offers the claim on it."""
    act(sim, "click red\nturn 2\nclick knob\nturn 2\nclick knob\nturn 2\nclick knob")  # heels, 2, 2, crib 2
    sim.act("hold", "menu")
    assert sim.board.controller.screen().title == "Crib: card 1 of 4"
    enter(sim, "2C 3D 4H 9S KC")  # a crib of 7: fifteen 2 (2+4+9), fifteen 4 (2+3+K), a run of 3
    screen = sim.board.controller.screen()
    assert screen.title == "Crib 7  1/2" and "Red pegged 2: +5" in screen.lines
    sim.act("click", "blue")
    last = sim.board.controller.game.pegged[-1]
    assert (last.kind, last.seat, last.points) == (EntryKind.MUGGINS, "Blue", 5)


def test_muggins_on_the_crib_by_holding_a_colour_button(sim):
    """The known bug: a claim on the crib from the buttons. Holding the claimant's button claims it;
    a press after the crib still pegs play points of the next deal."""
    act(sim, "click red\nturn 2\nclick knob\nturn 2\nclick knob\nturn 2\nclick knob")  # Red's crib 2
    sim.act("turn", "3")
    sim.act("hold", "blue")
    game = sim.board.controller.game
    assert (game.pegged[-1].kind, game.pegged[-1].seat, game.pegged[-1].points) == (EntryKind.MUGGINS, "Blue", 3)
    assert game.state.scores == (6, 5)
    sim.act("turn", "2")
    sim.act("click", "blue")  # Blue deals now: 2 dialled asks whether it is his heels
    sim.act("click", "blue")
    assert game.pegged[-1].kind is EntryKind.PEG


def test_holding_a_colour_button_with_nothing_dialled_says_what_to_do(sim):
    """A held colour button with 0 dialled changes nothing and says to dial first."""
    sim.act("turn", "8")
    sim.act("click", "knob")
    sim.act("hold", "red")
    controller = sim.board.controller
    assert controller.footer.message == "Dial the missed points first, then hold the button" and controller.footer.alert
    assert controller.game.pegged[-1].kind is EntryKind.HAND


def test_typed_names_are_one_capitalised_word():
    """Letters after the first are small, a space is a hyphen that starts a new capital."""
    name = ""
    for choice in ("M", "A", "R", "Y", "space", "space", "A", "N", "N"):
        name = typed(name, choice)
    assert name == "Mary-Ann"


def test_the_check_my_count_script_of_the_docs_runs(tmp_path):
    """docs/mock-board.md's check my count script ends on the breakdown's second page of a 20 hand."""
    page = doc_text("docs/mock-board.md")
    script = page.split("Check my count of 5C 5D JC QC with the starter 5H")[1].split("```\n")[1]
    result = run_script(script.splitlines(), load_config(), tmp_path / "l.sqlite3")
    assert result["screen"]["title"] == "Hand 20  2/4" and result["rejected"] == []
    assert result["screen"]["lines"][0] == "fifteen 2: 5C JC"


def test_switching_to_a_smaller_hand_that_is_complete_counts_it(tmp_path):
    """Five-card: three crib cards and the starter, then the knob to a hand of 3: the breakdown follows."""
    board = make(tmp_path, "game.variant=five-card")
    try:
        board.act("hold", "menu")
        board.act("click", "knob")  # a crib of 4
        enter(board, "5C 5D 5S")
        board.act("hold", "green")  # the starter, 5H
        assert board.board.controller.screen().title == "Crib: card 4 of 4"
        board.act("click", "knob")  # a hand of 3: complete
        assert board.board.controller.screen().title == "Hand 20  1/4"  # four fives: fifteens 8, pairs 12
    finally:
        board.close()
