"""Comments and docstrings of the product say what the code does and why, never when it changed or what it measured.

Dates, issue numbers, instruction counts, ratios and timings taken on some machine belong in
``docs/decisions.md`` or ``bench/README.md``. Comments come from ``tokenize``,
docstrings from ``ast``; the shipped shell and unit files and ``pyproject.toml`` are read line by line.
A module docstring is a few lines: at most ``MODULE_DOC_LINES``.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scorer", "ledger", "hardware", "firmware")
# The shipped files whose '#' lines are comments.
SHIPPED = ("pyproject.toml", "systemd/install.sh", "systemd/club-broker.sh", "systemd/*.service", "systemd/*.conf",
           "systemd/*.rules", "systemd/*.acl")
MODULE_DOC_LINES = 8

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_UNIT = r"(?:ns|us|µs|ms|s|secs?|seconds?|minutes?|mins?|%|[kKMG]i?B)"
_NUMBER = r"\d[\d.,]*(?:\s*(?:-|to)\s*\d[\d.,]*)?"
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # An ISO date, but not a timestamp shown as a format (2026-12-02T19:48:42.123Z).
    ("a date", re.compile(r"\b(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b(?!T\d)")),
    ("a date", re.compile(rf"\b{_MONTH}\s+(?:\d{{1,2}},?\s+)?(?:19|20)\d\d\b", re.IGNORECASE)),
    ("a date", re.compile(rf"\b\d{{1,2}}\s+{_MONTH}\s+(?:19|20)\d\d\b", re.IGNORECASE)),
    ("an issue", re.compile(r"\b(?:issues?|bugs?|prs?|pull requests?|tickets?)\s*#?\d+", re.IGNORECASE)),
    ("an issue", re.compile(r"(?:^|[\s(\[,])#\d{1,5}\b")),
    ("a measured figure", re.compile(rf"\b{_NUMBER}\s*[kKMG]?\s*instructions\b")),
    # A ratio (1.39x, 8-15x), but not a size (128x64) or hex (0x3C).
    ("a measured figure", re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?x\b")),
    ("a measured figure", re.compile(r"\btimes (?:faster|slower|as (?:fast|slow|long|much))\b", re.IGNORECASE)),
    ("a measured figure", re.compile(rf"\b(?:took|takes|taking|measured|spent|costs?|costing|saved)\b"
                                     rf"[^.;:]{{0,40}}?\b{_NUMBER}\s*{_UNIT}(?!\w)", re.IGNORECASE)),
    ("a measured figure", re.compile(rf"\b(?:about|around|roughly|nearly|some|~)\s*{_NUMBER}\s*{_UNIT}(?!\w)",
                                     re.IGNORECASE)),
    ("a measured figure", re.compile(rf"\b{_NUMBER}(?:-{_NUMBER})?\s*{_UNIT}(?!\w)[^.;]{{0,40}}"
                                     r"\b(?:here|on (?:a|this|the|my) (?:pc|machine|laptop|pi\b|raspberry))",
                                     re.IGNORECASE)),
    ("a before and after", re.compile(rf"\bfrom\s+{_NUMBER}\s*\S*\s+to\s+{_NUMBER}\s*(?:x|{_UNIT})(?!\w)",
                                      re.IGNORECASE)),
    ("a before and after", re.compile(rf"\b(?:was|were)\s+(?:about\s+)?{_NUMBER}\s*(?:x|{_UNIT})(?!\w)",
                                      re.IGNORECASE)),
    ("a before and after", re.compile(rf"\b{_NUMBER}\s*(?:x|{_UNIT})?\s+against\s+{_NUMBER}", re.IGNORECASE)),
    ("history", re.compile(r"\b(?:used to (?:be|do|have|take|read|write|say|send|keep|run)|previously|formerly"
                           r"|until now|no more than before|as before|than before|the old (?:code|way|version)"
                           r"|this change|since (?:v\d|version \d|commit)|as of (?:v\d|version))\b",
                           re.IGNORECASE)),
)


def narration(line: str) -> str | None:
    """What ``line`` cites that a product comment must not (a date, an issue, a measured figure, history), or None."""
    for what, pattern in RULES:
        if pattern.search(line):
            return what
    return None


def product_python() -> list[Path]:
    """Every Python file of the product, sorted."""
    files = [path for package in PACKAGES for path in (ROOT / package).rglob("*.py")]
    return sorted(files)


def shipped_files() -> list[Path]:
    """The product's files that are not Python but carry '#' comments."""
    return sorted(path for pattern in SHIPPED for path in ROOT.glob(pattern))


def _docstrings(tree: ast.Module) -> list[ast.Constant]:
    """The docstring nodes of a module and of each class and function in it."""
    nodes: list[ast.AST] = [tree, *(node for node in ast.walk(tree)
                                    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)))]
    found = []
    for node in nodes:
        body = getattr(node, "body", [])
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            found.append(body[0].value)
    return found


def python_lines(source: str) -> list[tuple[int, str]]:
    """(line number, text) of every comment and docstring line of a module's ``source``."""
    lines = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            lines.append((token.start[0], token.string))
    for node in _docstrings(ast.parse(source)):
        lines.extend((node.lineno + offset, text) for offset, text in enumerate(node.value.splitlines()))
    return sorted(lines)


