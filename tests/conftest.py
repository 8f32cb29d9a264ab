"""The fixtures the test modules share, all here (a module never imports another's fixtures); the plain
helpers they share are in helpers.py. Markers (pyproject.toml): browser, broker, slow."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile

import pytest
from helpers import CHROMEDRIVER, CHROMIUM, heavy_first, make, play

from broker import Mosquitto
from waits import CEILING_S, no_hang

# Bytecode, as Python keeps it by default. Where PYTHONDONTWRITEBYTECODE is set (this machine's image sets
# it), nothing is cached: every xdist worker rewrites the asserts of every test module again (about 7 s of
# CPU a worker), and each python subprocess the tests start (boards, hubs, web servers, the command line)
# compiles the firmware again (about 0.2 s a start). Set here, before xdist starts its workers, so that
# they and every subprocess inherit it. The __pycache__ folders are ignored by git.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

HEAVY_MARKS = ("slow", "browser", "broker")


def pytest_collection_modifyitems(config, items):
    """Under xdist, each worker's first tests are its share of the heavy ones (marked slow, browser or
    broker), so that none is left to the end of the run, where one worker would be running it alone; the
    browser tests on two workers only, each starting one Chromium (3.5 s of CPU) (helpers.heavy_first)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    items[:] = heavy_first(items, lambda item: any(item.get_closest_marker(mark) for mark in HEAVY_MARKS), workers,
                           together=lambda item: item.get_closest_marker("browser") is not None)


@pytest.fixture
def command_here(capfd, monkeypatch):
    """The cribbage-board command run in this process, as ``python -m firmware.cli`` runs it (``sys.exit(
    main())``), for a command line refused before it starts anything (a process costs 0.3 to 0.5 s of CPU):
    ``run(*args, stdin="")`` gives its exit status and what it wrote, as ``subprocess.run`` would."""
    from firmware.cli.command import main

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capfd.readouterr()
        with no_hang(CEILING_S):
            code = main(list(args))
        out, err = capfd.readouterr()
        return subprocess.CompletedProcess(list(args), code, out, err)

    return run


@pytest.fixture
def run_record():
    return play


@pytest.fixture
def sim_overrides() -> tuple[str, ...]:
    """The config overrides of the ``sim`` fixture's board (a module overrides this fixture to change them)."""
    return ()


@pytest.fixture
def sim(tmp_path, sim_overrides):
    """A simulated board (firmware.board.pc.simulator) with its ledger in tmp_path, closed after the test."""
    board = make(tmp_path, *sim_overrides)
    try:
        yield board
    finally:
        board.close()


@pytest.fixture
def broker(tmp_path):
    """A running Mosquitto for this test (anonymous, on a free port of 127.0.0.1)."""
    with Mosquitto(tmp_path / "broker") as running:
        yield running


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MB tmpfs, unmounted afterwards; skipped where mounting is not permitted."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0777", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}): run as root to test a full disk")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture(scope="session")
def chromium():
    """Debian's headless Chromium through its chromedriver, one for the worker's whole run (starting one
    costs about 2.5 s of CPU); tests take it through ``browser``, which hands it over as new."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="cribbage-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--hide-scrollbars"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for the policy's refusals
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    first_size = driver.get_window_size()
    try:
        yield driver, first_size
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def browser(chromium):
    """The worker's Chromium as a test finds a new one (modules using it carry helpers.BROWSER_MARKS):
    on a blank page, at its first window size, with no cookies, cache or console lines of the test
    before; left on a blank page, so no page of this test keeps a connection to its server."""
    driver, first_size = chromium
    first, *others = driver.window_handles
    for handle in others:  # a tab a failed test left open
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(first)
    driver.get("about:blank")
    driver.set_window_size(first_size["width"], first_size["height"])
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})  # a port of an earlier test's server may come again
    driver.get_log("browser")  # read, so the test sees only its own lines
    try:
        yield driver
    finally:
        driver.get("about:blank")


@pytest.fixture
def table(tmp_path, monkeypatch):
    """A running mock board and its real web view, for phones to pair with (tests/test_phones.py)."""
    from test_phones import Table

    running = Table(tmp_path, monkeypatch)
    try:
        yield running
    finally:
        running.close()
