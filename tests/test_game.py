"""The rules the game state machine (scorer/game.py) enforces, table-driven from game records; undo and
redo without limit inside a game, across deals, with history kept."""

import random

import pytest
from helpers import play

from scorer.errors import (
    GameOverError,
    ImpossibleScoreError,
    NothingToUndoError,
    OutOfTurnError,
    RuleError,
    SetupError,
    UnknownSeatError,
)
from scorer.game import Entry, Game, OptionChange, PegMove, Phase
from scorer.record import Command, replay
from scorer.variants import Options, SkunkLines, find_variant

SIX = "game six-card seats=Alice,Bob dealer=Alice"


def scores(state):
    return {side["name"]: side["score"] for side in state["sides"]}


def errors(state):
    return [r["error"] for r in state["rejected"]]


# ---- refusals: (record after the header, the error expected on the last line) ----
REFUSALS = [
    ("heels Bob", "Only the dealer, Alice, pegs his heels"),
    ("peg Bob 2\nheels", "His heels is pegged when the starter is cut, before the play"),
    ("heels\nheels", "His heels is pegged when the starter is cut, before the play"),
    ("hand Alice 8", "Bob counts next: Bob hand > Alice hand > Alice crib"),
    ("crib 4", "Bob's hand comes before the crib"),
    ("hand Bob 8\ncrib 4", "Alice's hand comes before the crib"),
    ("hand Bob 8\nhand Alice 8\nhand Alice 4", "Alice's crib is next"),
    ("hand Bob 8\nhand Alice 8\ncrib Bob 4", "The crib is the dealer's: Alice"),
    ("hand Bob 19", "19 is not a possible hand"),
    ("hand Bob 25", "25 is not a possible hand"),
    ("hand Bob 26", "26 is not a possible hand"),
    ("hand Bob 27", "27 is not a possible hand"),
    ("hand Bob 30", "30 is more than a hand can score (29)"),
    ("hand Bob 8\nhand Alice 8\ncrib 19", "19 is not a possible crib"),
    ("peg Bob 16", "No card pegs more than 15 in the play"),
    ("peg Bob -2", "Points can't be negative"),
    ("hand Bob -1", "Points can't be negative"),
    ("peg Bob 0", "Nothing to peg: dial 1 or more"),
    ("peg Zed 2", "Zed is not in this game: seats are Alice, Bob"),
    ("hand Bob 8\npeg Alice 2", "The play is over: Alice's hand is next"),
    ("hand Bob 8\ngo Alice", "The play is over: Alice's hand is next"),
    ("muggins Alice 2", "Muggins is off in this game: turn it on in the options"),
    ("undo", "Nothing to undo in this game"),
    ("redo", "Nothing to redo"),
]


@pytest.mark.parametrize("lines, error", REFUSALS)
def test_refused_entries_change_nothing(lines, error):
    """Each refused entry gives its message and leaves the state as it was."""
    *before, last = lines.split("\n")
    state = play("\n".join([SIX, *before, last]))
    assert errors(state)[-1] == error
    assert state["rejected"][-1]["line"] == len(before) + 2
    without = play("\n".join([SIX, *before]))
    state.pop("rejected"), without.pop("rejected")
    assert state == without


def test_heels_pegs_two_for_the_dealer_and_starts_the_play():
    """His heels gives the dealer 2 at once and moves the deal into the play."""
    state = play(f"{SIX}\nheels")
    assert scores(state) == {"Alice": 2, "Bob": 0}
    assert state["phase"] == "play"


def test_show_order_and_dealer_rotation_in_six_card():
    """Pone's hand, dealer's hand, dealer's crib; then the deal passes to the left."""
    state = play(f"{SIX}\npeg Bob 2")
    assert [(s["seat"], s["count"]) for s in state["show_order"]] == [
        ("Bob", "hand"), ("Alice", "hand"), ("Alice", "crib")]
    state = play(f"{SIX}\nhand Bob 8\nhand Alice 6\ncrib 0")
    assert state["dealer"] == "Bob" and state["deal"] == 2 and state["phase"] == "heels"
    assert state["next"] == {"seat": "Alice", "count": "hand"}
    assert scores(state) == {"Alice": 6, "Bob": 8}


def test_zero_counts_are_accepted_and_advance_the_show():
    """A nineteen (zero) hand is pegged as 0 and the show moves on."""
    state = play(f"{SIX}\nhand Bob 0")
    assert state["next"] == {"seat": "Alice", "count": "hand"}
    assert not state["rejected"]


