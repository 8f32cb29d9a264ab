"""The files the config's declaration (:mod:`firmware.config`) writes: the commented default
``firmware/default-config.toml`` and the reference ``docs/configuration.md``.

``python -m firmware.config_files`` writes both; with ``--check`` it only says which are not
what the declaration gives (exit 1), as the tests do.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from .config import Key, declared_keys, sections

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = ROOT / "firmware" / "default-config.toml"
REFERENCE = ROOT / "docs" / "configuration.md"

PREAMBLE = """\
cribbage-board configuration.

Copy this file to /etc/cribbage-board/config.toml and change what you need; every key is \
optional and this file shows the defaults. A key the board does not know, or a value it \
cannot use, stops it with a one-line message naming the file and the key. Any key can \
also be given on the command line:
  cribbage-board --set leds.max_brightness=0.3 --set game.variant=five-card

The packaged copy is written from firmware/config.py (python -m firmware.config_files); \
the copy in /etc is yours to edit."""


def toml_value(value, hexadecimal: bool = False) -> str:
    """A default as TOML writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and hexadecimal:
        return f"0x{value:02X}"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    return "[" + ", ".join(toml_value(item) for item in value) + "]"


def _comment(text: str) -> list[str]:
    lines = []
    for paragraph in text.split("\n\n"):
        for line in paragraph.splitlines():
            lines += textwrap.wrap(line, 86, break_on_hyphens=False) if line.strip() else [""]
        lines.append("")
    return ["#" + (" " + line if line else "") for line in lines[:-1]]


def default_config() -> str:
    """The commented default file: each key's default, after what it does and what it takes."""
    out = _comment(PREAMBLE)
    for name, cls in sections().items():
        out.append("")
        if name:
            out += [f"[{name}]", *_comment(cls.about), ""]
        for key_name, declared in declared_keys(cls).items():
            out += _comment(f"{declared.doc} Takes {declared.check.allowed}.")
            out.append(f"{key_name} = {toml_value(declared.default, declared.hexadecimal)}")
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _row(key_name: str, declared: Key) -> str:
    default = toml_value(declared.default, declared.hexadecimal)
    return f"| `{key_name}` | `{_cell(default)}` | {_cell(declared.check.allowed)} | {_cell(declared.doc)} |"


def reference() -> str:
    """docs/configuration.md: a table a section, a row a key."""
    out = [
        "# Configuration",
        "",
        "The board reads `/etc/cribbage-board/config.toml` (or the file given with `--config`) over its "
        "defaults, then each `--set section.key=value`. Every key is optional. A key the board does not "
        "know, or a value it cannot use, stops it with one line that names the file and the key, e.g. "
        "`config.toml: [leds] max_brightness = 3: must be a number from 0.01 to 1`. "
        "[`firmware/default-config.toml`](../firmware/default-config.toml) is the commented default.",
        "",
        "This page and that file are written from the keys' declaration in `firmware/config.py` by "
        "`python -m firmware.config_files`, and a test fails when either differs from it: change a key "
        "there, never here.",
    ]
    for name, cls in sections().items():
        out += ["", f"## {'[' + name + ']' if name else 'Top level'}", "", cls.about, "",
                "| key | default | takes | what it does |", "|---|---|---|---|"]
        out += [_row(key_name, declared) for key_name, declared in declared_keys(cls).items()]
    return "\n".join(out) + "\n"


def written() -> dict[Path, str]:
    """Each file and what the declaration gives it."""
    return {DEFAULT_FILE: default_config(), REFERENCE: reference()}


def main(argv: list[str]) -> int:
    files = written()
    stale = [path for path, text in files.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is not what firmware/config.py declares: "
                  "run python -m firmware.config_files", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(files[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
