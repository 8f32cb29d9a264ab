"""The optional buzzer: tones in the background, the mock's record, the board's tones, failures never fatal."""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware.board.devices import open_devices
from firmware.board.loop import Board
from firmware.board.outcome import Crossed, Did, Made, Outcome
from firmware.board.pc.simulator import MOCK, run_script
from firmware.board.tunes import TUNES, sound_for
from firmware.config import load_config
from firmware.errors import ConfigError
from hardware.buzzer import MockBuzzer, TonalBuzzer, check_tune
from hardware.errors import HardwareError
from ledger.writer import LedgerWriter
from scorer.variants import SkunkLines, skunk_lines

from waits import eventually

BUZZER_ON = ["buzzer.enabled=true"]


@pytest.fixture
def factory():
    made = MockFactory(pin_class=MockPWMPin)
    try:
        yield made
    finally:
        made.close()


@pytest.mark.slow
def test_play_returns_at_once_and_the_pin_sounds_the_notes(factory):
    """play() hands the tune over at once; the PWM pin takes each note's frequency, then goes quiet."""
    buzzer = TonalBuzzer(12, pin_factory=factory)
    pin = factory.pin(12)
    try:
        buzzer.play(((440.0, 1.0), (880.0, 1.0)), "test")
        assert buzzer.finished == 0  # back before the tune's 2 s are over
        assert eventually(lambda: pin.frequency == 440.0)
        assert eventually(lambda: pin.frequency == 880.0)
        assert eventually(lambda: buzzer.finished == 1) and pin.frequency is None
    finally:
        buzzer.close()


def test_a_new_tune_cuts_the_one_playing_short(factory):
    """A second play while a long note sounds starts the new tune without waiting for the first."""
    buzzer = TonalBuzzer(12, pin_factory=factory)
    pin = factory.pin(12)
    try:
        buzzer.play(((220.0, 3.0),))
        assert eventually(lambda: pin.frequency == 220.0)
        buzzer.play(((1760.0, 0.05),))
        assert eventually(lambda: pin.frequency == 1760.0, 2.0)  # uncut, the 3 s note would still be sounding
        assert eventually(lambda: buzzer.finished == 2)
    finally:
        buzzer.close()


def test_a_failure_while_playing_is_raised_by_the_next_play(factory):
    """A pin that fails in the player thread is reported by the next play, never by hanging."""
    buzzer = TonalBuzzer(12, pin_factory=factory)
    try:
        def broken(value):
            raise OSError(5, "Input/output error")

        buzzer._device.play = broken
        buzzer.play(((440.0, 0.05),))
        assert eventually(lambda: buzzer.failure is not None)
        with pytest.raises(HardwareError, match="buzzer on GPIO12 stopped"):
            buzzer.play(((440.0, 0.05),))
    finally:
        buzzer.close()


def test_close_stops_the_thread_and_the_tone(factory):
    """close() silences the buzzer mid-note, ends its thread and refuses later tunes."""
    buzzer = TonalBuzzer(12, pin_factory=factory)
    buzzer.play(((330.0, 2.0),))
    assert eventually(lambda: factory.pin(12).frequency == 330.0)
    buzzer.close()
    assert not buzzer._thread.is_alive()
    with pytest.raises(HardwareError, match="closed"):
        buzzer.play(((330.0, 0.1),))


@pytest.mark.parametrize("tune, message", [
    (((2000.0, 0.1),), "2000 Hz: the buzzer plays 110 to 1760 Hz"),
    (((440.0, 0.0),), "a length above 0"),
    (((440.0, 2.0), (440.0, 2.0)), "at most 3 s"),
])
def test_a_tune_out_of_range_is_refused(tune, message):
    """Notes the buzzer cannot play and tunes too long are refused with a reason."""
    with pytest.raises(ValueError, match=message):
        check_tune(tune)


def test_every_tune_of_the_board_is_playable():
    """The board's four tunes pass the buzzer's check."""
    assert set(TUNES) == {"accept", "refuse", "skunk", "win", "play-over"}
    for tune in TUNES.values():
        check_tune(tune)


def test_the_mock_buzzer_records_what_it_plays():
    """The mock keeps each tune with its label, and refuses once closed."""
    buzzer = MockBuzzer()
    buzzer.play(TUNES["win"], "win")
    assert buzzer.played == [("win", TUNES["win"])]
    buzzer.close()
    with pytest.raises(HardwareError):
        buzzer.play(TUNES["accept"], "accept")


def test_which_tone_for_what_happened():
    """Win beats a skunk line, which beats the end of the play, which beats a plain entry; a refusal;
    nothing for a turn of the knob."""
    def below(lines):
        return tuple(line.below for line in skunk_lines(121, SkunkLines(lines)))

    assert below("acc") == (91, 61) and below("lurch") == (61,)
    assert below("triple") == (91, 61, 31) and below("none") == ()
    made = (Made(None, None, "Red peg 2"),)
    crossed = (Crossed(0, skunk_lines(121)[0]),)
    assert sound_for(Outcome(Did.ACCEPTED, made, crossed=crossed)) == "skunk"
    assert sound_for(Outcome(Did.ACCEPTED, made)) == "accept"
    assert sound_for(Outcome(Did.ACCEPTED, made, crossed=crossed, play_over=True)) == "skunk"
    assert sound_for(Outcome(Did.ACCEPTED, made, play_over=True)) == "play-over"
    assert sound_for(Outcome(Did.ACCEPTED, made, crossed=crossed, won=True, play_over=True)) == "win"
    assert sound_for(Outcome(Did.REFUSED, message="Dial the points first, then press")) == "refuse"
    assert sound_for(Outcome(Did.NOTHING, redraw=True)) is None


