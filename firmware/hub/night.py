"""A club night as the hub shows it, derived from its ledger's rows alone (no I/O, no clock).

:class:`NightBook` keeps the night as it stands after its rows (the rules it follows are there),
:func:`verdict` says whether a result stands on its table's entries, :func:`next_pairings` makes the
next round. The standings are worked out from the games, never kept as running totals.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import NamedTuple, Sequence

from firmware.hub.ledger import CorrectionRow, Night, PairingRow, PlayerRow, ResultRow, RoundRow
from scorer.errors import CribbageError
from scorer.pairings import Round, first_order, pair_round
from scorer.standings import GameResult, PlayerStanding, ResultError, credits, name_key, rank_key
from scorer.variants import GamePoints, SkunkLines, find_variant, parse_game_points

COUNTED = ("finished", "corrected")  # a game's status that counts in the standings
HELD = ("unpaired", "conflict", "waiting")  # kept and listed for the director, counted for nobody
PLACED = ("finished", "corrected")  # a game's status before its pairing is looked for that may take one


class Rules(NamedTuple):
    """The club's rule a night is scored by: game ``points`` and ``skunk`` lines. Immutable."""

    points: GamePoints
    skunk: SkunkLines

    @classmethod
    def of(cls, night: Night) -> "Rules":
        return cls(parse_game_points(night.points), SkunkLines(night.skunk))


class GameView(NamedTuple):
    """One game as it counts: its ``key``, the ``round`` its result first came in, the id of its
    ``first`` stored row, its ``status`` (finished, open, abandoned, corrected or void), the
    ``result`` that counts (a GameResult, or None; for a game held, the result its table claims), the
    ``latest`` revision received, the ``correction`` in force (or None) and, for a game held (HELD),
    the ``reason``. Immutable."""

    key: tuple
    table: str
    ledger: str
    game: int
    round: int
    first: int
    status: str
    result: GameResult | None
    latest: ResultRow
    correction: CorrectionRow | None
    reason: str | None = None  # why it is held (HELD)


class PairingView(NamedTuple):
    """A pairing of a round and the game played for it (a GameView, or None yet). Immutable."""

    table: str | None
    players: tuple[str, ...]
    game: GameView | None


class RoundView(NamedTuple):
    """A round: its pairings (PairingViews), its ``bye`` (a name or None), whether it is
    ``complete`` (every pairing has its game) and when it was ``made``. Immutable."""

    number: int
    pairings: tuple[PairingView, ...]
    bye: str | None
    complete: bool
    made: str


class NightView(NamedTuple):
    """Everything the page and the API show of a night: the ``night``, its ``rules``, the
    active ``players`` (as registered, in order), the ranked ``standings``, every game
    (GameViews, in the order first received), the ``rounds`` and the ``unpaired`` games. Immutable."""

    night: Night
    rules: Rules
    players: tuple[str, ...]
    standings: tuple[PlayerStanding, ...]
    games: tuple[GameView, ...]
    rounds: tuple[RoundView, ...]
    unpaired: tuple[GameView, ...]

    @property
    def round(self) -> int:
        """The current round's number (0 before the first)."""
        return self.rounds[-1].number if self.rounds else 0

    @property
    def held(self) -> tuple[GameView, ...]:
        """The games kept and listed for the director, counted for nobody (see HELD)."""
        return tuple(game for game in self.games if game.status in HELD)

    @property
    def over(self) -> bool:
        """Whether the night's last round is complete."""
        return bool(self.rounds) and self.round >= self.night.rounds and self.rounds[-1].complete


def active_players(rows: Sequence[PlayerRow]) -> list[str]:
    """The players registered and not removed, in the order they were (last) added."""
    order: dict[str, str] = {}
    for row in rows:
        key = name_key(row.name)
        order.pop(key, None)
        if row.action == "add":
            order[key] = row.name
    return list(order.values())


def is_lowball(payload: dict) -> bool:
    """Whether the variant a stored ``result`` payload names is played low-ball, the first side to the
    target losing: that variant's own :attr:`~scorer.variants.Variant.lowball`. False for a payload
    that names no variant the scorer has."""
    name = payload.get("variant")
    if not isinstance(name, str):
        return False
    try:
        return find_variant(name).lowball
    except CribbageError:  # UnknownVariantError: no variant of that name
        return False


