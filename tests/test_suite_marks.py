"""The suite's markers (pyproject.toml) are on the tests they name, so the fast lane
(``-m "not slow and not browser and not broker"``, docs/architecture.md) leaves out what it says."""

import functools
import inspect
from pathlib import Path

import pytest
from helpers import heavy_first

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


@pytest.mark.parametrize("count, heavy, workers", [(20, {3, 7, 15}, 4), (13, set(range(13)), 4),
                                                     (13, set(range(2, 13)), 4), (7, {0}, 3), (9, set(), 2),
                                                     (5, {1}, 1), (3, {0, 1}, 4), (2087, set(range(0, 2087, 11)), 6)])
def test_the_heavy_tests_are_dealt_to_the_front_of_each_workers_slice(count, heavy, workers):
    """Every test is kept once, the light ones in their order; each worker's worksteal slice begins with
    its share of the heavy ones (where there are fewer than the slices hold), whatever the mix, and the
    heavy tests that go together (even numbers here, as the browser tests share a Chromium) only on the
    first two workers: a run of the broker tests alone once made the dealing run out of light tests."""
    items = list(range(count))
    ordered = heavy_first(items, heavy.__contains__, workers, together=lambda item: item % 2 == 0)
    assert sorted(ordered) == items
    assert [item for item in ordered if item not in heavy] == [item for item in items if item not in heavy]
    if workers < 2 or count < workers:
        assert ordered == items
        return
    fits = len(heavy) <= count // workers
    left, start, seen = count, 0, set()
    for worker in range(workers):
        size = left // (workers - worker)
        front = []
        for item in ordered[start:]:
            if item not in heavy:
                break
            front.append(item)
        seen.update(front)
        if worker >= 2:
            assert all(item % 2 for item in front), (worker, front)
        if fits:
            assert len(front) <= size and abs(len(front) - len(heavy) / workers) <= len(heavy) / 2 + 1
        start, left = start + max(size, len(front)), left - size
    if fits:
        assert seen == heavy
