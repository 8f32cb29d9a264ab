"""Games read back from their records: summaries, entries with scores, the race, player statistics.

Everything here is pure: it takes a game's record lines (as ``LedgerReader.export``
gives them) and replays them with ``scorer``; nothing reads the ledger itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scorer.counting import distribution
from scorer.errors import CribbageError, RecordSyntaxError
from scorer.game import EntryKind, Game
from scorer.record import Scorebook, parse_line
from scorer.variants import ResultKind

PLAY = (EntryKind.PEG, EntryKind.GO, EntryKind.THIRTY_ONE)
SKUNKS = (ResultKind.SKUNK, ResultKind.DOUBLE_SKUNK, ResultKind.TRIPLE_SKUNK, ResultKind.LURCH)


@dataclass
class Played:
    """One game replayed from its record: the game, and each record line with the scores after it."""

    game_id: int
    game: Game
    lines: list[dict]  # {"n", "line", "action", "text", "scores", "note"}
    race: list[tuple[int, ...]]  # each side's score after each entry in force, the start first
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
        })
    return Played(game_id, game, out, race_of(game), problems)


def race_of(game: Game) -> list[tuple[int, ...]]:
    """Each side's score at the start and after each entry in force (undone ones left out),
    from the points each entry moved the peg (the five-card start bonus is the first step)."""
    target = game.variant.target
    scores = [0] * len(game.sides)
    race = [tuple(scores)]
    for entry in game.ledger:
        side = next(i for i, s in enumerate(game.sides) if entry.seat in s.seats)
        scores[side] = min(scores[side] + entry.pegged, target)
        race.append(tuple(scores))
    return race


def summary(played: Played, status: str) -> dict:
    """A game replayed, with the keys ``LedgerReader.games()`` lists (for the game in play,
    which it does not list: no match id, no finish)."""
    game = played.game
    outcome = game.outcome
    result = {"winner": None, "loser": None, "losers": [], "result": None, "margin": None,
              "game_points": None, "scores": None}
    if outcome is not None:
        result = {key: value for key, value in outcome.to_dict().items() if key in result}
    return {"id": played.game_id, "match_id": None, "variant": game.variant.name, "seats": list(game.seats),
            "target": game.variant.target, "status": status, **result, "started": None, "finished": None}


def skunk_lines(target: int, skunk: str) -> list[tuple[int, str]]:
    """(score, label) of the lines a loser must pass, for a game's target and skunk option."""
    if skunk == "none":
        return []
    if skunk == "lurch":
        return [((target + 1) // 2, "lurch")]
    lines = [(target - 30, "skunk"), (target - 60, "double skunk")]
    if skunk == "triple":
        lines.append((target - 90, "triple skunk"))
    return [(score, label) for score, label in lines if score > 0]


# ---- statistics --------------------------------------------------------------


@dataclass
class Player:
    """One player's (or one partnership's) figures over the games in the ledger."""

    name: str
    partnership: bool = False
    games: int = 0
    wins: int = 0
    skunks_given: int = 0
    skunks_taken: int = 0
    deals: int = 0
    hand_points: int = 0
    crib_points: int = 0
    cribs: int = 0
    play_points: int = 0
    heels: int = 0
    best_hand: int | None = None
    hands: dict[int, list[int]] = field(default_factory=dict)  # hand size -> the counts

    def to_dict(self) -> dict:
        counted = [points for counts in self.hands.values() for points in counts]
        percentile = hand_percentile(self.hands)
        return {
            "name": self.name,
            "partnership": self.partnership,
            "games": self.games,
            "wins": self.wins,
            "skunks_given": self.skunks_given,
            "skunks_taken": self.skunks_taken,
            "deals": self.deals,
            "hands": len(counted),
            "avg_hand": _mean(self.hand_points, len(counted)),
            "avg_crib": _mean(self.crib_points, self.cribs),
            "avg_play": _mean(self.play_points, self.deals),
            "best_hand": self.best_hand,
            "heels": self.heels,
            "hand_counts": {str(size): counts for size, counts in sorted(self.hands.items())},
            "percentile": None if percentile is None else round(percentile, 1),
        }


def _mean(total: int, count: int) -> float | None:
    return round(total / count, 2) if count else None


def player_stats(games: list[Played]) -> list[dict]:
    """Each player's figures, then each partnership's (four-hand), most games first."""
    players: dict[str, Player] = {}

    def get(name: str, partnership: bool = False) -> Player:
        key = name.lower()
        if key not in players:
            players[key] = Player(name, partnership)
        return players[key]

    for played in games:
        game = played.game
        outcome = game.outcome
        team = game.variant.partnership
        for side in game.sides:
            members = [get(seat) for seat in side.seats] + ([get(side.name, True)] if team else [])
            for member in members:
                if outcome is not None:
                    member.games += 1
                    if outcome.winner == side.name:
                        member.wins += 1
                        member.skunks_given += sum(loser.kind in SKUNKS for loser in outcome.losers)
                    else:
                        member.skunks_taken += sum(loser.kind in SKUNKS for loser in outcome.losers
                                                   if loser.side == side.name)
        _count_entries(game, get)
    ordered = sorted(players.values(), key=lambda p: (p.partnership, -p.games, p.name.lower()))
    return [player.to_dict() for player in ordered]


def _count_entries(game: Game, get) -> None:
    """Hand, crib, play points, heels and the deals of one game, to each seat (and partnership)."""
    team = game.variant.partnership
    for entry in game.ledger:
        seat = entry.seat
        targets = [get(seat)] + ([get(game.side_of(seat).name, True)] if team else [])
        for player in targets:
            if entry.kind is EntryKind.HAND:
                player.hand_points += entry.points
                player.hands.setdefault(game.variant.hand_size, []).append(entry.points)
                player.best_hand = max(player.best_hand or 0, entry.points)
            elif entry.kind is EntryKind.CRIB:
                player.crib_points += entry.points
                player.cribs += 1
            elif entry.kind in PLAY:
                player.play_points += entry.pegged
            elif entry.kind is EntryKind.HEELS:
                player.heels += 1
    # The deals the game went into (the one of its last entry); the start bonus is deal 1.
    last = game.ledger[-1].deal if game.ledger else 0
    for seat in game.seats:
        get(seat).deals += last
    if team:
        for side in game.sides:
            get(side.name, True).deals += last


def hand_percentile(hands: dict[int, list[int]]) -> float | None:
    """Where a player's hands ran in the exact distribution of all hands: the mean, over
    the hands counted, of each count's percentile rank (below it, plus half of equal), 0-100."""
    ranks = []
    for size, counts in hands.items():
        table = distribution(size, False)
        total = sum(table.values())
        for points in counts:
            below = sum(n for value, n in table.items() if value < points)
            ranks.append(100.0 * (below + table.get(points, 0) / 2) / total)
    return sum(ranks) / len(ranks) if ranks else None


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 62nd..."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th')}"
