"""The hub's incremental night (firmware.hub.night.NightBook) equals the night derived again from every row,
after every row of random nights: results in any order and revision, late ones, games nobody was paired
for, corrections, voids and restores, players removed and back, rounds with byes and without tables."""

from __future__ import annotations

import functools
import random

import pytest

from firmware.hub import night as nights
from firmware.hub.ledger import CorrectionRow, Night, PairingRow, PlayerRow, ResultRow, RoundRow
from scorer import standings
from scorer.standings import name_key

import night_reference as reference

# A game's credits are a pure function of its immutable result and the rule: the derivation made again
# after every row remembers them (the rest of it, from the rows, is made anew each time).
remembered_credits = functools.lru_cache(maxsize=4096)(standings.credits)

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Zoë", "ZOË", "ann"]  # ann and ZOË: other spellings


class RandomNight:
    """A night's rows made at random, one at a time, as the hub's ledger would hold them."""

    def __init__(self, seed: int, rules=("acc", "acc")):
        self.rng = random.Random(seed)
        self.night = Night(1, "thu", f"night-{seed}", rules[0], rules[1], 5, "t")
        self.players: list[PlayerRow] = []
        self.results: list[ResultRow] = []
        self.rounds: list[RoundRow] = []
        self.corrections: list[CorrectionRow] = []
        self.ids = 0
        self.revs: dict[tuple, int] = {}

    def next_id(self) -> int:
        self.ids += 1
        return self.ids

    def full(self) -> nights.NightView:
        """The night derived again from every row (:func:`night_reference.view`), each game's credits remembered."""
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(reference, "credits", remembered_credits)
            return reference.view(self.night, self.players, self.results, self.rounds, self.corrections)

    def step(self, book: nights.NightBook) -> str:
        """One more row, given to ``book`` too; what it was."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.12 or len(self.players) < 2:
            name = rng.choice(NAMES)
            action = "remove" if self.players and rng.random() < 0.3 else "add"
            row = PlayerRow(self.next_id(), 1, action, name, "t")
            self.players.append(row)
            book.add_players([row])
            return f"player {action} {name}"
        if roll < 0.2 and len(self.rounds) < 6:
            view = self.full()
            if len(view.players) >= 2 and rng.random() < 0.7:
                made = nights.next_pairings(view, rng.sample(["1", "2", "3", "10"], rng.randint(1, 3)))
            else:  # anything at all: a pairing without a table, names not registered
                made = [PairingRow(rng.choice(["1", "2", None]), tuple(rng.sample(NAMES[:7], 2)), False)
                        for _ in range(rng.randint(1, 3))]
                if rng.random() < 0.3:
                    made.append(PairingRow(None, (rng.choice(NAMES),), True))
            row = RoundRow(self.next_id(), 1, len(self.rounds) + 1, "t", "test", tuple(made))
            self.rounds.append(row)
            book.add_rounds([row])
            return f"round {row.number}: {made}"
        if roll < 0.82:
            row = self.result()
            self.results.append(row)
            book.add_results([row])
            return f"result {row.game_key} rev {row.rev} {row.status} round {row.round}"
        row = self.correction()
        self.corrections.append(row)
        book.add_corrections([row])
        return f"correction {row.action} {row.game_key}"

    def seats(self) -> list[str]:
        rng = self.rng
        current = self.rounds[-1].pairings if self.rounds else ()
        choices = [p for p in current if not p.bye]
        earlier = [p for each in self.rounds for p in each.pairings if not p.bye]
        if choices and rng.random() < 0.6:
            return list(rng.choice(choices).players)
        if earlier and rng.random() < 0.5:
            return list(rng.choice(earlier).players)
        seats, keys = [], set()
        while len(seats) < 2:
            name = rng.choice(NAMES)
            if name_key(name) not in keys:
                keys.add(name_key(name))
                seats.append(name)
        return seats

    def result(self) -> ResultRow:
        rng = self.rng
        if self.revs and rng.random() < 0.35:  # a game again: a later revision, or an earlier one late
            key = rng.choice(list(self.revs))
            seats = next(r for r in self.results if r.game_key == key).payload["seats"]
            rev = self.revs[key] + rng.choice([1, 2, -1])
            self.revs[key] = max(self.revs[key], rev)
        else:
            key = ("thu", rng.choice(["1", "2", "3", "10"]), rng.choice(["a" * 16, "b" * 16]), rng.randint(1, 40))
            if key in self.revs:
                return self.result()
            seats = self.seats()
            rev = rng.randint(1, 5)
            self.revs[key] = rev
        status = rng.choices(["finished", "open", "abandoned"], [6, 2, 1])[0]
        winner = rng.choice(seats)
        scores = {seat: (121 if seat == winner else rng.randint(40, 120)) for seat in seats}
        payload = {"table": key[1], "ledger": key[2], "game": key[3], "rev": rev, "status": status,
                   "variant": "six-card", "seats": seats, "scores": scores,
                   "winner": winner if status == "finished" else None}
        if status == "finished" and rng.random() < 0.05:
            payload["winner"] = "Nobody"  # a stored result that no longer reads: "unreadable"
        number = len(self.rounds) - (rng.random() < 0.2)  # some arrive a round late
        return ResultRow(self.next_id(), 1, max(0, number), *key, rev, status, payload, "t")

    def correction(self) -> CorrectionRow:
        rng = self.rng
        keys = list(self.revs) or [("thu", "1", "a" * 16, 1)]
        key = rng.choice(keys) if rng.random() < 0.9 else ("thu", "9", "c" * 16, 1)  # one never received
        action = rng.choice(["correct", "correct", "void", "restore"])
        if action != "correct":
            return CorrectionRow(self.next_id(), 1, *key, action, None, None, None, "reason", "t")
        seats = self.seats()
        winner = rng.choice(seats)
        scores = tuple((seat, 121 if seat == winner else rng.randint(30, 120)) for seat in seats)
        return CorrectionRow(self.next_id(), 1, *key, action, tuple(seats), scores, winner, "reason", "t")


def changed_rounds(before: nights.NightView, after: nights.NightView) -> set[int]:
    old = {each.number: each for each in before.rounds}
    return {each.number for each in after.rounds if old.get(each.number) != each}


def changed_players(before: nights.NightView, after: nights.NightView) -> set[str]:
    old = {name_key(line.player): line for line in before.standings}
    new = {name_key(line.player): line for line in after.standings}
    return {key for key in old.keys() | new.keys() if old.get(key) != new.get(key)}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_the_incremental_night_equals_the_night_derived_again_after_every_row(seed):
    """After every row the book's view is the full derivation's, and what it says changed covers what did."""
    rules = [("acc", "acc"), ("2/3/4", "lurch"), ("casual", "none")][seed % 3]
    night = RandomNight(seed, rules)
    book = nights.NightBook(night.night, entries_checked=False)
    before = book.view()
    for step in range(160):
        what = night.step(book)
        after = night.full()
        assert book.view() == after, f"seed {seed}, row {step}: {what}"
        change = book.changes()
        assert changed_players(before, after) <= change.players, f"seed {seed}, row {step}: {what}"
        assert changed_rounds(before, after) <= change.rounds, f"seed {seed}, row {step}: {what}"
        before = after


def test_a_book_fed_all_rows_at_once_equals_one_fed_row_by_row():
    """A restart (every row read at once, in the ledger's order) gives the night the running hub had."""
    night = RandomNight(99)
    running = nights.NightBook(night.night, entries_checked=False)
    for _ in range(200):
        night.step(running)
    restarted = nights.NightBook(night.night, entries_checked=False)
    restarted.add_players(night.players)
    restarted.add_rounds(night.rounds)
    restarted.add_results(night.results)
    restarted.add_corrections(night.corrections)
    assert restarted.view() == running.view() == night.full()
    assert len(running.view().games) > 20 and any(r.complete for r in running.view().rounds)


def test_one_result_touches_its_players_not_the_night():
    """A result in a night of 2,000 players changes the lines of its two players and one round."""
    night = Night(1, "thu", "big", "acc", "acc", 9, "t")
    book = nights.NightBook(night, entries_checked=False)
    roster = [PlayerRow(k + 1, 1, "add", f"P{k:04}", "t") for k in range(2000)]
    book.add_players(roster)
    pairings = tuple(PairingRow(str(k + 1), (f"P{2 * k:04}", f"P{2 * k + 1:04}"), False) for k in range(1000))
    book.add_rounds([RoundRow(1, 1, 1, "t", "start", pairings)])
    book.changes()
    payload = {"table": "7", "ledger": "a" * 16, "game": 1, "rev": 9, "status": "finished", "variant": "six-card",
               "seats": ["P0012", "P0013"], "scores": {"P0012": 121, "P0013": 80}, "winner": "P0012"}
    book.add_results([ResultRow(1, 1, 1, "thu", "7", "a" * 16, 1, 9, "finished", payload, "t")])
    change = book.changes()
    assert change.players == {"p0012", "p0013"} and change.rounds == {1} and len(change.games) == 1
    view = book.view()
    assert view.standings[0].player == "P0012" and view.rounds[0].pairings[6].game.game == 1
