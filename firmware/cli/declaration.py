"""The command line, declared once: its commands, their options and positionals, and the board's options.

argparse's parser is built from this (:func:`firmware.cli.command.build_parser`)
and the quick reader of plain lines reads it (:mod:`firmware.cli.quick`), so
the two cannot disagree on a name, a default, a choice or a count. It is plain
data and imports nothing but a few names from the ``firmware`` and ``hardware``
packages themselves (docstrings and constants, and the console's help text from
``firmware.pc.console_help``, which imports nothing): ``count`` starts without argparse, typing or re.
"""

from hardware import BACKENDS, BUNDLED_LAYOUTS

from .. import HUB_PORT, WEB_PORT
from ..pc.console_help import CONSOLE_HELP


class Option:
    """An option: its flags, where its value goes, and how it is read and shown.

    ``action`` is argparse's: ``store`` (takes a value), ``store_true`` (a
    flag), ``append`` (takes a value each time it is given, collected in a
    list) or ``version`` (prints the version and exits). ``type`` converts a
    value, as argparse calls it, and ``choices`` are checked after it. ``dest``
    defaults to the first long flag, as argparse names it (None for ``version``,
    which keeps nothing).
    """

    __slots__ = ("flags", "dest", "action", "default", "type", "choices", "metavar", "required", "help")

    def __init__(self, *flags, dest=None, action="store", default=None, type=None, choices=None,
                 metavar=None, required=False, help=None):
        long = [flag for flag in flags if flag.startswith("--")]
        self.flags = flags
        self.dest = None if action == "version" else dest or (long or flags)[0].lstrip("-").replace("-", "_")
        self.action = action
        self.default = default
        self.type = type
        self.choices = choices
        self.metavar = metavar
        self.required = required
        self.help = help

    @property
    def takes_value(self) -> bool:
        """Whether a value follows the flag."""
        return self.action in ("store", "append")

    def initial(self):
        """The value before the line gives one: an empty list, False for a flag, else the default."""
        if self.action == "append":
            return []
        if self.action == "store_true":
            return False
        return self.default


class Positional:
    """A command's positional argument: ``count`` is 1 (exactly one, a string), ``*`` (any
    number, a list) or ``+`` (one or more, a list)."""

    __slots__ = ("name", "count", "help")

    def __init__(self, name, count, help):
        self.name = name
        self.count = count
        self.help = help

    def takes(self, number: int) -> bool:
        """Whether ``number`` values are what it needs."""
        if self.count == 1:
            return number == 1
        return number >= (1 if self.count == "+" else 0)


class Subcommand:
    """A command: its name and help, at most one positional, its own options, and the
    names (destinations) of the board's options it uses."""

    __slots__ = ("name", "help", "description", "positional", "options", "board")

    def __init__(self, name, help, options=(), positional=None, board=(), description=None):
        self.name = name
        self.help = help
        self.description = description
        self.positional = positional
        self.options = options
        self.board = board


DESCRIPTION = "An electronic cribbage peg-board and score ledger."
# The program's own options, before any command (beside the board's).
TOP_OPTIONS = (Option("--version", action="version", help="print the version and exit"),)

# The board's options. Each works before or after the command; a command that
# does not use one (see each command's ``board``) refuses it.
BOARD = (
    Option("--backend", choices=BACKENDS, help="real devices or the mock board"),
    Option("--config", metavar="FILE", help="the config file (default /etc/cribbage-board/config.toml)"),
    Option("--set", metavar="KEY=VALUE", action="append",
           help="override a config key, e.g. --set leds.max_brightness=0.3"),
    Option("--state", metavar="FILE",
           help="the ledger database (default: $STATE_DIRECTORY or ~/.local/state/cribbage-board)"),
    Option("--headless", action="store_true",
           help="with the mock backend: run the board loop without the terminal view"),
)
# Where each board option works, as the top-level --help and a refusal say it.
WHERE = {
    "backend": "the board and simulate (mock only)",
    "config": "the board, console, simulate, controls-card, wiring, web and club-network",
    "set": "the board, console, simulate, controls-card, wiring and club-network",
    "state": "the board, console, simulate, web and hub (the hub's own ledger)",
    "headless": "the board with --backend mock, and simulate",
}

