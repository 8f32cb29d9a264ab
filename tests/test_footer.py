"""The OLED's footer: a message for a while, an alert until the next, and an alert over an open panel."""

import doctest

from helpers import FakeClock

from firmware.board import footer as footer_module
from firmware.board.footer import MESSAGE_SECONDS, Footer


def test_a_message_shows_for_its_time_then_goes():
    """What was said shows MESSAGE_SECONDS, then the footer is free for the game's own line."""
    clock = FakeClock(100.0)
    footer = Footer(clock)
    assert footer.shown() == "" and not footer.fresh and not footer.alert
    footer.say("Red peg 2")
    clock.now += MESSAGE_SECONDS - 0.01
    assert footer.shown() == "Red peg 2" and footer.fresh and not footer.alert
    clock.now += 0.01
    assert footer.shown() == "" and not footer.fresh
    assert footer.message == "Red peg 2"  # still what was said last


def test_an_alert_stays_until_the_next_thing_said():
    """A refusal stays however long it waits; the next message replaces it and shows for its time."""
    clock = FakeClock(100.0)
    footer = Footer(clock)
    footer.say("Dial the points first, then press", alert=True)
    clock.now += 10 * MESSAGE_SECONDS
    assert footer.shown() == "Dial the points first, then press" and footer.alert
    footer.say("Red peg 2")
    assert footer.shown() == "Red peg 2" and not footer.alert


def test_an_alert_in_a_panel_shows_over_it_and_goes_when_it_closes():
    """An alert said while a panel handles an event stays over the panel; when the panels close, it
    leaves the game's screen; a plain message said in the panel stays for its time."""
    clock = FakeClock(100.0)
    footer = Footer(clock)
    footer.say("Skunk lines none: from the next new game")
    footer.panel_event(("Skunk lines none: from the next new game", False), still_open=True)
    assert footer.over_panel == ""
    footer.say("Muggins is off in this game", alert=True)
    footer.panel_event(("Muggins is off in this game", True), still_open=True)
    assert footer.over_panel == "Muggins is off in this game"
    footer.panels_closed()
    assert footer.over_panel == "" and not footer.alert and footer.shown() == ""


def test_an_alert_said_as_the_panel_closes_is_not_held_over_it():
    """A panel that closed handling its event leaves nothing over a panel, and the alert stays on the board."""
    footer = Footer(FakeClock(100.0))
    footer.say("Game over: hold the knob for a new game", alert=True)
    footer.panel_event(("Game over: hold the knob for a new game", True), still_open=False)
    assert footer.over_panel == ""
    footer.panels_closed()
    assert footer.alert and footer.shown() == "Game over: hold the knob for a new game"


def test_an_alert_said_after_the_panels_alert_stays_when_they_close():
    """Closing the panels drops only the panel's own alert, not a newer one said since."""
    footer = Footer(FakeClock(100.0))
    footer.say("No buzzer", alert=True)
    footer.panel_event(("No buzzer", True), still_open=True)
    footer.say("LED strip failed", alert=True)
    footer.panels_closed()
    assert footer.alert and footer.shown() == "LED strip failed"


def test_the_examples_in_its_docstring_hold():
    """The module's doctests run."""
    assert doctest.testmod(footer_module).failed == 0
