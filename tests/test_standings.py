"""A club night's standings and pairings, pure (scorer.standings, scorer.pairings), and the night derived from rows."""

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.hub import night as nights
from firmware.hub.ledger import CorrectionRow, Night, PairingRow, PlayerRow, ResultRow, RoundRow
from scorer.pairings import PairingError, Round, first_order, pair_round
from scorer.standings import (
    GameResult,
    PlayerStanding,
    ResultError,
    credits,
    merge,
    name_key,
    ranked,
    standings,
    tally,
)
from scorer.variants import VARIANTS, SkunkLines, find_variant, parse_game_points

import night_reference as reference

# ---- standings -------------------------------------------------------------------


@pytest.mark.parametrize("loser, points, lines, winner_points", [
    (91, "acc", SkunkLines.ACC, 2),  # on the skunk line: a plain win
    (90, "acc", SkunkLines.ACC, 3),  # under it: skunk
    (60, "acc", SkunkLines.ACC, 3),  # double skunk earns nothing more under ACC
    (60, "2/3/4", SkunkLines.ACC, 4),  # a club that says 2/3/4
    (90, "casual", SkunkLines.ACC, 2),
    (50, "acc", SkunkLines.NONE, 2),
    (60, "acc", SkunkLines.LURCH, 4),  # lurched: under half of 121
    (30, "acc", SkunkLines.TRIPLE, 3),
])
def test_game_points_come_from_the_clubs_rule(loser, points, lines, winner_points):
    """A loser's result is worked out again from the scores with the club's skunk lines and game points."""
    result = GameResult.of(["Alice", "Bob"], {"Alice": 121, "Bob": loser}, "Alice")
    won, lost = credits(result, lines, parse_game_points(points))
    assert won == ("Alice", True, winner_points, 121 - loser)
    assert lost == ("Bob", False, 0, loser - 121)


def test_the_target_is_the_winners_score():
    """A game to 61 (winner on 61): a loser under 31 is skunked, not a 121 game's double skunk."""
    won, _ = credits(GameResult.of(["A", "B"], {"A": 61, "B": 30}, "A"), points=parse_game_points("2/3/4"))
    assert won.game_points == 3


def test_partners_each_get_the_sides_result():
    """A partnership side credits both its seats; the other side's seats each lose by the margin."""
    result = GameResult.of(["Ann", "Ben", "Cat", "Dan"], {"Ann+Cat": 121, "Ben+Dan": 85}, "Ann+Cat")
    assert {c.player: (c.won, c.game_points, c.spread) for c in credits(result)} == {
        "Ann": (True, 3, 36), "Cat": (True, 3, 36), "Ben": (False, 0, -36), "Dan": (False, 0, -36)}


def test_several_losers_each_lose_once_and_the_winner_gets_the_sum():
    """Three-hand: each loser is one loss; the winner earns each loser's points and margin."""
    result = GameResult.of(["A", "B", "C"], {"A": 121, "B": 100, "C": 80}, "A")
    assert credits(result) == (("A", True, 2 + 3, 21 + 41), ("B", False, 0, -21), ("C", False, 0, -41))


def test_lowball_the_first_to_the_target_loses():
    """Low-ball: the winner has the lower score; a plain win, by how far the loser went."""
    result = GameResult.of(["A", "B"], {"A": 80, "B": 121}, "A", lowball=True)
    assert credits(result) == (("A", True, 2, 41), ("B", False, 0, -41))


@pytest.mark.parametrize("seats, scores, winner, why", [
    (["A", "B"], {"A": 121, "C": 80}, "A", "side C is not one of the seats"),
    (["A", "B"], {"A": 121, "B": 80}, "C", "winner C is not one of the sides"),
    (["A", "B"], {"A": 100, "B": 121}, "A", "the winner has the higher score"),
    (["A", "a"], {"A": 121, "a": 80}, "A", "2 to 4 different players"),
    (["A", "B", "C"], {"A": 121, "B": 80}, "A", "do not cover the seats"),
])
def test_a_result_that_does_not_fit_is_refused(seats, scores, winner, why):
    with pytest.raises(ResultError, match=why):
        GameResult.of(seats, scores, winner)