COMMANDS = (
    Subcommand(
        "console", "keep score by typing record lines in the terminal",
        description="Keep score by typing the game record, one line at a time, in the terminal;\n"
                    "every line is saved in the ledger before the console answers.\n\n" + CONSOLE_HELP,
        board=("config", "set", "state"),
    ),
    Subcommand(
        "simulate", "run a script of button presses and turns on the mock board",
        positional=Positional("script", 1, "the script (- for standard input)"),
        options=(Option("--json", action="store_true", help="print the final state as JSON"),
                 Option("--snapshots", metavar="DIR", help="save PNGs of the LED board and OLED after each step")),
        board=("backend", "config", "set", "state", "headless"),
    ),
    Subcommand(
        "replay", "replay a game record and print the resulting state",
        positional=Positional("file", 1, "the game record (- for standard input)"),
        options=(Option("--json", action="store_true", help="print the state as JSON"),
                 Option("--export", action="store_true", help="print the record as the ledger exports it")),
    ),
    Subcommand(
        "salvage", "read back the entries of a -wal set aside from a ledger, into a ledger file of their own",
        description="A -wal the board or the hub set aside (LEDGER.corrupt-TIME-wal: it had no database beside it, "
                    "or not its own) holds entries that were acknowledged. salvage folds it into a copy of the "
                    "ledger it belongs to (--base; by default the file set aside with it, or none when the -wal "
                    "holds every page), checks the result, and writes it whole to a new file (default: the "
                    "-wal's name without -wal, plus .salvaged). The -wal and the base are only read. Read the "
                    "result with: console --state FILE, or web --state FILE.",
        positional=Positional("wal", 1, "the -wal set aside, e.g. ledger.sqlite3.corrupt-20261202T190001-wal"),
        options=(Option("--base", metavar="FILE", help="the ledger the -wal was written for (e.g. the file it was "
                                                       "moved to)"),
                 Option("-o", "--output", metavar="FILE", help="the ledger file to write (never over an existing one)")),
    ),
    Subcommand(
        "count", "count a hand or crib from its cards",
        positional=Positional("cards", "*", "3, 4 or 5 cards, e.g. 5H 5D 5S JC"),
        options=(
            Option("--starter", help="the starter (cut) card"),
            Option("--crib", action="store_true", help="count as a crib (only a 5-card flush)"),
            Option("--distribution", action="store_true",
                   help="count every hand + starter from a 52-card pack and print how many score each total"),
            Option("--hand-size", type=int, default=4, choices=(3, 4, 5)),
            Option("--json", action="store_true"),
        ),
    ),
    Subcommand(
        "coach", "rank the 15 ways to throw two of six cards to the crib",
        description="The 15 discards of the six cards dealt, best first, by the points they keep: the hand's "
                    "average over the 46 starters, plus the crib's average (--dealer) or minus it (--pone). "
                    "Exact over every starter and every pair of the 45 cards left the opponent may throw, "
                    "each pair taken as likely as any other. Pegging is not counted; the six-card two-player "
                    "game only.",
        positional=Positional("cards", "*", "the six cards dealt, e.g. 5H 5D JC 6S 7S KD"),
        options=(Option("--dealer", action="store_true", help="the crib is yours: its points are added"),
                 Option("--pone", action="store_true", help="the crib is the opponent's: its points are taken off"),
                 Option("--json", action="store_true")),
    ),
    Subcommand(
        "pegging", "points for the last card played in the play",
        positional=Positional("cards", "+", "the cards played since the count was reset, in order"),
        options=(Option("--go", action="store_true", help="the last card is the last before a go"),
                 Option("--json", action="store_true")),
    ),
    Subcommand(
        "board-template",
        "draw a board layout at 1:1 as a drilling template: PDF pages to print and tape, or one SVG sheet",
        options=(
            Option("--layout", default=BUNDLED_LAYOUTS[2],
                   help=f"a layout file or a bundled name ({', '.join(BUNDLED_LAYOUTS.values())})"),
            Option("--target", type=int, default=121, help="the game the skunk lines are drawn for"),
            Option("--game-counters", type=int, default=0, metavar="N",
                   help="a row of N game counters a side to drill too (the config's leds.game_counters; default 0)"),
            Option("--paper", choices=("a4", "letter", "a3"),
                   help="for a PDF: the paper the board is tiled over at 1:1 (default a4)"),
            Option("-o", "--output", required=True,
                   help="board.pdf (pages to print at 100% and tape together) or board.svg (one sheet)"),
        ),
    ),
    Subcommand("controls-card", "draw a one-page A6 card of the controls as a PDF",
            options=(Option("-o", "--output", required=True, help="the PDF file to write (card.pdf)"),), board=("config", "set")),
    Subcommand("wiring", "draw the wiring diagram for the config's pins as an SVG",
            options=(Option("-o", "--output", required=True, help="the SVG file to write (wiring.svg)"),), board=("config", "set")),
    Subcommand(
        "web", "serve the live board, the game history and statistics to browsers (read-only)",
        description="Serve the board's ledger read-only over HTTP: the live board at /, /games, /stats, "
                    "the JSON API (/api/state, /api/games, /api/games/ID) and server-sent events at /events.",
        options=(
            Option("--host", default="0.0.0.0", help="the address to listen on (default 0.0.0.0: every network)"),
            Option("--port", type=int, help=f"the port (default: the config's web.port, {WEB_PORT})"),
        ),
        board=("config", "state"),
    ),
    Subcommand(
        "club-network", "let the installed board's service reach its club's broker, and nothing else",
        description="Write /etc/systemd/system/cribbage-board.service.d/club.conf from the config's [club] broker: "
                    "the board's unit may then reach that broker's address and no other (IPAddressDeny=any, "
                    "IPAddressAllow=); with the club off, remove it, and the unit has no network, as shipped. "
                    "systemd/install.sh runs it; run it again after changing [club] broker.",
        options=(Option("--drop-in", metavar="FILE",
                        help="the drop-in to write (default /etc/systemd/system/cribbage-board.service.d/club.conf)"),),
        board=("config", "set"),
    ),
    Subcommand(
        "hub", "run a club night's hub: standings, pairings and the /club page from the tables over MQTT",
        description="Keep a club night from the tables' MQTT messages in the hub's own ledger (--state, default "
                    "hub.sqlite3 in the state folder): standings, pairings for each round, /club for the room's TV, "
                    "/api/club/standings, /api/club/rounds and /club/night.csv. Commands on standard input: help.",
        options=(
            Option("--broker", metavar="URL", required=True, help="the club's broker: mqtt://host:1883 or mqtts://host:8883"),
            Option("--club", metavar="NAME", required=True, help="the club's name in the topics"),
            Option("--host", default="127.0.0.1", help="the page's address (default 127.0.0.1; 0.0.0.0: every network)"),
            Option("--port", type=int, default=HUB_PORT, help=f"the page's port (default {HUB_PORT})"),
            Option("--username", help="the broker's user name"),
            Option("--password-file", metavar="FILE", help="the broker's password, on the file's first line"),
            Option("--ca-file", metavar="FILE", help="CA certificates (PEM) for an mqtts:// broker"),
            Option("--night", metavar="NAME", help="the night's name (default today's date)"),
            Option("--players", metavar="A,B,...", help="register these players; round 1 is made at once"),
            Option("--tables", metavar="1,2,...", help="the tables to pair at (default: those online)"),
            Option("--rounds", type=int, default=9, help="rounds in the night (default 9)"),
            Option("--points", default="acc", help="game points: acc (win 2, skunk 3), casual, or e.g. 2/3/4"),
            Option("--skunk", default="acc", choices=("acc", "lurch", "triple", "none"), help="skunk lines (default acc)"),
        ),
        board=("state",),
    ),
)

# The board's option names, and which of them the board (no command) and each command use.
COMMON = tuple(option.dest for option in BOARD)
USES = {None: COMMON, **{command.name: command.board for command in COMMANDS}}
_BOARD_FLAGS = [option.flags[0] for option in BOARD]
EPILOG = f"{', '.join(_BOARD_FLAGS[:-1])} and {_BOARD_FLAGS[-1]} may also follow the command."
