"""docs/rules.md against the code: variants, options, totals and every refusal the code defines."""

from __future__ import annotations

import ast
import builtins
import importlib
import re
import subprocess
from pathlib import Path

import pytest

from scorer.counting import CRIB_SIZE, impossible_totals, possible_totals
from scorer.errors import CribbageError
from scorer.record import replay
from scorer.variants import GAME_POINT_PRESETS, VARIANTS, Options, SkunkLines

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
# Where the refusals live: every scorer module (the ledger's errors are about files
# and disks, not the rules: README's ledger section), the controller's own alerts
# (with its menus and pickers), and the game settings a new game is made from.
SOURCES = sorted((ROOT / "scorer").glob("*.py"))
SOURCES += [ROOT / "firmware" / "board" / name
            for name in ("controller.py", "scoring.py", "menu.py", "picker.py", "phone.py")]
SOURCES += [ROOT / "firmware" / "config.py"]


def _pieces(node: ast.expr) -> list[str | None] | None:
    """A message as literal text and None for each placeholder; None if it is not literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value if isinstance(v, ast.Constant) else None for v in node.values]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _pieces(node.left), _pieces(node.right)
        return None if left is None or right is None else left + right
    return None


def _passes_on(node: ast.expr) -> bool:
    """``str(error)`` or ``refusal.message``: a message made elsewhere, passed on unchanged."""
    if isinstance(node, ast.Attribute) and node.attr == "message":
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"


def _exception_class(func: ast.expr, namespace: dict):
    """The class a raise calls, or None when the name is a local (e.g. a parameter)."""
    try:
        return eval(compile(ast.Expression(func), "<raise>", "eval"), dict(vars(builtins)), namespace)
    except NameError:
        return None


def find_refusals(source: str, namespace: dict, where: str) -> list[tuple[str, list[str | None]]]:
    """Every refusal message in ``source``: ``raise X(...)`` for a CribbageError X
    (or a class passed in, which may be one), ``self.say(..., alert=True)`` and ``Refusal(...)``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        message = None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            cls = _exception_class(node.exc.func, namespace)
            if cls is None or (isinstance(cls, type) and issubclass(cls, CribbageError)):
                message = node.exc.args[0]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "say" and node.args
              and any(k.arg == "alert" for k in node.keywords)):
            message = node.args[0]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Refusal"
              and node.args):
            message = node.args[0]
        if message is None or _passes_on(message):
            continue
        pieces = _pieces(message)
        if pieces is None:
            pytest.fail(f"{where}:{node.lineno}: write the refusal's message where it is raised, "
                        f"as a string or f-string, so docs/rules.md can be checked against it")
        found.append((f"{where}:{node.lineno}", pieces))
    return found


def code_refusals() -> list[tuple[str, list[str | None]]]:
    """The refusals of the scorer modules and the controller."""
    found = []
    for path in SOURCES:
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        found += find_refusals(path.read_text(encoding="utf-8"), vars(module), path.relative_to(ROOT).as_posix())
    return found


def message_pattern(pieces: list[str | None]) -> re.Pattern:
    """A message with each placeholder as a wildcard (any text within one line)."""
    return re.compile("".join(r"[^`\n]+?" if p is None else re.escape(p) for p in pieces))


def documented(pieces: list[str | None], doc: str) -> bool:
    """Whether the doc quotes the whole message as `code`, placeholders filled in."""
    return re.search("`" + message_pattern(pieces).pattern + "`", doc) is not None


def rules_text() -> str:
    return RULES.read_text(encoding="utf-8")


def table_row(doc: str, first_cell: str) -> list[str]:
    """The cells of the table row whose first cell is ``first_cell``."""
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            return cells
    pytest.fail(f"docs/rules.md has no table row for {first_cell}")


def test_every_refusal_is_documented():
    """Each refusal message in the code is quoted whole in docs/rules.md."""
    doc = rules_text()
    refusals = code_refusals()
    assert len(refusals) >= 55  # the scan found the messages (59 today), not nothing
    missing = [
        f"{where}: {''.join('{...}' if p is None else p for p in pieces)}"
        for where, pieces in refusals if not documented(pieces, doc)
    ]
    assert not missing, "docs/rules.md does not show these refusals:\n" + "\n".join(missing)


def test_an_undocumented_refusal_fails():
    """A new refusal added to the game without documentation is caught."""
    from scorer import game

    source = Path(game.__file__).read_text(encoding="utf-8") + (
        "\n\ndef _new_rule(seat):\n"
        "    raise RuleError(f'{seat} may not peg on a Tuesday')\n"
    )
    found = find_refusals(source, vars(game), "scorer/game.py")
    new = [pieces for _, pieces in found if pieces[1:] == [" may not peg on a Tuesday"]]
    assert new and not documented(new[0], rules_text())
    assert documented(new[0], "- `Alice may not peg on a Tuesday`: ...")


