"""The ``cribbage-board`` command line: one argparse parser, each command a subparser.

A command's arguments are added when argparse picks that command or shows its
help, so a line builds the parser of the command it names and no other. The
board's options (``--backend``, ``--config``, ``--set``, ``--state``,
``--headless``) go before or after the command; :data:`USES` says which of
them each command takes, and :func:`firmware.cli.command.parse_args` refuses
the others.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from hardware import BACKENDS, BUNDLED_LAYOUTS

from .. import HUB_PORT, WEB_PORT
from .output import PROG, VERSION_LINE, fail

DESCRIPTION = "An electronic cribbage peg-board and score ledger."
BOARD_OPTIONS = ("backend", "config", "set", "state", "headless")
EPILOG = "--backend, --config, --set, --state and --headless may also follow the command."
# Where each board option works, as the top-level --help and a refusal say it.
WHERE = {
    "backend": "the board and simulate (mock only)",
    "config": "the board, console, simulate, controls-card, wiring, web and club-network",
    "set": "the board, console, simulate, controls-card, wiring and club-network",
    "state": "the board, console, simulate, web and hub (the hub's own ledger)",
    "headless": "the board with --backend mock, and simulate",
}


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors."""

    def error(self, message):
        fail(f"{self.prog}: {message} (see {self.prog} --help)")
        self.exit(2)


class TopParser(Parser):
    """The top-level parser: its --help ends with the terminal board's keys (looked up only then).

    The commands, among others::

        cribbage-board [--backend mock]     the board (on a PC: the mock board in the terminal)
        cribbage-board simulate SCRIPT [--json] [--snapshots DIR]
        cribbage-board console              keep score by typing game-record lines
        cribbage-board replay FILE [--json] a game record's resulting state
        cribbage-board salvage FILE-wal [--base FILE] [-o FILE]   a set-aside -wal's entries, in a ledger file
        cribbage-board count CARDS --starter CARD [--crib] [--json]
        cribbage-board count --distribution [--crib] [--hand-size N] [--json]
        cribbage-board pegging CARDS [--go] [--json]
        cribbage-board board-template [--layout NAME|FILE] [--target N] [--game-counters N] [--paper a4|letter|a3]
                                      -o board.pdf|board.svg
        cribbage-board controls-card [--config FILE] [--set K=V] -o card.pdf
        cribbage-board wiring [--config FILE] [--set K=V] -o wiring.svg
        cribbage-board web [--state FILE] [--host HOST] [--port PORT]   the live board, history and stats in a browser
        cribbage-board --version

    --backend, --config, --set, --state and --headless go before or after the
    command; a command that does not use one refuses it.
    """

    def format_help(self) -> str:
        from ..board.pc.terminal import key_help

        rows = [f"  {keys:<30} {does}" for keys, does in key_help()]
        return super().format_help() + "\nkeys of the mock board in the terminal:\n" + "\n".join(rows) + "\n"


class CommandParser(Parser):
    """A command's parser: ``arguments(parser)`` adds its arguments the first time it parses a
    line or shows its usage or help."""

    def __init__(self, *, arguments: Callable[[argparse.ArgumentParser], None], **settings):
        super().__init__(**settings)
        self._arguments: Callable[[argparse.ArgumentParser], None] | None = arguments

    def _complete(self) -> None:
        if self._arguments is not None:
            arguments, self._arguments = self._arguments, None
            arguments(self)

    def parse_known_args(self, args=None, namespace=None):
        self._complete()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._complete()
        return super().format_usage()

    def format_help(self) -> str:
        self._complete()
        return super().format_help()


def _board_options(parser: argparse.ArgumentParser, uses: tuple[str, ...], top: bool = False) -> None:
    """The board's options: shown where they work, hidden (and refused later) elsewhere. The
    top-level copies hold the defaults; a command's copies default to SUPPRESS, so they never
    overwrite a value given before the command, and its --set collects apart (``set_after``),
    so those given before are kept too."""

    def add(flag: str, help: str, **settings) -> None:
        dest = flag[2:]
        if top:
            help = f"{help}; used by {WHERE[dest]}"
        else:
            help = help if dest in uses else argparse.SUPPRESS
            settings.update(default=argparse.SUPPRESS, dest="set_after" if dest == "set" else dest)
        parser.add_argument(flag, help=help, **settings)

    add("--backend", "real devices or the mock board", choices=BACKENDS)
    add("--config", "the config file (default /etc/cribbage-board/config.toml)", metavar="FILE")
    add("--set", "override a config key, e.g. --set leds.max_brightness=0.3", metavar="KEY=VALUE",
        action="append", default=[])
    add("--state", "the ledger database (default: $STATE_DIRECTORY or ~/.local/state/cribbage-board)",
        metavar="FILE")
    add("--headless", "with the mock backend: run the board loop without the terminal view", action="store_true")


def _console(parser: argparse.ArgumentParser) -> None:
    from ..board.pc.console_help import CONSOLE_HELP

    parser.description = ("Keep score by typing the game record, one line at a time, in the terminal;\n"
                          "every line is saved in the ledger before the console answers.\n\n" + CONSOLE_HELP)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # its lines laid out by hand


