"""The buzzer's tunes, and which one a press earns (pure: the board loop plays it)."""

from __future__ import annotations

from .outcome import Outcome

# The buzzer's tunes: (Hz, seconds) notes, 0 Hz a rest (hardware.buzzer plays 110-1760 Hz).
TUNES: dict[str, tuple[tuple[float, float], ...]] = {
    "accept": ((1319.0, 0.05),),  # a short high blip: the entry is saved
    "refuse": ((196.0, 0.12), (0.0, 0.04), (147.0, 0.2)),  # low, falling: nothing changed
    "skunk": ((784.0, 0.08), (988.0, 0.08), (1175.0, 0.14)),  # rising: a side is over a skunk line
    "win": ((784.0, 0.1), (988.0, 0.1), (1175.0, 0.1), (1568.0, 0.35)),  # a fanfare: game over
    # a blip, then two lower: saved, and the play is over (the show has begun)
    "play-over": ((1319.0, 0.05), (0.0, 0.05), (880.0, 0.05), (0.0, 0.05), (880.0, 0.12)),
}


def sound_for(outcome: Outcome) -> str | None:
    """The tone for what one input did: "win" (the game just ended), "skunk" (a side's score
    rose over one of the game's skunk lines), "play-over" (a knob press ended the play; the
    OLED says so too), "accept" (any other entry taken), "refuse", or None (nothing entered)."""
    if outcome.won:
        return "win"
    if outcome.accepted:
        return "skunk" if outcome.crossed else "play-over" if outcome.play_over else "accept"
    return "refuse" if outcome.refused else None
