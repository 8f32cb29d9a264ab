"""A TOML file read safely: at most a size cap, UTF-8, not nested too deeply,
never hanging on a pipe or an endless device. The board layouts (:mod:`hardware.layout`)
and the config (:mod:`firmware.config`) are read with it."""

from __future__ import annotations

import gc
import os
import stat
import tomllib
from pathlib import Path

from scorer.errors import CribbageBoardError

MAX_BYTES = 256 * 1024  # many times the default config or a bundled layout


class TomlFileError(CribbageBoardError, ValueError):
    """A file that cannot be used as TOML; the message names the file and what to do."""


def _read_capped(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of an open file, fewer at its end."""
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(limit - size, 64 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_bytes(path: str | Path, noun: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a file of at most ``limit`` bytes; TomlFileError if it cannot be
    read, is a folder or a pipe, or is larger. A device is read only to the cap."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer, or reading a terminal, returns at once.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise TomlFileError(f"{path}: cannot read {noun}: {error.strerror or error}") from None
    except ValueError as error:  # a NUL in the path
        raise TomlFileError(f"{path}: cannot read {noun}: {error}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise TomlFileError(f"{path}: cannot read {noun}: it is a folder, not a file")
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            raise TomlFileError(f"{path}: cannot read {noun}: it is a pipe, not a file: give the file itself")
        if stat.S_ISREG(mode):
            os.set_blocking(fd, True)
        data = _read_capped(fd, limit + 1)
    except BlockingIOError:  # a terminal or another device with nothing to read yet
        raise TomlFileError(f"{path}: cannot read {noun}: it is a device waiting for input, not a file") from None
    except OSError as error:
        raise TomlFileError(f"{path}: cannot read {noun}: {error.strerror or error}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise TomlFileError(f"{path}: {noun} is larger than {limit // 1024} KB: is it the right file?")
    return data


def read_toml(path: str | Path, noun: str, limit: int = MAX_BYTES) -> dict:
    """A TOML file's table (``noun`` names it in messages: "the config"); TomlFileError
    if it cannot be read, is larger than ``limit`` bytes, is not UTF-8, not TOML or
    nested too deeply."""
    data = read_bytes(path, noun, limit)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise TomlFileError(f"{path}: not UTF-8 text (byte {error.start + 1}): save {noun} as UTF-8") from None
    collecting = gc.isenabled()
    gc.disable()  # a collection deep in a hostile file would run others' finalizers at the recursion limit
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TomlFileError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:
        raise TomlFileError(f"{path}: not usable as {noun}: nested too deeply") from None
    finally:
        if collecting:
            gc.enable()
