"""The web view's templates (``templates/``), in one autoescaping Jinja2 environment.

Names from the ledger go through the filters ``visible`` (hidden characters shown
as U+FFFD) and ``name_text`` (isolated for a title attribute): :mod:`.names`; a
result ("skunk") after the winner's name through ``won_how`` (", a skunk").
:mod:`.pages` adds what every page shares (the style, the scripts' addresses).
"""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup

from scorer.variants import ResultKind

from ..server.templating import environment
from .names import name_text, visible


def won_how(result: str | None) -> str:
    """How a game was won, said after "Red won": ", a skunk"; "" for a plain win (or none)."""
    return ResultKind(result).words if result else ""


ENV = environment(Path(__file__).resolve().parent / "templates", visible=visible, name_text=name_text,
                  won_how=won_how)


def render(name: str, context: dict) -> str:
    """Template ``name`` rendered with ``context``."""
    return ENV.get_template(name).render(context)


def part(name: str, context: dict) -> Markup:
    """Template ``name`` rendered, as markup another template puts in as it is (it is escaped already)."""
    return Markup(render(name, context))
