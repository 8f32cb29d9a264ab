"""The command line's argparse pieces: imported only for a line the quick reader leaves to argparse."""

from __future__ import annotations

import argparse

from .output import PROG, fail


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors."""

    def error(self, message):
        fail(f"{self.prog}: {message} (see {self.prog} --help)")
        self.exit(2)


class TopParser(Parser):
    """The top-level parser: its --help ends with the terminal board's keys (looked up only then)."""

    def format_help(self):
        from ..pc.terminal import key_help

        rows = [f"  {keys:<30} {does}" for keys, does in key_help()]
        return super().format_help() + "\nkeys of the mock board in the terminal:\n" + "\n".join(rows) + "\n"


class Version(argparse.Action):
    """--version: the installed package version, looked up only when asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version(PROG)
        except PackageNotFoundError:
            number = "(not installed)"
        print(f"{PROG} {number}")
        parser.exit()
