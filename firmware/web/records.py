"""One game read back from its record: each line with what it did and the scores after it.

Pure: it takes a game's record lines (as ``LedgerReader.export`` gives them) and
replays them with ``scorer``; the race and the statistics are ``scorer.history``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ledger.rows import GameRow, result_of
from scorer.errors import CribbageError, RecordSyntaxError
from scorer.game import Game
from scorer.history import race
from scorer.record import Scorebook, parse_line, source_of


@dataclass
class Played:
    """One game replayed from its record: the game, and each record line with the scores after it."""

    game_id: int
    game: Game
    lines: list[dict]  # {"n", "line", "action", "text", "seat", "points", "scores", "via"[, "phone"]}
    race: dict  # scorer.history.race of the record
    problems: list[str] = field(default_factory=list)


def play_record(game_id: int, lines: list[str]) -> Played:
    """Replay one game's record line by line; what does not replay is kept in ``problems``.
    RecordSyntaxError if the game line itself does not read."""
    book = Scorebook()
    header = parse_line(lines[0]) if lines else None
    if header is None:
        raise RecordSyntaxError(f"game {game_id} has no game line")
    book.apply(header)
    game = book.game
    if game is None:  # the first line read, and was no game line
        raise RecordSyntaxError(f"game {game_id} has no game line")
    out, problems = [], []
    for n, text in enumerate(lines[1:], start=1):
        try:
            action = parse_line(text)
            if action is None:
                continue
            book.apply(action)
        except (CribbageError, ValueError) as error:
            problems.append(f"entry {n} ({text}) no longer replays: {error}")
            continue
        event = game.history[-1]
        out.append({
            "n": n,
            "line": text,
            "action": event.action,
            "text": event.entry.describe(),
            "seat": event.entry.seat,
            "points": event.entry.pegged,
            "scores": list(game.state.scores),
            **(source_of(text) or {"via": "board"}),
        })
    try:
        drawn = race(lines)
    except ValueError as error:  # a line that no longer reads: the race is not drawn
        problems.append(f"the race cannot be drawn: {error}")
        drawn = {"target": game.variant.target, "sides": [s.name for s in game.sides],
                 "start": list(game.state.scores), "scores": [], "lines": []}
    return Played(game_id, game, out, drawn, problems)


def summary(played: Played, status: str) -> GameRow:
    """A game replayed, as ``LedgerReader.games()`` lists games (for the game in play,
    which it does not list: no match id, no times)."""
    game = played.game
    outcome = game.outcome
    result = {} if outcome is None else result_of(outcome)
    return GameRow(played.game_id, None, game.variant.name, tuple(game.seats), game.variant.target, status, **result)


def taken_back(actions: list[str]) -> set[int]:
    """The positions in ``actions`` ("entry", "undo", "redo", "option", in order) of the entries and redos
    that a later undo took back: what a list of them should strike out (never the undo itself)."""
    standing: list[int] = []
    out: set[int] = set()
    for i, action in enumerate(actions):
        if action == "undo":
            if standing:
                out.add(standing.pop())
        elif action != "option":  # an entry, or a redo putting one back (an option change is neither)
            standing.append(i)
    return out


def line_marks(lines: list[dict]) -> list[tuple[int, str]]:
    """``scorer.history.race_lines`` as (score, label) marks: a loser under the score gets the label.
    A line under 1 (a 61 game's double skunk: a loser who never pegged) is no mark on a board or a
    chart: nothing lies before the first hole but the start."""
    return [(line["below"], line["result"].replace("-", " ")) for line in lines if line["below"] > 1]


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 62nd..."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th')}"


SPOKEN = {"start": "three for last", "heels": "for his heels", "peg": "in the play", "go": "for the go",
          "31": "for 31", "hand": "for the hand", "crib": "for the crib", "muggins": "by muggins"}


def spoken(action: str, entry) -> str:
    """An entry (a ``scorer.game.Entry``) said as a sentence for a screen reader: "Blue pegged 4 for
    the crib", "Red pegged 2 in the play: 15 two"; an undo or a redo says so first; an option
    changed mid-game (a ``scorer.game.OptionChange``) as it describes itself."""
    if action == "option":
        return entry.describe()
    kind = getattr(entry.kind, "value", entry.kind)
    text = f"{entry.seat} pegged {entry.points} {SPOKEN.get(kind, kind)}"
    if entry.note:
        text += f": {entry.note}"
    return {"undo": "Taken back: ", "redo": "Put back: "}.get(action, "") + text

