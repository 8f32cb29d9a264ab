"""The house's room order, read from every project module's imports with ``ast`` (docs/architecture.md).

Every import counts: at the top, inside a function, under ``TYPE_CHECKING``. No
import cycle between project modules; no import against the room order:

- ``cribbage_board_errors`` (the root of every exception of ours) imports nothing, and every room may
  import it: each room's exceptions derive from it;
- ``scorer`` and ``tomlfile`` import no other room (but the root);
- ``ledger`` imports ``scorer``; ``hardware`` imports ``scorer`` and ``tomlfile``;
- ``firmware`` may import any room. Inside it, its base (the package itself,
  ``config``, ``club_settings``, ``errors``, ``journal``, ``lan``, ``listen``, ``guard``, ``connections``,
  ``templating``, ``palette``)
  imports no wing; the club wing (the wire protocol and the board's link) no other wing and nothing
  of ``hardware``; the board wing, of the club, the link alone; the PC side the board and the club
  link; the club hub (``firmware.hub``) the club's wire protocol (schema and broker), never the link,
  and nothing of ``hardware``; the web view no other wing, and of ``hardware`` only
  ``hardware.layout`` (the board's geometry: it never touches a device); the
  command line may import every wing, and it alone imports the hub.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("scorer", "ledger", "hardware", "firmware", "tomlfile", "cribbage_board_errors")
ROOT_ERROR = "cribbage_board_errors"  # below every room: each room's exceptions derive from its root
# What each room may import besides itself.
ROOM_MAY_IMPORT = {
    ROOT_ERROR: set(),
    "scorer": {ROOT_ERROR},
    "tomlfile": {ROOT_ERROR},
    "ledger": {"scorer", ROOT_ERROR},
    "hardware": {"scorer", "tomlfile", ROOT_ERROR},
    "firmware": {"scorer", "ledger", "hardware", "tomlfile", ROOT_ERROR},
}
WINGS = ("firmware.board", "firmware.pc", "firmware.web", "firmware.club", "firmware.hub", "firmware.cli")
# What each part of firmware may import of firmware: its own modules, and these.
WING_MAY_IMPORT = {
    "firmware": set(),  # the base: config, errors, palette
    "firmware.board": {"firmware", "firmware.club"},
    "firmware.pc": {"firmware", "firmware.board", "firmware.club"},
    "firmware.web": {"firmware"},
    "firmware.club": {"firmware"},
    "firmware.hub": {"firmware", "firmware.club"},
    "firmware.cli": {"firmware", *WINGS},
}
WEB_HARDWARE = {"hardware.layout"}  # the board's geometry
CLUB_HARDWARE: set[str] = set()  # the club link and hub never touch a device
# What each wing may import of the club wing, where not all of it.
CLUB_FOR = {
    "firmware.board": {"firmware.club.link"},  # the board publishes through its link, and knows no more
    "firmware.pc": {"firmware.club.link"},
    "firmware.hub": {"firmware.club.schema", "firmware.club.broker"},  # the wire protocol, never a board's link
}


def project_modules() -> dict[str, Path]:
    """Every module of the rooms: dotted name -> file."""
    found = {name: ROOT / f"{name}.py" for name in ("tomlfile", ROOT_ERROR)}
    for room in ROOMS[:4]:
        for path in sorted((ROOT / room).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_of(name: str, path: Path, source: str, modules: dict[str, Path]) -> set[str]:
    """The project modules ``source`` (module ``name`` at ``path``) imports, wherever the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            # from X import y: the module X.y when it is one, else X itself
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # import a.b.c of a module a.b: a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


@functools.cache
def tree_imports() -> dict[str, frozenset[str]]:
    """Each project module's imports as the tree has them, read once a session (the files do not change)."""
    modules = project_modules()
    return {name: frozenset(imports_of(name, path, path.read_text(encoding="utf-8"), modules))
            for name, path in modules.items()}


def import_graph(planted: dict[str, str] | None = None) -> dict[str, set[str]]:
    """Each project module's imports; ``planted`` adds source lines to a module (tests of this test):
    that module alone is read again, with the lines added at its end."""
    modules = project_modules()
    graph = {name: set(found) for name, found in tree_imports().items()}
    for name, line in (planted or {}).items():
        path = modules[name]
        graph[name] = imports_of(name, path, path.read_text(encoding="utf-8") + "\n" + line, modules)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def room_of(module: str) -> str:
    return module.split(".")[0]


def part_of(module: str) -> str:
    """A firmware module's wing, or "firmware" for the base."""
    return next((wing for wing in WINGS if module == wing or module.startswith(wing + ".")), "firmware")


