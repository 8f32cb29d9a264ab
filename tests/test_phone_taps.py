"""A paired phone enters a deal in at most half the knob's actions: counted over deals played by the
rules (tests/played_deals.py), each entry as the board and the phone's page take it."""

from __future__ import annotations

from played_deals import count_actions, five_steps, knob_actions, knob_keys, phone_taps, played_deals

from scorer.game import Entry


def test_a_phone_takes_at_most_half_the_knobs_actions_a_deal():
    """Over every deal of four seeded games, the phone's taps a deal are at most half the board's
    detents and presses a deal."""
    counted = count_actions(played_deals(4, seed=7))
    assert counted.deals >= 20
    assert counted.phone <= counted.knob / 2, counted


def test_each_entry_counts_as_the_board_and_the_page_take_it():
    """Play points: detents and a button, or one chip (else digits and Play); a count of the show:
    detents and the knob, or digits and one button (a nineteen: two taps); heels: one of each."""
    cases = [
        (Entry.heels(), 1, 1, 1),
        (Entry.peg("Red", 2), 3, 3, 1),
        (Entry.peg("Red", 7), 8, 4, 2),
        (Entry.peg("Red", 12), 13, 5, 1),
        (Entry.hand("Blue", 0), 1, 1, 2),
        (Entry.hand("Blue", 8), 9, 5, 2),
        (Entry.hand("Blue", 24), 25, 7, 3),
        (Entry.crib(4, "Red"), 5, 3, 2),
    ]
    for entry, knob, keys, taps in cases:
        assert (knob_actions(entry), knob_keys(entry), phone_taps(entry)) == (knob, keys, taps), entry.record()
    assert [five_steps(n) for n in range(11)] == [0, 1, 2, 3, 2, 1, 2, 3, 4, 3, 2]