def test_rank_game_points_then_wins_then_spread_then_name():
    """Ranked by game points, then wins, then spread, all descending, then the name."""
    lines = [PlayerStanding("Zed", 4, 2, 0, 10, 2), PlayerStanding("amy", 4, 2, 0, 10, 2),
             PlayerStanding("Bob", 4, 1, 0, 50, 1), PlayerStanding("Cat", 4, 2, 0, 30, 2),
             PlayerStanding("Dan", 6, 2, 0, -5, 2)]
    assert [line.player for line in ranked(lines)] == ["Dan", "Cat", "amy", "Zed", "Bob"]


def test_names_are_one_player_however_spelled_and_shown_as_first_seen():
    """NFC and case do not make two players; the spelling first seen is shown."""
    results = [GameResult.of(["Zoë", "Bob"], {"Zoë": 121, "Bob": 100}, "Zoë"),
               GameResult.of(["ZOE\u0308", "BOB"], {"ZOE\u0308": 121, "BOB": 110}, "ZOE\u0308")]
    lines = standings(results)
    assert [(line.player, line.wins, line.games) for line in lines] == [("Zoë", 2, 2), ("Bob", 0, 2)]
    assert name_key("ZOE\u0308") == name_key("zoë")


def test_registered_players_show_with_nothing_and_their_spelling():
    lines = tally([], ["Alice"])
    assert lines == {"alice": PlayerStanding("Alice", 0, 0, 0, 0, 0)}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ABCDEF"), st.sampled_from("ABCDEF"), st.integers(0, 120)),
                min_size=1, max_size=30))
def test_standings_add_up(games):
    """Over any games: spreads sum to 0, wins equal losses equal the games, points only to winners, order ranked."""
    results = [GameResult.of([a, b], {a: 121, b: lost}, a) for a, b, lost in games if a != b]
    lines = standings(results)
    assert sum(line.spread for line in lines) == 0
    assert sum(line.wins for line in lines) == sum(line.losses for line in lines) == len(results)
    assert sum(line.games for line in lines) == 2 * len(results)
    assert all(line.game_points >= 2 * line.wins for line in lines)
    assert lines == ranked(lines)
    halves = results[: len(results) // 2], results[len(results) // 2:]
    assert ranked(merge(*(tally(c for r in half for c in credits(r)) for half in halves))) == lines


# ---- pairings --------------------------------------------------------------------


def play_rounds(players: list[str], rounds: int, orders) -> list[Round]:
    """``rounds`` rounds, each in an order drawn by ``orders(round number, players)``."""
    past: list[Round] = []
    for number in range(rounds):
        order = orders(number, players) if number else first_order(players, "night")
        past.append(pair_round(order, past, rounds - number - 1))
    return past


def shuffled(draw):
    return lambda number, players: draw(st.permutations(players))


def test_eight_players_seven_rounds_everyone_meets_everyone_once():
    """With 8 players and 7 rounds, whatever the standings, every pair meets exactly once."""
    players = [f"P{k}" for k in range(8)]
    for seed in range(20):
        import random

        rng = random.Random(seed)
        past = play_rounds(players, 7, lambda n, p: rng.sample(p, len(p)))
        met = Counter(frozenset(pair) for each in past for pair in each.pairs)
        assert set(met) == {frozenset(pair) for pair in combinations(players, 2)}
        assert set(met.values()) == {1}


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.data())
def test_no_repeat_opponent_while_others_remain(count, data):
    """Up to a full round robin (or 9 rounds): no pair twice, every player in each round once,
    at most one bye, and no second bye for anyone."""
    players = [f"Player{k}" for k in range(count)]
    rounds = min(9, count - 1 if count % 2 == 0 else count)
    past = play_rounds(players, rounds, shuffled(data.draw))
    pairs = [frozenset(pair) for each in past for pair in each.pairs]
    assert len(pairs) == len(set(pairs))
    byes = [each.bye for each in past if each.bye is not None]
    assert len(byes) == len(set(byes)) == (rounds if count % 2 else 0)
    for each in past:
        seen = [p for pair in each.pairs for p in pair] + ([each.bye] if each.bye else [])
        assert sorted(seen) == sorted(players)


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 8), st.integers(1, 6), st.data())
def test_beyond_the_round_robin_never_the_same_pair_twice_in_a_row(count, more, data):
    """Past a full round robin repeats come, but never the same pair in two rounds running."""
    players = [f"P{k}" for k in range(count)]
    rounds = (count - 1 if count % 2 == 0 else count) + more
    past = play_rounds(players, rounds, shuffled(data.draw))
    for before, after in zip(past, past[1:]):
        assert not {frozenset(p) for p in before.pairs} & {frozenset(p) for p in after.pairs}
    met = Counter(frozenset(pair) for each in past for pair in each.pairs)
    assert max(met.values()) - min(met.values()) <= 2  # spread out, not one pair again and again


