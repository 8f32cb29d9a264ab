"""Running one command line: parse it, run the command, and turn every failure into one line and exit 2.

Each command imports what it uses when it runs: ``count`` loads neither the
config, nor the ledger, nor the game, nor the other commands' modules.
"""

from __future__ import annotations

import argparse
import sys

from scorer.errors import CribbageBoardError

from .output import PROG, drop_stdout, fail
from .parser import USES, WHERE, build_parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The parsed command line, with the board's options merged from both places;
    SystemExit(2) and one line for an option the command does not use."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    args.set = args.set + getattr(args, "set_after", [])
    if hasattr(args, "set_after"):
        del args.set_after
    used = USES[args.command]
    for name in USES[None]:
        if name not in used and getattr(args, name) not in (None, [], False):
            _refuse(f"{args.command} does not use --{name}: --{name} is used by {WHERE[name]}")
    if args.command == "simulate" and args.backend == "real":
        _refuse("simulate always runs the mock board: leave out --backend real")
    return args


def _refuse(message: str) -> None:
    """A line argparse reads but the command cannot use: one line, exit 2."""
    fail(f"{PROG}: {message}")
    raise SystemExit(2)


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
    """Run the command the line names (the board when it names none); its errors become one line."""
    try:
        return _runner(args.command)(args)
    except CribbageBoardError as error:  # every one of ours: a config, rule, ledger or device error...
        return fail(f"{PROG}: {error}")
    except OSError as error:
        if error.filename is None:
            raise  # a closed pipe or full standard output: main says it
        return fail(f"{PROG}: {error.filename}: {error.strerror or error}")


def _runner(command: str | None):
    """The function that runs ``command`` (the board for None), its module imported only now."""
    if command in ("replay", "count", "coach", "pegging", "salvage"):
        from . import tools

        return {"replay": tools.replay, "count": tools.count, "coach": tools.coach, "pegging": tools.pegging,
                "salvage": tools.salvage}[command]
    if command is None:
        return _board
    if command in ("board-template", "controls-card", "wiring"):
        from . import drawings

        return {"board-template": drawings.board_template, "controls-card": drawings.controls_card,
                "wiring": drawings.wiring}[command]
    return {"console": _console, "web": _web, "hub": _hub, "club-network": _club_network,
            "first-boot": _first_boot}.get(command, _board)


def _console(args) -> int:
    """``cribbage-board console``: the ledger the board would use, unless --state says."""
    from ..board.pc.console import run_console
    from ..config import load_config

    config = load_config(args.config, args.set)
    return run_console(config.state_path(args.state), club=config.club)


def _web(args) -> int:
    """``cribbage-board web``: the ledger the board uses (or --state), served read-only."""
    from ..web.server import WebError, serve
    from ..web.settings import web_settings

    try:
        state, layout, port, palette = web_settings(args.config, args.state)
        return serve(state, args.host, port if args.port is None else args.port, layout, board_port=port,
                     palette=palette)
    except WebError as error:
        return fail(f"{PROG} web: {error}")


def _club_network(args) -> int:
    """``cribbage-board club-network``: the board's unit may reach its broker (or, club off, nothing)."""
    from pathlib import Path

    from ..config import SYSTEM_CONFIG, load_config
    from .club_network import DROP_IN, NetworkError, club_network

    config = load_config(args.config, args.set)
    source = args.config or (str(SYSTEM_CONFIG) if SYSTEM_CONFIG.exists() else "the default config")
    try:
        print(club_network(config.club, source, Path(args.drop_in) if args.drop_in else DROP_IN))
    except NetworkError as error:
        return fail(f"{PROG} club-network: {error}")
    return 0


def _first_boot(args) -> int:
    """``cribbage-board first-boot``: the card's cribbage-board.toml applied once."""
    from pathlib import Path

    from .first_boot import first_boot

    return first_boot(Path(args.boot))


def _hub(args) -> int:
    """``cribbage-board hub``: a club night's hub (firmware.hub), until stopped."""
    from ..hub.service import HubError, serve_hub
    from ..wire.broker import BrokerError

    try:
        return serve_hub(args)
    except (HubError, BrokerError) as error:
        return fail(f"{PROG} hub: {error}")


def _board(args) -> int:
    """The board itself: real devices on a Pi, the terminal mock board elsewhere."""
    from hardware.backend import choose_backend

    from ..board.devices import open_devices
    from ..board.loop import Board
    from ..board.sdnotify import Notifier
    from ..config import load_config

    config = load_config(args.config, args.set)
    if args.command == "simulate":
        from .tools import simulate

        return simulate(args, config)
    backend = choose_backend(args.backend, config.backend)
    print(f"{PROG}: {backend.message}", file=sys.stderr)
    path = config.state_path(args.state)
    if not backend.physical and not args.headless:  # the mock board is seen in the terminal
        from ..board.pc.terminal import run_terminal

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
