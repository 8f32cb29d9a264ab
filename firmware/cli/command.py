"""Running one command line: parse it, run the command, and turn every failure into one line and exit 2."""

from __future__ import annotations

import os
import sys

from hardware.errors import HardwareError
from ledger.errors import LedgerError
from scorer.errors import CribbageError, RecordSyntaxError

from ..errors import ConfigError
from . import drawings, tools
from .output import PROG, VERSION_LINE, drop_stdout, fail

TYPE_CHECKING = False  # as the standard library does, to keep typing unloaded
if TYPE_CHECKING:  # for annotations only: argparse loads when a command line needs it
    import argparse

# Each command imports what it uses when it runs (issue 11): ``count`` loads
# neither the config, nor the ledger, nor the game.

# The options of the board. Each works before or after the subcommand; a command
# that does not use one refuses it. The top-level copy holds the default, the
# subcommand copies default to SUPPRESS so they never overwrite a value given first.
COMMON = ("backend", "config", "set", "state", "headless")
USES = {
    None: COMMON,
    "console": ("config", "set", "state"),
    "simulate": ("backend", "config", "set", "state", "headless"),
    "controls-card": ("config", "set"),
    "wiring": ("config", "set"),
    "web": ("config", "state"),
}
WHERE = {
    "backend": "the board and simulate (mock only)",
    "config": "the board, console, simulate, controls-card, wiring and web",
    "set": "the board, console, simulate, controls-card and wiring",
    "state": "the board, console, simulate and web",
    "headless": "the board with --backend mock, and simulate",
}


def build_parser() -> argparse.ArgumentParser:
    from .parser import TopParser

    parser = TopParser(
        prog=PROG, description="An electronic cribbage peg-board and score ledger.",
        epilog="--backend, --config, --set, --state and --headless may also follow the command.",
    )
    parser.add_argument("--version", action="version", version=VERSION_LINE, help="print the version and exit")
    _board_options(parser, COMMON, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("console", help="keep score by typing record lines in the terminal")
    _board_options(play, USES["console"])

    sim = sub.add_parser("simulate", help="run a script of button presses and turns on the mock board")
    sim.add_argument("script", help="the script (- for standard input)")
    sim.add_argument("--json", action="store_true", help="print the final state as JSON")
    sim.add_argument("--snapshots", metavar="DIR", help="save PNGs of the LED board and OLED after each step")
    _board_options(sim, USES["simulate"])

    rep = sub.add_parser("replay", help="replay a game record and print the resulting state")
    rep.add_argument("file", help="the game record (- for standard input)")
    rep.add_argument("--json", action="store_true", help="print the state as JSON")
    rep.add_argument("--export", action="store_true", help="print the record as the ledger exports it")
    _board_options(rep, ())

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
    _board_options(count, ())

    peg = sub.add_parser("pegging", help="points for the last card played in the play")
    peg.add_argument("cards", nargs="+", help="the cards played since the count was reset, in order")
    peg.add_argument("--go", action="store_true", help="the last card is the last before a go")
    peg.add_argument("--json", action="store_true")
    _board_options(peg, ())

    tpl = sub.add_parser(
        "board-template",
        help="draw a board layout at 1:1 as a drilling template: PDF pages to print and tape, or one SVG sheet",
    )
    tpl.add_argument(
        "--layout", default="classic-121",
        help="a layout file or a bundled name (classic-121, three-track-121, four-track-121)",
    )
    tpl.add_argument("--target", type=int, default=121, help="the game the skunk lines are drawn for")
    tpl.add_argument("--paper", choices=("a4", "letter", "a3"),
                     help="for a PDF: the paper the board is tiled over at 1:1 (default a4)")
    tpl.add_argument("-o", "--output", required=True,
                     help="board.pdf (pages to print at 100%% and tape together) or board.svg (one sheet)")
    _board_options(tpl, ())

    card = sub.add_parser("controls-card", help="draw a one-page A6 card of the controls as a PDF")
    card.add_argument("-o", "--output", required=True, help="the PDF file to write")
    _board_options(card, USES["controls-card"])

    wiring = sub.add_parser("wiring", help="draw the wiring diagram for the config's pins as an SVG")
    wiring.add_argument("-o", "--output", required=True, help="the SVG file to write")
    _board_options(wiring, USES["wiring"])

    web = sub.add_parser(
        "web", help="serve the live board, the game history and statistics to browsers (read-only)",
        description="Serve the board's ledger read-only over HTTP: the live board at /, /games, /stats, "
                    "the JSON API (/api/state, /api/games, /api/games/ID) and server-sent events at /events.",
    )
    web.add_argument("--host", default="0.0.0.0", help="the address to listen on (default 0.0.0.0: every network)")
    web.add_argument("--port", type=int, default=None, help="the port (default: the config's web.port, 8121)")
    _board_options(web, USES["web"])
    return parser


def _board_options(parser: argparse.ArgumentParser, names, top: bool = False) -> None:
    """The board's options: shown where they work, hidden (and refused later) elsewhere."""
    import argparse

    def default(value):
        return value if top else argparse.SUPPRESS

    def shown(name, text):
        if name not in names:
            return argparse.SUPPRESS
        return f"{text}; used by {WHERE[name]}" if top else text

    parser.add_argument("--backend", choices=("real", "mock"), default=default(None),
                        help=shown("backend", "real devices or the mock board"))
    parser.add_argument("--config", metavar="FILE", default=default(None),
                        help=shown("config", "the config file (default /etc/cribbage-board/config.toml)"))
    # After the command --set collects apart, so those given before are kept too.
    parser.add_argument("--set", metavar="KEY=VALUE", action="append", default=default([]),
                        dest="set" if top else "set_after",
                        help=shown("set", "override a config key, e.g. --set leds.max_brightness=0.3"))
    parser.add_argument(
        "--state", metavar="FILE", default=default(None),
        help=shown("state", "the ledger database (default: $STATE_DIRECTORY or ~/.local/state/cribbage-board)"),
    )
    parser.add_argument("--headless", action="store_true", default=default(False),
                        help=shown("headless", "with the mock backend: run the board loop without the terminal view"))


def parse_args(argv: list[str] | None = None, quick: bool = True) -> argparse.Namespace:
    """The parsed command line, with the board's options merged from both places;
    SystemExit(2) and one line for an option the command does not use. A plain
    line is read without argparse unless ``quick`` is False (the same result)."""
    from .quick import quick_args

    plain = quick_args(sys.argv[1:] if argv is None else list(argv)) if quick else None
    if plain is not None:  # the same as argparse gives; argparse was a third of what count cost
        return plain
    parser = build_parser()
    args = parser.parse_args(argv)
    args.set = list(args.set) + list(getattr(args, "set_after", []))
    if hasattr(args, "set_after"):
        del args.set_after
    used = USES.get(args.command, ())
    for name in COMMON:
        if name not in used and getattr(args, name) not in (None, [], False):
            parser.exit(2, f"{PROG}: {args.command} does not use --{name}: "
                           f"--{name} is used by {WHERE[name]}\n")
    if args.command == "simulate" and args.backend == "real":
        parser.exit(2, f"{PROG}: simulate always runs the mock board: leave out --backend real\n")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):  # a path or name that is not UTF-8 is shown escaped
            stream.reconfigure(errors="backslashreplace")
    try:
        try:
            code = _run(parse_args(argv))
        except SystemExit as stop:  # --help, --version, a usage error
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else fail(stop.code))
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except BrokenPipeError:
        # The reader went away (``... | head``): say nothing more, as cat does.
        drop_stdout()
        return 141
    except OSError as error:  # one that names no file: mostly standard output on a full disk
        drop_stdout()
        return fail(f"{PROG}: {error.strerror or error}")
    except KeyboardInterrupt:
        return 130


