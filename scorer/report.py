"""The state of a scorebook as plain data (for JSON) and as a short summary."""

from __future__ import annotations

from typing import Any

from .record import Rejection, Scorebook
from .variants import ResultKind, result_words


def state_dict(book: Scorebook, rejected: list[Rejection] | tuple[Rejection, ...] = (),
               sources: list[dict[str, Any]] | tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    """The state the replay and simulate commands print as JSON; ``sources``: the record's lines entered
    off the board (:func:`scorer.record.source_of`, with their line numbers).

    >>> from scorer.record import replay
    >>> state = state_dict(replay(["game six-card seats=Alice,Bob dealer=Alice", "peg Bob 2"]).book)
    >>> state["phase"], state["dealer"], state["target"]
    ('play', 'Alice', 121)
    """
    match = book.match
    game = match.game if match else None
    if match is None or game is None:
        return {"variant": None, "rejected": [r.to_dict() for r in rejected], "sources": list(sources)}
    state = game.state
    outcome = game.outcome
    remaining = game.remaining_show()
    pegged = game.pegged
    return {
        "variant": game.variant.name,
        "target": game.variant.target,
        "seats": list(game.seats),
        "sides": [
            {
                "name": side.name,
                "seats": list(side.seats),
                "score": state.scores[i],
                "back": state.backs[i],
            }
            for i, side in enumerate(game.sides)
        ],
        "dealer": game.dealer,
        "deal": state.deal,
        "phase": state.phase.value,
        "next": {"seat": remaining[0][0], "count": remaining[0][1]} if remaining else None,
        "show_order": [{"seat": seat, "count": what} for seat, what in remaining],
        "winner": outcome.winner if outcome else None,
        "loser": outcome.loser if outcome else None,
        "result": outcome.kind.value if outcome else None,
        "margin": outcome.margin if outcome else None,
        "game_points": outcome.game_points if outcome else None,
        # every losing side, in side order; empty while the game is on
        "losers": [loser.to_dict() for loser in outcome.losers] if outcome else [],
        "options": {
            "exact_out": game.options.exact_out,
            "muggins": game.options.muggins,
            "skunk": game.options.skunk.value,
            "points": game.options.points.spec(),
        },
        "last": pegged[-1].describe() if pegged else None,
        "note": state.note or None,
        "entries": len(pegged),
        "redo": len(game.redo_entries),
        "match": {
            "games": match.games_played(),
            "abandoned": match.games_abandoned(),  # games replaced before their end: never a win
            "tally": [
                {"side": t.side, "wins": t.wins, "game_points": t.game_points}
                for t in match.tally()
            ],
        },
        "rejected": [r.to_dict() for r in rejected],
        "sources": list(sources),
    }


def summary(book: Scorebook, rejected: list[Rejection] | tuple[Rejection, ...] = ()) -> str:
    """A few lines for a person: scores, dealer, what comes next, the result.

    >>> from scorer.record import replay
    >>> print(summary(replay(["game six-card seats=Alice,Bob dealer=Alice", "peg Bob 2"]).book))
    six-card to 121, deal 1, Alice deals, phase play
      Alice    0  (back 0)
      Bob      2  (back 0)
    show: Bob hand > Alice hand > Alice crib
    """
    game = book.game
    if game is None:
        return "No game in the record."
    data = state_dict(book, rejected)
    lines = [
        f"{data['variant']} to {data['target']}, deal {data['deal']}, "
        f"{data['dealer']} deals, phase {data['phase']}"
    ]
    width = max(len(side["name"]) for side in data["sides"])
    for side in data["sides"]:
        lines.append(f"  {side['name']:<{width}}  {side['score']:>3}  (back {side['back']})")
    if data["winner"]:
        lines.append(f"{result_words(data['winner'], data['result'], data['margin'], 'wins')} "
                     f"({_points(data['game_points'])})")
        if len(data["losers"]) > 1:  # each loser's own result
            lines.append("  " + "; ".join(
                f"{loser['side']} lost by {loser['margin']}{ResultKind(loser['result']).loser_words} "
                f"({_points(loser['game_points'])})" for loser in data["losers"]))
    elif data["show_order"]:
        order = " > ".join(f"{s['seat']} {s['count']}" for s in data["show_order"])
        lines.append(f"show: {order}")
    if data["note"]:
        lines.append(data["note"])
    if data["match"]["games"]:
        tally = ", ".join(
            f"{t['side']} won {t['wins']} ({_points(t['game_points'])})" for t in data["match"]["tally"]
        )
        games = data["match"]["games"]
        lines.append(f"match after {games} game{'s' if games != 1 else ''}: {tally}")
    if data["match"]["abandoned"]:
        abandoned = data["match"]["abandoned"]
        lines.append(f"{abandoned} game{'s' if abandoned != 1 else ''} abandoned (counted for nobody)")
    for rejection in rejected:
        lines.append(f"line {rejection.line} refused: {rejection.entry}: {rejection.error}")
    return "\n".join(lines)


def _points(points: int) -> str:
    """"1 game point", "3 game points"."""
    return f"{points} game point{'' if points == 1 else 's'}"
