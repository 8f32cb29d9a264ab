"""Whole games through the mock pins: LED frames, OLED content, resume, refusals (a double press of the
knob, a knob press in the play), the menu."""



from docs_text import doc_text
from helpers import DOUBLE, make
from PIL import Image

from firmware.board.outcome import Did
from firmware.board.pc.simulator import SimClock, Simulator, board_png, run_script
from firmware.board.pc.terminal import compose
from firmware.board.screens import oled_image
from firmware.config import load_config
from hardware.layout import load_layout

RED, BLUE = (255, 0, 0), (0, 80, 255)


def dial_and(sim, points, button):
    sim.act("turn", str(points - sim.board.controller.dial))
    sim.act("click", button)


def play_deal(sim, pegs, counts):
    """pegs: [(button, points)] in the play; counts: the show counts in order (knob)."""
    for button, points in pegs:
        dial_and(sim, points, button)
    for points in counts:
        dial_and(sim, points, "knob")


def settled(sim):
    sim.board.draw(settled=True)
    return sim.devices.strip.wanted[-1]


def scores(sim):
    return sim.board.controller.game.state.scores


def test_a_whole_game_from_start_to_win(sim):
    """Twelve deals pegged with the buttons and the knob; Red wins, Blue is skunked."""
    layout = sim.devices.layout
    sim.act("click", "red")  # his heels for Red, the first dealer
    deals = [
        ([("blue", 2), ("red", 3)], [8, 12, 4]),     # Red deals: Blue hand, Red hand, Red crib
        ([("red", 2), ("blue", 1)], [10, 6, 2]),     # Blue deals: Red hand, Blue hand, Blue crib
    ] * 6
    for pegs, counts in deals:
        if sim.board.controller.game.is_over:
            break
        play_deal(sim, pegs, counts)
    game = sim.board.controller.game
    assert game.is_over
    assert game.outcome.winner == "Red" and game.outcome.kind.value == "skunk"
    assert scores(sim)[0] == 121
    frame = settled(sim)
    assert frame[layout.game_hole.led] == RED                  # the winner's peg in the game hole
    assert frame[layout.led(1, scores(sim)[1])] == BLUE        # Blue's front peg
    back = game.state.backs[1]
    assert frame[layout.led(1, back)] == tuple(int(c * 0.25 + 0.5) for c in BLUE)  # the dimmer back peg
    screen = sim.board.controller.screen()
    assert screen.lines[0].startswith("Red wins by") and screen.lines[0].endswith(", a skunk")
    assert sim.devices.display.image.getbbox() is not None


def test_front_and_back_pegs_and_marks_on_the_leds(sim):
    """Front peg full colour, back peg dimmer, skunk lines and game hole faint, the dealer's track marked."""
    layout = sim.devices.layout
    dial_and(sim, 5, "blue")
    dial_and(sim, 3, "blue")
    frame = settled(sim)
    assert frame[layout.led(1, 8)] == BLUE
    assert frame[layout.led(1, 5)] == (0, 20, 64)
    faint = (15, 15, 15)
    assert frame[layout.led(1, 91)] == frame[layout.led(1, 61)] == frame[layout.game_hole.led] == faint
    assert frame[layout.led(0, 91)] == frame[layout.led(0, 61)] == (31, 0, 0)  # Red deals: Red's lines in red
    assert frame[layout.starts[0].led] == RED and frame[layout.starts[1].led] == (0, 0, 0)
    assert sum(1 for c in frame if c != (0, 0, 0)) == 2 + 4 + 1 + 1  # Blue's pegs, lines, game hole, Red at the start


def test_slide_animation_moves_the_front_peg(sim):
    """Right after pegging, the front peg slides from its old hole towards the new one."""
    layout = sim.devices.layout
    dial_and(sim, 10, "red")
    move = sim.board.moves[0]
    sim.board.draw(now=move.at + 0.1)  # halfway through a 0.2 s slide
    frame = sim.devices.strip.wanted[-1]
    assert frame[layout.led(0, 5)] == RED and frame[layout.led(0, 10)] != RED
    sim.board.draw(now=move.at + 1)
    assert sim.devices.strip.wanted[-1][layout.led(0, 10)] == RED