def _run(args) -> int:
    commands = {
        "replay": tools.replay, "count": tools.count, "pegging": tools.pegging,
        "board-template": drawings.board_template, "controls-card": drawings.controls_card,
        "wiring": drawings.wiring, "console": _console, "web": _web,
    }
    try:
        return commands.get(args.command, _board)(args)
    except (CribbageError, LedgerError, ConfigError, HardwareError) as error:
        return fail(f"{PROG}: {error}")
    except OSError as error:
        if error.filename is None:
            raise  # a closed pipe or full standard output: main says it
        return fail(f"{PROG}: {error.filename}: {error.strerror or error}")


def _console(args) -> int:
    """``cribbage-board console``: the ledger the board would use, unless --state says."""
    from ..config import load_config, state_path
    from ..pc.console import run_console

    config = load_config(args.config, args.set)
    return run_console(state_path(config, args.state))


def _web(args) -> int:
    """``cribbage-board web``: the ledger the board uses (or --state), served read-only."""
    from ..web.server import WebError, serve
    from ..web.settings import web_settings

    try:
        state, layout, port = web_settings(args.config, args.state)
        return serve(state, args.host, port if args.port is None else args.port, layout)
    except WebError as error:
        return fail(f"{PROG} web: {error}")


def _board(args) -> int:
    """The board itself: real devices on a Pi, the terminal mock board elsewhere."""
    from hardware.backend import choose_backend

    from ..board.devices import open_devices
    from ..board.loop import Board
    from ..board.sdnotify import Notifier
    from ..config import load_config, state_path

    config = load_config(args.config, args.set)
    if args.command == "simulate":
        return tools.simulate(args, config)
    backend = choose_backend(args.backend, config.values[""]["backend"] or None)
    print(f"{PROG}: {backend.message}", file=sys.stderr)
    path = state_path(config, args.state)
    if backend.name == "mock" and not args.headless:
        from ..pc.terminal import run_terminal

        return run_terminal(config, path)
    from ledger.writer import LedgerWriter

    store = LedgerWriter(path, holder=PROG, check="later")  # before the devices; checked in the background after READY
    try:
        devices = open_devices(config, backend, later=("display",))  # the OLED once READY=1 is sent
    except BaseException:
        store.close()
        raise
    for message in store.messages + devices.warnings:
        print(f"{PROG}: {message}", file=sys.stderr)
    return Board(config, store, devices, notifier=Notifier()).run()
