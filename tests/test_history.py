"""scorer.history: the pegging race, players' statistics and where hands ran against all hands."""

from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import combinations

import pytest

from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.cards import deck
from scorer.counting import score_hand
from scorer.distribution import distribution
from scorer.history import hand_percentile, percentiles, player_stats, race
from scorer.record import parse_line, replay
from scorer.report import state_dict
from scorer.variants import SkunkLines, result_kind, skunk_lines

SIX = "game six-card seats=Alice,Bob dealer=Alice"
# Alice wins 121 to 85 (a skunk): deal 1 heels, play and show; then Alice pegs out.
ALICE_SKUNKS_BOB = [
    SIX, "heels", "peg Bob 2", "go Alice", "hand Bob 8", "hand Alice 12", "crib 6",
    "peg Alice 3", "hand Alice 4", "hand Bob 10", "crib Bob 2",
    *["peg Bob 15"] * 4, "peg Bob 3", *["peg Alice 15"] * 6, "peg Alice 3",
]
PARTNERS = [
    "game four-hand seats=A,B,C,D dealer=A", "peg B 2", "hand B 6", "hand C 4", "hand D 10", "hand A 2", "crib 8",
    *["peg A 15"] * 6, "peg C 15", "peg C 15",
]


def test_race_gives_each_sides_score_after_each_line():
    """Scores after each line, aligned with the lines after the header; undo takes the peg back."""
    lines = [SIX, "heels", "peg Bob 2", "undo", "# a comment", "peg Bob 3", "hand Alice 8"]
    chart = race(lines)
    assert chart["sides"] == ["Alice", "Bob"] and chart["target"] == 121 and chart["start"] == [0, 0]
    assert chart["scores"] == [[2, 0], [2, 2], [2, 0], [2, 0], [2, 3], [2, 3]]  # Alice's hand is out of turn
    assert len(chart["scores"]) == len(lines) - 1


def test_race_ends_where_replay_ends():
    """The last point of the race is the final score the replay gives."""
    chart = race(ALICE_SKUNKS_BOB)
    final = state_dict(replay(ALICE_SKUNKS_BOB).book)
    assert chart["scores"][-1] == [side["score"] for side in final["sides"]] == [121, 85]
    assert chart["lines"] == [{"result": "skunk", "below": 91}, {"result": "double-skunk", "below": 61}]


def test_race_has_no_skunk_lines_in_low_ball():
    """Low-ball has no skunks: no lines to draw."""
    assert race(["game low-ball seats=A,B dealer=A", "peg A 2"])["lines"] == []


def test_race_starts_five_card_with_three_for_last():
    """Five-card: the pone's three for last is on the board before the first line."""
    chart = race(["game five-card seats=A,B dealer=A", "peg A 2"])
    assert chart["start"] == [0, 3] and chart["scores"] == [[2, 3]]
    assert chart["lines"] == [{"result": "skunk", "below": 31}, {"result": "double-skunk", "below": 1}]


@pytest.mark.parametrize("target, skunk, lines", [
    (121, "acc", [("skunk", 91), ("double-skunk", 61)]),
    (121, "triple", [("skunk", 91), ("double-skunk", 61), ("triple-skunk", 31)]),
    (121, "lurch", [("lurch", 61)]),
    (61, "lurch", [("lurch", 31)]),
    (181, "acc", [("skunk", 151), ("double-skunk", 121)]),
    (121, "none", []),
])
def test_skunk_lines_follow_the_target_and_option(target, skunk, lines):
    """The lines a loser is held against, as the rules put them."""
    assert [(line.kind.value, line.below) for line in skunk_lines(target, SkunkLines(skunk))] == lines


def test_skunk_lines_agree_with_the_result_a_score_makes():
    """Just under each line the rules give that result; on the line they do not."""
    for skunk in SkunkLines:
        for target in (61, 121, 181):
            for line in skunk_lines(target, skunk):
                assert result_kind(line.below - 1, target, skunk) is line.kind
                assert result_kind(line.below, target, skunk) is not line.kind


