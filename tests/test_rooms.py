"""The house's room order, read from every project module's imports with ``ast`` (docs/architecture.md).

Every import counts: at the top, inside a function, under ``TYPE_CHECKING``. No
import cycle between project modules; no import against the room order:

- ``scorer`` imports no other room; its ``scorer.errors`` holds the root of every
  exception of ours and imports nothing, so every room may import it;
- ``ledger`` and ``hardware`` import ``scorer``;
- ``firmware`` may import any room. Inside it, its base (the package's own modules:
  the config, the club's settings, errors, the journal, the palette) imports no
  part; ``wire`` (what the programs say to each other) and ``server`` (what the two
  servers serve with) import the base alone. The programs: the board imports of
  ``wire`` and ``server`` and of its club link only what it speaks and shows
  (``relay``, ``acts``, ``lan``, ``link``); its club link the wire protocol; the PC board the
  board, the link and the acts; the web view ``server`` and of ``wire`` the relay and the acts, and of
  ``hardware`` only ``hardware.layout`` (the board's geometry: it never touches a
  device); the club hub ``server`` and of ``wire`` the club's protocol (schema and
  broker), and nothing of ``hardware``; the command line imports every part, and
  it alone imports the hub.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("scorer", "ledger", "hardware", "firmware")
ROOT_ERROR = "scorer.errors"  # below every module of ours: each room's exceptions derive from its root
# What each room may import besides itself.
ROOM_MAY_IMPORT = {
    "scorer": set(),
    "ledger": {"scorer"},
    "hardware": {"scorer"},
    "firmware": {"scorer", "ledger", "hardware"},
}
# The parts of firmware, the most specific first: a module is in the first whose name it starts with.
PARTS = ("firmware.wire", "firmware.server", "firmware.board.club", "firmware.board.pc", "firmware.board",
         "firmware.web", "firmware.hub", "firmware.cli")
# What each part of firmware may import of firmware: its own modules, and these.
PART_MAY_IMPORT = {
    "firmware": set(),  # the base: the config, the club's settings, errors, the journal, the palette
    "firmware.wire": {"firmware"},
    "firmware.server": {"firmware"},
    "firmware.board.club": {"firmware", "firmware.wire"},
    "firmware.board": {"firmware", "firmware.wire", "firmware.server", "firmware.board.club"},
    "firmware.board.pc": {"firmware", "firmware.board", "firmware.board.club", "firmware.wire"},
    "firmware.web": {"firmware", "firmware.server", "firmware.wire"},
    "firmware.hub": {"firmware", "firmware.server", "firmware.wire"},
    "firmware.cli": {"firmware", *PARTS},
}
# Where a part may import only some modules of another: importer -> {part: the modules it may import}.
ONLY = {
    "firmware.board": {"firmware.board.club": {"firmware.board.club.link"}, "firmware.server": {"firmware.server.lan"},
                       "firmware.wire": {"firmware.wire.relay", "firmware.wire.acts"}},
    "firmware.board.pc": {"firmware.board.club": {"firmware.board.club.link"}, "firmware.wire": {"firmware.wire.acts"}},
    "firmware.web": {"firmware.wire": {"firmware.wire.relay", "firmware.wire.acts"}},
    "firmware.hub": {"firmware.wire": {"firmware.wire.schema", "firmware.wire.broker"}},
}
WEB_HARDWARE = {"hardware.layout"}  # the board's geometry
NO_HARDWARE = ("firmware.wire", "firmware.server", "firmware.board.club", "firmware.hub")  # they never touch a device


def project_modules() -> dict[str, Path]:
    """Every module of the rooms: dotted name -> file."""
    found = {}
    for room in ROOMS:
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
    """A firmware module's part, or "firmware" for the base."""
    return next((part for part in PARTS if module == part or module.startswith(part + ".")), "firmware")


def broken_rules(graph: dict[str, set[str]]) -> list[str]:
    """Every import that runs against the room order, as "importer -> imported: why"."""
    found = []
    for module, imported in sorted(graph.items()):
        room = room_of(module)
        for target in sorted(imported):
            other = room_of(target)
            if module == ROOT_ERROR:
                found.append(f"{module} -> {target}: {ROOT_ERROR} imports nothing of ours")
            if other != room and other not in ROOM_MAY_IMPORT[room]:
                found.append(f"{module} -> {target}: {room} may import {sorted(ROOM_MAY_IMPORT[room]) or 'no other room'}")
            if room != "firmware":
                continue
            part, its = part_of(module), part_of(target)
            if other == "firmware" and its != part and its not in PART_MAY_IMPORT[part]:
                found.append(f"{module} -> {target}: {part} may not import {its}")
            elif other == "firmware" and its in ONLY.get(part, {}) and target not in ONLY[part][its]:
                found.append(f"{module} -> {target}: {part} imports only {sorted(ONLY[part][its])} of {its}")
            if part == "firmware.web" and other == "hardware" and target not in WEB_HARDWARE:
                found.append(f"{module} -> {target}: the web view imports only {sorted(WEB_HARDWARE)} of hardware")
            if part in NO_HARDWARE and other == "hardware":
                found.append(f"{module} -> {target}: {part} imports nothing of hardware")
    return found