def test_similar_standing_is_paired_and_the_bye_goes_to_the_lowest_without_one():
    """Swiss: 1 v 2, 3 v 4; the bye to the lowest-ranked who has had none."""
    order = ["A", "B", "C", "D", "E"]
    first = pair_round(order)
    assert first == Round((("A", "B"), ("C", "D")), "E")
    second = pair_round(["E", "A", "B", "C", "D"], [first])
    assert second.bye == "D"
    assert ("E", "A") in second.pairs


def test_round_one_is_reproducible_from_the_nights_name():
    players = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]
    assert first_order(players, "2026-12-03") == first_order(list(reversed(players)), "2026-12-03")
    assert first_order(players, "2026-12-03") != first_order(players, "2026-12-10")
    assert first_order(players) == players


def test_forty_players_nine_rounds_no_repeat():
    players = [f"P{k:02d}" for k in range(40)]
    past = play_rounds(players, 9, lambda n, p: p[n:] + p[:n])
    pairs = [frozenset(pair) for each in past for pair in each.pairs]
    assert len(pairs) == len(set(pairs)) == 9 * 20


def test_a_player_listed_twice_is_refused():
    with pytest.raises(PairingError, match="listed twice"):
        pair_round(["Ann", "ann"])


# ---- the night, derived from rows ------------------------------------------------

NIGHT = Night(1, "thu", "n1", "acc", "acc", 9, "2026-12-03T19:00:00.000Z")


def result_row(row_id, table, game, rev, scores, status="finished", round_number=1, ledger="a" * 16):
    winner = max(scores, key=scores.get) if status == "finished" else None
    payload = {"table": table, "ledger": ledger, "game": game, "rev": rev, "status": status,
               "variant": "six-card", "seats": list(scores), "scores": scores, "winner": winner}
    return ResultRow(row_id, 1, round_number, "thu", table, ledger, game, rev, status, payload, "t")


def players(*names):
    return [PlayerRow(k, 1, "add", name, "t") for k, name in enumerate(names)]


def round_row(number, *pairings):
    return RoundRow(number, 1, number, "t", "start", tuple(pairings))


def test_the_highest_revision_counts_and_open_or_abandoned_count_nothing():
    rows = [result_row(1, "1", 1, 3, {"A": 121, "B": 80}), result_row(2, "1", 1, 4, {"A": 118, "B": 80}, "open"),
            result_row(3, "2", 7, 2, {"C": 50, "D": 60}, "abandoned")]
    view = reference.view(NIGHT, players("A", "B", "C", "D"), rows, [], [])
    assert [(g.status, g.result) for g in view.games] == [("open", None), ("abandoned", None)]
    assert all(line.games == 0 for line in view.standings)
    later = reference.view(NIGHT, [], rows + [result_row(4, "1", 1, 6, {"A": 90, "B": 121})], [], [])
    assert [(line.player, line.wins) for line in later.standings] == [("B", 1), ("A", 0)]


def test_a_correction_overrides_a_later_one_supersedes_and_restore_drops_it():
    rows = [result_row(1, "1", 1, 5, {"A": 121, "B": 100})]
    key = ("thu", "1", "a" * 16, 1)

    def correction(row_id, action, scores=None, winner=None):
        seats = tuple(scores) if scores else None
        pairs = tuple(scores.items()) if scores else None
        return CorrectionRow(row_id, 1, *key, action, seats, pairs, winner, "reason", "t")

    fixed = [correction(1, "correct", {"A": 121, "B": 85}, "A")]
    assert reference.view(NIGHT, [], rows, [], fixed).standings[0].game_points == 3
    twice = fixed + [correction(2, "correct", {"A": 110, "B": 121}, "B")]
    assert reference.view(NIGHT, [], rows, [], twice).standings[0].player == "B"
    void = twice + [correction(3, "void")]
    assert all(line.games == 0 for line in reference.view(NIGHT, [], rows, [], void).standings)
    restored = void + [correction(4, "restore")]
    view = reference.view(NIGHT, [], rows, [], restored)
    assert (view.standings[0].player, view.standings[0].game_points, view.games[0].status) == ("A", 2, "finished")


