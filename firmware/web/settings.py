"""What the web view takes from the board's config: the ledger path and the board layout.

Read as plain TOML (two keys): the full config check would load ``hardware``.
"""

from __future__ import annotations

from pathlib import Path

from ..config import SYSTEM_CONFIG, _read_toml
from ..console import default_state_path


def web_settings(config: str | None, state: str | None) -> tuple[Path, str | None]:
    """(ledger path, layout name or file) as the board would use them: --state, else the
    config's ``state``, else $STATE_DIRECTORY or ~/.local/state; ConfigError if the config does not read."""
    path = Path(config) if config else (SYSTEM_CONFIG if SYSTEM_CONFIG.exists() else None)
    data = _read_toml(path) if path is not None else {}
    chosen = state or (data.get("state") if isinstance(data.get("state"), str) else None)
    leds = data.get("leds") if isinstance(data.get("leds"), dict) else {}
    layout = leds.get("layout") if isinstance(leds.get("layout"), str) and leds.get("layout") else None
    return (Path(chosen) if chosen else default_state_path()), layout
