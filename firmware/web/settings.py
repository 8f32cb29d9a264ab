"""What the web view takes from the board's config: the ledger path, the board layout and its port.

Read as plain TOML (three keys): the full config check would load ``hardware``.
``python -m firmware.web.settings --port [CONFIG]`` prints the port, so that
``systemd/install.sh`` says the address the web view really serves on.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..config import SYSTEM_CONFIG, _read_toml
from ..errors import ConfigError
from ..config import default_state_path


DEFAULT_PORT = 8121


def web_settings(config: str | None, state: str | None) -> tuple[Path, str | None, int]:
    """(ledger path, layout name or file, port) as the board would use them: --state, else the
    config's ``state``, else $STATE_DIRECTORY or ~/.local/state; the port is the config's
    ``web.port`` (the address the board's phone view shows), else 8121; ConfigError if the
    config does not read or its port is not one."""
    path = Path(config) if config else (SYSTEM_CONFIG if SYSTEM_CONFIG.exists() else None)
    data = _read_toml(path) if path is not None else {}
    chosen = state or (data.get("state") if isinstance(data.get("state"), str) else None)
    leds = data.get("leds") if isinstance(data.get("leds"), dict) else {}
    layout = leds.get("layout") if isinstance(leds.get("layout"), str) and leds.get("layout") else None
    web = data.get("web") if isinstance(data.get("web"), dict) else {}
    port = web.get("port", DEFAULT_PORT)
    if type(port) is not int or not 1 <= port <= 65535:
        raise ConfigError(f"{path}: web.port must be a whole number from 1 to 65535, not {port!r:.40}")
    return (Path(chosen) if chosen else default_state_path()), layout, port


def main(argv: list[str] | None = None) -> int:
    """``--port [CONFIG]``: print the port the web view takes from CONFIG (else the system config)."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "--port" or len(args) > 2:
        print("usage: python -m firmware.web.settings --port [CONFIG]", file=sys.stderr)
        return 2
    try:
        _, _, port = web_settings(args[1] if len(args) == 2 else None, None)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 2
    print(port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
