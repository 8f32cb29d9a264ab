"""The ``cribbage-board`` command: the board itself and its tools.

    cribbage-board [--backend mock]     the board (on a PC: the mock board in the terminal)
    cribbage-board simulate SCRIPT [--json] [--snapshots DIR]
    cribbage-board console              keep score by typing game-record lines
    cribbage-board replay FILE [--json] a game record's resulting state
    cribbage-board count CARDS --starter CARD [--crib] [--json]
    cribbage-board count --distribution [--crib] [--hand-size N] [--json]
    cribbage-board pegging CARDS [--go] [--json]
    cribbage-board board-template [--layout FILE] -o board.svg
    cribbage-board wiring [--config FILE] [--set K=V] -o wiring.svg
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hardware.errors import HardwareError

from .config import ConfigError, load_config
from scorer.cards import parse_cards
from scorer.counting import distribution, score_hand, score_play
from scorer.errors import CribbageError, RecordSyntaxError
from scorer.record import replay
from scorer.report import state_dict, summary

PROG = "cribbage-board"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="An electronic cribbage peg-board and score ledger."
    )
    _board_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("console", help="keep score by typing record lines in the terminal")
    play.add_argument("--state", metavar="FILE", help="the ledger database")

    sim = sub.add_parser("simulate", help="run a script of button presses and turns on the mock board")
    sim.add_argument("script", help="the script (- for standard input)")
    sim.add_argument("--json", action="store_true", help="print the final state as JSON")
    sim.add_argument("--snapshots", metavar="DIR", help="save PNGs of the LED board and OLED after each step")
    _board_options(sim)

    rep = sub.add_parser("replay", help="replay a game record and print the resulting state")
    rep.add_argument("file", help="the game record (- for standard input)")
    rep.add_argument("--json", action="store_true", help="print the state as JSON")
    rep.add_argument("--export", action="store_true", help="print the record as the ledger exports it")

    count = sub.add_parser("count", help="count a hand or crib from its cards")
    count.add_argument("cards", nargs="*", help="3, 4 or 5 cards, e.g. 5H 5D 5S JC")
    count.add_argument("--starter", help="the starter (cut) card")
    count.add_argument("--crib", action="store_true", help="count as a crib (only a 5-card flush)")
    count.add_argument(
        "--distribution",
        action="store_true",
        help="count every hand + starter from a 52-card pack and print how many score each total",
    )
    count.add_argument("--hand-size", type=int, default=4, choices=(3, 4, 5))
    count.add_argument("--json", action="store_true")

    peg = sub.add_parser("pegging", help="points for the last card played in the play")
    peg.add_argument("cards", nargs="+", help="the cards played since the count was reset, in order")
    peg.add_argument("--go", action="store_true", help="the last card is the last before a go")
    peg.add_argument("--json", action="store_true")
    tpl = sub.add_parser("board-template", help="draw a board layout to scale as an SVG drilling template")
    tpl.add_argument("--layout", default="classic-121", help="a layout file or a bundled name (classic-121, three-track-121)")
    tpl.add_argument("-o", "--output", required=True, help="the SVG file to write")
    tpl.add_argument("--target", type=int, default=121, help="the game the skunk lines are drawn for")

    wiring = sub.add_parser("wiring", help="draw the wiring diagram for the config's pins as an SVG")
    wiring.add_argument("--config", metavar="FILE", help="the config file (default /etc/cribbage-board/config.toml)")
    wiring.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                        help="override a config key, e.g. --set inputs.red=23")
    wiring.add_argument("-o", "--output", required=True, help="the SVG file to write")
    return parser


def _board_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("real", "mock"), help="real devices or the mock board")
    parser.add_argument("--config", metavar="FILE", help="the config file (default /etc/cribbage-board/config.toml)")
    parser.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                        help="override a config key, e.g. --set leds.max_brightness=0.3")
    parser.add_argument(
        "--state", metavar="FILE",
        help="the ledger database (default: $STATE_DIRECTORY or ~/.local/state/cribbage-board)",
    )
    parser.add_argument("--headless", action="store_true",
                        help="with the mock backend: run the board loop without the terminal view")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "replay":
            return _replay(args)
        if args.command == "count":
            return _count(args, parser)
        if args.command == "pegging":
            return _pegging(args)
        if args.command == "board-template":
            return _board_template(args)
        if args.command == "wiring":
            return _wiring(args)
        if args.command == "console":
            from .console import run_console

            return run_console(args.state)
        return _board(args)
    except (CribbageError, ConfigError, HardwareError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def read_source(path: str) -> tuple[str, str | None]:
    """(name, text) of a file argument, ``-`` for standard input; text None
    (and a one-line message printed) when it cannot be read."""
    name = "<stdin>" if path == "-" else path
    try:
        return name, sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"{PROG}: cannot read {name}: {error}", file=sys.stderr)
        return name, None


def _replay(args) -> int:
    name, text = read_source(args.file)
    if text is None:
        return 2
    try:
        result = replay(text.splitlines())
    except RecordSyntaxError as error:
        print(f"{name}:{error.line}: {error}", file=sys.stderr)
        return 2
    if args.export:
        print("\n".join(result.book.record_lines()))
    elif args.json:
        print(json.dumps(state_dict(result.book, result.rejected), indent=2))
    else:
        print(summary(result.book, result.rejected))
    return 0


def _count(args, parser) -> int:
    if args.distribution:
        if args.cards or args.starter:
            parser.error("--distribution counts every hand: give no cards")
        counts = distribution(args.hand_size, args.crib)
        full = {str(total): counts.get(total, 0) for total in range(max(counts) + 1)}
        if args.json:
            print(json.dumps(full))
        else:
            for total, number in full.items():
                print(f"{total:>3} {number:>10}")
        return 0
    if not args.starter:
        parser.error("count needs --starter CARD (or --distribution)")
    starter = parse_cards([args.starter])[0]
    score = score_hand(parse_cards(args.cards, [starter]), starter, crib=args.crib)
    print(json.dumps(score.to_dict()) if args.json else f"{score.say()}")
    return 0


def _pegging(args) -> int:
    score = score_play(parse_cards(args.cards), go=args.go)
    if args.json:
        print(json.dumps({"points": score.total, "items": score.to_dict()["items"]}))
    else:
        print(f"{score.say()}" if score.items else "no points")
    return 0


def _board(args) -> int:
    """The board itself: real devices on a Pi, the terminal mock board elsewhere."""
    from hardware.backend import choose_backend

    from .app import Board, open_devices, state_path
    from .sdnotify import Notifier
    from .simulator import run_terminal, simulate_main

    config = load_config(args.config, args.set)
    if args.command == "simulate":
        return simulate_main(args, config)
    backend = choose_backend(args.backend, config.values[""]["backend"] or None)
    print(f"{PROG}: {backend.message}", file=sys.stderr)
    path = state_path(config, args.state)
    if backend.name == "mock" and not args.headless:
        return run_terminal(config, path)
    from scorer.store import LedgerStore

    store = LedgerStore(path)  # before the devices: a ledger error leaves no device open
    try:
        devices = open_devices(config, backend)
    except BaseException:
        store.close()
        raise
    for message in store.messages + devices.warnings:
        print(f"{PROG}: {message}", file=sys.stderr)
    return Board(config, store, devices, notifier=Notifier()).run()


def _board_template(args) -> int:
    from hardware.layout import load_layout
    from hardware.template import board_svg

    layout = load_layout(args.layout)
    target = args.target
    # ACC lines: a loser under target-30 is skunked, under target-60 double skunked.
    marks = {target - 30: f"skunk line ({target - 30})", target - 60: f"double skunk ({target - 60})"}
    svg = board_svg(layout, marks)
    try:
        Path(args.output).write_text(svg, encoding="utf-8")
    except OSError as error:
        print(f"{PROG}: cannot write {args.output}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"{args.output}: {layout.name}, hole pitch {layout.pitch_mm:.2f} mm; print at 100%")
    return 0


def _wiring(args) -> int:
    """The wiring diagram for the config's pins."""
    from hardware.wiring import clashes, strip_gpio, physical_pin, wires, wiring_svg

    config = load_config(args.config, args.set)
    svg = wiring_svg(config, source=" + ".join(config.sources))
    try:
        Path(args.output).write_text(svg, encoding="utf-8")
    except OSError as error:
        print(f"{PROG}: cannot write {args.output}: {error.strerror}", file=sys.stderr)
        return 2
    for line in clashes(wires(config)):
        print(f"{PROG}: {line}: give each its own pin", file=sys.stderr)
    data = strip_gpio(config["leds"])
    print(f"{args.output}: strip data on GPIO{data} (pin {physical_pin(data)}), "
          f"buttons, encoder and OLED from {' + '.join(config.sources)}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
