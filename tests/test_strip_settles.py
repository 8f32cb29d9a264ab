"""The strip ends on the settled board: what the LEDs show, decoded, is where the ledger's pegs are."""

import json
import time

import pytest
from helpers import script_to_win

from firmware.board import loop as app
from firmware.board.frames import BoardView, LedStyle, led_frame
from firmware.board.pc.simulator import Simulator, read_pegs, run_script
from firmware.config import load_config
from hardware.layout import load_layout

from board_thread import BoardThread


def expected(sides):
    """What the strip should show for the ledger's sides: the back peg is lit apart from the front
    once the side has scored (at 0-0 both pegs share the start hole and only the front is lit)."""
    return [{"front": s["score"], "back": s["back"] if s["score"] else None} for s in sides]


@pytest.mark.parametrize("script, strip", [
    (["click red"], [{"front": 2, "back": 0}, {"front": 0, "back": None}]),
    (["click red", "turn 2", "click blue", "turn 3", "click red"],
     [{"front": 5, "back": 2}, {"front": 2, "back": 0}]),
    (["click red", "turn 2", "click blue", "turn 3", "click red", "click undo"],
     [{"front": 2, "back": 0}, {"front": 2, "back": 0}]),
    (["turn 12", "click blue", "click undo"], [{"front": 0, "back": None}, {"front": 0, "back": None}]),
])
def test_simulate_json_strip_after_heels_play_and_undo(tmp_path, capsys, script, strip):
    """simulate --json: ``strip`` is what the last frame shows: after heels, play points and an undo."""
    from firmware.cli import main

    path = tmp_path / "script.txt"
    path.write_text("\n".join(script) + "\n")
    assert main(["simulate", str(path), "--json", "--state", str(tmp_path / "l.sqlite3")]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["strip"] == strip == expected(state["sides"])


def test_simulate_strip_at_the_win_after_the_chase(tmp_path):
    """At the win the winner's front peg is in the game hole once the chase has ended."""
    result = run_script(script_to_win(), load_config(), tmp_path / "l.sqlite3")
    assert result["winner"] == "Red" and result["rejected"] == []
    assert result["strip"][0]["front"] == 121 == result["target"]
    assert result["strip"] == expected(result["sides"])


def test_simulate_strip_on_the_second_lap_of_a_181_game(tmp_path):
    """Seven-card (to 181) past 120: the strip reads the front on lap 2 (hole + 120), as the ledger says."""
    config = load_config(overrides=["game.variant=seven-card"])
    result = run_script(script_to_win(target=140), config, tmp_path / "l.sqlite3")
    assert result["target"] == 181 and result["rejected"] == []
    red = result["sides"][0]
    assert red["score"] > 120 and red["back"] > 120
    assert result["strip"] == expected(result["sides"])


def test_every_frame_after_a_step_is_settled_in_a_whole_game(tmp_path):
    """After every action of a whole game the strip's last frame shows the ledger's pegs."""
    sim = Simulator(load_config(), tmp_path / "l.sqlite3")
    try:
        for line in script_to_win():
            sim.act(*line.split())
            state = sim.board.controller.game.state
            sides = [{"score": s, "back": b} for s, b in zip(state.scores, state.backs)]
            assert sim.strip_pegs() == expected(sides), line
    finally:
        sim.close()


def test_a_mid_slide_frame_reads_as_the_hole_it_shows(tmp_path):
    """The decoder reads the frame, not the ledger: a frame drawn mid-slide shows the peg short of its hole."""
    sim = Simulator(load_config(), tmp_path / "l.sqlite3")
    try:
        sim.act("turn", "10")
        sim.act("click", "red")
        move = sim.board.moves[0]
        sim.board.draw(now=move.at + 0.1)  # halfway through the 0.2 s slide
        assert sim.strip_pegs()[0] == {"front": 5, "back": 0}
        sim.board.draw(now=move.at + 1)
        assert sim.strip_pegs()[0] == {"front": 10, "back": 0}
    finally:
        sim.close()


@pytest.mark.parametrize("target", [61, 121, 181])
def test_decoding_any_peg_position_gives_it_back(target):
    """Every front score and a range of back pegs, drawn and decoded: the same scores (laps of a 181 game too)."""
    layout = load_layout("classic-121")
    style = LedStyle()
    for front in range(target + 1):
        for back in sorted({front - d for d in (1, 2, 5, 29, 60)} if front else {0}):
            if back < 0:
                continue
            view = BoardView(target, (front, 3), (back, 1), dealer_side=0, winner_side=None)
            pegs = read_pegs(layout, led_frame(layout, view, style), style, target, 2)
            assert pegs[0] == {"front": front, "back": back if front else None}, (front, back)
            assert pegs[1] == {"front": 3, "back": 1}


def test_the_second_lap_shows_in_a_paler_shade_with_the_start_hole_lit(tmp_path):
    """181 (seven-card): on lap 2 the pegs are a paler red and the start hole is lit in it (the lap mark)."""
    layout = load_layout("classic-121")
    style = LedStyle()
    view = BoardView(181, (130, 20), (125, 0), dealer_side=1, winner_side=None)
    frame = led_frame(layout, view, style)
    pale = (255, 102, 102)
    assert frame[layout.starts[0].led] == frame[layout.led(0, 10)] == pale  # lap mark, front peg
    assert frame[layout.led(0, 5)] == (64, 26, 26)  # the back peg, dimmer, in the same shade
    assert read_pegs(layout, frame, style, 181, 2) == [{"front": 130, "back": 125}, {"front": 20, "back": 0}]


def test_a_back_peg_on_the_first_lap_behind_a_front_on_the_second():
    """Front 122 (lap 2, hole 2), back 118 (lap 1): each peg in its own lap's shade, read back exactly."""
    layout = load_layout("classic-121")
    style = LedStyle()
    frame = led_frame(layout, BoardView(181, (122, 0), (118, 0), 0, None), style)
    assert frame[layout.led(0, 118)] == (64, 0, 0) and frame[layout.led(0, 2)] == (255, 102, 102)
    assert read_pegs(layout, frame, style, 181, 2)[0] == {"front": 122, "back": 118}


@pytest.mark.parametrize("now", [0.1, 0.6])
def test_a_blinking_back_peg_reads_in_either_half_of_its_blink(now):
    """With the back peg blinking, both its bright and its dim half read as the back peg."""
    layout = load_layout("classic-121")
    style = LedStyle(blink_back=True)
    frame = led_frame(layout, BoardView(121, (40, 12), (31, 3), 0, None), style, now=now)
    assert frame[layout.led(0, 31)] == ((64, 0, 0) if now < 0.5 else (22, 0, 0))
    assert read_pegs(layout, frame, style, 121, 2) == [{"front": 40, "back": 31}, {"front": 12, "back": 3}]


def test_three_laps_each_have_their_own_shade():
    """A game to 300: laps 1, 2 and 3 show three shades of the side's colour, each read back."""
    layout = load_layout("classic-121")
    style = LedStyle()
    shades = set()
    for front in (30, 150, 270):
        frame = led_frame(layout, BoardView(300, (front, 0), (front - 4, 0), 0, None), style)
        shades.add(frame[layout.led(0, 30)])
        assert read_pegs(layout, frame, style, 300, 2)[0] == {"front": front, "back": front - 4}
    assert shades == {(255, 0, 0), (255, 102, 102), (255, 204, 204)}


def test_sides_beyond_the_tracks_read_as_null():
    """A side with no track on the board has no pegs lit."""
    layout = load_layout("classic-121")
    view = BoardView(121, (4, 6, 8), (0, 0, 0), dealer_side=0, winner_side=None)
    pegs = read_pegs(layout, led_frame(layout, view, LedStyle()), LedStyle(), 121, 3)
    assert pegs[2] == {"front": None, "back": None} and pegs[1] == {"front": 6, "back": 0}


# ---- the real main loop, in a thread, on the real clock ---------------------

class RunningBoard(BoardThread):
    """Board.run() in a thread on mock devices and the real clock, read back as pegs on the strip."""

    def pegs(self):
        game = self.board.controller.game
        if not self.devices.strip.wanted:
            return None  # the loop has not drawn its first frame yet
        frame = self.devices.strip.wanted[-1]
        return read_pegs(self.devices.layout, frame, self.board.style, game.variant.target, len(game.sides))

    def ledger_pegs(self):
        state = self.board.controller.game.state
        return expected([{"score": s, "back": b} for s, b in zip(state.scores, state.backs)])

    def settled_on(self, pegs) -> bool:
        """The strip shows ``pegs`` and the loop has no frame left to draw."""
        return self.wait_until(lambda: self.pegs() == pegs and not self.board.needs_frame(time.monotonic()))


@pytest.mark.slow
def test_real_loop_ends_on_the_settled_strip_after_heels_play_and_undo(tmp_path):
    """Board.run() on the real clock: after heels, play points and an undo the last frame is settled."""
    running = RunningBoard(tmp_path)
    controls = running.devices.controls
    try:
        controls.click("red")  # heels: the bug left Red's peg on hole 1
        assert running.settled_on([{"front": 2, "back": 0}, {"front": 0, "back": None}])
        controls.turn(14)
        controls.click("blue")  # a 14-hole slide, 0.28 s
        assert running.settled_on([{"front": 2, "back": 0}, {"front": 14, "back": 0}])
        controls.turn(3)
        controls.click("red")
        assert running.settled_on([{"front": 5, "back": 2}, {"front": 14, "back": 0}])
        controls.click("undo")
        assert running.settled_on([{"front": 2, "back": 0}, {"front": 14, "back": 0}])
        assert running.pegs() == running.ledger_pegs()
        shown = running.board.frames_shown
        time.sleep(0.2)
        assert running.board.frames_shown == shown  # settled: no more frames while idle
    finally:
        running.stop()


@pytest.mark.slow
def test_real_loop_ends_on_the_settled_strip_after_the_win_chase(tmp_path, monkeypatch):
    """The win chase runs on the winner's track, then the last frame shows the pegs where they ended."""
    monkeypatch.setattr(app, "CELEBRATE_SECONDS", 0.5)
    lines = script_to_win()
    sim = Simulator(load_config(), tmp_path / "l.sqlite3")
    try:
        for line in lines[:-2]:  # all but Red's last, winning count
            sim.act(*line.split())
    finally:
        sim.close()
    running = RunningBoard(tmp_path)
    try:
        controls = running.devices.controls
        controls.turn(int(lines[-2].split()[1]))
        controls.click(lines[-1].split()[1])
        assert running.wait_until(lambda: running.board.controller.game.is_over)
        assert running.wait_until(lambda: running.pegs()[0]["back"] is None)  # the chase: many dim holes
        assert running.settled_on(running.ledger_pegs())
        assert running.pegs()[0]["front"] == 121
    finally:
        running.stop()