def _simulate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("script", help="the script (- for standard input)")
    parser.add_argument("--json", action="store_true", help="print the final state as JSON")
    parser.add_argument("--snapshots", metavar="DIR", help="save PNGs of the LED board and OLED after each step")


def _replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the game record (- for standard input)")
    parser.add_argument("--json", action="store_true", help="print the state as JSON")
    parser.add_argument("--export", action="store_true", help="print the record as the ledger exports it")


def _salvage(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "A -wal the board or the hub set aside (LEDGER.corrupt-TIME-wal: it had no database beside it, or not its "
        "own) holds entries that were acknowledged. salvage folds it into a copy of the ledger it belongs to "
        "(--base; by default the file set aside with it, or none when the -wal holds every page), checks the "
        "result, and copies its rows into a new ledger made from cribbage-board's own schema (no trigger, view or "
        "index of the file comes along), written to a new file (default: the -wal's name without -wal, plus "
        ".salvaged). The -wal and the base are only read, as untrusted files, within --time-limit. Read the result "
        "with: console --state FILE, or web --state FILE.")
    parser.add_argument("wal", help="the -wal set aside, e.g. ledger.sqlite3.corrupt-20261202T190001-wal")
    parser.add_argument("--base", metavar="FILE", help="the ledger the -wal was written for (e.g. the file it was "
                                                        "moved to)")
    parser.add_argument("-o", "--output", metavar="FILE", help="the ledger file to write (never over an existing one)")
    parser.add_argument("--time-limit", type=_seconds, default=10.0, metavar="SECONDS",
                        help="how long reading the -wal and its base may take in all (default 10)")


def _seconds(text: str) -> float:
    """A number of seconds above 0, for argparse.

    >>> _seconds("2.5")
    2.5
    """
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of seconds above 0: {text!r}")
    return seconds


