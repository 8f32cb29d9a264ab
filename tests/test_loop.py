"""The board's main loop (firmware/board/loop.py): it ends on the settled strip, where the ledger's pegs
are, after every step, a slide and the win chase, and it wakes on its own event."""

import time

import pytest
from helpers import expected, script_to_win

from firmware.board import loop as app
from firmware.board.pc.simulator import Simulator, read_pegs
from firmware.config import load_config

from board_thread import BoardThread


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


def test_the_loop_wakes_on_its_own_event_never_a_fake_input(tmp_path):
    """An input sets the loop's wake event; a stop, the club and the ledger check set it too, and put
    nothing on the input queue; a step then comes back at once."""
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3")
    board, controls = sim.board, sim.controls
    try:
        sim.act("turn", "1")
        assert not board.wake.is_set() and controls.events.empty()
        controls.click("red")
        assert board.wake.is_set() and not controls.events.empty()  # the input itself wakes the loop
        board.step(0)
        assert not board.wake.is_set() and controls.events.empty() and board.controller.game.state.scores == (1, 0)
        for wake in (board._club_changed, board.stop):
            wake()
            assert board.wake.is_set() and controls.events.empty()  # no InputEvent("wake") any more
            started = time.monotonic()
            board.step(30)
            assert time.monotonic() - started < 10  # a ceiling: the step did not sleep its 30 s
            assert not board.wake.is_set()
    finally:
        sim.close()


class _RefusedLink:
    """A club link whose hub refused one of the table's games (the link's own part: test_club_refusals)."""

    def __init__(self):
        self.waiting = ["The hub refused game 1: it counts only if the director says so"]

    def connection(self) -> str:
        return "club ok"

    def next_game(self) -> str:
        return ""

    def refusals(self) -> list[str]:
        taken, self.waiting = self.waiting, []
        return taken


@pytest.mark.slow
def test_a_refusal_the_hub_told_is_a_notice_on_the_oled(tmp_path):
    """What the hub refused is shown in full as the club's notice until the next input, and said once."""
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3")
    board = sim.board
    try:
        board.club = _RefusedLink()
        assert board._club_status()
        screen = board.controller.notices.screen()
        assert screen.title == "club problem" and " ".join(screen.lines).startswith("The hub refused game 1")
        board._club_status()
        assert not board._club_status()  # said once
    finally:
        board.club = None
        sim.close()
