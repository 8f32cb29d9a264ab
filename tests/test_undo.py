"""Undo and redo: without limit inside a game, across deals, with history kept."""

import random

import pytest

from scorer.errors import NothingToUndoError
from scorer.game import Entry, Game, Phase
from scorer.record import replay
from scorer.report import state_dict
from scorer.variants import Options, find_variant

GAME = [
    Entry.heels(),
    Entry.peg("Bob", 2),
    Entry.go("Alice"),
    Entry.thirty_one("Bob"),
    Entry.hand("Bob", 8),
    Entry.hand("Alice", 12),
    Entry.crib(4),
    Entry.peg("Alice", 3),
    Entry.hand("Alice", 29),
    Entry.hand("Bob", 0),
    Entry.crib(6),
]


def new_game(options=None):
    return Game(find_variant("six-card"), ["Alice", "Bob"], "Alice", options)


def snapshot(game):
    return (game.state, [e.entry for e in game.pegged])


def test_undo_all_then_redo_all_gives_the_same_state():
    """Undo back to the start, redo to the end: the same state and ledger."""
    game = new_game()
    states = [snapshot(game)]
    for entry in GAME:
        game.push(entry)
        states.append(snapshot(game))
    for expected in reversed(states[:-1]):
        game.undo()
        assert snapshot(game) == expected
    with pytest.raises(NothingToUndoError):
        game.undo()
    for expected in states[1:]:
        game.redo()
        assert snapshot(game) == expected
    with pytest.raises(NothingToUndoError):
        game.redo()


def test_undoing_the_first_show_count_returns_to_the_play():
    """Undoing a deal's first show count puts the board back in that deal's play."""
    game = new_game()
    for entry in GAME[:7]:
        game.push(entry)
    assert game.state.deal == 2 and game.dealer == "Bob" and game.phase is Phase.HEELS
    game.undo()  # the crib
    assert game.state.deal == 1 and game.dealer == "Alice" and game.next_count() == ("Alice", "crib")
    game.undo()
    game.undo()  # Bob's hand, the first count of the show
    assert game.phase is Phase.PLAY and game.next_count() == ("Bob", "hand")
    assert game.score("Bob") == 4 and game.score("Alice") == 3


def test_a_new_entry_after_undo_clears_redo():
    """Redo only puts back what was undone since the last new entry."""
    game = new_game()
    game.push(Entry.peg("Bob", 2))
    game.undo()
    game.push(Entry.peg("Bob", 3))
    assert game.redo_entries == []
    with pytest.raises(NothingToUndoError, match="Nothing to redo"):
        game.redo()


def test_history_keeps_what_was_undone():
    """The history shows each entry, each undo and each redo, in order."""
    game = new_game()
    game.push(Entry.peg("Bob", 2))
    game.push(Entry.peg("Alice", 5))
    game.undo()
    game.redo()
    assert [(h.action, h.entry.describe()) for h in game.history] == [
        ("entry", "Bob peg 2"), ("entry", "Alice peg 5"),
        ("undo", "Alice peg 5"), ("redo", "Alice peg 5")]


def test_undo_reopens_a_finished_game():
    """Undoing the winning entry takes the game back into play."""
    game = Game(find_variant("five-card"), ["A", "B"], "A")
    for points in (15, 15, 15, 15, 1):
        game.push(Entry.peg("A", points))
    assert game.is_over
    game.undo()
    assert not game.is_over and game.score("A") == 60 and game.phase is Phase.PLAY
    game.redo()
    assert game.outcome.winner == "A"


def test_exact_out_note_comes_back_with_redo():
    """Redo re-applies the rules: a forfeited overshoot stays forfeited."""
    game = new_game(Options(exact_out=True))
    for _ in range(8):
        game.push(Entry.peg("Bob", 15))
    game.push(Entry.peg("Bob", 5))
    game.undo()
    entry = game.redo()
    assert entry.pegged == 0 and entry.note == "Bob needs exactly 1"


def test_random_undo_redo_matches_replay_of_the_entries_in_force():
    """After any mix of entries, undos and redos, the state equals a fresh replay of the ledger."""
    rng = random.Random(7)
    for _ in range(30):
        game = new_game(Options(muggins=True))
        for _ in range(120):
            roll = rng.random()
            try:
                if roll < 0.2:
                    game.undo()
                elif roll < 0.3:
                    game.redo()
                else:
                    seat = rng.choice(["Alice", "Bob"])
                    kind = rng.choice(["peg", "hand", "crib", "heels", "muggins"])
                    points = rng.randint(0, 16)
                    entry = {
                        "peg": Entry.peg(seat, points), "hand": Entry.hand(seat, points),
                        "crib": Entry.crib(points), "heels": Entry.heels(),
                        "muggins": Entry.muggins(seat, points)}[kind]
                    game.push(entry)
            except ValueError:
                pass
        fresh = new_game(Options(muggins=True))
        for entry in game.pegged:
            fresh.push(entry.entry)
        assert fresh.state == game.state
        assert min(game.state.scores) >= 0
        assert all(b <= s for b, s in zip(game.state.backs, game.state.scores))


def test_export_then_replay_keeps_undo_and_redo_stacks():
    """A record with undos and redos exports and replays to the same state, redo stack included."""
    record = """
        game six-card seats=Alice,Bob dealer=Alice
        peg Bob 2
        hand Bob 8
        undo
        undo
        redo
    """.strip().splitlines()
    first = replay(record)
    again = replay(first.book.record_lines())
    assert state_dict(again.book) == state_dict(first.book)
    assert again.book.game.redo_entries == [Entry.hand("Bob", 8)]
    again.book.game.redo()
    assert again.book.game.score("Bob") == 10
