"""Devices' problems on the OLED: wrapped to fit, one screen per device, in turn, until cleared."""

import doctest

import pytest
from helpers import FakeClock

from firmware.board import notices as notices_module
from firmware.board.footer import MESSAGE_SECONDS
from firmware.board.notices import NOTICE_CHARS, NOTICE_LINES, Notices, notice_lines


def test_no_notice_no_screen():
    """Without a problem there is nothing to show, and the notices are false."""
    notices = Notices(FakeClock())
    assert not notices and notices.screen() is None


def test_several_problems_take_turns():
    """Each device's problem has its screen; they show in turn, MESSAGE_SECONDS each."""
    clock = FakeClock()
    notices = Notices(clock)
    notices.show("LED strip", "LED strip not found")
    notices.show("buttons", "buttons not found")
    titles = []
    for _ in range(4):
        titles.append(notices.screen().title)
        clock.now += MESSAGE_SECONDS
    assert titles == ["LED strip problem", "buttons problem"] * 2


def test_a_device_back_clears_its_own_and_an_input_clears_all():
    """clear(device) takes one off (it works again); clear() every one (an input came)."""
    notices = Notices(FakeClock())
    notices.show("LED strip", "LED strip not found")
    notices.show("buttons", "buttons not found")
    notices.clear("LED strip")
    assert notices and notices.screen().title == "buttons problem"
    notices.clear("LED strip")  # again: nothing to take off
    notices.clear()
    assert not notices


def test_the_same_device_again_replaces_its_problem():
    """A device's new problem takes the place of its old one."""
    notices = Notices(FakeClock())
    notices.show("LED strip", "LED strip not found")
    notices.show("LED strip", "LED strip failed: check the cable")
    assert notices.screen().lines == ("LED strip failed:", "check the cable")
    notices.clear("LED strip")
    assert not notices


@pytest.mark.parametrize("problem, lines", [
    ("short", ("short",)),
    ("LED strip not found; check the data wire on GPIO 10 and the 5 V supply: then restart",
     ("LED strip not found;", "check the data wire on", "GPIO 10 and the 5 V", "supply: then restart")),
    ("The LED strip was not found on the SPI bus; check the data wire on GPIO 10, its ground wire and the 5 V "
     "supply of the strip: then restart the board", ("then restart the board",)),
    ("x" * 200, ("x" * NOTICE_CHARS,) * (NOTICE_LINES - 1) + ("(more in the journal)",)),
])
def test_a_long_problem_keeps_its_last_clauses(problem, lines):
    """Too long for the OLED, the problem keeps its last clauses (the fix comes last), or says the journal has it."""
    assert notice_lines(problem) == lines


def test_the_examples_in_its_docstring_hold():
    """The module's doctests run."""
    assert doctest.testmod(notices_module).failed == 0
