"""The ``cribbage-board`` command: the board itself and its tools.

    cribbage-board [--backend mock]     the board (on a PC: the mock board in the terminal)
    cribbage-board simulate SCRIPT [--json] [--snapshots DIR]
    cribbage-board console              keep score by typing game-record lines
    cribbage-board replay FILE [--json] a game record's resulting state
    cribbage-board count CARDS --starter CARD [--crib] [--json]
    cribbage-board count --distribution [--crib] [--hand-size N] [--json]
    cribbage-board pegging CARDS [--go] [--json]
    cribbage-board board-template [--layout NAME|FILE] [--target N] [--paper a4|letter|a3] -o board.pdf|board.svg
    cribbage-board controls-card [--config FILE] [--set K=V] -o card.pdf
    cribbage-board wiring [--config FILE] [--set K=V] -o wiring.svg
    cribbage-board web [--state FILE] [--host HOST] [--port PORT]   the live board, history and stats in a browser
    cribbage-board --version

--backend, --config, --set, --state and --headless go before or after the
command; a command that does not use one refuses it.
"""

from __future__ import annotations

import os
import sys

from hardware.errors import HardwareError
from ledger.errors import LedgerError
from scorer.errors import CribbageError, RecordSyntaxError

from .errors import ConfigError

TYPE_CHECKING = False  # as the standard library does, to keep typing unloaded
if TYPE_CHECKING:  # for annotations only: argparse loads when a command line needs it
    import argparse

# Each command imports what it uses when it runs (issue 11): ``count`` loads
# neither the config, nor the ledger, nor the game.