@pytest.mark.slow
def test_no_import_cycle_between_project_modules():
    """No module imports itself through others, however the import is written."""
    graph = import_graph()
    assert len(graph) > 70 and graph["firmware.board.loop"] and graph["firmware.cli.command"]  # it read them
    assert all(ROOT_ERROR in graph[f"{room}.errors"] for room in ("ledger", "hardware", "firmware"))
    assert cycles(graph) == []


@pytest.mark.slow
def test_every_import_keeps_the_room_order():
    """scorer at the bottom, ledger and hardware above it, firmware on top, its parts apart."""
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
    ("scorer.game", "import ledger.writer", "scorer.game -> ledger.writer: scorer may import no other room"),
    ("scorer.errors", "from scorer.cards import Card", "scorer.errors -> scorer.cards: scorer.errors imports nothing"),
    ("hardware.leds", "from firmware.config import Config", "hardware.leds -> firmware.config: hardware may import"),
    ("ledger.reader", "import hardware.layout", "ledger.reader -> hardware.layout: ledger may import ['scorer']"),
    ("ledger.salvage", "from firmware.hub.ledger import HubLedger",
     "ledger.salvage -> firmware.hub.ledger: ledger may import ['scorer']"),
    ("firmware.board.loop", "from .pc.simulator import Simulator",
     "firmware.board.loop -> firmware.board.pc.simulator: firmware.board may not import firmware.board.pc"),
    ("firmware.config", "def f():\n    from .board.frames import LedStyle",
     "firmware.config -> firmware.board.frames: firmware may not import firmware.board"),
    ("firmware.wire.schema", "from ..board.club import link",
     "firmware.wire.schema -> firmware.board.club.link: firmware.wire may not import firmware.board.club"),
    ("firmware.server.guard", "from ..web import app", "firmware.server.guard -> firmware.web.app: firmware.server may not"),
    ("firmware.web.pages", "from hardware.leds import MockStrip",
     "firmware.web.pages -> hardware.leds: the web view imports only"),
    ("firmware.web.site", "from ..board import controller",
     "firmware.web.site -> firmware.board.controller: firmware.web may not import firmware.board"),
    ("firmware.web.site", "from ..wire import schema",
     "firmware.web.site -> firmware.wire.schema: firmware.web imports only ['firmware.wire.acts', 'firmware.wire.relay'] of firmware.wire"),
    ("firmware.board.loop", "from .club.outbox import Outbox",
     "firmware.board.loop -> firmware.board.club.outbox: firmware.board imports only ['firmware.board.club.link']"),
    ("firmware.board.loop", "from ..server.guard import guard",
     "firmware.board.loop -> firmware.server.guard: firmware.board imports only ['firmware.server.lan']"),
    ("firmware.board.club.link", "from .. import loop",
     "firmware.board.club.link -> firmware.board.loop: firmware.board.club may not import firmware.board"),
    ("firmware.board.pc.console", "def f():\n    from ...hub.hub import Hub",
     "firmware.board.pc.console -> firmware.hub.hub: firmware.board.pc may not import firmware.hub"),
    ("firmware.board.loop", "from ..hub import night", "firmware.board.loop -> firmware.hub.night: firmware.board may not"),
    ("firmware.board.club.link", "from ...hub.pages import page",
     "firmware.board.club.link -> firmware.hub.pages: firmware.board.club may not import firmware.hub"),
    ("firmware.hub.hub", "from ..board.club.link import Link",
     "firmware.hub.hub -> firmware.board.club.link: firmware.hub may not import firmware.board.club"),
    ("firmware.hub.hub", "from ..wire import relay",
     "firmware.hub.hub -> firmware.wire.relay: firmware.hub imports only ['firmware.wire.broker', 'firmware.wire.schema']"),
    ("firmware.hub.site", "import hardware.leds", "firmware.hub.site -> hardware.leds: firmware.hub imports nothing"),
    ("firmware.board.club.outbox", "import hardware.leds",
     "firmware.board.club.outbox -> hardware.leds: firmware.board.club imports nothing"),
])
def test_an_upward_import_is_found(module, line, why):
    """An import against the room order, even inside a function, is named with the rule it breaks."""
    assert any(rule.startswith(why) for rule in broken_rules(import_graph({module: line})))
