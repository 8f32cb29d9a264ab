"""The doctests of every module of ``scorer`` and ``ledger`` run in the suite, and their public API has examples.

The public API is what the other rooms use: every class and function that ``firmware``, ``hardware``
(and, for ``scorer``, ``ledger``) import from a module of ``scorer`` or ``ledger``, read with ``ast``;
for a module imported whole (``from ledger import feed``), the names used from it. Each has a
docstring in the house's plain style: a summary line, then its fields or arguments and what it
returns in prose (``name`` in double backquotes), then what it raises ("Raises ``LedgerError``
when ..."), then an example that runs here.
"""

from __future__ import annotations

import ast
import doctest
import functools
import importlib
import inspect
import io
import pkgutil
import tempfile
import types
from pathlib import Path

import pytest

import ledger
import scorer

ROOT = Path(__file__).resolve().parent.parent
USERS = {"scorer": ("firmware", "hardware", "ledger"), "ledger": ("firmware", "hardware")}


def modules() -> list[str]:
    """Every module of scorer and ledger, the packages themselves included."""
    names = ["scorer", "ledger"]
    for package in (scorer, ledger):
        names += [info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return sorted(names)


@functools.lru_cache(maxsize=1)
def public_api() -> dict[str, object]:
    """"module.name" -> the class or function, for each name of scorer and ledger another room uses."""
    found: dict[str, object] = {}
    for room, users in USERS.items():
        for user in users:
            for path in sorted((ROOT / user).rglob("*.py")):
                tree = ast.parse(path.read_text(encoding="utf-8"))
                used = {node.value.id + "." + node.attr for node in ast.walk(tree)
                        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}
                for node in ast.walk(tree):
                    if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                            and node.module.split(".")[0] == room):
                        continue
                    module = importlib.import_module(node.module)
                    for alias in node.names:
                        value = getattr(module, alias.name, None)
                        if value is None or inspect.ismodule(value):  # a module imported whole: the names used from it
                            whole = importlib.import_module(f"{node.module}.{alias.name}")
                            local = alias.asname or alias.name
                            for name in sorted(attr.split(".", 1)[1] for attr in used if attr.startswith(local + ".")):
                                found[f"{whole.__name__}.{name}"] = getattr(whole, name)
                        else:
                            found[f"{module.__name__}.{alias.name}"] = value
    return {name: value for name, value in found.items() if inspect.isclass(value) or inspect.isroutine(value)}


def run_doctests(module: types.ModuleType) -> tuple[doctest.TestResults, str]:
    """Run every doctest of ``module``: the results and the report of what failed."""
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(module, module.__name__):
        runner.run(test, out=out.write)
    return runner.summarize(verbose=False), out.getvalue()


@pytest.mark.parametrize("name", modules())
def test_doctests_pass(name, tmp_path, monkeypatch):
    """Every doctest of the module passes, and leaves nothing behind in the temporary folder it is given."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result, report = run_doctests(importlib.import_module(name))
    assert result.failed == 0, report
    assert list(tmp_path.iterdir()) == []


def test_a_wrong_example_fails():
    """A planted example whose output is wrong is counted as a failure, and the report shows it."""
    planted = types.ModuleType("planted")
    exec('def f():\n    """One.\n\n    >>> 1 + 1\n    3\n    """\n', planted.__dict__)
    result, report = run_doctests(planted)
    assert (result.failed, result.attempted) == (1, 1)
    assert "Expected:\n    3\nGot:\n    2" in report


def test_the_api_is_found():
    """The finder sees names imported by name and names used from a module imported whole."""
    api = public_api()
    assert {"scorer.game.Game", "scorer.counting.score_hand", "ledger.writer.LedgerWriter",
            "ledger.reader.LedgerReader", "ledger.feed.items_after"} <= set(api)
    assert not any(name.rsplit(".", 1)[1].isupper() for name in api)  # constants are not asked for examples


@pytest.mark.parametrize("name", sorted(public_api()))
def test_public_api_is_documented(name):
    """A name of the public API has a docstring: a summary line, then more, with an example that runs."""
    doc = inspect.getdoc(public_api()[name]) or ""
    lines = doc.splitlines()
    assert lines and lines[0].strip(), f"{name} has no docstring"
    assert ">>>" in doc, f"{name}'s docstring has no example"
