"""The Jinja2 environment the web view and the club hub render their pages with.

Every value is escaped unless it is :class:`markupsafe.Markup`; a name the
template does not get is an error, not an empty string. A template's line
breaks and the indentation after them are not output (:class:`JoinLines`), so
a template is written one element a line and the page is sent without the
white space: write a space where one is meant, and keep running text on one line.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
from jinja2.ext import Extension

LINE_BREAK = re.compile(r"\n[ \t]*")


class JoinLines(Extension):
    """Drops each line break of a template's source and the indentation after it."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return LINE_BREAK.sub("", source)


def environment(folder: Path, **filters) -> jinja2.Environment:
    """The templates in ``folder``, autoescaped, strict about undefined names, with ``filters``.
    A template is read once and kept (no look at its file again)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(folder), autoescape=True,
                             undefined=jinja2.StrictUndefined, auto_reload=False, extensions=[JoinLines])
    env.filters.update(filters)
    return env
