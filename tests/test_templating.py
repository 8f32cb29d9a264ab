"""firmware/server/templating.py: the pages' Jinja2 environment, its templates shipped, and jinja2 loaded only by the servers."""

import fnmatch
import subprocess
import sys
import tomllib
from pathlib import Path

import jinja2
import pytest
from markupsafe import Markup

from firmware.server.templating import environment

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_FOLDERS = {"firmware.web": ROOT / "firmware" / "web" / "templates",
                    "firmware.hub": ROOT / "firmware" / "hub" / "templates"}


def test_a_templates_line_breaks_and_indentation_are_not_output(tmp_path):
    """One element a line in the template, none of the line breaks on the page; a space written stays."""
    (tmp_path / "t.html").write_text('<ul>\n  {% for x in xs %}\n    <li>{{ x }} </li>\n  {% endfor %}\n</ul>\n')
    assert environment(tmp_path).get_template("t.html").render(xs=[1, 2]) == "<ul><li>1 </li><li>2 </li></ul>"


def test_every_value_is_escaped_but_markup_and_an_undefined_name_is_an_error(tmp_path):
    """A name with markup in it is shown as text; Markup passes as it is; a name not given raises."""
    (tmp_path / "t.html").write_text('<p title="{{ name }}">{{ name }}{{ made }}</p>')
    template = environment(tmp_path).get_template("t.html")
    assert template.render(name='<b>"Bo"</b>', made=Markup("<br>")) == \
        '<p title="&lt;b&gt;&#34;Bo&#34;&lt;/b&gt;">&lt;b&gt;&#34;Bo&#34;&lt;/b&gt;<br></p>'
    with pytest.raises(jinja2.UndefinedError):
        template.render(name="Bo")


def test_the_templates_are_package_data():
    """pyproject.toml's package-data ships every file of the web view's and the hub's templates/ folders."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package, folder in TEMPLATE_FOLDERS.items():
        files = [path.relative_to(folder.parent).as_posix() for path in folder.iterdir()]
        assert files and all(any(fnmatch.fnmatch(name, pattern) for pattern in data[package]) for name in files), files


def test_every_template_compiles():
    """Each template parses with its server's filters (a template no test renders fails here, not on a page)."""
    from firmware.hub.pages import ENV as HUB
    from firmware.web.render import ENV as WEB

    for env, folder in ((WEB, TEMPLATE_FOLDERS["firmware.web"]), (HUB, TEMPLATE_FOLDERS["firmware.hub"])):
        for path in folder.iterdir():
            env.get_template(path.name)


def test_the_board_and_the_one_shot_commands_load_no_jinja2():
    """jinja2 is the servers' (the web view, the hub): the board's modules, the command line, count and
    replay load none of it."""
    example = ROOT / "tests" / "data" / "example-game.txt"
    probe = ("import sys, firmware.board.loop, firmware.board.controller, firmware.board.pc.simulator, firmware.board.pc.console; "
             "from firmware.cli import main; main(['count', '5H', '5D', '5S', 'JC', '--starter', '5C']); "
             f"main(['replay', {str(example)!r}]); print('LOADED', sorted(m for m in sys.modules "
             "if m.split('.')[0] in ('jinja2', 'markupsafe') or m == 'firmware.server.templating'))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert "LOADED []" in out, out