def test_refusals_seen_in_play_match_the_scan():
    """Refusals made by replaying a record match the messages the scan found."""
    record = """game six-card seats=Alice,Bob dealer=Alice
    peg Bob 2
    heels
    peg Bob 16
    hand Alice 8
    crib 4
    hand Bob 19
    hand Bob 30
    muggins Alice 3
    hand Bob 8
    crib Bob 4
    hand Alice 12
    peg Bob 2
    undo
    """.splitlines()
    rejected = replay(record).rejected
    assert len(rejected) == 9
    patterns = [message_pattern(pieces) for _, pieces in code_refusals()]
    for rejection in rejected:
        assert any(p.fullmatch(rejection.error) for p in patterns), rejection.error


def test_every_variant_is_in_the_table():
    """Each variant of the registry has a row with its players, cards and target."""
    doc = rules_text()
    for variant in VARIANTS.values():
        cells = table_row(doc, f"`{variant.name}`")
        assert cells[1:5] == [str(variant.players), str(variant.dealt), str(variant.hand_size), str(variant.target)]


def test_every_option_is_documented():
    """exact-out, muggins, each skunk= and points= value are described."""
    doc = rules_text()
    flags = [name.replace("_", "-") for name, default in Options._field_defaults.items() if isinstance(default, bool)]
    assert flags == ["exact-out", "muggins"]
    for flag in flags:
        assert f"option `{flag}`" in doc
    for lines in SkunkLines:
        assert f"`skunk={lines.value}`" in doc
    for name in GAME_POINT_PRESETS:
        assert f"`points={name}`" in doc
    assert "`points=W/S/D/T/L`" in doc


def test_game_points_table_matches_the_presets():
    """The game points table gives each preset's values."""
    doc = rules_text()
    for name, points in GAME_POINT_PRESETS.items():
        cells = table_row(doc, f"`points={name}`" + (" (the default)" if name == "acc" else ""))
        assert cells[1:] == [str(n) for n in (points.win, points.skunk, points.double_skunk,
                                              points.triple_skunk, points.lurch)]


@pytest.mark.parametrize("label, size, crib", [
    ("3-card hand", 3, False), ("4-card hand", 4, False), ("5-card hand", 5, False), ("crib", CRIB_SIZE, True),
])
def test_show_totals_table_matches_the_count(label, size, crib):
    """The highest and the impossible totals are those counting every hand gives."""
    cells = table_row(rules_text(), label)
    assert cells[1] == str(max(possible_totals(size, crib)))
    assert cells[2] == ", ".join(str(n) for n in sorted(impossible_totals(size, crib)))


def test_rules_name_each_hand_size_of_the_variants():
    """Each variant's games column names it beside its hand size."""
    doc = rules_text()
    for variant in VARIANTS.values():
        games = table_row(doc, f"{variant.hand_size}-card hand")[3]
        assert variant.name in [g.strip() for g in games.split(",")]


def _tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in ROOT.rglob("*") if p.is_file() and not {".git", ".venv"} & set(p.parts)]


def test_no_file_names_a_path_outside_the_repository():
    """No tracked file points outside the project: no path beyond it, no other repository."""
    # Spelt in pieces so this file does not name them itself.
    outside = ["../" + "shared", "shared/" + "RULES.md", "shared/" + "DESIGN.md", "steer" + "ing repo"]
    files = _tracked_files()
    assert ROOT / "docs" / "rules.md" in files or not (ROOT / ".git").exists()
    offenders = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue  # binary (the golden PNGs) or deleted in the work tree
        offenders += [f"{path.relative_to(ROOT)}: {name}" for name in outside if name.lower() in text.lower()]
    assert not offenders, "\n".join(offenders)


def test_no_file_keeps_a_merge_conflict():
    """No tracked file holds the markers a merge left unresolved (bench/run once did, and failed `bash -n`)."""
    markers = ("<" * 7 + " ", "=" * 7 + "\n", ">" * 7 + " ")  # spelt in pieces so this file has none
    offenders = []
    for path in _tracked_files():
        try:
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        offenders += [f"{path.relative_to(ROOT)}:{n}" for n, line in enumerate(lines, 1)
                      if line.startswith(markers[0]) or line == markers[1] or line.startswith(markers[2])]
    assert not offenders, "unresolved merge markers: " + ", ".join(offenders)
