"""The suite's markers (pyproject.toml) are on the tests they name, so the fast lane
(``-m "not slow and not browser and not broker"``, docs/architecture.md) leaves out what it says."""

import functools
import inspect
from pathlib import Path

import pytest

STARTS_A_BROKER = ("Mosquitto(", "need_mosquitto(")


def _uses(item, fixture: str, calls: tuple[str, ...] = ()) -> bool:
    """Whether a collected test asks for ``fixture`` (itself or through another fixture) or calls one of ``calls``."""
    if fixture in getattr(item, "fixturenames", ()):
        return True
    function = getattr(item, "function", None)
    if function is None or not any(call in _module_text(item.fspath) for call in calls):
        return False
    return any(call in inspect.getsource(function) for call in calls)


@functools.cache
def _module_text(path) -> str:
    return Path(path).read_text()


def test_every_test_that_starts_a_broker_or_a_browser_carries_its_marker(request):
    """Each collected test using the broker fixture (or starting a Mosquitto itself) is marked broker; each
    using the browser fixture is marked browser."""
    items = request.session.items
    if not any(_uses(item, "broker", STARTS_A_BROKER) for item in items):
        pytest.skip("no broker test in this run (run it with the club tests, or the whole suite)")
    unmarked = [item.nodeid for item in items
                if (_uses(item, "broker", STARTS_A_BROKER) and item.get_closest_marker("broker") is None)
                or (_uses(item, "browser") and item.get_closest_marker("browser") is None)]
    assert unmarked == []