PROG = "cribbage-board"
MAX_INPUT_BYTES = 2 * 1024 * 1024  # a game record or a simulate script (a 1,000-game match is 0.7 MB)
MAX_MESSAGE = 400  # characters of an error line

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
    from .cliparser import TopParser, Version as _Version

    parser = TopParser(
        prog=PROG, description="An electronic cribbage peg-board and score ledger.",
        epilog="--backend, --config, --set, --state and --headless may also follow the command.",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
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
    from .quickargs import quick_args

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


def one_line(message: str) -> str:
    """An error message as one line of bounded length."""
    text = " ".join(str(message).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "\u2026"


def fail(message: str) -> int:
    """Print one error line on standard error; returns the exit status 2."""
    print(one_line(message), file=sys.stderr)
    return 2


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
        _drop_stdout()
        return 141
    except OSError as error:  # one that names no file: mostly standard output on a full disk
        _drop_stdout()
        return fail(f"{PROG}: {error.strerror or error}")
    except KeyboardInterrupt:
        return 130


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so what is left unwritten is not
    written (and complained about) again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # not a real file (tests)
        pass


def _run(args) -> int:
    try:
        if args.command == "replay":
            return _replay(args)
        if args.command == "count":
            return _count(args)
        if args.command == "pegging":
            return _pegging(args)
        if args.command == "board-template":
            return _board_template(args)
        if args.command == "controls-card":
            return _controls_card(args)
        if args.command == "wiring":
            return _wiring(args)
        if args.command == "console":
            return _console(args)
        if args.command == "web":
            return _web(args)
        return _board(args)
    except (CribbageError, LedgerError, ConfigError, HardwareError) as error:
        return fail(f"{PROG}: {error}")
    except OSError as error:
        if error.filename is None:
            raise  # a closed pipe or full standard output: main says it
        return fail(f"{PROG}: {error.filename}: {error.strerror or error}")


def read_source(path: str, limit: int = MAX_INPUT_BYTES) -> tuple[str, str | None]:
    """(name, text) of a file argument, ``-`` for standard input; text None
    (and a one-line message printed) when it cannot be read, is larger than
    ``limit`` bytes or is not UTF-8."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", sys.stdin)
            data = stream.read(limit + 1)
        else:
            with open(path, "rb") as file:
                data = file.read(limit + 1)
    except (OSError, ValueError) as error:
        fail(f"{PROG}: cannot read {name}: {getattr(error, 'strerror', None) or error}")
        return name, None
    if len(data) > limit:
        fail(f"{PROG}: {name} is larger than {limit // (1024 * 1024)} MB: give a smaller file")
        return name, None
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            fail(f"{PROG}: {name} is not UTF-8 text (byte {error.start + 1}): save it as UTF-8")
            return name, None
    return name, data


def _replay(args) -> int:
    import json

    from scorer.record import replay
    from scorer.report import state_dict, summary

    name, text = read_source(args.file)
    if text is None:
        return 2
    try:
        result = replay(text.splitlines())
    except RecordSyntaxError as error:
        return fail(f"{name}:{error.line}: {error}")
    if args.export:
        print("\n".join(result.book.record_lines()))
    elif args.json:
        print(json.dumps(state_dict(result.book, result.rejected), indent=2))
    else:
        print(summary(result.book, result.rejected))
    return 0


def _print_json(value) -> None:
    import json  # only when asked for: a plain count starts without it

    print(json.dumps(value))


def _count(args) -> int:
    from scorer.cards import parse_cards
    from scorer.counting import distribution, score_hand

    if args.distribution:
        if args.cards or args.starter:
            return fail(f"{PROG} count: --distribution counts every hand: give no cards")
        counts = distribution(args.hand_size, args.crib)
        full = {str(total): counts.get(total, 0) for total in range(max(counts) + 1)}
        if args.json:
            _print_json(full)
        else:
            for total, number in full.items():
                print(f"{total:>3} {number:>10}")
        return 0
    if not args.starter:
        return fail(f"{PROG} count: count needs --starter CARD (or --distribution)")
    starter = parse_cards(_card_texts([args.starter]))[0]
    score = score_hand(parse_cards(_card_texts(args.cards), [starter]), starter, crib=args.crib)
    if args.json:
        _print_json(score.to_dict())
    else:
        print(score.say())
    return 0


def _card_texts(texts: list[str]) -> list[str]:
    """Card arguments cut short where they are too long to be a card, so the
    message that says so stays short."""
    return [text if len(text) <= 8 else text[:8] + "..." for text in texts]


def _pegging(args) -> int:
    from scorer.cards import parse_cards
    from scorer.counting import score_play

    score = score_play(parse_cards(_card_texts(args.cards)), go=args.go)
    if args.json:
        _print_json({"points": score.total, "items": score.to_dict()["items"]})
    else:
        print(f"{score.say()}" if score.items else "no points")
    return 0


def _console(args) -> int:
    """``cribbage-board console``: the ledger the board would use, unless --state says."""
    from .app import state_path
    from .config import load_config
    from .console import run_console

    config = load_config(args.config, args.set)
    return run_console(str(state_path(config, args.state)))


def _web(args) -> int:
    """``cribbage-board web``: the ledger the board uses (or --state), served read-only."""
    from .web.server import WebError, serve
    from .web.settings import web_settings

    try:
        state, layout, port = web_settings(args.config, args.state)
        return serve(state, args.host, port if args.port is None else args.port, layout)
    except WebError as error:
        return fail(f"{PROG} web: {error}")


def _board(args) -> int:
    """The board itself: real devices on a Pi, the terminal mock board elsewhere."""
    from hardware.backend import choose_backend

    from .app import Board, open_devices, state_path
    from .config import load_config
    from .sdnotify import Notifier

    config = load_config(args.config, args.set)
    if args.command == "simulate":
        from .simulator import simulate_main

        return simulate_main(args, config)
    backend = choose_backend(args.backend, config.values[""]["backend"] or None)
    print(f"{PROG}: {backend.message}", file=sys.stderr)
    path = state_path(config, args.state)
    if backend.name == "mock" and not args.headless:
        from .terminal import run_terminal

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


def _board_template(args) -> int:
    from pathlib import Path

    from hardware.layout import load_layout
    from hardware.template import svg_text, template_drawing

    output = Path(args.output)
    kind = output.suffix.lower()
    if kind not in (".pdf", ".svg"):
        return fail(f"{PROG}: board-template writes a .pdf (tiled pages) or an .svg (one sheet), not {output}")
    if kind == ".svg" and args.paper:
        return fail(f"{PROG}: --paper tiles a PDF; an SVG is one sheet: write {output.with_suffix('.pdf')} "
                    "or leave out --paper")
    target = args.target
    if not 31 <= target <= 1000:
        return fail(f"{PROG} board-template: --target {target} is out of range: use 31 to 1000")
    layout = load_layout(args.layout)
    # ACC lines: a loser under target-30 is skunked, under target-60 double skunked.
    marks = {target - 30: f"skunk line ({target - 30})", target - 60: f"double skunk ({target - 60})"}
    drawing = template_drawing(layout, marks)
    try:
        if kind == ".pdf":
            try:
                from hardware.template_pdf import PAPER_NAMES, write_pdf

                tiling = write_pdf(drawing, args.paper or "a4", output)
            except ImportError:
                return fail(f"{PROG}: a PDF template needs reportlab: pip install reportlab (or write board.svg)")
            sheets = (f"{len(tiling.pages)} {PAPER_NAMES[tiling.paper]} "
                      f"{'landscape' if tiling.landscape else 'portrait'} pages "
                      f"({tiling.rows} x {tiling.columns}); trim and tape them where the marks meet")
        else:
            output.write_text(svg_text(drawing), encoding="utf-8")
            sheets = f"one {drawing.width:.0f} x {drawing.height:.0f} mm sheet"
    except OSError as error:
        return fail(f"{PROG}: cannot write {output}: {error.strerror or error}")
    print(f"{output}: {layout.name}, hole pitch {layout.pitch_mm:.2f} mm, {sheets}; "
          "print at 100 % (actual size) and check the 100 mm scale bar")
    return 0


def _controls_card(args) -> int:
    """``controls-card -o card.pdf``: the controls of this config on one A6 page."""
    from .card import draw_card
    from .config import load_config
    from .controls import controls_card

    card = controls_card(load_config(args.config, args.set))
    try:
        draw_card(card, args.output)
    except OSError as error:
        return fail(f"{PROG}: cannot write {args.output}: {error.strerror or error}")
    print(f"{args.output}: the controls card, A6 (105 x 148 mm); print at 100%")
    return 0


def _wiring(args) -> int:
    """The wiring diagram for the config's pins."""
    from pathlib import Path

    from hardware.wiring import clashes, physical_pin, strip_gpio, wires, wiring_svg

    from .config import load_config

    config = load_config(args.config, args.set)
    svg = wiring_svg(config, source=" + ".join(config.sources))
    try:
        Path(args.output).write_text(svg, encoding="utf-8")
    except OSError as error:
        return fail(f"{PROG}: cannot write {args.output}: {error.strerror or error}")
    for line in clashes(wires(config)):
        print(f"{PROG}: {line}: give each its own pin", file=sys.stderr)
    data = strip_gpio(config["leds"])
    buzzer = config["buzzer"]
    parts = (f"buttons, encoder, OLED and buzzer on GPIO{buzzer['pin']} (pin {physical_pin(buzzer['pin'])})"
             if buzzer["enabled"] else "buttons, encoder and OLED (buzzer off: --set buzzer.enabled=true)")
    print(f"{args.output}: strip data on GPIO{data} (pin {physical_pin(data)}), {parts} "
          f"from {' + '.join(config.sources)}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