def broken_rules(graph: dict[str, set[str]]) -> list[str]:
    """Every import that runs against the room order, as "importer -> imported: why"."""
    found = []
    for module, imported in sorted(graph.items()):
        room = room_of(module)
        for target in sorted(imported):
            other = room_of(target)
            if other != room and other not in ROOM_MAY_IMPORT[room]:
                found.append(f"{module} -> {target}: {room} may import {sorted(ROOM_MAY_IMPORT[room]) or 'no other room'}")
            if room != "firmware":
                continue
            part = part_of(module)
            if other == "firmware" and part_of(target) != part and part_of(target) not in WING_MAY_IMPORT[part]:
                found.append(f"{module} -> {target}: {part} may not import {part_of(target)}")
            if part == "firmware.web" and other == "hardware" and target not in WEB_HARDWARE:
                found.append(f"{module} -> {target}: the web view imports only {sorted(WEB_HARDWARE)} of hardware")
            if part in ("firmware.club", "firmware.hub") and other == "hardware" and target not in CLUB_HARDWARE:
                found.append(f"{module} -> {target}: {part} imports nothing of hardware")
            if part_of(target) == "firmware.club" and part in CLUB_FOR and target not in CLUB_FOR[part]:
                found.append(f"{module} -> {target}: {part} imports only {sorted(CLUB_FOR[part])} of the club")
    return found


@pytest.mark.slow
def test_no_import_cycle_between_project_modules():
    """No module imports itself through others, however the import is written."""
    graph = import_graph()
    assert len(graph) > 70 and graph["firmware.board.loop"] and graph["firmware.cli.command"]  # it read them
    assert ROOT_ERROR in graph["scorer.errors"] and ROOT_ERROR in graph["hardware.errors"]
    assert cycles(graph) == []


@pytest.mark.slow
def test_every_import_keeps_the_room_order():
    """scorer and tomlfile at the bottom, ledger and hardware above them, firmware on top, its wings apart."""
    assert broken_rules(import_graph()) == []


@pytest.mark.parametrize("module, line, loop", [
    ("scorer.cards", "from .game import Game", {"scorer.cards", "scorer.counting", "scorer.game"}),
    ("firmware.board.panels", "from .controller import Controller",
     {"firmware.board.controller", "firmware.board.menu", "firmware.board.panels"}),
    ("ledger.lock", "if TYPE_CHECKING:\n    from ledger.writer import LedgerWriter", {"ledger.lock", "ledger.writer"}),
    ("hardware.layout", "def f():\n    from . import template", {"hardware.layout", "hardware.template"}),
])
def test_a_planted_cycle_is_found(module, line, loop):
    """An import that closes a loop (a plain one, a longer one, one under TYPE_CHECKING, one inside
    a function) is caught, with every module on the loop."""
    found = [set(group) for group in cycles(import_graph({module: line})) if module in group]
    assert len(found) == 1 and loop <= found[0]


@pytest.mark.parametrize("module, line, why", [
    ("scorer.game", "import ledger.writer",
     "scorer.game -> ledger.writer: scorer may import ['cribbage_board_errors']"),
    ("cribbage_board_errors", "from scorer.errors import CribbageError",
     "cribbage_board_errors -> scorer.errors: cribbage_board_errors may import no other room"),
    ("hardware.leds", "from firmware.config import Config", "hardware.leds -> firmware.config: hardware may import"),
    ("ledger.reader", "import hardware.layout",
     "ledger.reader -> hardware.layout: ledger may import ['cribbage_board_errors', 'scorer']"),
    ("firmware.board.loop", "from ..pc.simulator import Simulator",
     "firmware.board.loop -> firmware.pc.simulator: firmware.board may not import firmware.pc"),
    ("firmware.config", "def f():\n    from .board.frames import LedStyle",
     "firmware.config -> firmware.board.frames: firmware may not import firmware.board"),
    ("firmware.web.pages", "from hardware.leds import MockStrip",
     "firmware.web.pages -> hardware.leds: the web view imports only"),
    ("firmware.web.site", "from ..board import controller",
     "firmware.web.site -> firmware.board.controller: firmware.web may not import firmware.board"),
    ("firmware.board.loop", "from ..club.schema import Topics",
     "firmware.board.loop -> firmware.club.schema: firmware.board imports only ['firmware.club.link'] of the club"),
    ("firmware.pc.console", "def f():\n    from ..hub.hub import Hub",
     "firmware.pc.console -> firmware.hub.hub: firmware.pc may not import firmware.hub"),
    ("firmware.board.loop", "from ..hub import night", "firmware.board.loop -> firmware.hub.night: firmware.board may not"),
    ("firmware.club.link", "from ..hub.pages import page",
     "firmware.club.link -> firmware.hub.pages: firmware.club may not import firmware.hub"),
    ("firmware.hub.hub", "from ..club.link import Link",
     "firmware.hub.hub -> firmware.club.link: firmware.hub imports only ['firmware.club.broker', 'firmware.club.schema']"),
    ("firmware.hub.site", "import hardware.leds", "firmware.hub.site -> hardware.leds: firmware.hub imports nothing"),
])
def test_an_upward_import_is_found(module, line, why):
    """An import against the room order, even inside a function, is named with the rule it breaks."""
    assert any(rule.startswith(why) for rule in broken_rules(import_graph({module: line})))