@pytest.mark.parametrize("variant, seats, dealer, order", [
    ("three-hand", "A,B,C", "A", [("B", "hand"), ("C", "hand"), ("A", "hand"), ("A", "crib")]),
    ("three-hand", "A,B,C", "C", [("A", "hand"), ("B", "hand"), ("C", "hand"), ("C", "crib")]),
    ("four-hand", "A,B,C,D", "A",
     [("B", "hand"), ("C", "hand"), ("D", "hand"), ("A", "hand"), ("A", "crib")]),
    ("four-hand-individual", "A,B,C,D", "B",
     [("C", "hand"), ("D", "hand"), ("A", "hand"), ("B", "hand"), ("B", "crib")]),
])
def test_show_rotation_for_three_and_four_players(variant, seats, dealer, order):
    """With 3 or 4 players the show goes clockwise from the dealer's left, dealer last, then crib."""
    state = play(f"game {variant} seats={seats} dealer={dealer}")
    assert [(s["seat"], s["count"]) for s in state["show_order"]] == order


def test_partners_peg_into_one_team_total():
    """In four-hand partnership, partners opposite share a score."""
    state = play("""
        game four-hand seats=A,B,C,D dealer=A
        peg A 2
        peg C 3
        peg B 1
        hand B 4
        hand C 6
    """)
    assert [(s["name"], s["seats"], s["score"]) for s in state["sides"]] == [
        ("A+C", ["A", "C"], 11), ("B+D", ["B", "D"], 5)]


def test_counting_out_ends_the_game_at_once():
    """The pone who counts out wins; nothing after is pegged and the winner sits on 121."""
    state = play(f"""
        {SIX}
        peg Alice 15
        peg Bob 15
        hand Bob 29
        hand Alice 29
        crib 29
        hand Alice 29
        hand Bob 29
        crib Bob 29
        hand Alice 29
        hand Bob 20
        hand Bob 24
        hand Alice 4
        crib Bob 2
    """)
    assert state["phase"] == "over"
    assert state["winner"] == "Bob" and state["loser"] == "Alice"
    assert scores(state)["Bob"] == 121
    assert scores(state)["Alice"] == 102
    assert state["next"] is None
    assert all(e.startswith("Game over: Bob won") for e in errors(state)[-3:])
    assert state["result"] == "win" and state["margin"] == 19


def test_heels_can_win_the_game():
    """His heels is pegged at once and can count the dealer out."""
    game = Game(find_variant("six-card"), ["Alice", "Bob"], "Alice")
    for _ in range(4):
        game.push(Entry.peg("Alice", 15))
    game.push(Entry.peg("Alice", 14))   # 74
    game.push(Entry.hand("Bob", 0))
    game.push(Entry.hand("Alice", 29))  # 103
    game.push(Entry.crib(16))           # 119
    game.push(Entry.hand("Alice", 0))   # Bob deals, Alice is pone
    game.push(Entry.hand("Bob", 0))
    game.push(Entry.crib(0))            # Alice deals deal 3
    assert game.state.phase is Phase.HEELS and game.dealer == "Alice"
    game.push(Entry.heels())
    assert game.is_over and game.outcome.winner == "Alice"
    assert game.outcome.kind.value == "double-skunk"


def _finish(loser_points: int, options=None, target_variant="six-card"):
    variant = find_variant(target_variant)
    game = Game(variant, ["A", "B"], "A", options)
    left = loser_points
    while left:
        step = min(15, left)
        game.push(Entry.peg("B", step))
        left -= step
    left = variant.target
    while left:
        step = min(15, left)
        game.push(Entry.peg("A", step))
        left -= step
    return game.outcome


@pytest.mark.parametrize("lines, loser, kind, points", [
    ("acc", 91, "win", 2),
    ("acc", 90, "skunk", 3),
    ("acc", 61, "skunk", 3),
    ("acc", 60, "double-skunk", 3),
    ("acc", 0, "double-skunk", 3),
    ("triple", 31, "double-skunk", 3),
    ("triple", 30, "triple-skunk", 3),
    ("lurch", 61, "win", 2),
    ("lurch", 60, "lurch", 4),
    ("none", 10, "win", 2),
])
def test_skunk_lines_at_121(lines, loser, kind, points):
    """ACC skunk under 91 and double under 61; lurch under half; triple under 31 as a house rule."""
    outcome = _finish(loser, Options(skunk=SkunkLines(lines)))
    assert (outcome.kind.value, outcome.game_points) == (kind, points)
    assert outcome.margin == 121 - loser


