"""Powering the Pi off: asks systemd-logind through ``systemctl``, as the service's own user.

The board's service runs as the unprivileged user ``cribbage``; logind lets it
power the machine off only with the polkit rule that ``systemd/install.sh``
puts in place (the actions ``org.freedesktop.login1.power-off`` and
``power-off-multiple-sessions``). Without the rule, or off systemd, the call
fails, and :func:`power_off` says so in one line with the fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from scorer.errors import CribbageBoardError

if TYPE_CHECKING:
    import subprocess

POWER_OFF_COMMAND = ("systemctl", "--no-ask-password", "poweroff")
TIMEOUT_SECONDS = 20.0
FIX = "let the board's user power off: sudo systemd/install.sh puts the polkit rule in place"


class PowerOffError(CribbageBoardError, RuntimeError):
    """The power-off was not accepted; the message is one line that ends with the fix."""


def power_off(
    command: Sequence[str] = POWER_OFF_COMMAND,
    timeout: float = TIMEOUT_SECONDS,
    run: Callable[..., "subprocess.CompletedProcess"] | None = None,
) -> None:
    """Ask systemd to power the machine off; PowerOffError (one line) if it refuses.

    Returns once the request is accepted: the machine then stops this program
    (SIGTERM) on its way down.
    """
    import subprocess  # only when powering off: the board starts without it

    run = _run if run is None else run
    try:
        result = run(list(command), capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise PowerOffError(f"{command[0]} not found: power off needs systemd; {FIX}") from None
    except subprocess.TimeoutExpired:
        raise PowerOffError(f"{' '.join(command)} gave no answer in {timeout:g} s; {FIX}") from None
    except OSError as error:
        raise PowerOffError(f"{' '.join(command)} could not run ({error.strerror}); {FIX}") from None
    if result.returncode != 0:
        said = " ".join((result.stderr or result.stdout or "").split())
        reason = said or f"exit status {result.returncode}"
        raise PowerOffError(f"power off refused ({reason}); {FIX}")


def _run(argv: list[str], **options) -> "subprocess.CompletedProcess":
    """``subprocess.run``, with a missing program raised as FileNotFoundError before it
    starts: spawned through ``posix_spawn`` (Python 3.13), a program that is not there
    can come back as exit status 127 instead (it does under qemu-user)."""
    import shutil
    import subprocess

    if shutil.which(argv[0]) is None:
        raise FileNotFoundError(2, "No such file or directory", argv[0])
    return subprocess.run(argv, **options)
