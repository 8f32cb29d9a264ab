"""Deals played by the rules from a seeded shuffle, and the actions it takes to enter them: on the
board's knob and buttons, and on a paired phone's page.

Each deal is dealt, each player keeps the four cards that score best on average over a few
possible starters, the play is played out (each player laying the card that scores most now),
and the show counted by ``scorer``. The entries are pushed onto a real :class:`~scorer.game.Game`
(each one legal there), so a game stops at its winning entry.

The board: dialling N points is N detents of the encoder (the dial starts at 0 after every entry
on the board), then one press: the colour button for play points, the knob for a count of the
show (a nineteen, 0 points, is the knob's press alone); his heels are the dealer's colour button
with nothing dialled. The terminal's keys ``<``/``>`` turn five detents at once:
:func:`knob_keys` counts those keystrokes instead of detents.

The phone: a play count on one of the page's chips is one tap, any other its digits and the Play
button; a count of the show is its digits and My hand or Crib (a nineteen: the 19 key and the
button); his heels is one tap.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import NamedTuple

from firmware.web.pages import PLAY_CHIPS
from scorer.cards import Card, deck
from scorer.counting import score_hand, score_play
from scorer.game import Entry, EntryKind, Game
from scorer.variants import find_variant

STARTERS_TRIED = 10  # possible starters a player weighs a discard against


class Deal(NamedTuple):
    """One deal's entries, in the order they are made (the last deal of a game stops at its win)."""

    entries: list[Entry]


def keep_four(hand: list[Card], rng: random.Random) -> list[Card]:
    """The four cards of six that score best on average over a few starters from the rest of the deck."""
    rest = [card for card in deck() if card not in hand]
    starters = rng.sample(rest, STARTERS_TRIED)
    return list(max(combinations(hand, 4),
                    key=lambda kept: sum(score_hand(kept, starter).total for starter in starters)))


def play_points(hands: dict[str, list[Card]], leader: str, rng: random.Random) -> list[tuple[str, int]]:
    """The play, each player laying the card that scores most now (a tie: any of them); the points
    each card pegs, go and last card included, as (seat, points) for each card that scores."""
    hands = {seat: list(cards) for seat, cards in hands.items()}
    seats = list(hands)
    turn, laid, count, pegged = leader, [], 0, []
    while any(hands.values()):
        other = seats[1 - seats.index(turn)]
        playable = [card for card in hands[turn] if count + card.value <= 31]
        if not playable:
            turn = other
            continue
        best = max(score_play(laid + [card]).total for card in playable)
        card = rng.choice([card for card in playable if score_play(laid + [card]).total == best])
        hands[turn].remove(card)
        laid.append(card)
        count += card.value
        other_can = any(count + c.value <= 31 for c in hands[other])
        self_can = any(count + c.value <= 31 for c in hands[turn])
        end = count == 31 or not (other_can or self_can)
        points = score_play(laid, go=end).total
        if points:
            pegged.append((turn, points))
        if end:
            laid, count = [], 0
            turn = other if hands[other] else turn
        elif other_can:
            turn = other
    return pegged


def play_deal(game: Game, rng: random.Random) -> Deal:
    """Deal, play and count one deal on ``game``, pushing each entry; stops when the game is won."""
    dealer = game.dealer
    pone = next(seat for seat in game.seats if seat != dealer)
    cards = rng.sample(deck(), 13)
    kept = {pone: keep_four(cards[:6], rng), dealer: keep_four(cards[6:12], rng)}
    crib = [card for card in cards[:12] if card not in kept[pone] and card not in kept[dealer]]
    starter = cards[12]
    entries = [Entry.heels()] if starter.rank == 11 else []
    entries += [Entry.peg(seat, points) for seat, points in play_points(kept, pone, rng)]
    entries += [Entry.hand(pone, score_hand(kept[pone], starter).total),
                Entry.hand(dealer, score_hand(kept[dealer], starter).total),
                Entry.crib(score_hand(crib, starter, crib=True).total, dealer)]
    made = []
    for entry in entries:
        if not game.is_legal(entry):
            raise ValueError(f"{entry.record()} is not legal here")
        game.push(entry)
        made.append(entry)
        if game.is_over:
            break
    return Deal(made)


def played_deals(games: int, seed: int = 1) -> list[Deal]:
    """Every deal of ``games`` two-player six-card games to 121, played from a shuffle seeded ``seed``."""
    rng = random.Random(seed)
    deals = []
    for k in range(games):
        game = Game(find_variant("six-card"), ["Red", "Blue"], "Red" if k % 2 == 0 else "Blue")
        while not game.is_over:
            deals.append(play_deal(game, rng))
    return deals


def _shown(entry: Entry) -> bool:
    return entry.kind in (EntryKind.HAND, EntryKind.CRIB)


def knob_actions(entry: Entry) -> int:
    """Detents and presses to enter ``entry`` on the board."""
    if entry.kind is EntryKind.HEELS:
        return 1
    return entry.points + 1


def five_steps(points: int) -> int:
    """Keystrokes to dial ``points`` from 0 with one-detent and five-detent keys, the fewest."""
    return min(fives + abs(points - 5 * fives) for fives in range(points // 5 + 2))


def knob_keys(entry: Entry) -> int:
    """Keystrokes to enter ``entry`` on the mock board's terminal (``<``/``>`` turn five detents)."""
    if entry.kind is EntryKind.HEELS:
        return 1
    return five_steps(entry.points) + 1


def phone_taps(entry: Entry) -> int:
    """Taps to enter ``entry`` on a paired phone's page."""
    if entry.kind is EntryKind.HEELS:
        return 1
    if _shown(entry):
        return 2 if entry.points == 0 else len(str(entry.points)) + 1
    if entry.points in PLAY_CHIPS:
        return 1
    return len(str(entry.points)) + 1


class Counted(NamedTuple):
    """Actions a deal, on average, over some deals."""

    deals: int
    entries: float
    knob: float
    keys: float
    phone: float

    @property
    def ratio(self) -> float:
        """Phone taps for each knob action."""
        return self.phone / self.knob


def count_actions(deals: list[Deal]) -> Counted:
    entries = [entry for deal in deals for entry in deal.entries]
    n = len(deals)
    return Counted(n, len(entries) / n, sum(map(knob_actions, entries)) / n,
                   sum(map(knob_keys, entries)) / n, sum(map(phone_taps, entries)) / n)