@pytest.mark.parametrize("lines, message", [
    ([], "an empty record"),
    (["peg A 2"], "starts with its game line"),
    (["game six-card seats=A"], "refused"),
    ([SIX, "game six-card seats=Alice,Bob"], "one game"),
    ([SIX, "frob"], "does not read"),
])
def test_race_refuses_what_is_not_one_game(lines, message):
    """A record that is not one game's lines is a ValueError that says what to give."""
    with pytest.raises(ValueError, match=message):
        race(lines)


def test_player_stats_from_a_finished_game():
    """Alice skunks Bob: games, wins, skunks, hands, cribs, play per deal and heels as counted by hand."""
    alice, bob = player_stats([ALICE_SKUNKS_BOB], percentile=False)
    assert (alice["name"], alice["games"], alice["wins"], alice["losses"]) == ("Alice", 1, 1, 0)
    assert (bob["name"], bob["games"], bob["wins"], bob["losses"]) == ("Bob", 1, 0, 1)
    assert (alice["skunks_given"], alice["skunks_taken"], bob["skunks_given"], bob["skunks_taken"]) == (1, 0, 0, 1)
    assert alice["hands"] == [12, 4] and bob["hands"] == [8, 10]
    assert alice["average_hand"] == 8 and bob["best_hand"] == 10
    assert alice["cribs"] == [6] and bob["cribs"] == [2] and bob["average_crib"] == 2
    assert alice["heels"] == 1 and bob["heels"] == 0
    assert alice["deals"] == bob["deals"] == 3
    assert alice["play_per_deal"] == (1 + 3 + 15 * 6 + 3) / 3
    assert bob["play_per_deal"] == (2 + 15 * 4 + 3) / 3
    assert alice["percentile"] is None and alice["hands_by_size"] == {"4": [12, 4]}


def test_player_stats_across_games_names_and_abandoned():
    """Two games: names match whatever their case; a game that did not end counts as abandoned only."""
    unfinished = ["game six-card seats=bob,alice dealer=bob", "hand alice 6"]
    alice, bob = player_stats([ALICE_SKUNKS_BOB, unfinished], percentile=False)
    assert (alice["name"], alice["games"], alice["abandoned"], alice["hands"]) == ("Alice", 1, 1, [12, 4, 6])
    assert (bob["games"], bob["abandoned"], bob["wins"]) == (1, 1, 0)


def test_player_stats_for_partnerships():
    """Four-hand: each player has a row, and so has each partnership, in either seat order."""
    again = ["game four-hand seats=C,B,A,D dealer=C", *["peg B 15"] * 8, "peg B 1"]
    rows = {row["name"]: row for row in player_stats([PARTNERS, again], percentile=False)}
    assert set(rows) == {"A", "B", "C", "D", "A+C", "B+D"}
    assert rows["A+C"]["kind"] == "partnership" and rows["A"]["kind"] == "player"
    assert (rows["A+C"]["games"], rows["A+C"]["wins"], rows["B+D"]["wins"]) == (2, 1, 1)
    assert rows["A+C"]["hands"] == [4, 2] and rows["B+D"]["hands"] == [6, 10]
    assert rows["A+C"]["cribs"] == [8] and rows["A"]["cribs"] == [8] and rows["C"]["cribs"] == []
    assert rows["B+D"]["skunks_taken"] == 1 and rows["A+C"]["skunks_given"] == 1  # 18 < 91
    assert rows["A+C"]["skunks_taken"] == 1  # A+C on 0 when B pegged out


def test_player_stats_with_three_losers():
    """Four each alone: the winner gives a skunk to each loser under the line."""
    record = ["game four-hand-individual seats=A,B,C,D dealer=A", *["peg B 15"] * 6,
              *["peg C 15"] * 2, *["peg A 15"] * 8, "peg A 1"]
    rows = {row["name"]: row for row in player_stats([record], percentile=False)}
    assert rows["A"]["skunks_given"] == 3 and rows["A"]["wins"] == 1
    assert [rows[s]["skunks_taken"] for s in "BCD"] == [1, 1, 1]


