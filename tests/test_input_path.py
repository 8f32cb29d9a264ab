"""Every input reaches the ledger one way: the loop feeds it to the controller, which enters it.

Traced by the call stack at the ledger's write (``LedgerWriter.apply``) for a phone's tap
through the board's socket, a press of the board's own buttons and a script's entry line.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from firmware.board.pc.simulator import Simulator
from firmware.config import load_config
from firmware.wire.relay import ask, socket_path
from ledger.writer import LedgerWriter

from board_thread import BoardThread
from waits import CEILING_S, eventually

ROOT = Path(__file__).resolve().parent.parent
MOST_FRAMES = 10  # from the loop's step to the ledger's write


def _writes(monkeypatch) -> list[list[tuple[str, str]]]:
    """Each ledger write's project frames, outermost first, as (file, function), from the loop's step on."""
    writes: list[list[tuple[str, str]]] = []
    apply = LedgerWriter.apply

    def traced(self, *args, **kwargs):
        frames = [(str(Path(frame.filename).resolve().relative_to(ROOT)), frame.name)
                  for frame in traceback.extract_stack()[:-1]
                  if Path(frame.filename).resolve().is_relative_to(ROOT)]
        starts = [k for k, (file, name) in enumerate(frames)
                  if (file, name) in (("firmware/board/loop.py", "step"), ("firmware/board/pc/simulator.py", "act"))]
        writes.append(frames[starts[-1]:] + [("ledger/writer.py", "apply")] if starts else frames)
        return apply(self, *args, **kwargs)

    monkeypatch.setattr(LedgerWriter, "apply", traced)
    return writes


def _one_way(path: list[tuple[str, str]]) -> None:
    """The loop hands the input to the controller's one entry point and never comes back into it;
    the controller enters it; the ledger writes it."""
    files = [file for file, _ in path]
    handle = path.index(("firmware/board/controller.py", "handle"))
    assert all(file.startswith("firmware/board/") and not file.endswith("controller.py") for file in files[:handle]), path
    assert set(files[handle:-1]) == {"firmware/board/controller.py"}, path
    assert path[-3:] == [("firmware/board/controller.py", "enter"), ("firmware/board/controller.py", "_apply"),
                         ("ledger/writer.py", "apply")], path
    assert len(path) <= MOST_FRAMES, path


def test_a_phones_tap_reaches_the_ledger_one_way(tmp_path, monkeypatch):
    """A paired phone's entry, off the board's socket: the loop's step feeds it to the controller,
    which checks it, enters it and answers; the loop only sends the answer back."""
    writes = _writes(monkeypatch)
    running = BoardThread(tmp_path)
    try:
        code = running.board.controller.phones.new_code(0)
        path = socket_path(tmp_path / "l.sqlite3")
        paired = ask(path, {"op": "pair", "code": code})
        assert paired["ok"], paired
        writes.clear()
        answer = ask(path, {"op": "enter", "session": paired["session"], "id": "tap-1", "act": "peg", "points": 2})
        assert answer == {"ok": True, "text": "Red peg 2", "n": 0}, answer
        assert eventually(lambda: writes, CEILING_S)
        (tap,) = writes
        assert tap[:3] == [("firmware/board/loop.py", "step"), ("firmware/board/loop.py", "_serve_phones"),
                           ("firmware/board/loop.py", "feed")], tap
        _one_way(tap)
    finally:
        running.stop()


def test_a_press_and_a_script_line_take_the_taps_path_from_the_controller_on(tmp_path, monkeypatch):
    """The knob's colour button and a script's enter line: the same entry point, the same way to the ledger."""
    writes = _writes(monkeypatch)
    sim = Simulator(load_config(), tmp_path / "l.sqlite3")
    try:
        writes.clear()
        sim.act("turn", "2")
        sim.act("click", "blue")
        sim.act("enter", "red peg 3")
        assert [entry.describe() for entry in sim.store.game.pegged] == ["Blue peg 2", "Red peg 3"]
        press, script = writes
        for path in (press, script):
            _one_way(path)
        assert ("firmware/board/loop.py", "step") in press and ("firmware/board/pc/simulator.py", "act") == script[0]
    finally:
        sim.close()