def test_results_take_their_pairing_late_ones_too_and_others_are_held_unpaired():
    rounds = [round_row(1, PairingRow("1", ("A", "B"), False), PairingRow("2", ("C", "D"), False)),
              round_row(2, PairingRow("1", ("A", "C"), False), PairingRow("2", ("B", "D"), False))]
    rows = [result_row(1, "1", 1, 5, {"B": 121, "A": 99}, round_number=1),
            result_row(2, "2", 1, 5, {"C": 121, "D": 70}, round_number=2),  # round 1's, arriving late
            result_row(3, "1", 2, 5, {"A": 121, "D": 70}, round_number=2)]  # nobody's pairing
    view = reference.view(NIGHT, players("A", "B", "C", "D"), rows, rounds, [])
    assert view.rounds[0].complete and not view.rounds[1].complete
    assert [p.game.game if p.game else None for p in view.rounds[0].pairings] == [1, 1]
    assert [g.game for g in view.unpaired] == [2]
    assert view.unpaired[0].status == "unpaired" and view.held == view.unpaired
    assert sum(line.games for line in view.standings) == 4  # the unpaired game counts for nobody


def test_the_next_round_avoids_repeats_and_uses_the_tables_in_name_order():
    rounds = [round_row(1, PairingRow("1", ("A", "B"), False), PairingRow("2", ("C", "D"), False))]
    rows = [result_row(1, "1", 1, 5, {"A": 121, "B": 99}), result_row(2, "2", 1, 5, {"C": 121, "D": 70})]
    view = reference.view(NIGHT, players("A", "B", "C", "D"), rows, rounds, [])
    made = nights.next_pairings(view, ["10", "9"])
    assert made == [PairingRow("9", ("C", "A"), False), PairingRow("10", ("B", "D"), False)]


def test_a_removed_player_is_not_paired_but_keeps_their_games():
    rows = [result_row(1, "1", 1, 5, {"A": 121, "B": 99})]
    roster = players("A", "B", "C") + [PlayerRow(9, 1, "remove", "b", "t")]
    view = reference.view(NIGHT, roster, rows, [], [])
    assert view.players == ("A", "C")
    assert {line.player for line in view.standings} == {"A", "B", "C"}
    assert nights.next_pairings(view, ["1"]) == [PairingRow("1", ("A", "C"), False)]


def test_the_hub_scores_low_ball_by_the_variants_rule_not_its_name(monkeypatch):
    """A variant of another name whose ``lowball`` is set is scored as low-ball: its result, and a
    director's correction of it, stand with the lower score winning; a name no variant has is not low-ball."""
    monkeypatch.setitem(VARIANTS, "misere", find_variant("low-ball")._replace(name="misere"))
    row = result_row(1, "1", 1, 5, {"A": 80, "B": 121})
    row.payload.update(variant="misere", winner="A")
    assert nights.is_lowball(row.payload) and nights.result_of(row.payload).lowball
    assert not any(nights.is_lowball(payload) for payload in ({"variant": "six-card"}, {"variant": "nine-card"},
                                                                 {"variant": None}, {}))
    book = nights.NightBook(NIGHT, entries_checked=False)
    book.add_results([row])
    assert book.view().games[0].status == "finished"
    assert [(line.player, line.wins, line.spread) for line in book.view().standings] == [("A", 1, 41), ("B", 0, -41)]
    fixed = CorrectionRow(1, 1, *row.game_key, "correct", ("A", "B"), (("A", 121), ("B", 60)), "B", "reason", "t")
    book.add_corrections([fixed])
    assert book.view().games[0].status == "corrected"
    assert [(line.player, line.wins, line.spread) for line in book.view().standings] == [("B", 1, 61), ("A", 0, -61)]


