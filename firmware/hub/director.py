"""The director's console on the hub's standard input (a terminal or a pipe; none under systemd).

One command a line (``help`` lists them). What changes the night runs on the
hub's writer thread, so it is in the ledger before the console answers; a
correction is a new row with its reason, never an edit. A line longer than
``MAX_LINE`` characters, or not UTF-8, is refused with one line.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from typing import Callable, TextIO

from ledger.errors import LedgerError

from .commands import DirectorError
from .hub import Hub, what_counts
from .ledger import refused_kind
from .night import HELD
from .pages import places

MAX_LINE = 400
MAX_LINE_BYTES = MAX_LINE * 4
HELP = """\
  standings [season]      the night's standings (or the season's)
  rounds                  every round: pairings, results, byes, unpaired games
  players                 the night's players
  player add NAME...      register players          player remove NAME
  start                   make round 1              next   make the next round now
  correct TABLE GAME Alice:121 Bob:88 reason="wrong hand pegged"
                          a game's result as it should be (winner=NAME if not the
                          higher score; partners as A+C:121)
  held                    the games kept but counted for nobody: unpaired (not the
                          night's pairing at their table), in conflict with their
                          table's entries, or waiting for their entries; and the
                          games whose game line never came (or was refused)
  accept TABLE GAME [reason="..."]  count a held game as its table sent it
  void TABLE GAME reason="..."      the game counts for nobody
  restore TABLE GAME reason="..."   drop the correction: the table's result counts
  conflicts               what a table sent that was not kept: an entry or result sent
                          again with other content (the first copy stands), or an
                          entry or result refused (told to its table), with what
                          would make its game count
  help  quit"""


def wanted(stdin) -> bool:
    """Whether standard input is a terminal or a pipe (not /dev/null, as under systemd)."""
    try:
        if stdin.isatty():
            return True
        return stat.S_ISFIFO(os.fstat(stdin.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):
        return False


def read_line(stdin) -> tuple[str | None, str | None]:
    """(line, refusal): ("", None) at the end of input; (None, why) for a line too long or not UTF-8."""
    source = getattr(stdin, "buffer", stdin)
    raw = source.readline(MAX_LINE_BYTES + 1)
    newline = b"\n" if isinstance(raw, bytes) else "\n"
    if len(raw) > MAX_LINE_BYTES and not raw.endswith(newline):
        while True:
            rest = source.readline(MAX_LINE_BYTES)
            if not rest or rest.endswith(newline):
                break
        return None, f"that line is too long: at most {MAX_LINE} characters"
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            return None, f"that line is not UTF-8 text (byte {error.start + 1}): type it again"
    if len(raw.rstrip("\r\n")) > MAX_LINE:
        return None, f"that line is too long: at most {MAX_LINE} characters"
    return raw, None


def run_console(hub: Hub, stop: Callable[[], None], stdin: TextIO | None = None,
                stdout: TextIO | None = None) -> None:
    """Read commands until ``quit`` (which calls ``stop``) or the end of input (the hub goes on)."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout

    def out(text: str) -> None:
        try:
            stdout.write(text + "\n")
            stdout.flush()
        except (OSError, ValueError):
            pass

    interactive = stdin.isatty() if hasattr(stdin, "isatty") else False
    out("director's console: type help for the commands")
    while True:
        if interactive:
            try:
                stdout.write("hub> ")
                stdout.flush()
            except (OSError, ValueError):
                pass
        try:
            line, refused = read_line(stdin)
        except (OSError, ValueError):
            return
        if refused:
            out(f"! {refused}")
            continue
        if not line:
            return
        try:
            answer = command(hub, line)
        except (DirectorError, LedgerError) as error:
            out(f"! {' '.join(str(error).split())}")
            continue
        if answer is QUIT:
            out("stopping the hub")
            stop()
            return
        if answer:
            out(answer)


QUIT = object()


def command(hub: Hub, line: str):
    """Do one console line; its answer (text), or QUIT. DirectorError for a line that cannot be done."""
    try:
        words = shlex.split(line)
    except ValueError as error:
        raise DirectorError(f"{error}: put a reason with spaces in quotes, reason=\"...\"") from None
    if not words:
        return ""
    verb, rest = words[0].lower(), words[1:]
    if verb in ("quit", "exit"):
        return QUIT
    if verb in ("help", "?"):
        return HELP
    if verb == "standings":
        season = bool(rest) and rest[0].lower() == "season"
        snap = hub.snapshot
        return standings_text(snap.season if season else snap.view.standings,
                              "season" if season else f"night {snap.view.night.name}")
    if verb == "rounds":
        return rounds_text(hub.snapshot.view)
    if verb == "held":
        return held_text(hub.snapshot.view, hub.run(hub.commands.unheard))
    if verb == "conflicts":
        return conflicts_text(hub.run(hub.commands.conflicts))
    if verb == "players":
        players = hub.snapshot.view.players
        return f"{len(players)} players: " + ", ".join(players) if players else "no players yet"
    if verb == "player":
        if len(rest) >= 2 and rest[0].lower() == "add":
            added = hub.run(lambda: hub.commands.add_players(rest[1:]))
            skipped = len(rest) - 1 - len(added)
            return (f"added {', '.join(added)}" if added else "added nobody") + \
                (f" ({skipped} already registered)" if skipped else "")
        if len(rest) == 2 and rest[0].lower() == "remove":
            return f"removed {hub.run(lambda: hub.commands.remove_player(rest[1]))} (kept in the standings if they played)"
        raise DirectorError("player add NAME... or player remove NAME")
    if verb == "start":
        return f"round {hub.run(hub.commands.start_night)} made: see rounds"
    if verb == "next":
        return f"round {hub.run(hub.commands.next_round)} made: see rounds"
    if verb in ("correct", "void", "restore", "accept"):
        if len(rest) < 2:
            raise DirectorError(f"{verb} TABLE GAME ...: see help")
        table, ref, options = rest[0], rest[1], rest[2:]
        fields, scores = _fields(options)
        reason = fields.get("reason", "")
        if verb == "accept":
            return hub.run(lambda: hub.commands.accept(table, ref, reason))
        if verb == "void":
            return hub.run(lambda: hub.commands.void(table, ref, reason))
        if verb == "restore":
            return hub.run(lambda: hub.commands.restore(table, ref, reason))
        if "scores" in fields:
            scores += _scores(fields["scores"].split(","))
        if len(scores) < 2:
            raise DirectorError("give each side's score: Alice:121 Bob:88 (or scores=Alice:121,Bob:88)")
        return hub.run(lambda: hub.commands.correct(table, ref, scores, fields.get("winner"), reason))
    raise DirectorError(f"no command {verb!r}: type help")


def _fields(options: list[str]) -> tuple[dict[str, str], list[tuple[str, int]]]:
    """key=value options, and side:score pairs given alone."""
    fields, loose = {}, []
    for option in options:
        key, equals, value = option.partition("=")
        if equals and key.lower() in ("reason", "winner", "scores"):
            fields[key.lower()] = value
        else:
            loose.append(option)
    return fields, _scores(loose)


def _scores(items: list[str]) -> list[tuple[str, int]]:
    out = []
    for item in items:
        side, colon, score = item.rpartition(":")
        if not colon or not side or not score.isdigit() or len(score) > 4:
            raise DirectorError(f"{item!r}: a side's score is NAME:SCORE, e.g. Alice:121")
        out.append((side, int(score)))
    return out


def held_text(view, unheard=()) -> str:
    """The games held for the director, one line each, with the command that counts each; then the games
    whose game line never came (``unheard``: (table, ledger, game, why)) and no result either."""
    held = view.held
    lineless = {(table, ledger, game): why for table, ledger, game, why in unheard}
    rows = []
    if held:
        rows.append(f"{len(held)} game{'s' if len(held) > 1 else ''} held (counted for nobody until accepted):")
    for game in held:
        why = lineless.pop((game.table, game.ledger, game.game), None)
        rows.append(f"  {game.status}: table {game.table} game {game.game}: {game.reason}"
                    + (f"; {why}" if why else "") + f" [accept {game.table} {game.game}]")
    if lineless:
        rows.append(f"{len(lineless)} game{'s' if len(lineless) > 1 else ''} without a game line or a result "
                    "(counted for nobody):")
    for (table, _ledger, game), why in lineless.items():
        then = (f"once its result is here, accept {table} {game} counts it" if "refused" in why
                else "it counts once its line and result are here")
        rows.append(f"  no game line: table {table} game {game}: {why}; {then}")
    if not rows:
        return "no games held: every game tonight counts, or counts for nobody by its own result"
    return "\n".join(rows)


def standings_text(lines, heading: str) -> str:
    if not lines:
        return f"{heading}: no games yet"
    width = max(6, *(len(line.player) for line in lines))
    rows = [f"{heading}", f"  {'#':>3}  {'player':<{width}}  {'pts':>4}  {'W-L':>7}  {'spread':>6}  {'games':>5}"]
    for place, line in zip(places(lines), lines):
        rows.append(f"  {place:>3}  {line.player:<{width}}  {line.game_points:>4}  "
                    f"{f'{line.wins}-{line.losses}':>7}  {line.spread:>+6}  {line.games:>5}")
    return "\n".join(rows)


def conflicts_text(rows) -> str:
    """The night's conflicts, one line each."""
    if not rows:
        return "no conflicts: every table's entries and results were kept as sent"
    lines = [f"{len(rows)} conflict{'s' if len(rows) > 1 else ''} (nothing of these was counted):"]
    for row in rows:
        where = f"table {row.table} game {row.game}"
        if row.kind == "entry":
            what = f"entry {row.number} sent again as {row.sent!r}; {row.kept!r} stands"
        elif row.kind == "result":
            what = f"result {row.number} sent again otherwise: {_result_text(row.sent)}; {_result_text(row.kept)} stands"
        else:
            kind = refused_kind(row.reason)
            what = f"{kind} {row.number} refused: {row.reason}; {what_counts(row.table, row.game, kind)}"
        lines.append(f"  {where} (ledger {row.ledger[:6]}, {row.received}): {what}")
    return "\n".join(lines)


def _result_text(payload: str | None) -> str:
    import json

    try:
        data = json.loads(payload or "null") or {}
        return f"{data.get('status')} " + ", ".join(f"{side} {score}" for side, score in data["scores"].items())
    except (ValueError, KeyError, AttributeError, TypeError):
        return "?"


def _game_text(game) -> str:
    if game is None:
        return "playing"
    result = game.result
    scores = ", ".join(f"{side} {score}" for side, score in result.scores) if result else game.status
    note = f" [{game.status}: {game.correction.reason}]" if game.correction else ""
    return f"game {game.game}: {scores}{note}"


def rounds_text(view) -> str:
    if not view.rounds:
        return f"night {view.night.name}: no round yet ({len(view.players)} players; start makes round 1)"
    rows = []
    for each in view.rounds:
        rows.append(f"round {each.number}" + (" (complete)" if each.complete else ""))
        for pairing in each.pairings:
            rows.append(f"  table {pairing.table or '-'}: {' v '.join(pairing.players)}: {_game_text(pairing.game)}")
        if each.bye:
            rows.append(f"  bye: {each.bye}")
    counted = [game for game in view.unpaired if game.status in ("finished", "corrected")]
    if counted:
        rows.append("games of no pairing, counted (a night without pairings, or the director's word):")
        rows += [f"  table {game.table}: {_game_text(game)}" for game in counted]
    if view.held:
        rows.append(held_text(view))
    others = [game for game in view.games if game.status not in ("finished", "corrected", *HELD)]
    if others:
        rows.append("games that count for nobody:")
        rows += [f"  table {game.table}: game {game.game}: {game.status}"
                 + (f" [{game.correction.reason}]" if game.correction else "") for game in others]
    return "\n".join(rows)
