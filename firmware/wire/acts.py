"""What a scoring input may ask of the board, and which of it a seat's phone may use now.

The one list of acts: the board decides them (:func:`firmware.board.scoring.decide`),
its socket checks a phone's against :data:`PHONE_ACTS`, a script's ``enter`` line
takes the same names, and the web view sends each seat's :func:`usable_acts` to its
page, which enables its keys from them.
"""

from __future__ import annotations

from enum import Enum


class Act(Enum):
    """What a scoring input asks for."""

    PEG = "peg"  # points in the play (a colour button: in the show with muggins on, a claim)
    COUNT = "count"  # the next count of the show, whoever's it is (the knob)
    HAND = "hand"  # the seat's own hand in the show
    CRIB = "crib"  # the crib in the show (the dealer's)
    HEELS = "heels"  # his heels, for the dealer
    GO = "go"  # the go in the play: 1 for the last card
    CLAIM = "claim"  # muggins: points the last count missed
    UNDO = "undo"
    REDO = "redo"
    NEW_GAME = "new-game"  # the next game of the match
    NEW_MATCH = "new-match"  # a new match: its tally from 0


PHONE_ACTS = (Act.PEG, Act.HAND, Act.CRIB, Act.HEELS, Act.CLAIM, Act.UNDO, Act.GO, Act.REDO, Act.NEW_GAME,
              Act.NEW_MATCH)
PHONE_ACT_NAMES = tuple(act.value for act in PHONE_ACTS)  # as a phone's request and a script's enter line name them
AFTER_THE_GAME = (Act.UNDO, Act.REDO, Act.NEW_GAME, Act.NEW_MATCH)  # what a phone may still do once a game is won


def usable_acts(phase: str, dealer: bool, muggins: bool) -> tuple[str, ...]:
    """The acts a seat's phone may use now: ``phase`` is the deal's ("heels", "play", "show",
    "over"), ``dealer`` whether the seat deals, ``muggins`` whether the option is on. His heels
    are the dealer's at the start of a deal, the crib the dealer's, the go the play's, muggins
    only when it is on; once the game is over, only undo, redo and a new game or match; the rest
    any seat may send at any time (the board says why it refuses).

        >>> usable_acts("heels", dealer=True, muggins=False)
        ('peg', 'hand', 'crib', 'heels', 'undo', 'go', 'redo', 'new-game', 'new-match')
        >>> usable_acts("show", dealer=False, muggins=True)
        ('peg', 'hand', 'claim', 'undo', 'redo', 'new-game', 'new-match')
        >>> usable_acts("over", dealer=True, muggins=True)
        ('undo', 'redo', 'new-game', 'new-match')
    """
    if phase == "over":
        return tuple(act.value for act in PHONE_ACTS if act in AFTER_THE_GAME)
    barred = set()
    if not (dealer and phase == "heels"):
        barred.add(Act.HEELS)
    if not dealer:
        barred.add(Act.CRIB)
    if not muggins:
        barred.add(Act.CLAIM)
    if phase not in ("heels", "play"):
        barred.add(Act.GO)
    return tuple(act.value for act in PHONE_ACTS if act not in barred)


def usable_by_seat(state: dict | None) -> list[tuple[str, ...]]:
    """:func:`usable_acts` for each seat of a game, from its state as ``replay --json`` gives it
    (empty without a game).

        >>> [acts[:4] for acts in usable_by_seat({"seats": ["Red", "Blue"], "dealer": "Blue", "phase": "play"})]
        [('peg', 'hand', 'undo', 'go'), ('peg', 'hand', 'crib', 'undo')]
    """
    if not state or not state.get("seats"):
        return []
    phase, muggins = str(state.get("phase")), bool((state.get("options") or {}).get("muggins"))
    return [usable_acts(phase, seat == state.get("dealer"), muggins) for seat in state["seats"]]