def result_of(payload: dict) -> GameResult | None:
    """The GameResult of a stored ``result`` payload (None for one that is not finished)."""
    if payload.get("status") != "finished":
        return None
    return GameResult.of(payload["seats"], payload["scores"], payload["winner"], is_lowball(payload))


def corrected(correction: CorrectionRow, lowball: bool) -> GameResult:
    """The result a director's correction gives (a correction's row has its seats, scores and winner)."""
    if correction.seats is None or correction.scores is None or correction.winner is None:
        raise ResultError(f"correction {correction.id} gives no seats, scores or winner")
    return GameResult.of(correction.seats, correction.scores, correction.winner, lowball)


def _seqs(missing: list[int]) -> str:
    """Entry numbers in words: "5", "5-40", "2, 7-9"."""
    runs: list[list[int]] = []
    for seq in missing:
        if runs and seq == runs[-1][1] + 1:
            runs[-1][1] = seq
        else:
            runs.append([seq, seq])
    shown = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:4]]
    return ", ".join(shown) + (", ..." if len(runs) > 4 else "")


def _sides_text(scores) -> str:
    return ", ".join(f"{side} {score}" for side, score in scores)


def verdict(payload: dict, lines: dict[int, str]) -> tuple[str, str | None]:
    """("finished", None) when replaying ``lines`` (seq -> record line) 0 to the result's ``rev`` gives
    the finished game ``payload`` says (its variant, seats, scores, winner and margin); ("waiting", why)
    when some of those entries have not arrived; ("conflict", why) when they give another game."""
    from scorer.record import replay

    rev = payload["rev"]
    missing = [seq for seq in range(rev + 1) if seq not in lines]
    if missing:
        return "waiting", f"waits for its entries {_seqs(missing)} (the board sends them again)"
    claimed = _sides_text(payload["scores"].items())
    try:
        game = replay(lines[seq] for seq in range(rev + 1)).book.game
    except CribbageError as error:
        return "conflict", f"its entries do not replay ({error}); it says {claimed}"
    if game is None:
        return "conflict", f"its entries hold no game; it says {claimed}"
    scores = {side.name: game.state.scores[k] for k, side in enumerate(game.sides)}
    replayed = _sides_text(scores.items())
    outcome = game.outcome.to_dict() if game.outcome is not None else None
    if outcome is None:
        return "conflict", f"it says {claimed}; its entries give {replayed}, not finished"
    if (game.variant.name != payload["variant"] or [name_key(s) for s in game.seats] !=
            [name_key(s) for s in payload["seats"]]):
        return "conflict", (f"it says {payload['variant']} for {', '.join(payload['seats'])}; its entries give "
                            f"{game.variant.name} for {', '.join(game.seats)}")
    if scores != payload["scores"] or outcome.get("winner") != payload["winner"] or \
            outcome.get("margin") != payload["margin"]:
        return "conflict", (f"it says {claimed} (winner {payload['winner']}, margin {payload['margin']}); its "
                            f"entries give {replayed} (winner {outcome.get('winner')}, margin {outcome.get('margin')})")
    return "finished", None


def _unpaired_reason(game: GameView) -> str:
    seats = " v ".join(game.result.seats) if game.result else "?"
    return f"{seats} from table {game.table}: no pairing of the night's at that table"


def table_order(table: str) -> tuple:
    """Tables in name order, numbers by value: 1, 2, 10, then A, B."""
    return (0, int(table), table) if table.isdigit() else (1, 0, table.casefold())


