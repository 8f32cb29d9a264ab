"""A set-aside -wal read back: ``cribbage-board salvage FILE-wal`` (:func:`salvage_wal`)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import tempfile
from pathlib import Path

from .causes import os_cause
from .errors import LedgerError
from .files import sync_folder
from .paths import WAL_HEADER, WAL_MAGIC
from .schema import APPLICATION_ID as BOARD_ID
from .schema import HUB_APPLICATION_ID as HUB_ID
from .schema import quick_check

SALVAGED = ".salvaged"  # the output's name: the -wal's, without -wal, and this


def default_output(wal: Path) -> Path:
    """Where the salvage of ``wal`` goes unless told: ``NAME-wal`` gives ``NAME.salvaged``."""
    return wal.with_name(wal.name.removesuffix("-wal") + SALVAGED)


def default_base(wal: Path) -> Path | None:
    """The file a -wal set aside with its ledger belongs to (``NAME`` beside ``NAME-wal``), if there."""
    if wal.name.endswith("-wal"):
        base = wal.with_name(wal.name.removesuffix("-wal"))
        if base.is_file():
            return base
    return None


def salvage_wal(wal: Path, base: Path | None = None, output: Path | None = None) -> tuple[Path, str]:
    """Fold ``wal`` into a copy of ``base`` (by default the file beside it it was set aside with, or
    nothing) and write the whole result to ``output`` (by default :func:`default_output`); the
    output and what it holds, in a few words. LedgerError (one line) if it cannot.

    A -wal holds pages of the file it was written for, newer than that file's own.
    Folded into a copy of that file (``base``), or into nothing when it holds every
    page (a ledger that was never checkpointed), it gives that ledger whole as it
    was when its last entry was acknowledged. The work is done on copies in a
    scratch folder beside the output: the -wal and the base are only read. The
    result must pass ``quick_check``; it is then linked to its own name (never over
    an existing file) and its folder synced.

    Raises ``LedgerError`` when the -wal holds nothing, its base does not fit it, or the result fails
    its check; nothing is written then.

    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     wal = pathlib.Path(folder, "board.sqlite3-wal")
    ...     _ = wal.write_bytes(b"not a wal")
    ...     try:
    ...         salvage_wal(wal)
    ...     except LedgerError as error:
    ...         print(str(error).endswith("holds nothing (it is not an SQLite -wal with pages in it)"))
    True
    """
    base = base if base is not None else default_base(wal)
    output = output if output is not None else default_output(wal)
    page_size = _wal_page_size(wal)
    if base is not None and not base.is_file():
        raise LedgerError(f"salvage: {base} is not a file: give the ledger the -wal belongs to (--base FILE)")
    if output.exists() or output.is_symlink():
        raise LedgerError(f"salvage: {output} is already there: give another output (-o FILE)")
    try:
        scratch = tempfile.mkdtemp(prefix=".salvage-", dir=output.parent)
    except OSError as error:
        raise LedgerError(f"salvage: nothing can be written in {output.parent}: {os_cause(error)}") from error
    try:
        work = Path(scratch) / "ledger.sqlite3"
        try:
            if base is not None:
                shutil.copyfile(base, work)
            else:  # one blank page: SQLite replays a -wal only into a file that is not empty
                work.write_bytes(bytes(page_size))
            shutil.copyfile(wal, f"{work}-wal")
        except OSError as error:
            raise LedgerError(f"salvage: {error.filename}: {os_cause(error)}") from error
        what = _fold(work, wal, base)
        try:
            os.link(work, output)  # never over a file that appeared meanwhile
            sync_folder(output.parent)
        except OSError as error:
            raise LedgerError(f"salvage: {output} cannot be written: {os_cause(error)}") from error
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return output, what


def _wal_page_size(wal: Path) -> int:
    """The page size a -wal's header gives; LedgerError if it is not an SQLite -wal."""
    try:
        with open(wal, "rb") as file:
            header = file.read(WAL_HEADER)
    except OSError as error:
        raise LedgerError(f"salvage: {wal}: {os_cause(error)}") from error
    if len(header) < WAL_HEADER:
        raise LedgerError(f"salvage: {wal} holds nothing (it is not an SQLite -wal with pages in it)")
    magic, _, page_size = (int(field) for field in struct.unpack(">3I", header[:12]))
    if magic not in WAL_MAGIC or not 512 <= page_size <= 65536 or page_size & (page_size - 1):
        raise LedgerError(f"salvage: {wal} is not an SQLite -wal (a ledger's -wal is named LEDGER-wal)")
    return page_size


def _fold(work: Path, wal: Path, base: Path | None) -> str:
    """The -wal beside ``work`` checkpointed into it and the result checked; what it holds."""
    missing = (f"the -wal does not fit {base}" if base is not None else
               "the -wal holds only part of its ledger: give the file it belongs to (--base FILE)")
    try:
        conn = sqlite3.connect(work, isolation_level=None)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            problem = quick_check(conn)
            if problem:
                raise LedgerError(f"salvage: {wal}: {missing} ({problem})")
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if app_id == BOARD_ID or {"games", "actions"} <= tables:
                games, actions = (conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("games", "actions"))
                return f"a board's ledger: {games} game{'s' * (games != 1)}, {actions} entries"
            if app_id == HUB_ID:
                entries, results = (conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("entries", "results"))
                return f"a club hub's ledger: {entries} entries, {results} results"
            if not tables:
                raise LedgerError(f"salvage: {wal}: {missing} (no tables)")
            return f"an SQLite database that is no ledger (tables: {', '.join(sorted(tables)[:5])})"
        finally:
            conn.close()
    except sqlite3.Error as error:
        raise LedgerError(f"salvage: {wal}: {missing} ({' '.join(str(error).split())})") from error