def checked_result(row_id, table, game, lines, scores, round_number=1, ledger="b" * 16):
    """A finished result of ``rev`` len(lines) - 1, as a board sends it (margin included)."""
    row = result_row(row_id, table, game, len(lines) - 1, scores, round_number=round_number, ledger=ledger)
    winner = row.payload["winner"]
    row.payload["margin"] = scores[winner] - min(scores.values())
    return row


def both(rows_in, rounds, entries):
    """The night by the reference's view() and by a NightBook fed the same rows (entries first), which must agree."""
    book = nights.NightBook(NIGHT)
    book.add_players(players("A", "B", "C", "D"))
    book.add_rounds(rounds)
    book.add_entries((key, seq, line) for key, lines in entries.items() for seq, line in lines.items())
    book.add_results(rows_in)
    derived = reference.view(NIGHT, players("A", "B", "C", "D"), rows_in, rounds, [], entries)
    assert book.view() == derived
    return derived


def test_a_result_stands_only_on_its_entries_and_its_pairing():
    """The result its entries replay to, at its pairing, counts; one they contradict is a conflict, one
    whose entries are missing waits, one of no pairing is unpaired: each held, counted for nobody."""
    from club_hub import peg_lines

    rounds = [round_row(1, PairingRow("1", ("A", "B"), False), PairingRow("2", ("C", "D"), False))]
    good, later = peg_lines(("A", "B"), (121, 100)), peg_lines(("C", "D"), (121, 90))
    heels = ["game six-card seats=C,D dealer=C", "heels"]
    key = lambda table, game: ("thu", table, "b" * 16, game)  # noqa: E731
    rows = [checked_result(1, "1", 1, good, {"A": 121, "B": 100}),
            result_row(2, "2", 1, 1, {"D": 121, "C": 0}, ledger="b" * 16),  # its entries: a game line and heels
            checked_result(3, "2", 2, later, {"C": 121, "D": 90}),
            checked_result(4, "3", 1, good, {"A": 121, "B": 100})]  # table 3: the night has none
    rows[1].payload["margin"] = 121
    entries = {key("1", 1): dict(enumerate(good)), key("2", 1): dict(enumerate(heels)),
               key("2", 2): dict(enumerate(later[:2])),
               key("3", 1): dict(enumerate(good))}
    view = both(rows, rounds, entries)
    assert [(g.table, g.game, g.status) for g in view.games] == [
        ("1", 1, "finished"), ("2", 1, "conflict"), ("2", 2, "waiting"), ("3", 1, "unpaired")]
    assert "its entries give C 2, D 0, not finished" in view.games[1].reason
    assert view.games[2].reason.startswith("waits for its entries 2-")
    assert view.games[3].reason == "A v B from table 3: no pairing of the night's at that table"
    assert sum(line.games for line in view.standings) == 2 and view.rounds[0].pairings[1].game is None
    open_night = both(rows, [], entries)  # no round at all: any table may report any game
    assert [g.status for g in open_night.games] == ["finished", "conflict", "waiting", "finished"]
    late = dict(entries)
    late[key("2", 2)] = dict(enumerate(later))
    assert [g.status for g in both(rows, rounds, late).games][2] == "finished"


def test_a_book_counts_a_waiting_result_once_its_entries_come():
    """Entries that arrive after their result settle it: the book's view equals the derivation's."""
    from club_hub import peg_lines

    lines = peg_lines(("A", "B"), (121, 70))
    key = ("thu", "1", "b" * 16, 1)
    rounds = [round_row(1, PairingRow("1", ("A", "B"), False))]
    row = checked_result(1, "1", 1, lines, {"A": 121, "B": 70})
    book = nights.NightBook(NIGHT)
    book.add_players(players("A", "B"))
    book.add_rounds(rounds)
    book.add_entries((key, seq, line) for seq, line in enumerate(lines[:5]))
    book.add_results([row])
    assert book.view().games[0].status == "waiting" and not book.view().rounds[0].complete
    book.add_entries((key, seq, line) for seq, line in enumerate(lines) if seq >= 5)
    assert book.view().games[0].status == "finished" and book.view().rounds[0].complete
    assert book.view() == reference.view(NIGHT, players("A", "B"), [row], rounds, [], {key: dict(enumerate(lines))})
