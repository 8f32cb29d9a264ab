"""What the web view takes from the board's config: the ledger's path, the board's layout, its port and
the LEDs' palette.

The config is read and checked as the board reads it (:func:`firmware.config.load_config`):
a config the board would refuse, the web view refuses too, with the same line.
``python -m firmware.web.settings --port [CONFIG]`` prints the port, so that
``systemd/install.sh`` says the address the web view really serves on.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..config import load_config
from ..errors import ConfigError

if TYPE_CHECKING:
    from hardware.layout import Layout


class WebSettings(NamedTuple):
    state: Path
    layout: Layout
    port: int
    palette: str  # the LEDs' palette (config ``leds.palette``), the one the pages open in


def web_settings(config: str | None, state: str | None) -> WebSettings:
    """(ledger path, board layout, port, palette) as the board would use them: the ledger is --state,
    else the config's ``state``, else $STATE_DIRECTORY or ~/.local/state; the port is the
    config's ``web.port`` (the address the board's phone view shows). ConfigError (one
    line, naming the file and the key) if the config cannot be used."""
    checked = load_config(config)
    return WebSettings(checked.state_path(state), checked.layout, checked.web.port, checked.leds.palette)


def main(argv: list[str] | None = None) -> int:
    """``--port [CONFIG]``: print the port the web view takes from CONFIG (else the system config)."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "--port" or len(args) > 2:
        print("usage: python -m firmware.web.settings --port [CONFIG]", file=sys.stderr)
        return 2
    try:
        port = web_settings(args[1] if len(args) == 2 else None, None).port
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 2
    print(port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
