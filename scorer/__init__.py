"""The cribbage rules, the ledger and the counting of hands.

The core (cards, counting, variants, game, record, report) is pure: no I/O,
no clock, no hardware. ``scorer.store`` keeps the ledger in SQLite.
"""

# Names are imported on first use (PEP 562), so ``import scorer.cards`` for a
# quick count does not load the game, the record and the variants too.
_HOMES = {
    "cards": ("Card", "parse_card", "parse_cards"),
    "counting": ("Score", "ScoreItem", "distribution", "impossible_totals", "score_hand", "score_play"),
    "errors": ("CribbageError", "RuleError"),
    "game": ("Entry", "EntryKind", "Game", "Match", "Outcome", "Phase"),
    "record": ("Command", "GameHeader", "Scorebook", "parse_line", "replay"),
    "variants": ("VARIANTS", "GamePoints", "Options", "ResultKind", "SkunkLines", "find_variant"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = list(_HOME_OF)


def __getattr__(name: str):
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'scorer' has no attribute {name!r}")
    from importlib import import_module  # here, not at import: ``count`` starts without importlib

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + __all__)
