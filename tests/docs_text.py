"""The project's documents as the tests read them: a page, and one section of it."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def doc_text(name: str) -> str:
    """A document's text by its path from the repository's root, e.g. ``docs/web.md``."""
    return (ROOT / name).read_text(encoding="utf-8")


def _heading_level(line: str) -> int:
    """A Markdown heading's level (``## X`` is 2), or 0 for any other line."""
    hashes = len(line) - len(line.lstrip("#"))
    return hashes if hashes and line[hashes:hashes + 1] == " " else 0


def section(text: str, heading: str) -> str:
    """The text under the heading ``heading`` (any level), up to the next heading of its level or
    higher; lines in fenced code blocks (``# a comment``) are never headings."""
    lines = text.splitlines(keepends=True)
    fenced = False
    start = level = None
    for number, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        found = 0 if fenced else _heading_level(line)
        if start is None and found and line[found:].strip() == heading:
            start, level = number + 1, found
        elif start is not None and found and found <= level:
            return "".join(lines[start:number])
    if start is None:
        raise AssertionError(f"no heading {heading!r}")
    return "".join(lines[start:])
