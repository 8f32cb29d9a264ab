"""The buzzer's tunes, and which one a press earns (pure: the board loop plays it)."""

from __future__ import annotations

from scorer.variants import SkunkLines, skunk_lines

# The buzzer's tunes: (Hz, seconds) notes, 0 Hz a rest (hardware.buzzer plays 110-1760 Hz).
TUNES: dict[str, tuple[tuple[float, float], ...]] = {
    "accept": ((1319.0, 0.05),),  # a short high blip: the entry is saved
    "refuse": ((196.0, 0.12), (0.0, 0.04), (147.0, 0.2)),  # low, falling: nothing changed
    "skunk": ((784.0, 0.08), (988.0, 0.08), (1175.0, 0.14)),  # rising: a side is over a skunk line
    "win": ((784.0, 0.1), (988.0, 0.1), (1175.0, 0.1), (1568.0, 0.35)),  # a fanfare: game over
}


def sound_for(
    before: tuple[int, ...], after: tuple[int, ...], target: int, lines: SkunkLines,
    won: bool, accepted: bool, refused: bool,
) -> str | None:
    """The tone for what one input did: "win" (the game just ended), "skunk" (a side's
    score rose over a skunk line), "accept" (any other entry taken), "refuse", or None."""
    if won:
        return "win"
    if accepted:
        if before and any(b < line.below <= a for b, a in zip(before, after) for line in skunk_lines(target, lines)):
            return "skunk"
        return "accept"
    return "refuse" if refused else None

