"""One view of a game (firmware/board/view.py): made once per change, drawn by the LEDs, the OLED and the
terminal board, with the result and the tally once the game is over."""

from firmware.board.pc.simulator import Simulator, run_script
from firmware.board.pc.terminal import compose, score_line
from firmware.board.screens import scores_screen
from firmware.board.view import scores_title, tally_text, won_text
from firmware.config import load_config


def test_one_view_per_change_drawn_by_the_leds_the_oled_and_the_terminal(tmp_path):
    """The board makes one view per change; the dealer's mark, the scores and the next count on the
    OLED, in the large scores and on the terminal board all come from it, and move with the deal."""
    sim = Simulator(load_config(overrides=["game.skunk=lurch"]), tmp_path / "ledger.sqlite3")
    board = sim.board
    try:
        view = board.view()
        assert board.view() is view  # nothing changed: the same view
        assert view.skunk_marks == (61,) and view.board.skunk_marks == (61,) and view.dealer_side == 0
        sim.act("turn", "2")
        assert board.view() is view  # the dial is not the game
        sim.act("click", "blue")
        view = board.view()
        assert view.scores == (0, 2) and view.in_play and view.show[0] == ("Blue", "hand")
        assert scores_title(view) == board.oled_screen().title == "Red* 0  Blue 2"
        assert scores_screen(view).scores[0][0] == "Red*"
        assert score_line(view).startswith("Red 0 (deals) · Blue 2 │ next: Blue hand │ six-card, deal 1, the play")
        for points in (8, 12, 4):  # the show: Blue's hand, Red's hand, Red's crib; then Blue deals
            sim.act("turn", str(points))
            sim.act("click", "knob")
        view = board.view()
        assert view.dealer_side == 1 and view.deal == 2
        assert board.oled_screen().title == "Red 16  Blue* 10"
        assert " · Blue 10 (deals) │ next: Red hand" in "\n".join(compose(sim, 80, 24, colour=False).lines())
        layout = sim.devices.layout
        sim.board.draw(settled=True)
        frame = sim.devices.strip.wanted[-1]
        assert frame[layout.led(1, 61)] != frame[layout.led(0, 61)]  # the dealer's track marks its line in its colour
    finally:
        sim.close()


def test_the_view_of_a_finished_game_has_the_result_and_the_tally(tmp_path):
    """Game over: the winner's side, how it was won and the match tally, as the OLED says them."""
    from helpers import script_to_win

    result = run_script(script_to_win(), load_config(), tmp_path / "ledger.sqlite3")
    assert result["screen"]["lines"][0] == "Red wins by 53, a skunk"
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3")
    try:
        view = sim.board.view()
        assert view.winner_side == 0 and view.show == () and won_text(view) == "Red wins by 53, a skunk"
        assert tally_text(view) == "Red won 1 game (3 game points)"
        assert sim.board.oled_screen().lines[1:] == ("Red won 1 game (3", "game points)")
    finally:
        sim.close()