def test_board_resumes_after_a_restart(tmp_path):
    """A new board on the same ledger shows exactly the acknowledged state."""
    first = make(tmp_path)
    dial_and(first, 6, "blue")
    dial_and(first, 8, "knob")
    expected = first.board.controller.game.state
    first.devices.controls.close()  # a power cut: no clean shutdown of the ledger;
    first.store._lock.release(remove=False)  # the kernel drops a dead writer's lock, its file stays
    second = make(tmp_path)
    try:
        assert second.board.controller.game.state == expected
        assert settled(second)[second.devices.layout.led(1, 14)] == BLUE
    finally:
        second.close()


def test_check_my_count_from_the_menu(sim):
    """Check my count from the menu: rank with the knob, suit with a colour button; the total lands on the dial."""
    sim.act("hold", "knob")
    sim.act("turn", "6")
    assert sim.board.controller.screen().lines[sim.board.controller.screen().highlight] == "Check my count"
    sim.act("click", "knob")
    controller = sim.board.controller
    assert controller.screen().title == "Hand: card 1 of 4" and controller.screen().big == "5"
    for turns, button in ((-4, "red"), (0, "blue"), (0, "green"), (0, "yellow"), (1, "red")):
        sim.act("turn", str(turns))  # AC AD AH AS, starter 2C
        sim.act("click", button)
    assert controller.screen().title == "Hand 12  1/3"
    sim.act("click", "knob")
    assert controller.dial == 12 and controller.footer.message == "Checked hand: 12" and not controller.panels


def test_script_runner_reports_refusals_and_snapshots(tmp_path):
    """simulate: the final state JSON with refused presses, and PNGs after every step."""
    script = ["click red", "turn 2", "click blue", "turn 19", "click knob", "turn -11", "click knob"]
    result = run_script(script, load_config(), tmp_path / "l.sqlite3", tmp_path / "snaps")
    assert result["sides"][1]["score"] == 10 and result["next"] == {"seat": "Red", "count": "hand"}
    assert result["rejected"] == [{"line": 5, "entry": "click knob", "error": "19 is not a possible hand"}]
    shots = sorted(p.name for p in (tmp_path / "snaps").iterdir())
    assert len(shots) == 16 and shots[0] == "step-0000-leds.png" and shots[-1] == "step-0007-oled.png"


def test_missing_oled_carries_on(tmp_path):
    """With the display off (or missing) the board still keeps score on the LEDs."""
    board = make(tmp_path, "display.enabled=false")
    try:
        dial_and(board, 3, "blue")
        assert scores(board) == (0, 3) and board.devices.display is None
    finally:
        board.close()


def test_sigterm_path_turns_leds_off_and_clears(sim):
    """Closing the board shows an all-off frame."""
    sim.close()
    assert set(sim.devices.strip.last_frame) == {(0, 0, 0)}


# ---- golden images ---------------------------------------------------------


def test_led_board_png(tmp_path):
    """The LED board picture has a dot for every hole."""
    layout = load_layout("classic-121")
    frame = [(0, 0, 0)] * layout.strip_leds
    frame[layout.led(0, 1)] = RED
    board_png(layout, frame, tmp_path / "b.png")
    image = Image.open(tmp_path / "b.png")
    assert RED in {image.getpixel((x, y)) for x in range(40) for y in range(40)}