def _count(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cards", nargs="*", help="3, 4 or 5 cards, e.g. 5H 5D 5S JC")
    parser.add_argument("--starter", help="the starter (cut) card")
    parser.add_argument("--crib", action="store_true", help="count as a crib (only a 5-card flush)")
    parser.add_argument("--distribution", action="store_true",
                        help="count every hand + starter from a 52-card pack and print how many score each total")
    parser.add_argument("--hand-size", type=int, default=4, choices=(3, 4, 5))
    parser.add_argument("--json", action="store_true")


def _coach(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "The 15 discards of the six cards dealt, best first, by the points they keep: the hand's average over the "
        "46 starters, plus the crib's average (--dealer) or minus it (--pone). Exact over every starter and every "
        "pair of the 45 cards left the opponent may throw, each pair taken as likely as any other. Pegging is not "
        "counted; the six-card two-player game only.")
    parser.add_argument("cards", nargs="*", help="the six cards dealt, e.g. 5H 5D JC 6S 7S KD")
    parser.add_argument("--dealer", action="store_true", help="the crib is yours: its points are added")
    parser.add_argument("--pone", action="store_true", help="the crib is the opponent's: its points are taken off")
    parser.add_argument("--json", action="store_true")


def _pegging(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cards", nargs="+", help="the cards played since the count was reset, in order")
    parser.add_argument("--go", action="store_true", help="the last card is the last before a go")
    parser.add_argument("--json", action="store_true")


def _board_template(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--layout", default=BUNDLED_LAYOUTS[2],
                        help=f"a layout file or a bundled name ({', '.join(BUNDLED_LAYOUTS.values())})")
    parser.add_argument("--target", type=int, default=121, help="the game the skunk lines are drawn for")
    parser.add_argument("--game-counters", type=int, default=0, metavar="N",
                        help="a row of N game counters a side to drill too (the config's leds.game_counters; "
                             "default 0)")
    parser.add_argument("--paper", choices=("a4", "letter", "a3"),
                        help="for a PDF: the paper the board is tiled over at 1:1 (default a4)")
    parser.add_argument("-o", "--output", required=True,
                        help="board.pdf (pages to print at 100%% and tape together) or board.svg (one sheet)")


def _controls_card(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", required=True, help="the PDF file to write (card.pdf)")


def _wiring(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", required=True, help="the SVG file to write (wiring.svg)")


def _web(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Serve the board's ledger read-only over HTTP: the live board at /, /games, /stats, the "
                          "JSON API (/api/state, /api/games, /api/games/ID) and server-sent events at /events.")
    parser.add_argument("--host", default="0.0.0.0", help="the address to listen on (default 0.0.0.0: every network)")
    parser.add_argument("--port", type=int, help=f"the port (default: the config's web.port, {WEB_PORT})")


def _club_network(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Write /etc/systemd/system/cribbage-board.service.d/club.conf from the config's [club] broker: the board's "
        "unit may then reach that broker's address and no other (IPAddressDeny=any, IPAddressAllow=); with the "
        "club off, remove it, and the unit has no network, as shipped. systemd/install.sh runs it; run it again "
        "after changing [club] broker.")
    parser.add_argument("--drop-in", metavar="FILE",
                        help="the drop-in to write (default /etc/systemd/system/cribbage-board.service.d/club.conf)")


def _first_boot(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Apply the SD card's cribbage-board.toml (the image's FAT partition) once, at the first boot: the board's "
        "sections into /etc/cribbage-board/config.toml, the hostname, time zone, Wi-Fi and SSH keys into the "
        "system; then overwrite and remove the file, leaving cribbage-board-applied.txt. A mistake changes nothing "
        "and is written to cribbage-board-error.txt beside it. The image's cribbage-board-first-boot.service runs it.")
    parser.add_argument("--boot", metavar="FOLDER", default="/boot/firmware",
                        help="the card's FAT partition (default /boot/firmware)")


def _hub(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Keep a club night from the tables' MQTT messages in the hub's own ledger (--state, default hub.sqlite3 in "
        "the state folder): standings, pairings for each round, /club for the room's TV, /api/club/standings, "
        "/api/club/rounds and /club/night.csv. Commands on standard input: help.")
    add = parser.add_argument
    add("--broker", metavar="URL", required=True, help="the club's broker: mqtt://host:1883 or mqtts://host:8883")
    add("--club", metavar="NAME", required=True, help="the club's name in the topics")
    add("--host", default="127.0.0.1", help="the page's address (default 127.0.0.1; 0.0.0.0: every network)")
    add("--port", type=int, default=HUB_PORT, help=f"the page's port (default {HUB_PORT})")
    add("--username", help="the broker's user name")
    add("--password-file", metavar="FILE", help="the broker's password, on the file's first line")
    add("--ca-file", metavar="FILE", help="CA certificates (PEM) for an mqtts:// broker")
    add("--night", metavar="NAME", help="the night's name (default today's date)")
    add("--players", metavar="A,B,...", help="register these players; round 1 is made at once")
    add("--tables", metavar="1,2,...", help="the tables to pair at (default: those online)")
    add("--rounds", type=int, default=9, help="rounds in the night (default 9)")
    add("--points", default="acc", help="game points: acc (win 2, skunk 3), casual, or e.g. 2/3/4")
    add("--skunk", default="acc", choices=("acc", "lurch", "triple", "none"), help="skunk lines (default acc)")


# Each command: its line in the top-level help, the board's options it uses, and what adds its arguments.
COMMANDS: dict[str, tuple[str, tuple[str, ...], Callable[[argparse.ArgumentParser], None]]] = {
    "console": ("keep score by typing record lines in the terminal", ("config", "set", "state"), _console),
    "simulate": ("run a script of button presses and turns on the mock board", BOARD_OPTIONS, _simulate),
    "replay": ("replay a game record and print the resulting state", (), _replay),
    "salvage": ("read back the entries of a -wal set aside from a ledger, into a ledger file of their own", (),
                _salvage),
    "count": ("count a hand or crib from its cards", (), _count),
    "coach": ("rank the 15 ways to throw two of six cards to the crib", (), _coach),
    "pegging": ("points for the last card played in the play", (), _pegging),
    "board-template": ("draw a board layout at 1:1 as a drilling template: PDF pages to print and tape, or one "
                       "SVG sheet", (), _board_template),
    "controls-card": ("draw a one-page A6 card of the controls as a PDF", ("config", "set"), _controls_card),
    "wiring": ("draw the wiring diagram for the config's pins as an SVG", ("config", "set"), _wiring),
    "web": ("serve the live board, the game history and statistics to browsers (read-only)", ("config", "state"),
            _web),
    "club-network": ("let the installed board's service reach its club's broker, and nothing else",
                     ("config", "set"), _club_network),
    "first-boot": ("apply the SD card's cribbage-board.toml at the first boot (the Pi image runs it)", (),
                   _first_boot),
    "hub": ("run a club night's hub: standings, pairings and the /club page from the tables over MQTT", ("state",),
            _hub),
}
# The board's options each command uses; None is the board itself (no command), which uses them all.
USES: dict[str | None, tuple[str, ...]] = {None: BOARD_OPTIONS,
                                           **{name: uses for name, (_, uses, _) in COMMANDS.items()}}


def build_parser() -> argparse.ArgumentParser:
    """The parser of the whole line; a command's arguments are added when it is chosen."""
    parser = TopParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=VERSION_LINE, help="print the version and exit")
    _board_options(parser, BOARD_OPTIONS, top=True)
    # A command's --help is its own: the mock board's keys end the top-level help alone.
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for name, (help, uses, arguments) in COMMANDS.items():
        commands.add_parser(name, help=help, arguments=_with_board_options(arguments, uses))
    return parser


def _with_board_options(arguments: Callable[[argparse.ArgumentParser], None],
                        uses: tuple[str, ...]) -> Callable[[argparse.ArgumentParser], None]:
    """``arguments``, then the board's options as a command takes them."""

    def add(parser: argparse.ArgumentParser) -> None:
        arguments(parser)
        _board_options(parser, uses)

    return add