def next_pairings(current: NightView, tables: Sequence[str]) -> list[PairingRow]:
    """The next round's pairings (see :mod:`scorer.pairings`): round 1 in an order shuffled by
    the night's name, later rounds in standings order; pairs given to ``tables`` in name order,
    the best pair first; a pair beyond the tables has none; the bye, if any, last."""
    active = {name_key(name): name for name in current.players}
    if current.rounds:
        order = [line.player for line in current.standings if name_key(line.player) in active]
        order = [active[name_key(name)] for name in order]
        order += [name for key, name in active.items() if name not in order]
    else:
        order = first_order(list(active.values()), current.night.name)
    past = [Round(tuple((one, other) for one, other in (p.players for p in each.pairings)), each.bye)
            for each in current.rounds]
    made = pair_round(order, past, max(0, current.night.rounds - current.round - 1))
    places = sorted(tables, key=table_order)
    rows = [PairingRow(places[k] if k < len(places) else None, tuple(pair), False)
            for k, pair in enumerate(made.pairs)]
    if made.bye is not None:
        rows.append(PairingRow(None, (made.bye,), True))
    return rows




def rule_names(points: GamePoints, skunk: SkunkLines) -> str:
    """The rule as words: "acc game points, acc skunk lines"."""
    return f"{points.spec()} game points, {skunk.value} skunk lines"


class NightChange(NamedTuple):
    """What rows changed of a :class:`NightBook` since it was last asked: the ``players`` whose
    standings line changed or who came or went (name keys), the ``games`` whose view changed (game
    keys) and the ``rounds`` whose pairings or games changed (numbers). Immutable."""

    players: frozenset[str]
    games: frozenset[tuple]
    rounds: frozenset[int]

    def __bool__(self) -> bool:
        return bool(self.players or self.games or self.rounds)


