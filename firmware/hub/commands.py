"""The director's commands on the hub, each run on its writer thread (:meth:`Hub.run <firmware.hub.hub.Hub.run>`):
players added and removed, the rounds begun, and a game corrected, voided or restored. A change is a
new row with its reason, never an edit; each is in the ledger before the command answers."""

from __future__ import annotations

from scorer.errors import CribbageBoardError
from scorer.limits import NAME_MOST
from scorer.names import name_problem, normal
from scorer.standings import GameResult, ResultError, name_key

from ..wire.schema import PLAYER_NAME_MOST
from .ledger import refused_kind
from .night import HELD, is_lowball, table_order


class DirectorError(CribbageBoardError, ValueError):
    """A director's command that cannot be done; the message says why and what to do."""


def player_name(name: str, most: int = NAME_MOST) -> str:
    """A player's name by the rule for names (scorer.names), at most ``most`` characters (a name given
    now; a game's seat, as a board of any version sent it: PLAYER_NAME_MOST); DirectorError if it breaks it."""
    name = normal(name.strip())
    problem = name_problem(name, most)
    if problem:
        raise DirectorError(f"player {name!r}: {problem}")
    return name


class Commands:
    """What the director may do to ``hub``'s night (call each through ``hub.run``)."""

    def __init__(self, hub):
        self.hub = hub

    @property
    def _night_id(self) -> int:
        return self.hub.night.id

    def add_players(self, names: list[str]) -> list[str]:
        added = self.hub.register([player_name(name) for name in names])
        self.hub.refresh("players")
        return added

    def remove_player(self, name: str) -> str:
        active = {name_key(each): each for each in self.hub.view.players}
        if name_key(name) not in active:
            raise DirectorError(f"{name} is not a player of this night")
        with self.hub.ledger.write() as w:
            w.add_player(self._night_id, active[name_key(name)], "remove")
        self.hub.refresh("players")
        return active[name_key(name)]

    def start_night(self) -> int:
        if self.hub.view.rounds:
            raise DirectorError("the night has begun: use next for another round")
        self.hub._auto_start = False
        return self.hub.make_round("start")

    def next_round(self) -> int:
        if not self.hub.view.rounds:
            raise DirectorError("the night has not begun: use start")
        return self.hub.make_round("next")

    def conflicts(self) -> list:
        """What tables sent tonight that was not kept (firmware.hub.ledger.ConflictRow), in the order noted."""
        return self.hub.ledger.reader().conflicts(self._night_id)

    def unheard(self) -> list[tuple[str, str, int, str]]:
        """Tonight's games whose game line never came, each (table, ledger, game, why): entries kept without
        it, or the line refused; those with a result are among the held games too (waiting)."""
        rows = self.hub.ledger.reader()
        refused = {(row.table, row.ledger, row.game): row.reason for row in rows.conflicts(self._night_id)
                   if row.kind == "refused" and row.number == 0 and refused_kind(row.reason) == "entry"}
        out = []
        for table, ledger, game, count in rows.lineless(self._night_id):
            why = refused.pop((table, ledger, game), None)
            out.append((table, ledger, game, f"{count} entries kept, " + (
                f"its game line refused ({why})" if why else "its game line not yet come (the board sends it again)")))
        out += [(table, ledger, game, f"no entries kept, its game line refused ({why})")
                for (table, ledger, game), why in refused.items()]
        return sorted(out, key=lambda item: (table_order(item[0]), item[2]))

    def find_game(self, table: str, ref: str):
        """The game ``ref`` (its number, or NUMBER@LEDGER for one of several) at ``table`` tonight."""
        number, _, ledger = ref.partition("@")
        if not number.isdigit():
            raise DirectorError(f"game {ref!r}: give the game's number at table {table} (see rounds)")
        found = [g for g in self.hub.view.games if g.table == table and g.game == int(number)
                 and g.ledger.startswith(ledger)]
        if not found:
            raise DirectorError(f"no game {number} at table {table} tonight (see rounds)")
        if len(found) > 1:
            raise DirectorError(f"table {table} has {len(found)} games {number}: give one as "
                                + " or ".join(f"{number}@{g.ledger[:6]}" for g in found))
        return found[0]

    def correct(self, table: str, ref: str, scores: list[tuple[str, int]], winner: str | None,
                reason: str) -> str:
        game = self.find_game(table, ref)
        if not reason.strip():
            raise DirectorError("a correction needs a reason: reason=\"...\"")
        lowball = is_lowball(game.latest.payload)
        if winner is None:
            ordered = sorted(scores, key=lambda pair: pair[1], reverse=not lowball)
            if len(ordered) > 1 and ordered[0][1] == ordered[1][1]:
                raise DirectorError("two sides have the same score: say who won (winner=NAME)")
            winner = ordered[0][0]
        seats = []
        for side, _ in scores:
            seats += [seat for seat in side.split("+")] if "+" in side else [side]
        try:
            result = GameResult.of([player_name(seat, PLAYER_NAME_MOST) for seat in seats], scores, winner, lowball)
        except ResultError as error:
            raise DirectorError(str(error)) from None
        with self.hub.ledger.write() as w:
            w.add_correction(self._night_id, game.key, "correct", reason.strip(), result.seats, result.scores,
                             result.winner)
        self.hub.after_correction()
        return f"table {table} game {game.game}: {result.winner} wins " + ", ".join(
            f"{side} {score}" for side, score in result.scores)

    def accept(self, table: str, ref: str, reason: str) -> str:
        """A game held for the director (unpaired, in conflict with its entries, or waiting for them)
        counted as its table sent it: a correction with the table's own figures and the reason."""
        game = self.find_game(table, ref)
        if game.status not in HELD or game.result is None:
            raise DirectorError(f"table {table} game {game.game} is not held ({game.status}): only a game "
                                "the held command lists can be accepted")
        result = game.result
        with self.hub.ledger.write() as w:
            w.add_correction(self._night_id, game.key, "correct", f"accepted ({game.status}): "
                             + (reason.strip() or "the director's word"), result.seats, result.scores, result.winner)
        self.hub.after_correction()
        return f"table {table} game {game.game} accepted: {result.winner} wins " + ", ".join(
            f"{side} {score}" for side, score in result.scores)

    def void(self, table: str, ref: str, reason: str) -> str:
        game = self.find_game(table, ref)
        if not reason.strip():
            raise DirectorError("voiding a game needs a reason: reason=\"...\"")
        with self.hub.ledger.write() as w:
            w.add_correction(self._night_id, game.key, "void", reason.strip())
        self.hub.after_correction()
        return f"table {table} game {game.game} counts for nobody"

    def restore(self, table: str, ref: str, reason: str) -> str:
        game = self.find_game(table, ref)
        if game.correction is None:
            raise DirectorError(f"table {table} game {game.game} has no correction to drop")
        if not reason.strip():
            raise DirectorError("restoring a game needs a reason: reason=\"...\"")
        with self.hub.ledger.write() as w:
            w.add_correction(self._night_id, game.key, "restore", reason.strip())
        self.hub.after_correction()
        return f"table {table} game {game.game} counts as the table sent it"
