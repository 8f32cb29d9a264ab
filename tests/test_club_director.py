"""The director's console and the hub's derived night, in this process (no broker): any line typed is
an answer or one line saying what to type; corrections, seasons and the CSV cell rule."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.hub.director import HELP, QUIT, command
from firmware.hub.hub import DirectorError, Hub, Journal, Settings
from firmware.hub.inbox import Connected, Received
from firmware.hub.ledger import HubLedger
from firmware.hub.pages import night_csv
from firmware.wire import schema
from firmware.wire.broker import parse_broker

from club_hub import peg_lines, result_payload


def make_hub(path, night: str = "n1", players=("Ann", "Bob", "Cy", "Di")) -> Hub:
    """A hub over ``path`` with its writer thread running and no broker (nothing is published)."""
    ledger = HubLedger(path, holder="test")
    hub = Hub(Settings("thu", parse_broker("mqtt://127.0.0.1:1"), night, players=tuple(players), tables=("1", "2")),
              ledger, Journal(write=lambda line: None))
    hub.start()
    hub.inbox.put(Connected())  # as when the broker has answered and no other hub is online
    hub.run(lambda: None)
    hub.run(lambda: None)  # the writer has begun: round 1 is made (--players and --tables given)
    return hub


@pytest.fixture
def hub(tmp_path):
    running = make_hub(tmp_path / "hub.sqlite3")
    yield running
    running.stop()
    running.ledger.close()


def play(hub: Hub, table: str, game: int, scores: dict[str, int]) -> None:
    """A game as it would come from a table, its entries and its result, through the writer thread."""
    lines = peg_lines(list(scores), tuple(scores.values()))
    for seq, line in enumerate(lines):
        entry = schema.entry_payload(table, "0123456789abcdef", game, seq, line, None)
        hub.inbox.put(Received("entry", table, entry, 0, 0, 0))
    payload = result_payload(table, "0123456789abcdef", game, len(lines) - 1, scores)
    hub.inbox.put(Received("result", table, payload, 0, 0, 0))
    hub.run(lambda: None)  # the writer has taken it once this job runs after it


LINES = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80) | st.builds(
    lambda verb, rest: f"{verb} {rest}",
    st.sampled_from(["correct", "void", "restore", "player", "standings", "rounds", "players", "next", "start"]),
    st.text(alphabet="12 Ann:121Bob:x=reason\"'+@-", max_size=40))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(LINES)
def test_any_line_is_an_answer_or_one_line_saying_what_to_type(hub, line):
    """Whatever the director types, the console answers or refuses in one line, and the hub goes on."""
    if line.strip().lower() in ("quit", "exit"):
        assert command(hub, line) is QUIT
        return
    try:
        answer = command(hub, line)
    except DirectorError as error:
        assert "\n" not in str(error) and str(error)
    else:
        assert answer is QUIT or isinstance(answer, str)
    assert hub._writer.is_alive()


def test_help_lists_every_command(hub):
    for verb in ("standings", "rounds", "player add", "player remove", "start", "next", "correct", "void",
                 "restore", "help", "quit"):
        assert verb in HELP
    assert command(hub, "help") == HELP


def test_a_correction_is_kept_with_its_reason_and_the_standings_follow(hub):
    """correct then void then restore: each a row with its reason; the standings after each."""
    a, b = hub.snapshot.view.rounds[0].pairings[0].players
    play(hub, "1", 1, {a: 121, b: 100})
    points = lambda: {line.player: line.game_points for line in hub.snapshot.view.standings}  # noqa: E731
    assert points()[a] == 2
    assert "wins" in command(hub, f'correct 1 1 {a}:121 {b}:60 reason="hand miscounted"')
    assert points()[a] == 3
    with pytest.raises(DirectorError, match="needs a reason"):
        command(hub, "restore 1 1")
    command(hub, 'void 1 1 reason="wrong table"')
    assert points()[a] == 0
    command(hub, 'restore 1 1 reason="it was right"')
    assert points()[a] == 2
    corrections = hub.ledger.reader().corrections()
    assert [(c.action, c.reason) for c in corrections] == [
        ("correct", "hand miscounted"), ("void", "wrong table"), ("restore", "it was right")]
    assert "[corrected: hand miscounted]" not in command(hub, "rounds")  # restored: the table's result shows
    with pytest.raises(DirectorError, match="no game 9 at table 1"):
        command(hub, 'void 1 9 reason="x"')


def test_the_season_adds_up_every_night_each_by_its_rule(tmp_path):
    """Two nights in one file: the night's standings are its own; the season's add both."""
    path = tmp_path / "hub.sqlite3"
    first = make_hub(path, "n1")
    a, b = first.snapshot.view.rounds[0].pairings[0].players
    play(first, "1", 1, {a: 121, b: 80})
    first.stop()
    first.ledger.close()
    second = make_hub(path, "n2")
    try:
        c, d = second.snapshot.view.rounds[0].pairings[0].players  # the second night's pairing at table 1
        play(second, "1", 2, {c: 121, d: 100})  # the board's next game: its numbers go on
        night = {line.player: line for line in second.snapshot.view.standings}
        season = {line.player: line for line in second.snapshot.season}
        assert (night[c].games, night[c].game_points) == (1, 2)
        tonight = (1, 2, 21) if a == c else (1, 0, -21) if a == d else (0, 0, 0)
        assert (season[a].games, season[a].game_points, season[a].spread) == (1 + tonight[0], 3 + tonight[1],
                                                                              41 + tonight[2])
        assert command(second, "standings season").startswith("season")
    finally:
        second.stop()
        second.ledger.close()


def test_the_csv_has_a_row_a_game_with_its_correction(hub):
    a, b = hub.snapshot.view.rounds[0].pairings[0].players
    play(hub, "1", 1, {a: 121, b: 90})
    command(hub, f'correct 1 1 {a}:121 {b}:95 reason="=HYPERLINK(1)"')
    rows = night_csv(hub.snapshot.view).splitlines()
    assert len(rows) == 2 and "corrected" in rows[1] and "correct: =HYPERLINK(1)" in rows[1]


def test_an_unforeseen_failure_of_the_writer_stops_the_hub_saying_why(hub, monkeypatch):
    """A bug in the writer thread: the hub is told to stop, with the cause in one line, not left half-working."""
    stopped = []
    hub.on_fatal = lambda: stopped.append(True)

    def broken(batch):
        raise RuntimeError("a bug")

    monkeypatch.setattr(hub, "_store", broken)
    hub.inbox.put(Received("result", "1", result_payload("1", "0123456789abcdef", 1, 5, {"Ann": 121, "Bob": 90}),
                            0, 0, 0))
    hub._writer.join(30)
    assert not hub._writer.is_alive() and stopped == [True]
    assert "the hub's writer stopped (RuntimeError: a bug)" in hub.fatal and "\n" not in hub.fatal