class NightBook:
    """The night as it stands after its rows, kept up to date row by row. The rules:

    - Each game (club, table, ledger, game id) counts by its result with the highest
      ``rev``: "finished" counts, "open" and "abandoned" count nothing. A
      director's latest word on the game overrides that: "correct" (new scores, kept
      with a reason), "void" (counts nothing); "restore" drops the word before it.
    - A finished result stands only on its table's own entries: the game's line and
      entries 0 to its ``rev`` are replayed (:func:`verdict`), and a result whose
      seats, scores, winner or margin differ from the replay is a "conflict"; one
      whose entries have not all arrived is "waiting" (the board sends them again).
    - A finished game takes the pairing it was played for: a pairing at its table
      (or a pairing that had no table) whose players are its seats (as a set, by
      :func:`scorer.standings.name_key`), in the round current when its result first
      arrived or, for a late result, the latest earlier round where that pairing is
      still free. Once the night has a round, a game that matches no pairing (another
      table's players, a table the night does not have, a name not registered) is
      "unpaired". A night with no round at all lets any table report any game.
    - A conflict, a game waiting for its entries and an unpaired game are held: kept,
      listed, counted for nobody until the director's word ("correct", which the
      console's ``accept`` gives with the table's own figures).
    - A round is complete when each of its pairings has its game; the next round is
      then made (:func:`next_pairings`) until the rounds cap.
    - The standings are worked out from the games counted, by the night's rule
      (:mod:`scorer.standings`): never running totals.

    Each new row is worked out for what it touches. A result changes its game, the places of the
    games with the same seats (a pairing is only ever taken by a game of its players) and the lines
    of its players; a round adds its places; a player row changes that player's line. Rows are given
    in the ledger's order (ids ascending); :meth:`view` is the night as if derived again from all the
    rows given so far (the tests hold it to such a derivation after every row)."""

    def __init__(self, night: Night, entries_checked: bool = True):
        self.night = night
        self.rules = Rules.of(night)
        self.checked = entries_checked  # False: results are taken as sent, their entries not replayed
        self._entries: dict[tuple, dict[int, str]] = {}  # game key -> {seq: line}, as kept
        self._verdicts: dict[tuple, tuple[int, str, str | None]] = {}  # game key -> (result row id, verdict)
        self._base: dict[tuple, tuple[str, GameResult | None, str | None]] = {}  # before its pairing is looked for
        self._active: dict[str, str] = {}  # key -> name, in the order last added
        self._registered: dict[str, str] = {}  # key -> the spelling first added (the one shown)
        self._first: dict[tuple, ResultRow] = {}  # in the order first received
        self._latest: dict[tuple, ResultRow] = {}
        self._word: dict[tuple, CorrectionRow | None] = {}
        self._games: dict[tuple, GameView] = {}
        self._credits: dict[tuple, tuple] = {}  # a counted game's credits
        self._seats: dict[tuple, frozenset] = {}  # a counted game's seats (keys)
        self._rounds: list[RoundRow] = []
        self._pairings: list[list[PairingView]] = []  # each round's pairings as shown (byes left out)
        self._shown_at: list[dict[int, int]] = []  # each round: pairing index -> its place in _pairings
        self._slots: dict[frozenset, list[tuple[int, int, str | None]]] = {}  # seats -> (number, index, table)
        self._group: dict[frozenset, dict[tuple, None]] = {}  # seats -> counted games of them, first first
        self._place: dict[tuple, tuple[int, int]] = {}  # game key -> (round number, pairing index)
        self._games_of: dict[str, dict[tuple, None]] = {}  # player key -> counted games with them
        self._lines: dict[str, PlayerStanding] = {}  # the standings' lines, by player key
        self._ranked: list[tuple] = []  # (rank key, player key), in rank order
        self._ranked_lines: list[PlayerStanding] = []  # their lines, in the same order
        self._unplaced: set[tuple] = set()  # counted games that took no pairing
        self._rank_of: dict[str, tuple] = {}
        self._round_views: list[RoundView | None] = []  # None: to be made again
        self._cache: dict[str, tuple] = {}
        self._lines_copy: dict[str, PlayerStanding] | None = None  # what lines() gives, until a line changes
        self._changed: tuple[set[str], set[tuple], set[int]] = (set(), set(), set())

    # ---- rows in -------------------------------------------------------------

    def add_players(self, rows: Sequence[PlayerRow]) -> None:
        for row in rows:
            key = name_key(row.name)
            self._active.pop(key, None)
            if row.action == "add":
                self._active[key] = row.name
                self._registered.setdefault(key, row.name)
            self._restate(key)
        self._cache.pop("players", None)

    def add_results(self, rows: Sequence[ResultRow]) -> None:
        for row in rows:
            key = row.game_key
            self._first.setdefault(key, row)
            if key not in self._latest or row.rev > self._latest[key].rev:
                self._latest[key] = row
            self._regame(key)

    def add_entries(self, rows) -> None:
        """Entries kept: (game key, seq, line) each. A game whose result waits for them is worked out again."""
        touched: dict[tuple, None] = {}
        for key, seq, line in rows:
            self._entries.setdefault(key, {}).setdefault(seq, line)
            touched[key] = None
        for key in touched:
            if key in self._first and self._verdicts.get(key, (0, "", None))[1] == "waiting":
                self._regame(key)

    def add_corrections(self, rows: Sequence[CorrectionRow]) -> None:
        for row in rows:
            self._word[row.game_key] = None if row.action == "restore" else row
            if row.game_key in self._first:
                self._regame(row.game_key)

    def add_rounds(self, rows: Sequence[RoundRow]) -> None:
        for row in rows:
            number = row.number
            self._rounds.append(row)
            self._pairings.append([])
            self._shown_at.append({})
            touched = set()
            for index, pairing in enumerate(row.pairings):
                if pairing.bye:
                    continue
                seats = frozenset(name_key(p) for p in pairing.players)
                self._slots.setdefault(seats, []).append((number, index, pairing.table))
                self._shown_at[-1][index] = len(self._pairings[-1])
                self._pairings[-1].append(PairingView(pairing.table, pairing.players, None))
                touched.add(seats)
            self._round_views.append(None)
            self._changed[2].add(number)
            if len(self._rounds) == 1:  # the night is paired from now on: every game must fit a pairing
                touched = set(self._group)
            for seats in touched:  # a game of a later round than this one could take a place in it
                self._rematch(seats)
            self._cache.pop("rounds", None)

    # ---- one game, and what it touches ----------------------------------------

    def _regame(self, key: tuple) -> None:
        """Work out game ``key`` again, its places and its players' lines."""
        last, correction = self._latest[key], self._word.get(key)
        lowball = is_lowball(last.payload)
        reason = None
        if correction is not None and correction.action == "void":
            status, result = "void", None
        elif correction is not None:
            status, result = "corrected", corrected(correction, lowball)
        else:
            status = last.status
            try:
                result = result_of(last.payload)
            except ResultError:
                status, result = "unreadable", None
            if status == "finished" and self.checked:
                status, reason = self._verdict(key, last)
        self._base[key] = (status, result, reason)
        old_seats = self._seats.pop(key, None)
        self._unplace(key)
        if status in PLACED and result is not None:
            self._seats[key] = frozenset(name_key(seat) for seat in result.seats)
        if old_seats is not None:
            self._group[old_seats].pop(key, None)
        if key in self._seats:
            group = self._group.setdefault(self._seats[key], {})
            group[key] = None
            first = self._first[key].id
            if len(group) > 1 and self._first[list(group)[-2]].id > first:
                self._group[self._seats[key]] = dict.fromkeys(sorted(group, key=lambda k: self._first[k].id))
        for seats in {each for each in (old_seats, self._seats.get(key)) if each is not None}:
            self._rematch(seats)
        if key not in self._seats:
            self._settle(key)
        self._cache.pop("unpaired", None)

    def _verdict(self, key: tuple, last: ResultRow) -> tuple[str, str | None]:
        """The verdict of the game's latest result on its entries (replayed once, or again while it waits)."""
        known = self._verdicts.get(key)
        if known is not None and known[0] == last.id and known[1] != "waiting":
            return known[1], known[2]
        status, reason = verdict(last.payload, self._entries.get(key, {}))
        self._verdicts[key] = (last.id, status, reason)
        return status, reason

    def _settle(self, key: tuple) -> None:
        """Game ``key``'s view from its base and its place (a finished game with none, once the night has
        a round, is unpaired), and its players' lines."""
        first, last, correction = self._first[key], self._latest[key], self._word.get(key)
        status, result, reason = self._base[key]
        if status == "finished" and key not in self._place and self._rounds:
            status = "unpaired"
        game = GameView(key, first.table, first.ledger, first.game, first.round, first.id, status, result, last,
                        correction, reason)
        if status == "unpaired":
            game = game._replace(reason=_unpaired_reason(game))
        old_players = {name_key(c.player) for c in self._credits.pop(key, ())}
        if self._games.get(key) != game:
            self._changed[1].add(key)
            self._cache.pop("games", None)
        self._games[key] = game
        if status in COUNTED and result is not None:
            self._credits[key] = credits(result, self.rules.skunk, self.rules.points)
        new_players = {name_key(c.player) for c in self._credits.get(key, ())}
        for player in old_players - new_players:
            self._games_of[player].pop(key, None)
        for player in new_players:
            self._games_of.setdefault(player, {})[key] = None
        for player in old_players | new_players:
            self._restate(player)
        place = self._place.get(key)
        if place is not None:  # its pairing shows it anew
            self._show(place, game)
        self._mark(key)

    def _rematch(self, seats: frozenset) -> None:
        """The places of the games of these ``seats`` again, in the order first received, by the rules
        (see the class): the latest round not after the game's, then the first pairing in the round;
        then each of them settled."""
        slots = self._slots.get(seats, ())
        for key in self._group.get(seats, ()):
            self._unplace(key)
        last_round = len(self._rounds)
        taken = set()
        for key in self._group.get(seats, ()):
            first = self._first[key]
            top = min(first.round, last_round)
            best = None
            for number, index, table in slots:
                if number <= top and (number, index) not in taken and table in (first.table, None):
                    if best is None or number > best[0] or (number == best[0] and index < best[1]):
                        best = (number, index)
            if best is not None:
                taken.add(best)
                self._place[key] = best
        for key in list(self._group.get(seats, ())):
            self._settle(key)
        self._cache.pop("unpaired", None)

    def _mark(self, key: tuple) -> None:
        """Whether game ``key`` is unplaced: one that may take a pairing, and none took it."""
        if key in self._seats and key not in self._place:
            self._unplaced.add(key)
        else:
            self._unplaced.discard(key)

    def _unplace(self, key: tuple) -> None:
        place = self._place.pop(key, None)
        if place is not None:
            self._show(place, None)

    def _show(self, place: tuple[int, int], game: GameView | None) -> None:
        number, index = place
        at = self._shown_at[number - 1][index]
        pairing = self._pairings[number - 1][at]
        if pairing.game is not game:
            self._pairings[number - 1][at] = pairing._replace(game=game)
            self._round_views[number - 1] = None
            self._changed[2].add(number)
            self._cache.pop("rounds", None)

    def _restate(self, player: str) -> None:
        """Player ``player``'s line again, from their counted games (as :func:`scorer.standings.tally`)."""
        before = self._lines.get(player)
        line = self._sum(player, self._registered.get(player))
        shown = line is not None and (player in self._active or bool(self._games_of.get(player)))
        old = self._rank_of.pop(player, None)
        if old is not None:
            at = bisect_left(self._ranked, (old, player))
            del self._ranked[at], self._ranked_lines[at]
        if shown and line is not None:
            rank = rank_key(line)  # the standings' order; its name key is ``player``
            at = bisect_left(self._ranked, (rank, player))
            self._ranked.insert(at, (rank, player))
            self._ranked_lines.insert(at, line)
            self._rank_of[player] = rank
            self._lines[player] = line
        else:
            self._lines.pop(player, None)
        if before != self._lines.get(player):
            self._changed[0].add(player)
            self._cache.pop("standings", None)
            self._lines_copy = None

    def _sum(self, player: str, name: str | None) -> PlayerStanding | None:
        """Player ``player``'s counted games added up, under ``name`` (else as first seated), or None."""
        line = PlayerStanding(name, 0, 0, 0, 0, 0) if name is not None else None
        games_of = self._games_of.get(player, {})
        keys = sorted(games_of, key=lambda k: self._games[k].first) if len(games_of) > 1 else list(games_of)
        for key in keys:
            for credit in self._credits[key]:
                if name_key(credit.player) == player:
                    line = line or PlayerStanding(credit.player, 0, 0, 0, 0, 0)
                    line = PlayerStanding(line.player, line.game_points + credit.game_points,
                                          line.wins + credit.won, line.losses + (not credit.won),
                                          line.spread + credit.spread, line.games + 1)
        return line

    # ---- what it shows ---------------------------------------------------------

    def played(self, player: str) -> PlayerStanding | None:
        """Player key ``player``'s counted games tonight as one line named as first seated (what the
        season adds up), or None without one."""
        return self._sum(player, None) if self._games_of.get(player) else None

    def changes(self) -> NightChange:
        """What changed since the last call (see :class:`NightChange`)."""
        players, games_, rounds = self._changed
        self._changed = (set(), set(), set())
        return NightChange(frozenset(players), frozenset(games_), frozenset(rounds))

    def game(self, key: tuple) -> GameView:
        """Game ``key`` as it counts."""
        return self._games[key]

    def line(self, player: str) -> PlayerStanding | None:
        """Player key ``player``'s standings line, or None when the standings do not show them."""
        return self._lines.get(player)

    def lines(self) -> dict[str, PlayerStanding]:
        """The standings' lines by player key (those :meth:`view` shows), a copy made once a change: never changed."""
        if self._lines_copy is None:
            self._lines_copy = dict(self._lines)
        return self._lines_copy

    def view(self) -> NightView:
        """The night as it stands after the rows given (see the class)."""
        cache = self._cache
        if "players" not in cache:
            cache["players"] = tuple(self._active.values())
        if "standings" not in cache:
            cache["standings"] = tuple(self._ranked_lines)
        if "games" not in cache:
            cache["games"] = tuple(self._games.values())
        if "unpaired" not in cache:
            cache["unpaired"] = tuple(self._games[key] for key in
                                      sorted(self._unplaced, key=lambda key: self._games[key].first))
        if "rounds" not in cache:
            for k, row in enumerate(self._rounds):
                if self._round_views[k] is None:
                    pairings = tuple(self._pairings[k])
                    bye = next((p.players[0] for p in row.pairings if p.bye), None)
                    self._round_views[k] = RoundView(row.number, pairings, bye,
                                                     all(p.game is not None for p in pairings), row.made)
            cache["rounds"] = tuple(self._round_views)
        return NightView(self.night, self.rules, cache["players"], cache["standings"], cache["games"],
                         cache["rounds"], cache["unpaired"])