def comment_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of each '#' comment of a shell, unit or TOML file (a whole line or a line's end)."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        at = line.find("#")
        if at >= 0 and (at == 0 or line[:at].strip() == "" or line[at - 1].isspace()):
            found.append((number, line[at:]))
    return found


def offenders() -> list[str]:
    """file:line and what it cites, for every narrating comment or docstring line of the product."""
    found = []
    for path in product_python():
        for number, text in python_lines(path.read_text(encoding="utf-8")):
            if what := narration(text):
                found.append(f"{path.relative_to(ROOT)}:{number}: {what}: {text.strip()}")
    for path in shipped_files():
        for number, text in comment_lines(path.read_text(encoding="utf-8")):
            if what := narration(text):
                found.append(f"{path.relative_to(ROOT)}:{number}: {what}: {text.strip()}")
    return found


def module_docstring_lines(path: Path) -> int:
    """How many lines the module docstring of ``path`` has (0 for none)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=True)
    return len(doc.strip().splitlines()) if doc else 0


@pytest.mark.parametrize("line", [
    "# 87.9 M instructions against 76.2 M",
    "# importing types takes replay from 2.00x to 2.02x",
    "# count is 3.31x python -c pass (was 1.39x)",
    "# 8-15x that on a Pi Zero",
    "# the suite took 12 ms on this machine",
    "# it was 40 s",
    "# a game replays in 1-3 ms here",
    "# rendering is 0.4 ms a line on a PC",
    "# about 0.3 ms a detent",
    "# counting every hand takes 0.1-0.6 s",
    "# costs about 4 ms of CPU per MB",
    "# measured on 2026-12-05",
    "# Measured in December 2026, quiet",
    "# on 5 Dec 2026",
    "# see issue 42",
    "# fixes #42",
    "# (issue #7: the dial skipped)",
    "# this used to be a list",
    "# previously the hub kept totals",
    "# two times faster than the parser",
])
def test_narration_is_found(line):
    """Each planted line that cites a date, an issue, a measured figure or history is flagged."""
    assert narration(line) is not None, line


@pytest.mark.parametrize("line", [
    "# A WS2812 bit is 1.25 us; the latch needs at least 280 us low.",
    "# the OLED at 0x3C, 128x64 pixels",
    "# 121 holes a track, an SPI clock of 2.4 MHz, a PWM strip at 800 kHz",
    "# the broker gives up on a client after 5 s (the value below)",
    "TIMEOUT_S = 5  # a press held this long is a hold",
    "# wait at most 30 s, then say so",
    "# ``2026-12-02T19:48:42.123Z``: UTC with milliseconds",
    "# a colour such as #c0392b",
    "# the file before it was renamed",
    "# a ledger written by an earlier version migrates forward",
    "# the cap: 256 KB, UTF-8, never a pipe",
    "# a dead link is noticed within one and a half keepalives",
    "# seats 1 to 4",
    "# Save the queues every 60 s as well as at a clean stop.",
])
def test_fine_lines_pass(line):
    """Constants with units that state the spec or the code's own values, formats and plain words are not flagged."""
    assert narration(line) is None, line


def test_the_checker_reads_comments_and_docstrings(tmp_path):
    """A planted comment, end-of-line comment and docstring line each come back with their line numbers."""
    source = '"""A module.\n\nMeasured on 2026-12-05."""\nX = 1  # was 40 s\n# fine\ndef f():\n    """See issue 9."""\n'
    found = [(number, narration(text)) for number, text in python_lines(source) if narration(text)]
    assert found == [(3, "a date"), (4, "a before and after"), (7, "an issue")]
    assert comment_lines("Key=1  # took 4 s here\nA=#b\n# fine\n") == [(1, "# took 4 s here"), (3, "# fine")]


def test_the_checker_reads_the_whole_product():
    """The files it reads are the product's: every package, the shipped files, no test harness."""
    names = {str(path.relative_to(ROOT)) for path in product_python() + shipped_files()}
    assert {"scorer/game.py", "ledger/writer.py", "hardware/tomlfile.py", "scorer/errors.py", "pyproject.toml",
            "systemd/install.sh", "systemd/cribbage-board.service"} <= names
    assert not any(name.startswith(("tests/", "bench/")) for name in names)


def test_no_comment_narrates():
    """No comment or docstring line of the product cites a date, an issue, a measured figure or history."""
    found = offenders()
    assert not found, f"{len(found)} lines narrate:\n" + "\n".join(found)


def test_module_docstrings_are_a_few_lines():
    """Every module docstring of the product is at most MODULE_DOC_LINES lines."""
    long = sorted(((module_docstring_lines(path), str(path.relative_to(ROOT))) for path in product_python()),
                  reverse=True)
    over = [f"{name}: {lines} lines" for lines, name in long if lines > MODULE_DOC_LINES]
    assert not over, f"{len(over)} module docstrings over {MODULE_DOC_LINES} lines:\n" + "\n".join(over)
