"""What a board's club link keeps and sends of its ledger: the watermark (the hub's word, kept
beside the ledger) and each game's result payload, made from its stored lines."""

from __future__ import annotations

import json
from pathlib import Path

from ledger import feed
from ledger.files import replace_durably

from . import schema

WATERMARK_SUFFIX = ".club"
WATERMARK_VERSION = 2  # 1 moved on the broker's PUBACK (and named the broker): not taken up


class Watermark:
    """The hub's word on one ledger for one club and table (``key``), as the board keeps it: every
    item of the club's games up to ``place`` ((game, action)) is in the hub's ledger; games before
    ``floor`` are settled; ``results`` is each later game's result as the hub keeps it ([status, rev])."""

    def __init__(self, key: dict, place: tuple[int, int] = (0, 0), floor: int = 1,
                 results: dict[int, list] | None = None):
        game, action = place
        self.key, self.place, self.floor = key, (game, action), floor
        self.results: dict[int, list] = dict(results or {})

    @classmethod
    def load(cls, path: Path, key: dict) -> "tuple[Watermark | None, str | None]":
        """(the watermark in ``path``, None) if it is for ``key`` (ledger, club, table); else (None,
        why not), the why None when there is no file yet."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None, None
        except (OSError, ValueError) as error:
            return None, f"{path} cannot be read ({getattr(error, 'strerror', None) or error})"
        try:
            if data.get("v") != WATERMARK_VERSION:
                return None, f"{path} is from an older cribbage-board"
            if data.get("key") != key:
                return None, f"{path} is for another ledger, club or table"
            place = tuple(int(n) for n in data["place"])
            results = {int(game): [str(s), int(rev)] for game, (s, rev) in data["results"].items()}
            return cls(key, (place[0], place[1]), int(data["floor"]), results), None
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            return None, f"{path} does not read as a watermark"

    def save(self, path: Path) -> None:
        """Write it whole and durably (ledger.files: a power cut leaves the old one or this one)."""
        text = json.dumps({"v": WATERMARK_VERSION, "key": self.key, "place": list(self.place), "floor": self.floor,
                           "results": {str(game): value for game, value in self.results.items()}})
        replace_durably(path, text.encode("utf-8"))


def result_rev(status: feed.GameStatus, known: list | None) -> list | None:
    """[status, rev] of a game's result as its row says now; None when there is none to send:
    a live game with no result sent before, or one replaced before anything was entered."""
    if status.outcome is not None:
        return ["finished", status.entries]
    if status.status == "abandoned":
        return ["abandoned", status.entries + 1]
    if status.status is None and known is not None and known[0] == "finished":
        return ["open", status.entries]  # its end was undone: the result sent no longer stands
    return None


def result_payload_of(table: str, ledger: str, status: feed.GameStatus, wanted: list, lines: list[str]) -> dict | None:
    """The result payload of a game from its stored lines (replayed for the sides and scores)."""
    from scorer.errors import CribbageError
    from scorer.record import replay

    try:
        game = replay([status.header, *lines]).book.game
    except CribbageError:
        return None  # a game whose line no longer reads: nothing can be said of it
    if game is None:
        return None
    scores = {side.name: game.state.scores[i] for i, side in enumerate(game.sides)}
    outcome = game.outcome.to_dict() if wanted[0] == "finished" and game.outcome is not None else None
    if wanted[0] == "finished" and outcome is None:
        return None
    rule = {"target": game.variant.target, "skunk_lines": game.options.skunk.value,
            "points": game.options.points.spec()}
    return schema.result_payload(table, ledger, status.game, wanted[1], wanted[0], game.variant.name,
                                 list(game.seats), scores, outcome, status.finished, rule)
