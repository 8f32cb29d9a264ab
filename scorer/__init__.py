"""The cribbage rules, the ledger and the counting of hands.

The core (cards, counting, variants, game, record, report) is pure: no I/O,
no clock, no hardware. ``scorer.store`` keeps the ledger in SQLite.
"""

from .cards import Card, parse_card, parse_cards
from .counting import Score, ScoreItem, distribution, impossible_totals, score_hand, score_play
from .errors import CribbageError, RuleError
from .game import Entry, EntryKind, Game, Match, Outcome, Phase
from .record import Command, GameHeader, Scorebook, parse_line, replay
from .variants import VARIANTS, GamePoints, Options, ResultKind, SkunkLines, find_variant

__all__ = [
    "Card", "parse_card", "parse_cards", "Score", "ScoreItem", "distribution",
    "impossible_totals", "score_hand", "score_play", "CribbageError", "RuleError",
    "Entry", "EntryKind", "Game", "Match", "Outcome", "Phase", "Command", "GameHeader",
    "Scorebook", "parse_line", "replay", "VARIANTS", "GamePoints", "Options",
    "ResultKind", "SkunkLines", "find_variant",
]