@pytest.mark.parametrize("variant, loser, kind", [
    ("five-card", 27, "skunk"),  # the pone's 3 for last makes 30, under 61 - 30
    ("five-card", 28, "win"),
    ("seven-card", 151, "win"),
    ("seven-card", 150, "skunk"),
    ("seven-card", 120, "double-skunk"),
])
def test_skunk_lines_scale_with_the_target(variant, loser, kind):
    """Skunk lines are target - 30 and target - 60."""
    assert _finish(loser, target_variant=variant).kind.value == kind


def test_lurch_scales_with_the_target():
    """Under half of 61 (under 31) is lurched."""
    lurch = Options(skunk=SkunkLines.LURCH)
    assert _finish(27, lurch, "five-card").kind.value == "lurch"  # 30 with the pone's 3
    assert _finish(28, lurch, "five-card").kind.value == "win"


def test_casual_game_points():
    """Casual points: a skunk is 2 games, a double skunk 3; values are settings."""
    from scorer.variants import parse_game_points

    casual = Options(points=parse_game_points("casual"))
    assert _finish(100, casual).game_points == 1
    assert _finish(80, casual).game_points == 2
    assert _finish(50, casual).game_points == 3
    four = Options(points=parse_game_points("1/2/4"))
    assert _finish(50, four).game_points == 4


EXACT_TO_118 = "game six-card seats=Alice,Bob dealer=Alice exact-out\n" + "peg Alice 15\n" * 7 + "peg Alice 13"


def test_exact_out_forfeits_overshoot_and_says_what_is_needed():
    """Under exact-out, points past the target are lost and the peg stays."""
    state = play(f"{EXACT_TO_118}\npeg Alice 5")
    assert scores(state)["Alice"] == 118
    assert state["note"] == "Alice needs exactly 3"
    assert state["winner"] is None
    state = play(f"{EXACT_TO_118}\npeg Alice 3")
    assert state["winner"] == "Alice" and scores(state)["Alice"] == 121


def test_exact_out_show_count_still_advances_the_order():
    """A forfeited show count is still the count: the order moves on."""
    game = Game(find_variant("six-card"), ["A", "B"], "A", Options(exact_out=True))
    for _ in range(8):
        game.push(Entry.peg("B", 15))  # 120
    entry = game.push(Entry.hand("B", 4))
    assert entry.pegged == 0 and entry.note == "B needs exactly 1"
    assert game.next_count() == ("A", "hand")
    assert game.score("B") == 120


def test_low_ball_first_to_target_loses():
    """In low-ball the side that reaches 121 first loses."""
    state = play("""
        game low-ball seats=Alice,Bob dealer=Alice
        peg Alice 15
        peg Bob 10
        peg Alice 15
        peg Alice 15
        peg Alice 15
        peg Alice 15
        peg Alice 15
        peg Alice 15
        peg Alice 15
        peg Alice 1
    """)
    assert state["phase"] == "over"
    assert state["loser"] == "Alice" and state["winner"] == "Bob"
    assert state["result"] == "win" and state["margin"] == 111


def test_five_card_start_bonus_goes_to_pone_and_cannot_be_undone():
    """Five-card: the pone pegs 3 for last at the start of the game."""
    state = play("game five-card seats=Alice,Bob dealer=Alice")
    assert scores(state) == {"Alice": 0, "Bob": 3}
    assert state["target"] == 61
    state = play("game five-card seats=Alice,Bob dealer=Alice\nundo")
    assert errors(state) == ["Nothing to undo in this game"]


@pytest.mark.parametrize("variant, hand, ok, error", [
    ("five-card", 20, True, None),
    ("five-card", 16, False, "16 is not a possible hand"),
    ("five-card", 21, False, "21 is more than a hand can score (20)"),
    ("seven-card", 30, True, None),
    ("seven-card", 35, False, "35 is not a possible hand"),
    ("seven-card", 46, True, None),
    ("seven-card", 47, False, "47 is more than a hand can score (46)"),
])
def test_impossible_hands_depend_on_hand_size(variant, hand, ok, error):
    """The refused totals come from counting every hand of the variant's size."""
    state = play(f"game {variant} seats=A,B dealer=A\nhand B {hand}")
    assert (not state["rejected"]) == ok
    if error:
        assert errors(state) == [error]


def test_crib_in_five_card_is_four_cards():
    """In five-card the hands are 3 cards but the crib is 4: 24 is a possible crib."""
    state = play("game five-card seats=A,B dealer=A\nhand B 2\nhand A 2\ncrib 24")
    assert not state["rejected"]


