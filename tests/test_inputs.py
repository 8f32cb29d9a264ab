"""Buttons and encoder on gpiozero MockFactory pins: events, debounce, hold, turns."""

import pytest

from hardware.errors import HardwareError
from hardware.inputs import KNOB, Debouncer, InputPins, ManualClock, MockControls


@pytest.fixture
def controls():
    board = MockControls(InputPins(hold_s=0.05))
    try:
        yield board
    finally:
        board.close()


def kinds(events):
    return [(e.kind, e.source, e.steps) for e in events]


def test_click_gives_press_release_click(controls):
    """A short press gives press, release and click, with its duration."""
    controls.click("red")
    events = controls.drain()
    assert kinds(events) == [("press", "red", 0), ("release", "red", 0), ("click", "red", 0)]
    assert events[-1].duration == pytest.approx((controls.pins.debounce_s + controls.pins.hold_s) / 2)


def test_a_slow_machine_never_turns_a_click_into_a_hold(controls):
    """Holds are timed on the mock's own clock: real time passing between press and release changes nothing."""
    import time

    controls.press("red")
    time.sleep(controls.pins.hold_s * 4)  # a busy machine stalls the script
    controls.clock.advance(controls.pins.hold_s / 2)
    controls.release("red")
    assert [e.kind for e in controls.drain()] == ["press", "release", "click"]
    controls.clock.advance(controls.pins.debounce_s * 2)
    controls.press("red")
    controls.clock.advance(controls.pins.hold_s)  # the hold falls due on the clock, at once
    assert [e.kind for e in controls.drain()] == ["press", "hold"]


def test_hold_gives_hold_and_no_click(controls):
    """Holding past hold_s gives a hold; the release after it is not a click."""
    controls.hold("undo")
    assert [e.kind for e in controls.drain()] == ["press", "hold", "release"]


def test_encoder_turns_and_knob(controls):
    """One clockwise detent is +1, one back is -1; the knob is a button too."""
    controls.turn(3)
    controls.turn(-1)
    controls.click(KNOB)
    assert kinds(controls.drain()) == [
        ("turn", "encoder", 1), ("turn", "encoder", 1), ("turn", "encoder", 1),
        ("turn", "encoder", -1), ("press", KNOB, 0), ("release", KNOB, 0), ("click", KNOB, 0)]


def test_contact_bounce_gives_one_press(controls):
    """A burst of edges inside the debounce time is one press."""
    controls.bounce("blue")
    controls.clock.advance(0.025)  # settled, and still short of the hold time
    controls.release("blue")
    assert [e.kind for e in controls.drain()] == ["press", "release", "click"]


def test_release_inside_the_debounce_time_is_caught_up_by_settle(controls):
    """A real release that came too soon is emitted once the pin has settled."""
    controls.press("green")
    controls.clock.advance(0.005)
    controls.release("green")
    assert [e.kind for e in controls.drain()] == ["press"]
    controls.clock.advance(0.03)  # settled, and still short of the hold time
    controls.settle()
    assert [e.kind for e in controls.drain()] == ["release", "click"]


def test_debouncer_with_a_manual_clock():
    """Changes inside the interval are ignored; the state changes once settled."""
    clock = ManualClock()
    debounce = Debouncer(0.02, clock)
    assert debounce.feed(True)
    clock.advance(0.01)
    assert not debounce.feed(False)
    clock.advance(0.02)
    assert debounce.feed(False) and not debounce.state
    assert not debounce.feed(False)


def test_unknown_button_is_a_clear_error(controls):
    """The helpers name the buttons there are."""
    with pytest.raises(HardwareError, match="no button 'purple': buttons are red, blue"):
        controls.click("purple")


@pytest.mark.parametrize("kwargs, message", [
    ({"buttons": {"red": 5, "blue": 5}}, "blue and red are both on GPIO5"),
    ({"buttons": {"red": 40}}, "GPIO 40 is not a Raspberry Pi GPIO"),
    ({"encoder_a": 5}, "are both on GPIO5"),
    ({"buttons": {"knob": 4}}, "'knob' is the encoder's switch"),
    ({"debounce_s": 2.0}, "debounce_s must be"),
])
def test_bad_pin_settings(kwargs, message):
    """Shared pins, pins off the header and bad timings are refused, naming them."""
    with pytest.raises(ValueError, match=message):
        InputPins(**kwargs)



def test_idle_controls_run_no_threads():
    """Idle buttons start no polling thread; a press runs one hold timer until released."""
    import threading

    before = threading.active_count()
    board = MockControls(InputPins(hold_s=30.0), real_timers=True)
    try:
        assert threading.active_count() == before
        board.press("red")
        assert threading.active_count() == before + 1
        board.clock.advance(0.08)
        board.release("red")
        for thread in threading.enumerate():
            if isinstance(thread, threading.Timer):
                thread.join(timeout=5)
        assert threading.active_count() == before
        assert [e.kind for e in board.drain()] == ["press", "release", "click"]
    finally:
        board.close()


def test_the_hold_timer_of_an_earlier_press_is_ignored():
    """A hold timer that fires for a press already released reports no hold."""
    board = MockControls(InputPins(hold_s=30.0))
    try:
        board.press("menu")
        stale = board._hold_timers["menu"]
        board.clock.advance(0.08)
        board.release("menu")
        board.clock.advance(0.08)
        board.press("menu")  # pressed again: its own timer runs now
        board._hold("menu", stale)  # the old timer firing late
        assert [e.kind for e in board.drain()] == ["press", "release", "click", "press"]
        board._hold("menu", board._hold_timers["menu"])  # the current one is a hold
        assert [e.kind for e in board.drain()] == ["hold"]
    finally:
        board.close()