def test_simulate_command_json_and_syntax_errors(tmp_path, capsys):
    """simulate prints the JSON state; a bad line exits 2 with file:line."""
    import json

    from firmware.cli import main

    page = doc_text("docs/mock-board.md")
    example = page.split("For example, his heels")[1].split("```\n")[1]
    script = tmp_path / "s.txt"
    script.write_text(example)
    assert main(["simulate", str(script), "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert [s["score"] for s in state["sides"]] == [2, 10] and state["rejected"] == []
    script.write_text("turn 2\nspin knob\n")
    assert main(["simulate", str(script)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"{script}:2: unknown action 'spin': use click, hold, down, up, turn, wait or enter")


def test_laps_in_a_181_game():
    """Past 120 the front peg goes round again in a paler shade, and the start hole lights in it (the lap mark)."""
    from firmware.board.frames import BoardView, LedStyle, led_frame
    from hardware.layout import peg_hole

    layout = load_layout("classic-121")
    assert peg_hole(130, 181) == (10, 1) and peg_hole(181, 181) == (121, 0) and peg_hole(120, 181) == (120, 0)
    view = BoardView(target=181, scores=(130, 20), backs=(125, 10), dealer_side=1, winner_side=None,
                     skunk_marks=(151, 121))  # ACC in a 181 game
    frame = led_frame(layout, view, LedStyle())
    assert frame[layout.led(0, 10)] == (255, 102, 102) and frame[layout.led(0, 5)] == (64, 26, 26)
    assert frame[layout.starts[0].led] == (255, 102, 102)  # second lap
    assert frame[layout.led(0, 31)] == (15, 15, 15)  # the skunk line at 151 falls on hole 31 (second lap)


def test_three_hand_game_on_the_three_track_board(tmp_path):
    """Three players, three tracks: the show goes round from the dealer's left, dealer last, then crib."""
    board = make(tmp_path, "game.variant=three-hand", "leds.layout=three-track-121")
    try:
        controller = board.board.controller
        assert controller.screen().big_caption.endswith("knob: Blue hand")
        dial_and(board, 3, "green")
        dial_and(board, 1, "knob")  # Blue's hand ends the play: the rest of the show is next
        assert controller.screen().big_caption == "knob: Green hand > Red hand > Red crib"
        board.act("click", "undo")
        for points in (4, 6, 8, 2):
            dial_and(board, points, "knob")
        assert scores(board) == (10, 4, 9)
        assert controller.game.dealer == "Blue"
        frame = settled(board)
        assert frame[board.devices.layout.led(2, 9)] == (0, 192, 0)
    finally:
        board.close()


def test_check_my_count_says_when_a_crib_would_count_otherwise(sim):
    """A four-card flush counts in the hand but not in the crib: the board says both."""
    from firmware.board.picker import Breakdown
    from scorer.cards import parse_cards

    cards = parse_cards("2H 4H 6H 8H QS".split())
    breakdown = Breakdown(cards[:4], cards[4], crib=False)
    assert breakdown.total == 4 and "as a crib: 0" in breakdown.screen(0).lines


def test_a_double_press_in_a_script_is_refused(tmp_path):
    """The measured script, turn 8 / click knob / click knob, on the mock board (its clock held): no "Red hand 0"."""
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3", clock=SimClock(lambda: 1000.0))
    try:
        sim.act("turn", "8")
        sim.act("click", "knob")
        outcomes = [outcome for outcome in sim.act("click", "knob") if outcome.did is not Did.NOTHING]
        assert [(outcome.did, outcome.message) for outcome in outcomes] == [(Did.REFUSED, DOUBLE)]
        assert [entry.describe() for entry in sim.board.controller.game.pegged] == ["Blue hand 8"]
        sim.clock.skip(1.5)
        sim.act("click", "knob")
        assert sim.board.controller.game.pegged[-1].describe() == "Red hand 0"
    finally:
        sim.close()


PLAY_THEN_KNOB = ["turn 2", "click blue", "turn 2", "click knob"]


def test_a_knob_press_in_the_play_says_the_play_is_over(tmp_path):
    """The measured script: the OLED and the terminal say the play is over, with a tone of its own; nothing refused."""
    sim = Simulator(load_config(overrides=["buzzer.enabled=true"]), tmp_path / "ledger.sqlite3")
    try:
        outcomes = []
        for line in PLAY_THEN_KNOB:
            outcomes += sim.act(*line.split())
        last = outcomes[-1]
        assert last.accepted and last.play_over and last.message == "Play over: Blue hand 2 (undo if not)"
        assert not any(outcome.refused for outcome in outcomes)
        assert [label for label, _ in sim.devices.buzzer.played] == ["accept", "play-over"]
        screen = sim.board.oled_screen()
        assert screen.footer == "Play over: Blue hand 2 (undo if not)" and screen.alert
        assert sim.devices.display.image.convert("1").tobytes() == oled_image(screen).tobytes()
        text = "\n".join(compose(sim, 80, 24, colour=False).lines())
        assert "! Play over: Blue hand 2" in text and "(undo if not)" in text
    finally:
        sim.close()


def test_the_play_over_message_is_no_refusal_in_a_script(tmp_path):
    """simulate lists no refusal for the knob press that ends the play."""
    result = run_script(PLAY_THEN_KNOB, load_config(), tmp_path / "ledger.sqlite3")
    assert result["rejected"] == [] and result["screen"]["footer"].startswith("Play over: Blue hand 2")


def test_the_oled_hint_names_the_colour_buttons_while_the_play_is_on(tmp_path):
    """In the play the caption names the colour buttons for play points first; in the show, the knob's counts."""
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3")
    try:
        sim.act("turn", "2")
        sim.act("click", "blue")
        assert sim.board.oled_screen().big_caption == "colour: play points; knob: Blue hand"
        sim.act("click", "knob")
        assert sim.board.oled_screen().big_caption == "knob: Red hand > Red crib"
    finally:
        sim.close()