MUGGINS = "game six-card seats=Alice,Bob dealer=Alice muggins"


@pytest.mark.parametrize("lines, error", [
    ("hand Bob 8\nmuggins Alice 2", None),
    ("hand Bob 8\nmuggins Bob 2", "Muggins is for an opponent's missed points"),
    ("hand Bob 8\nmuggins Alice 11", "8+11=19 is not a possible hand"),
    ("hand Bob 8\nmuggins Alice 0", "Nothing to claim: dial 1 or more"),
    ("hand Bob 8\nmuggins Alice 2\nmuggins Alice 2", "Muggins is claimed right after a count"),
    ("heels\nmuggins Bob 2", "Muggins is claimed right after a count"),
    ("muggins Bob 2", "Muggins is claimed right after a count"),
    ("peg Bob 2\nmuggins Alice 2", None),
    ("peg Bob 12\nmuggins Alice 4", "12+4: no card pegs more than 15"),
    ("hand Bob 8\nhand Alice 8\ncrib 20\nmuggins Bob 4", None),
    ("hand Bob 8\nhand Alice 8\ncrib 20\nmuggins Bob 5", "20+5=25 is not a possible crib"),
])
def test_muggins_claims(lines, error):
    """Muggins: an opponent claims missed points right after a count; not for heels."""
    state = play(f"{MUGGINS}\n{lines}")
    assert errors(state) == ([error] if error else [])


def test_muggins_points_go_to_the_claimant_and_keep_the_show_order():
    """Claimed points go to the claimant; the show still expects the next count."""
    state = play(f"{MUGGINS}\nhand Bob 8\nmuggins Alice 2")
    assert scores(state) == {"Alice": 2, "Bob": 8}
    assert state["next"] == {"seat": "Alice", "count": "hand"}


def test_is_legal_and_check_do_not_change_the_game():
    """is_legal answers without raising; check raises the error push would."""
    game = Game(find_variant("six-card"), ["Alice", "Bob"], "Alice")
    assert game.is_legal(Entry.hand("Bob", 8))
    assert not game.is_legal(Entry.hand("Alice", 8))
    with pytest.raises(OutOfTurnError):
        game.check(Entry.hand("Alice", 8))
    assert game.pegged == [] and game.history == []


@pytest.mark.parametrize("entry, error", [
    (Entry.peg("Zed", 2), UnknownSeatError),
    (Entry.hand("Bob", 19), ImpossibleScoreError),
    (Entry.hand("Alice", 4), OutOfTurnError),
])
def test_errors_are_value_errors_with_precise_types(entry, error):
    """Refusals are precise ValueError subclasses."""
    game = Game(find_variant("six-card"), ["Alice", "Bob"], "Alice")
    with pytest.raises(error) as caught:
        game.push(entry)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, RuleError)


def test_entries_after_the_game_is_over_are_refused():
    """Nothing is pegged once a side has counted out."""
    game = Game(find_variant("five-card"), ["A", "B"], "A")
    for points in (15, 15, 15, 15, 1):
        game.push(Entry.peg("A", points))
    assert game.is_over
    with pytest.raises(GameOverError, match="Game over: A won"):
        game.push(Entry.peg("B", 2))


@pytest.mark.parametrize("variant, seats, dealer, message", [
    ("six-card", ["A"], None, "six-card is for 2 players, not 1"),
    ("three-hand", ["A", "B"], None, "three-hand is for 3 players, not 2"),
    ("six-card", ["A", "a"], None, "each seat needs its own name"),
    ("six-card", ["A", "B C"], None, "seat name 'B C'"),
    ("six-card", ["A", "B"], "Z", "Z is not in this game"),
])
def test_bad_setups_are_clear_errors(variant, seats, dealer, message):
    """Seats and dealer are checked when a game is set up."""
    with pytest.raises(SetupError, match=message):
        Game(find_variant(variant), seats, dealer)


def test_seat_names_match_case_insensitively():
    """A seat typed in another case is the same seat."""
    state = play(f"{SIX}\npeg bob 2\nhand BOB 4")
    assert scores(state) == {"Alice": 0, "Bob": 6}
    assert not state["rejected"]


# ---- what push says it moved ----------------------------------------------------------

