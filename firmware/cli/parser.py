"""The command line's argparse classes: imported only for a line the quick reader leaves to argparse."""

from __future__ import annotations

import argparse

from .output import fail


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