def test_simulate_lists_the_tones_of_a_game(tmp_path):
    """With a buzzer enabled, simulate's JSON has the tones: entries, a refusal, skunk lines, the win."""
    from helpers import script_to_win

    script = ["click blue"] + script_to_win()  # blue (not the dealer) with nothing dialled: refused
    result = run_script(script, load_config(overrides=BUZZER_ON), tmp_path / "l.sqlite3")
    tones = result["tones"]
    assert tones[0] == "refuse" and tones[-1] == "win" and "skunk" in tones and "accept" in tones
    assert "play-over" in tones  # the first count of a show, pegged while the play was on
    assert tones.count("refuse") == len(result["rejected"])
    assert "tones" not in run_script(["turn 2", "click red"], load_config(), tmp_path / "m.sqlite3")


def test_the_buzzer_is_off_by_default_and_needs_its_own_pin():
    """No buzzer unless enabled; an enabled buzzer on a button's or the strip's pin is one line."""
    assert load_config().buzzer.enabled is False
    with pytest.raises(ConfigError, match=r"\[buzzer\] pin = 5 is also \[inputs\] red: give the buzzer its own pin"):
        load_config(overrides=BUZZER_ON + ["buzzer.pin=5"])
    with pytest.raises(ConfigError, match=r"\[buzzer\] pin = 10 is also \[leds\] pin"):
        load_config(overrides=BUZZER_ON + ["buzzer.pin=10"])
    with pytest.raises(ConfigError, match=r"\[buzzer\] pin = 40: must be a whole number from 0 to 27"):
        load_config(overrides=["buzzer.pin=40"])


class FailingBuzzer:
    """A buzzer whose every tune fails, as a broken wire would."""

    def __init__(self):
        self.closed = False

    def play(self, notes, label=""):
        raise HardwareError("buzzer on GPIO12 stopped: Input/output error")

    def close(self):
        self.closed = True


def test_a_buzzer_that_cannot_start_or_fails_is_never_fatal(tmp_path):
    """A buzzer that will not open is a warning; one that fails is dropped, said and retried; pegging goes on."""
    config = load_config(overrides=BUZZER_ON)

    def missing():
        raise HardwareError("buzzer on GPIO12 did not start: no PWM")

    devices = open_devices(config, MOCK, hold_s=0.05, openers={"buzzer": missing})
    assert devices.buzzer is None and "no PWM" in devices.warnings[0]
    devices = open_devices(config, MOCK, hold_s=0.05, openers={"buzzer": FailingBuzzer})
    store = LedgerWriter(tmp_path / "l.sqlite3")
    logged = []
    board = Board(config, store, devices, log=logged.append)
    try:
        devices.controls.turn(4)
        devices.controls.click("red")
        board.step(0)
        assert store.game.state.scores[0] == 4
        assert devices.buzzer is None and "buzzer" in devices.missing()
        assert "playing on without sound" in logged[0]
        assert "buzzer failed" in board.controller.footer.message
    finally:
        board.close()


def test_tones_never_hold_up_the_main_loop(tmp_path, factory):
    """A real TonalBuzzer (on mock PWM pins) playing a long tune: a step of the board returns at once."""
    config = load_config(overrides=BUZZER_ON)
    devices = open_devices(config, MOCK, hold_s=0.05,
                           openers={"buzzer": lambda: TonalBuzzer(12, pin_factory=factory)})
    store = LedgerWriter(tmp_path / "l.sqlite3")
    board = Board(config, store, devices)
    gate = threading.Event()
    sound = devices.buzzer._device.play

    def stuck_until_the_gate_opens(hz):  # a tone that does not start until the test says so
        gate.wait(30)
        sound(hz)

    devices.buzzer._device.play = stuck_until_the_gate_opens
    try:
        devices.controls.turn(3)
        devices.controls.click("red")
        # The step runs here, in the ledger's own thread (SQLite refuses a write from another);
        # were it to wait for the stuck tone, it would come back only when the gate times out.
        started = time.monotonic()
        board.step(0)
        took = time.monotonic() - started
        gate.set()
        assert took < 10  # the step came back while the accept blip's thread was stuck
        assert [outcome.did for outcome in board.outcomes if outcome.made] == [Did.ACCEPTED]
        assert board.controller.game.state.scores == (3, 0)
        assert eventually(lambda: factory.pin(12).frequency == TUNES["accept"][0][0])
        assert threading.active_count() >= 2
    finally:
        board.close()


def test_a_buzzer_without_a_pin_library_says_what_to_install(monkeypatch):
    """Off a Pi with no pin library, opening the real buzzer is one DeviceNotFoundError naming lgpio."""
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory

    from hardware.errors import DeviceNotFoundError

    def no_library(*args, **kwargs):
        import warnings

        from gpiozero.exc import PinFactoryFallback

        warnings.warn(PinFactoryFallback("Falling back from lgpio: No module named 'lgpio'"), stacklevel=2)
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_library))
    with pytest.raises(DeviceNotFoundError, match=r"buzzer on GPIO12 did not start: .*lgpio"):
        TonalBuzzer(12)