def test_push_returns_the_peg_it_moved():
    """An accepted entry says which side's peg moved, from where to where; one that pegs nothing, no move."""
    game = Game(find_variant("six-card"), ["Alice", "Bob"], "Alice")
    assert game.push(Entry.peg("Bob", 2)).move == PegMove(1, 0, 2)
    assert game.push(Entry.peg("Alice", 5)).move == PegMove(0, 0, 5)
    assert game.push(Entry.peg("Bob", 3)).move == PegMove(1, 2, 5)
    assert game.push(Entry.hand("Bob", 0)).move is None


@pytest.mark.parametrize("skunk, start, points, crossed", [
    (SkunkLines.ACC, 90, 1, [91]),
    (SkunkLines.ACC, 89, 1, []),
    (SkunkLines.ACC, 91, 5, []),
    (SkunkLines.ACC, 50, 15, [61]),
    (SkunkLines.TRIPLE, 30, 1, [31]),
    (SkunkLines.LURCH, 60, 1, [61]),
    (SkunkLines.LURCH, 90, 1, []),
    (SkunkLines.NONE, 90, 1, []),
])
def test_push_names_the_skunk_lines_a_score_rose_over(skunk, start, points, crossed):
    """The lines of the game's own rule that the side's score rose over: one it reaches from
    below counts, one it already stood on does not."""
    game = Game(find_variant("six-card"), ["A", "B"], "A", Options(skunk=skunk))
    for _ in range(start // 15):
        game.push(Entry.peg("B", 15))
    if start % 15:
        game.push(Entry.peg("B", start % 15))
    move = game.push(Entry.peg("B", points)).move
    assert move is not None and (move.start, move.end) == (start, start + points)
    assert [line.below for line in move.crossed] == crossed


def test_the_move_that_reaches_the_target_ends_the_game():
    """The last peg stops at the target and says it ended the game; in low-ball too (the loser's)."""
    for variant in ("five-card", "low-ball"):
        game = Game(find_variant(variant), ["A", "B"], "A")
        target = game.variant.target
        moves = []
        while not game.is_over:
            moves.append(game.push(Entry.peg("B", 15)).move)
        assert [move.ends_game for move in moves] == [False] * (len(moves) - 1) + [True]
        assert moves[-1].end == target and moves[-1].start > target - 15


def test_undo_returns_the_move_taken_back_and_redo_makes_it_again():
    """Undo gives back the entry with the move it took back; redo moves the peg the same way again."""
    game = Game(find_variant("six-card"), ["A", "B"], "A")
    pushed = game.push(Entry.peg("B", 4)).move
    assert game.undo().move == pushed and game.score("B") == 0
    assert game.redo().move == pushed == PegMove(1, 0, 4)


# Options changed mid-game (``option muggins on|off``): a game with a count Alice may claim on once muggins is on.
OPTION_GAME = "game six-card seats=Alice,Bob dealer=Alice"
OPTION_PLAYED = [OPTION_GAME, "heels Alice", "peg Bob 2", "hand Bob 4"]


def test_muggins_turned_on_mid_game_applies_from_that_line():
    """A claim before the option line is refused, the same claim after it is pegged; the game line is unchanged."""
    result = replay(OPTION_PLAYED + ["muggins Alice 2", "option muggins on", "muggins Alice 2"])
    game = result.book.game
    assert [r.entry for r in result.rejected] == ["muggins Alice 2"]
    assert "Muggins is off" in result.rejected[0].error
    assert game.options.muggins and not game.start_options.muggins
    assert game.score("Alice") == 4 and game.score("Bob") == 6
    assert game.header() == OPTION_GAME
    assert game.record_lines() == OPTION_PLAYED + ["option muggins on", "muggins Alice 2"]



def test_an_option_change_is_no_entry_undo_passes_it():
    """Undo takes back the last entry, not the option change; redo is kept across it."""
    book = replay(OPTION_PLAYED).book
    book.apply(Command.UNDO)
    book.apply(OptionChange("muggins", True))
    assert book.game.options.muggins
    book.apply(Command.REDO)
    assert book.game.score("Bob") == 6 and book.game.options.muggins
    book.apply(Command.UNDO)
    assert book.game.options.muggins and book.game.score("Bob") == 2



@pytest.mark.parametrize("change, message", [
    (OptionChange("muggins", False), "Muggins is off already"),
    (OptionChange("exact_out", True), "cannot change mid-game"),
    (OptionChange("skunk", True), "cannot change mid-game"),
])
def test_refused_option_changes_change_nothing(change, message):
    """The same value again, or an option that changes what was pegged, is refused and nothing is recorded."""
    book = replay(OPTION_PLAYED).book
    with pytest.raises(RuleError, match=message):
        book.apply(change)
    assert book.game.record_lines() == OPTION_PLAYED


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