def test_player_stats_percentile_places_each_hand_size():
    """The percentile weighs each hand against its own hand size's distribution."""
    five = ["game five-card seats=A,B dealer=A", "hand B 4", "hand A 6"]
    rows = {row["name"]: row for row in player_stats([ALICE_SKUNKS_BOB, five])}
    assert rows["Alice"]["percentile"] == pytest.approx(hand_percentile([12, 4], 4))
    a = rows["A"]
    assert a["hands_by_size"] == {"3": [6]} and a["percentile"] == pytest.approx(hand_percentile([6], 3))
    assert hand_percentile([6], 3) != pytest.approx(hand_percentile([6], 4))


@pytest.mark.slow
def test_percentiles_agree_with_counting_every_hand_of_a_small_pack():
    """The mid-rank percentile formula against a brute-force count over every hand of a 16-card pack."""
    cards = [c for c in deck() if c.rank in (1, 5, 10, 11)]
    totals = [score_hand(four, starter).total
              for four in combinations(cards, 4) for starter in cards if starter not in four]
    placed = percentiles(Counter(totals))
    for total in set(totals):
        less = sum(1 for t in totals if t < total)
        same = sum(1 for t in totals if t == total)
        assert placed[total] == pytest.approx(100 * (less + same / 2) / len(totals))


def test_hand_percentile_against_the_whole_pack():
    """3-card hands: each total against the sorted population of every hand; 29 and 0 for 4 cards exactly."""
    counts = distribution(3)
    population = sorted(total for total, n in counts.items() for _ in range(n))
    for total in range(0, 22):
        less, upto = bisect_left(population, total), bisect_right(population, total)
        brute = 100 * (less + (upto - less) / 2) / len(population)
        assert hand_percentile([total], 3) == pytest.approx(brute, abs=1e-9)
    everyone = 12_994_800
    assert hand_percentile([29], 4) == pytest.approx(100 * (everyone - 4 + 2) / everyone)
    assert hand_percentile([0], 4) == pytest.approx(100 * 1_009_008 / 2 / everyone)
    assert hand_percentile([0, 29], 4) == pytest.approx((hand_percentile([0], 4) + hand_percentile([29], 4)) / 2)


def test_the_pack_itself_runs_at_the_50th_percentile():
    """Hands drawn exactly as the pack deals them average the 50th percentile."""
    counts = distribution(4)
    placed = percentiles(counts)
    assert sum(placed[t] * n for t, n in counts.items()) / sum(counts.values()) == pytest.approx(50)


def test_hand_percentile_needs_counts():
    """No hands: a ValueError, not a made-up figure."""
    with pytest.raises(ValueError, match="no hand counts"):
        hand_percentile([], 4)


def test_history_reads_what_the_reader_gives(tmp_path):
    """From a ledger: games() and export() feed player_stats and race directly."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        for line in ALICE_SKUNKS_BOB + ["game six-card seats=Alice,Bob", "peg Bob 2"]:
            store.apply(parse_line(line))
    with LedgerReader(path) as reader:
        records = [reader.export(game.id) for game in reader.games()]
        chart = race(reader.export(1))
        entries = reader.times(1).entries
    rows = player_stats(records, percentile=False)
    assert [(r["name"], r["wins"], r["games"]) for r in rows] == [("Alice", 1, 1), ("Bob", 0, 1)]
    assert len(chart["scores"]) == len(entries) and chart["scores"][-1] == [121, 85]


def test_player_stats_again_gives_the_same_rows():
    """Games kept from an earlier call count the same; a new game adds to them."""
    first = player_stats([ALICE_SKUNKS_BOB], percentile=False)
    assert player_stats([ALICE_SKUNKS_BOB], percentile=False) == first
    both = {row["name"]: row for row in player_stats([ALICE_SKUNKS_BOB, ALICE_SKUNKS_BOB], percentile=False)}
    assert both["Alice"]["hands"] == first[0]["hands"] * 2 and both["Alice"]["wins"] == 2
