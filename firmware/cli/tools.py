"""The commands that count and replay (count, pegging, replay), read back a set-aside -wal (salvage)
and run the scripted mock board (simulate).

Each imports what it uses when it runs: ``count`` loads neither the config,
nor the ledger, nor the game.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from scorer.errors import RecordSyntaxError

from .output import PROG, fail, read_source

if TYPE_CHECKING:  # the config loads only for the commands that read it
    from ..config import Config


def replay(args) -> int:
    """``replay FILE [--json|--export]``: a game record's resulting state."""
    from scorer.record import replay as replay_record
    from scorer.report import state_dict, summary

    name, text = read_source(args.file)
    if text is None:
        return 2
    try:
        result = replay_record(text.splitlines())
    except RecordSyntaxError as error:
        return fail(f"{name}:{error.line}: {error}")
    if args.export:
        print("\n".join(result.book.record_lines()))
    elif args.json:
        import json  # only when asked for

        print(json.dumps(state_dict(result.book, result.rejected, result.sources), indent=2))
    else:
        print(summary(result.book, result.rejected))
    return 0


def salvage(args) -> int:
    """``salvage FILE-wal [--base FILE] [-o FILE] [--time-limit SECONDS]``: a set-aside -wal's entries in a
    ledger file of their own (a board's or a hub's); SIGTERM or SIGINT stops it with one line."""
    from pathlib import Path

    from ledger.salvage import BOARD, salvage_wal
    from ledger.scratch import Stopped

    from ..hub.ledger import SALVAGE_KIND as HUB

    try:
        output, what = salvage_wal(Path(args.wal), Path(args.base) if args.base else None,
                                   Path(args.output) if args.output else None, (BOARD, HUB), args.time_limit)
    except Stopped as stop:
        fail(f"{PROG}: {stop}")
        return 128 + stop.signum
    print(f"salvaged {what} into {output}: read it with {PROG} console --state {output} (or web --state)")
    return 0


def _print_json(value) -> None:
    import json  # only when asked for: a plain count starts without it

    print(json.dumps(value))


def count(args) -> int:
    """``count CARDS --starter CARD`` or ``count --distribution``: a hand's points, or every hand's."""
    from scorer.cards import parse_cards
    from scorer.counting import score_hand

    if args.distribution:
        if args.cards or args.starter:
            return fail(f"{PROG} count: --distribution counts every hand: give no cards")
        from scorer.distribution import distribution  # what every hand scores: only when asked

        counts = distribution(args.hand_size, args.crib)
        full = {str(total): counts.get(total, 0) for total in range(max(counts) + 1)}
        if args.json:
            _print_json(full)
        else:
            for total, number in full.items():
                print(f"{total:>3} {number:>10}")
        return 0
    missing = [what for what, given in (("the hand's CARDS (3, 4 or 5)", args.cards),
                                        ("--starter CARD", args.starter)) if not given]
    if missing:
        return fail(f"{PROG} count: count needs {' and '.join(missing)}, "
                    "e.g. count 5H 5D 5S JC --starter 5C (or --distribution)")
    starter = parse_cards(_card_texts([args.starter]))[0]
    score = score_hand(parse_cards(_card_texts(args.cards), [starter]), starter, crib=args.crib)
    if args.json:
        _print_json(score.to_dict())
    else:
        print(score.say())
    return 0


def coach(args) -> int:
    """``coach CARDS --dealer|--pone [--json]``: the verdict in one line, then the 15 discards of six cards,
    best first, each figure named (net, hand average, crib average)."""
    from scorer.cards import parse_cards
    from scorer.coach import ASSUMES, CRIBS, STARTERS, answer, verdict
    from scorer.coach import coach as rank
    from scorer.figures import figure

    if args.dealer == args.pone:
        return fail(f"{PROG} coach: say whose crib it is: --dealer (yours) or --pone (the opponent's)")
    if len(args.cards) != 6:
        return fail(f"{PROG} coach: give the 6 cards dealt, not {len(args.cards)}, e.g. coach 5H 5D JC 6S 7S KD --dealer")
    ranked = rank(parse_cards(_card_texts(args.cards)), dealer=args.dealer)
    if args.json:
        _print_json(answer(ranked, args.dealer))
        return 0
    print(verdict(ranked))
    print(f"{'throw':<8} {'keep':<13} {'net':>6} {'hand avg':>8} {'min':>4} {'max':>4} {'crib avg':>8}")
    for d in ranked:
        throw, keep = " ".join(map(str, d.throw)), " ".join(map(str, d.keep))
        print(f"{throw:<8} {keep:<13} {figure(d.expected, 2):>6} {figure(d.hand_average, 2):>8} {d.hand_min:>4} "
              f"{d.hand_max:>4} {figure(d.crib_net, 2, plus=True):>8}")
    how = "plus the crib's (yours)" if args.dealer else "less the crib's (the opponent's)"
    print(f"Net: the hand's average {how}. Averages over the {STARTERS} starters and, for the crib, the {CRIBS} "
          f"throws of the opponent with each: {ASSUMES}.")
    return 0


def _card_texts(texts: list[str]) -> list[str]:
    """Card arguments cut short where they are too long to be a card, so the
    message that says so stays short."""
    return [text if len(text) <= 8 else text[:8] + "..." for text in texts]


def pegging(args) -> int:
    """``pegging CARDS [--go]``: the points of the last card played."""
    from scorer.cards import parse_cards
    from scorer.counting import score_play

    score = score_play(parse_cards(_card_texts(args.cards)), go=args.go)
    if args.json:
        _print_json({"points": score.total, "items": score.to_dict()["items"]})
    else:
        print(f"{score.say()}" if score.items else "no points")
    return 0


def simulate(args, config: Config) -> int:
    """``cribbage-board simulate SCRIPT [--json] [--snapshots DIR]``."""
    import json
    import tempfile
    from pathlib import Path

    from ..board.pc.script import parse_script
    from ..board.pc.simulator import run_script

    name, text = read_source(args.script)
    if text is None:
        return 2
    try:
        parse_script(text.splitlines())
    except RecordSyntaxError as error:
        print(f"{name}:{error.line}: {error}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(args.state) if args.state else Path(scratch) / "ledger.sqlite3"
        snapshots = Path(args.snapshots) if args.snapshots else None
        result = run_script(text.splitlines(), config, state, snapshots)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for r in result["rejected"]:
            print(f"line {r['line']} refused: {r['entry']}: {r['error']}")
        screen = result["screen"]
        print("\n".join([screen["title"], *screen["lines"], screen["footer"]]))
    return 0
