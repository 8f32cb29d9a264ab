"""``cribbage-board hub``: the command line checked, the hub started, its page served until stopped.

Everything that can be wrong on the command line is said in one line before
anything starts (exit 2): a bad broker address, club, table or player name,
points or night, a password file that cannot be read, a port in use, a
ledger that is locked, damaged beyond use or another program's. Stopped by
SIGINT or SIGTERM (or ``quit`` on the console): what is queued is written
and acknowledged first.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

from scorer.errors import CribbageBoardError, CribbageError
from scorer.standings import name_key
from scorer.variants import SkunkLines, parse_game_points

from .. import __version__
from ..club_settings import club_name_problem
from ..wire.broker import BrokerError, parse_broker
from .commands import DirectorError, player_name
from .hub import Hub, Journal, Settings

DEFAULT_HOST = "127.0.0.1"
MAX_PASSWORD_BYTES = 1024


class HubError(CribbageBoardError, ValueError):
    """The hub cannot start as asked; the message says what to change."""


def _names(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def read_password(path: str | None) -> str | None:
    """The first line of ``--password-file`` (never a password on the command line)."""
    if path is None:
        return None
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_PASSWORD_BYTES + 1)
    except OSError as error:
        raise HubError(f"--password-file {path}: {error.strerror or error}") from None
    if len(data) > MAX_PASSWORD_BYTES:
        raise HubError(f"--password-file {path}: more than {MAX_PASSWORD_BYTES} bytes: give a file with the "
                       "password on its first line")
    try:
        password = data.decode("utf-8").splitlines()[0] if data.strip() else ""
    except UnicodeDecodeError:
        raise HubError(f"--password-file {path}: not UTF-8 text") from None
    if not password:
        raise HubError(f"--password-file {path} is empty: put the password on its first line")
    return password


def settings_from(args) -> Settings:
    """The hub's settings from the parsed command line; HubError (one line) for anything wrong."""
    if not args.club:
        raise HubError("--club NAME is needed (the club's name in the topics, e.g. thursday)")
    if problem := club_name_problem("club", args.club):
        raise HubError(f"--club: {problem}")
    if not args.broker:
        raise HubError("--broker URL is needed, e.g. --broker mqtt://127.0.0.1:1883")
    try:
        broker = parse_broker(args.broker, args.username, read_password(args.password_file), args.ca_file)
    except BrokerError as error:
        raise HubError(f"--broker: {error}") from None
    tables = _names(args.tables)
    for table in tables:
        if problem := club_name_problem("table", table):
            raise HubError(f"--tables: {problem}")
    if len({name_key(t) for t in tables}) != len(tables):
        raise HubError("--tables: a table is listed twice")
    try:
        players = [player_name(name) for name in _names(args.players)]
    except DirectorError as error:
        raise HubError(f"--players: {error}") from None
    if len({name_key(p) for p in players}) != len(players):
        raise HubError("--players: a player is listed twice")
    night = args.night if args.night is not None else time.strftime("%Y-%m-%d")
    if not night or len(night) > 40 or not night.isprintable() or night != night.strip():
        raise HubError("--night: 1 to 40 printable characters, e.g. 2026-12-03")
    try:
        points = parse_game_points(args.points).spec()
    except CribbageError as error:
        raise HubError(f"--points: {error}") from None
    if not 1 <= args.rounds <= 99:
        raise HubError(f"--rounds {args.rounds}: give 1 to 99")
    return Settings(args.club, broker, night, points, SkunkLines(args.skunk).value, args.rounds, tuple(players),
                    tuple(tables), __version__)


def state_path(given: str | None) -> Path:
    """--state, else hub.sqlite3 in systemd's StateDirectory or ~/.local/state/cribbage-board."""
    if given:
        return Path(given)
    from ..config import default_state_path

    return default_state_path().with_name("hub.sqlite3")


def _quiet_signals() -> None:
    """uvicorn stops on SIGINT and SIGTERM, then raises the signal again with the handler it found:
    with these, that is a no-op and the hub stops in order (what is queued written and acknowledged,
    its presence set offline), exit 0, rather than dying before it."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: None)


def serve_hub(args, announce=print) -> int:
    """Run the hub until stopped; the exit status (HubError, LedgerError, BrokerError raise: one line, exit 2)."""
    from firmware.hub.ledger import HubLedger

    from .site import HubServerError, bind, create_app, server

    settings = settings_from(args)
    try:
        sock = bind(args.host, args.port)
    except HubServerError as error:
        raise HubError(str(error)) from None
    path = state_path(args.state)
    try:
        ledger = HubLedger(path, holder="cribbage-board hub")
    except BaseException:
        sock.close()
        raise
    journal = Journal()
    for message in ledger.messages:
        journal.say(message)
    try:
        try:
            hub = Hub(settings, ledger, journal)
        except DirectorError as error:
            raise HubError(str(error)) from None
        web = server(create_app(hub, host_names=(args.host,)))

        def stop() -> None:
            web.should_exit = True

        hub.on_fatal = stop
        hub.start()
        hub.connect()
        shown = f"[{args.host}]" if ":" in args.host else args.host
        announce(f"cribbage-board hub: club {settings.club}, night {settings.night}, ledger {path}, "
                 f"broker {settings.broker}; standings on http://{shown}:{args.port}/club")
        sys.stdout.flush()
        from .director import run_console, wanted

        if wanted(sys.stdin):
            threading.Thread(target=run_console, args=(hub, stop), name="hub-console", daemon=True).start()
        _quiet_signals()
        try:
            web.run(sockets=[sock])
        finally:
            hub.stop()
        if hub.fatal:
            raise HubError(hub.fatal)
        return 0
    finally:
        ledger.close()
        sock.close()
