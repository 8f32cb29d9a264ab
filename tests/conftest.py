"""Shared helpers for the tests."""

import textwrap

import pytest

from scorer.record import replay
from scorer.report import state_dict

from broker import broker  # noqa: F401  (a running Mosquitto, for the club tests)


def play(record: str) -> dict:
    """Replay a record given as indented text; return the JSON state."""
    result = replay(textwrap.dedent(record).strip().splitlines())
    return state_dict(result.book, result.rejected)


@pytest.fixture
def run_record():
    return play
