"""The web view's API and guarantees, against ledgers written with LedgerWriter in a temp folder."""

import csv
import hashlib
import io
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from firmware.cli import main
from firmware.web.board import GROUP_GAP, geometry_for, geometry_of
from firmware.web.records import line_marks, play_record
from ledger.writer import LedgerWriter
from scorer.history import player_stats, race_lines
from scorer.record import parse_line, replay
from scorer.report import state_dict
from scorer.variants import SkunkLines

from waits import CEILING_S, eventually
from web_games import (
    OTHER_USER_PROBLEM,
    ROOT,
    follow_events,
    free_port,
    game_record,
    get,
    get_json,
    match_records,
    web_server,
    write_games,
)

SIX = "game six-card seats=Alice,Bob dealer=Alice"
WRITES = ("POST", "PUT", "DELETE", "PATCH")


def replay_json(tmp_path: Path, lines: list[str], capsys) -> dict:
    """What ``cribbage-board replay FILE --json`` prints for these lines."""
    record = tmp_path / "record.txt"
    record.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(record), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def write_ledger(folder: Path) -> tuple[Path, list[list[str]]]:
    """A ledger with two finished games of one match, an abandoned game and a live one (new match)."""
    path = folder / "ledger.sqlite3"
    first, second = match_records(2)
    abandoned = game_record("game five-card seats=Cat,Dan dealer=Cat", seed=3, entries=6)
    live = game_record("game four-hand seats=Ann,Ben,Cat,Dan dealer=Ben", seed=4, entries=25)
    with LedgerWriter(path) as store:
        write_games(store, [first, second, abandoned, live])
    return path, [first, second, abandoned, live]


@pytest.fixture
def ledger(tmp_path):
    """The ledger of ``write_ledger`` for one test, to change or to serve from the start."""
    return write_ledger(tmp_path)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One server on a ``write_ledger`` ledger for the tests that only ask it (a server costs about 1 s of
    CPU to start): its base URL and the records."""
    path, records = write_ledger(tmp_path_factory.mktemp("served"))
    with web_server(path) as base:
        yield base, records


def test_api_state_is_replay_json_of_the_current_game(served, tmp_path, capsys):
    """GET /api/state is exactly what replay --json prints for the ledger's current game."""
    base, records = served
    status, state = get_json(base + "/api/state")
    assert status == 200
    assert state == replay_json(tmp_path, records[-1], capsys)
    assert state["variant"] == "four-hand" and state["entries"] == 25


@pytest.mark.slow
def test_api_state_counts_the_match_like_replay_of_the_match_record(tmp_path, capsys):
    """In a match's second game, /api/state is replay --json of the match's record (the tally included)."""
    path = tmp_path / "ledger.sqlite3"
    first, second = match_records(2)
    with LedgerWriter(path) as store:
        write_games(store, [first, second[:11]])
        exported = store.export(1) + store.export(2)
    with web_server(path) as base:
        _, state = get_json(base + "/api/state")
    assert state == replay_json(tmp_path, exported, capsys)
    assert state["match"]["games"] == 1 and sum(t["wins"] for t in state["match"]["tally"]) == 1


@pytest.mark.slow
def test_api_games_lists_finished_and_abandoned_newest_first(served):
    """/api/games: the finished games and the abandoned one, newest first, not the game in play."""
    base, records = served
    status, games = get_json(base + "/api/games")
    assert status == 200
    assert [g["id"] for g in games] == [3, 2, 1]
    assert [g["status"] for g in games] == ["abandoned", "finished", "finished"]
    for game, record in zip(games[1:], records[1::-1]):
        result = replay(record).book.game.outcome
        for key in ("id", "variant", "seats", "winner", "loser", "result", "margin", "game_points", "started", "finished"):
            assert key in game
        assert (game["winner"], game["loser"], game["margin"]) == (result.winner, result.loser, result.margin)
        assert game["result"] == result.kind.value and game["game_points"] == result.game_points
    assert games[0]["winner"] is None and games[0]["variant"] == "five-card"
    for game in games:  # the ledger keeps times (schema 2): when each game began and ended
        assert game["started"] <= game["finished"]
        assert game["finished"] <= (games[games.index(game) - 1]["started"] if games.index(game) else "9")


@pytest.mark.slow
def test_api_game_has_its_entries_and_race(served):
    """/api/games/ID: the game with each entry and the scores after it; 404 for a game that is not there."""
    base, records = served
    status, game = get_json(base + "/api/games/1")
    missing, _ = get_json(base + "/api/games/99")
    live_status, live = get_json(base + "/api/games/4")
    assert status == 200 and missing == 404
    assert [e["line"] for e in game["entries"]] == records[0][1:]
    final = replay(records[0]).book.game
    assert game["entries"][-1]["scores"] == list(final.state.scores) == game["race"]["scores"][-1]
    assert [e["scores"] for e in game["entries"]] == game["race"]["scores"]
    assert live_status == 200 and live["status"] == "playing" and len(live["entries"]) == 25
    stamps = [e["at"] for e in game["entries"]]
    assert None not in stamps and stamps == sorted(stamps) and game["started"] <= stamps[0]
    assert live["finished"] is None and live["started"] is not None


def test_game_record_download_replays_to_the_same_state(served, tmp_path, capsys):
    """/games/ID.txt is a game record: replayed, it gives the state of that game."""
    base, records = served
    status, headers, body = get(base + "/games/2.txt")
    missing, _, _ = get(base + "/games/42.txt")
    assert status == 200 and missing == 404 and "attachment" in headers["Content-Disposition"]
    lines = body.decode().splitlines()
    assert replay_json(tmp_path, lines, capsys) == replay_json(tmp_path, records[1], capsys)


def test_games_csv_has_a_row_a_game(served):
    """/games.csv: a header and one row for each listed game."""
    base, _ = served
    status, headers, body = get(base + "/games.csv")
    _, games = get_json(base + "/api/games")
    assert status == 200 and headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert [int(r["id"]) for r in rows] == [g["id"] for g in games]
    assert rows[1]["winner"] == games[1]["winner"] and rows[1]["margin"] == str(games[1]["margin"])


def test_pages_render_what_the_api_says(served):
    """The board, history, a game and stats pages are HTML that name the players and scores."""
    base, _ = served
    _, state = get_json(base + "/api/state")
    _, _, board = get(base + "/")
    _, _, games = get(base + "/games")
    _, _, game = get(base + "/games/1")
    _, _, stats = get(base + "/stats")
    board = board.decode()
    for side in state["sides"]:
        assert f'data-side="{side["name"]}"' in board and f'data-score>{side["score"]}<' in board
    assert "<svg" in board and "skunk 91" in board and 'id="live"' in board
    assert "<bdi>Alice</bdi>, <bdi>Bob</bdi>" in games.decode() and "abandoned" in games.decode()
    assert 'class="race"' in game.decode() and "double skunk" in game.decode()
    assert "percentile" in stats.decode() and "<h2><bdi>Alice</bdi>" in stats.decode() and "<h2><bdi>Ann" not in stats.decode()


def test_results_read_as_a_player_says_them(served):
    """/games and /games/ID say "Alice won, a double skunk" (and "won by 70, ..." with the margin), never
    "Alice (double skunk)", which reads as if Alice were the one skunked."""
    base, _ = served
    _, games = get_json(base + "/api/games")
    _, _, listing = get(base + "/games")
    listing = " ".join(listing.decode().split())
    for game in (g for g in games if g["winner"]):
        how = "" if game["result"] == "win" else ", a " + game["result"].replace("-", " ")
        assert f'<bdi>{game["winner"]}</bdi> won{how}' in listing
        _, _, page = get(base + f'/games/{game["id"]}')
        page = " ".join(page.decode().split())
        assert f'<bdi>{game["winner"]}</bdi> won by {game["margin"]}{how}' in page
        assert f'<b>{game["game_points"]}</b> game points' in page
    assert any(g["result"] != "win" for g in games) and "</bdi> (" not in listing


def test_every_write_method_is_refused_with_405(served):
    """POST, PUT, DELETE and PATCH get 405 on every path, known or not."""
    base, _ = served
    for url in ("/", "/api/state", "/api/games", "/api/games/1", "/games/1.txt", "/events", "/nowhere"):
        for method in WRITES:
            status, headers, _ = get(base + url, method)
            assert status == 405, (method, url)
            assert headers["Allow"] == "GET, HEAD"


@pytest.mark.slow
def test_serving_leaves_the_ledger_file_unchanged(ledger):
    """Reading every page and endpoint changes no byte of the ledger file."""
    path, _ = ledger
    before = hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns
    with web_server(path) as base:
        for url in ("/", "/api/state", "/games", "/games/1", "/games/1.txt", "/games.csv", "/stats",
                    "/api/games", "/api/games/2", "/api/stats"):
            assert get(base + url)[0] == 200, url
    assert (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns) == before
    assert not Path(f"{path}.lock").exists()


@pytest.mark.slow
def test_the_writer_keeps_writing_while_the_server_reads(tmp_path):
    """Entries are acknowledged at the same pace while clients hammer the server (median within 10x of
    the pace with no clients, measured side by side); the server ends on the last state."""
    path = tmp_path / "ledger.sqlite3"
    record = game_record(SIX, seed=11)
    alone, hammered = record[1:16], record[16:]
    stop = threading.Event()
    errors = []

    def timed_applies(store, lines):
        took = []
        for line in lines:
            started = time.monotonic()
            store.apply(parse_line(line))  # a writer blocked past the busy timeout raises here
            took.append(time.monotonic() - started)
        return statistics.median(took)

    with LedgerWriter(path) as store:
        store.apply(parse_line(record[0]))
        with web_server(path) as base:
            def hammer():
                while not stop.is_set():
                    for url in ("/api/state", "/", "/games", "/stats"):
                        status = get(base + url)[0]
                        if status != 200:
                            errors.append((url, status))
            without_readers = timed_applies(store, alone)
            readers = [threading.Thread(target=hammer) for _ in range(3)]
            for reader in readers:
                reader.start()
            try:
                with_readers = timed_applies(store, hammered)
            finally:
                stop.set()
                for reader in readers:
                    reader.join()
            assert len(hammered) >= 15 and with_readers <= 10 * without_readers + 0.005
            assert eventually(lambda: get_json(base + "/api/state")[1]["entries"] == len(store.game.pegged))
            _, state = get_json(base + "/api/state")
            assert state["winner"] == store.game.outcome.winner
    assert errors == []


@pytest.mark.slow
def test_events_send_the_new_state_after_an_entry(tmp_path):
    """/events sends the state at once, then the new state after an entry by the writer."""
    path = tmp_path / "ledger.sqlite3"
    record = game_record(SIX, seed=3, entries=12)
    with LedgerWriter(path) as store:
        write_games(store, [record[:-1]])
        with web_server(path) as base:
            got = []
            reader = threading.Thread(target=follow_events, args=(base + "/events", 2, got))
            reader.start()
            assert eventually(lambda: got)  # the page is following before the entry is written
            store.apply(parse_line(record[-1]))
            reader.join(CEILING_S)
            expected = state_dict(store.book)
    assert len(got) == 2
    assert got[0]["state"]["entries"] == 11 and got[1]["state"] == expected
    assert f'data-score>{expected["sides"][0]["score"]}<' in got[1]["html"]


@pytest.mark.slow
def test_a_missing_ledger_is_said_and_picked_up_when_it_appears(tmp_path):
    """No ledger: the page says so and the server keeps running; once the board writes one it shows the game."""
    path = tmp_path / "state" / "ledger.sqlite3"
    with web_server(path) as base:
        status, body = get_json(base + "/api/state")
        assert status == 503 and "no ledger" in body["error"]
        _, _, page = get(base + "/")
        assert "no ledger" in page.decode() and b'role="alert"' in page
        with LedgerWriter(path) as store:
            write_games(store, [game_record(SIX, seed=5, entries=4)])
        deadline = time.monotonic() + 5
        while get(base + "/api/state")[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        status, state = get_json(base + "/api/state")
        assert status == 200 and state["seats"] == ["Alice", "Bob"]


@pytest.mark.slow
def test_a_damaged_ledger_is_said_and_left_as_it_is(tmp_path):
    """A file that is not a ledger: 503 with the reason, the server runs on, the file is not touched."""
    path = tmp_path / "ledger.sqlite3"
    path.write_bytes(b"this is not SQLite" * 100)
    before = path.read_bytes()
    with web_server(path) as base:
        status, body = get_json(base + "/api/state")
        assert status == 503 and str(path) in body["error"]
        assert get(base + "/games")[0] == 503 and get(base + "/")[0] == 200
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["ledger.sqlite3"]


def run_cli(*args: str, timeout: float = 20) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "firmware.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("args, words", [
    (["web", "--port", "0"], "out of range"),
    (["web", "--port", "http"], "invalid int value"),
    (["web", "--host", "no.such.host.invalid", "--port", "18999"], "--host"),
    (["web", "--backend", "mock"], "does not use --backend"),
    (["web", "--headless"], "does not use --headless"),
])
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, args, words):
    """Bad options: one line on standard error, exit 2, no traceback."""
    result = run_cli(*args, "--state", str(tmp_path / "l.sqlite3"))
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path):
    """Another server on the port: one line naming it, exit 2."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("web", "--host", "127.0.0.1", "--port", str(port), "--state", str(tmp_path / "l.sqlite3"))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert f"port {port}" in result.stderr and "in use" in result.stderr


def test_state_and_config_work_before_or_after_the_command(tmp_path):
    """--state before web works as after it; the config's state key is the default."""
    from firmware.cli.command import parse_args
    from firmware.web.settings import web_settings

    assert parse_args(["--state", "x.db", "web"]).state == "x.db"
    assert parse_args(["web", "--state", "x.db"]).state == "x.db"
    config = tmp_path / "config.toml"
    config.write_text(f'state = "{tmp_path / "board.sqlite3"}"\n[leds]\nlayout = "three-track-121"\n')
    state, layout, port, palette = web_settings(str(config), None)
    assert (state, layout.name, port, palette) == (tmp_path / "board.sqlite3", "three-track-121", 8121, "standard")
    assert web_settings(str(config), "other.db")[0] == Path("other.db")


def test_the_port_is_the_configs_web_port_as_the_phone_view_shows(tmp_path):
    """web.port in the config is the web view's port (the phone view shows it); a bad one is one line."""
    from firmware.errors import ConfigError
    from firmware.web.settings import web_settings

    config = tmp_path / "config.toml"
    config.write_text("[web]\nport = 8200\n")
    assert web_settings(str(config), None)[2] == 8200
    config.write_text('[web]\nport = "80"\n')
    with pytest.raises(ConfigError, match=r"config.toml: \[web\] port = '80': must be a whole number from 1 to 65535"):
        web_settings(str(config), None)
    result = run_cli("web", "--config", str(config), "--state", str(tmp_path / "l.sqlite3"))
    assert result.returncode == 2 and "[web] port = '80': must be a whole number" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_web_view_loads_no_device_and_nothing_of_the_board(tmp_path):
    """Reading the config, making the app and drawing the live board and the history load no
    device library (gpiozero, luma, spidev, rpi_ws281x, lgpio) and nothing of the board's or the
    PC's; of ``hardware`` only the layout's data and the settings the config is made of."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        write_games(store, match_records(2, seed=3))
    code = (
        "import sys; from firmware.web.settings import web_settings; from firmware.web.app import create_app; "
        "from firmware.web.follow import LedgerFollower; from firmware.web.site import Site; "
        f"state, layout, port, palette = web_settings(None, {str(path)!r}); app = create_app(LedgerFollower(state), layout); "
        "site = app.state.site; site.live(); site.games(); site.stats(); "
        "devices = ('gpiozero', 'luma', 'spidev', 'rpi_ws281x', 'lgpio', 'RPi'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in devices or m.startswith(('firmware.board', 'firmware.board.pc')) "
        "or m in ('hardware.backend', 'hardware.buzzer', 'hardware.power', 'hardware.model')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_board_does_not_import_the_web_view():
    """The board's modules (app, controller, views, simulator, console, the CLI) load no firmware.web module."""
    code = ("import sys, firmware.board.loop, firmware.board.controller, firmware.board.frames, firmware.board.pc.simulator, firmware.board.pc.console, "
            "firmware.cli; print([m for m in sys.modules if m.startswith('firmware.web')])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_board_geometry_matches_the_layout_files():
    """The drawn holes are the layout's holes (a street gap aside), every track and the game hole."""
    from hardware.layout import load_layout

    for name in ("classic-121", "three-track-121", "four-track-121"):
        real = load_layout(name)
        drawn = geometry_of(real)
        assert len(drawn.tracks) == len(real.tracks)
        for track_real, track_drawn in zip(real.tracks, drawn.tracks):
            for hole, (x, y) in zip(track_real, track_drawn):
                assert y == hole.y and x - hole.x == pytest.approx(GROUP_GAP * (hole.x // 5))
    assert len(geometry_for(3).tracks) == 3 and len(geometry_for(2, load_layout("four-track-121")).tracks) == 4
    assert len(geometry_for(3, load_layout("classic-121")).tracks) == 3  # too few tracks: the bundled one


def test_skunk_marks_follow_the_target_and_the_option():
    """The board's marks are the scorer's skunk lines: ACC at target-30 and -60, lurch at half, none for none."""
    assert line_marks(race_lines(121, SkunkLines("acc"))) == [(91, "skunk"), (61, "double skunk")]
    assert line_marks(race_lines(181, SkunkLines("triple"))) == [(151, "skunk"), (121, "double skunk"), (91, "triple skunk")]
    assert line_marks(race_lines(61, SkunkLines("lurch"))) == [(31, "lurch")]
    assert line_marks(race_lines(121, SkunkLines("none"))) == []


def test_a_game_read_back_line_by_line():
    """Each record line: what it did (undo included) and the scores after it; the race is scorer.history's."""
    played = play_record(1, [SIX, "peg Bob 2", "undo", "peg Bob 3", "go Alice"])
    assert [line["action"] for line in played.lines] == ["entry", "undo", "entry", "entry"]
    assert [line["scores"] for line in played.lines] == [[0, 2], [0, 0], [0, 3], [1, 3]]
    assert played.race["scores"] == [line["scores"] for line in played.lines] and played.race["start"] == [0, 0]


def test_api_stats_are_player_stats_of_the_finished_and_abandoned_games(served):
    """/api/stats is scorer.history.player_stats over every game's record but the one in play; /stats shows them."""
    base, records = served
    status, stats = get_json(base + "/api/stats")
    _, _, page = get(base + "/stats")
    assert status == 200
    assert stats == json.loads(json.dumps(player_stats(records[:3])))
    page = page.decode()
    for row in stats:
        assert f"<h2><bdi>{row['name']}</bdi>" in page
        if row["percentile"] is not None:
            assert f"{round(row['percentile'])}" in page and "percentile" in page


def test_hostile_paths_never_fail_the_server(served):
    """Odd game ids, encodings and query strings answer 200, 404 or 405, never a server error."""
    from urllib.parse import quote

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    base, _ = served

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.sampled_from(["/games/", "/api/games/", "/", "/games.csv?", "/stats?x="]),
           st.text(max_size=40), st.sampled_from(["", ".txt", "?a=1"]))
    def check(prefix, middle, suffix):
        status = get(base + prefix + quote(middle, safe="/?=&.") + suffix)[0]
        assert status in (200, 404, 405), (prefix, middle, suffix, status)

    check()
    assert get(base + "/games/" + "9" * 30)[0] == 404 and get(base + "/api/state")[0] == 200


def test_a_locked_ledger_is_said_and_read_again_once_free(tmp_path, monkeypatch):
    """Another program holding the database exclusively: the view says it is locked, then reads it once free."""
    import sqlite3

    import ledger.reader
    from firmware.web import follow as web_ledger
    from firmware.web.follow import LedgerFollower

    monkeypatch.setattr(web_ledger, "RETRY_SECONDS", 0.0)
    monkeypatch.setattr(ledger.reader, "BUSY_TIMEOUT_MS", 50)  # each look waits this on the lock (1 s shipped)
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        write_games(store, [game_record(SIX, seed=2, entries=5)])
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    view = LedgerFollower(path)
    try:
        snap = view.snapshot()
        assert snap.state is None and "locked" in snap.problem
    finally:
        other.execute("ROLLBACK")
        other.close()
    snap = view.snapshot()
    assert snap.problem is None and snap.state["entries"] == 5
    view.close()


def test_the_live_board_says_the_note_the_result_the_tally_and_the_undos():
    """The live part of / from a state: exact-out's note, the next counts, then the result and the match tally."""
    from firmware.web.pages import live_html

    note = replay([SIX + " exact-out target=31", "peg Bob 15", "peg Bob 15", "peg Bob 2"]).book
    state = state_dict(note)
    html = live_html(state, None, [{"action": "undo", "text": "Bob peg 2"}])
    assert "needs exactly 1" in html and 'class="note"' in html
    assert "next count <b><bdi>Bob</bdi> hand</b>" in html and "then <bdi>Alice</bdi> hand, then <bdi>Alice</bdi> crib" in html
    assert '<li class="undo"><bdi>Bob peg 2</bdi></li>' in html
    first, second = match_records(2)
    done = state_dict(replay(first + second).book)
    html = live_html(done, None, [])
    assert f'<bdi>{done["winner"]}</bdi> wins' in html and 'class="result"' in html
    assert "match after 2 games" in html and "<bdi>Bob</bdi> won 2 games (4 game points)" in html
    assert "phase" not in html and "match point" not in html


@pytest.mark.slow
@pytest.mark.skipif(OTHER_USER_PROBLEM is not None, reason=OTHER_USER_PROBLEM or "")
def test_a_server_that_cannot_write_the_folder_follows_the_running_board(tmp_path):
    """As the service runs it (the ledger's folder read-only to it): the server reads the board's
    ledger through the -wal and -shm the board keeps, and follows its entries."""
    folder = Path(tempfile.mkdtemp(prefix="cribbage-ro-"))
    try:
        folder.chmod(0o755)
        path = folder / "ledger.sqlite3"
        record = game_record(SIX, seed=8, entries=12)
        old = os.umask(0o022)  # files the other user can read, but not write
        try:
            store = LedgerWriter(path)
        finally:
            os.umask(old)
        with store:
            write_games(store, [record[:6]])
            port = free_port()
            server = subprocess.Popen(
                ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                 "firmware.cli", "web", "--state", str(path), "--host", "127.0.0.1", "--port", str(port)],
                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "HOME": "/nonexistent"},
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                base = f"http://127.0.0.1:{port}"
                state = wait_state(base, lambda s: s.get("entries") == 5)
                for line in record[6:]:
                    store.apply(parse_line(line))
                state = wait_state(base, lambda s: s.get("entries") == len(record) - 1)
                assert state == state_dict(store.book)
            finally:
                server.terminate()
                server.wait(timeout=10)
        assert sorted(p.name for p in folder.iterdir()) == ["ledger.sqlite3"]  # the board tidied up; nothing of ours
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def wait_state(base: str, ready, timeout: float = 20.0) -> dict:
    """/api/state once ``ready(state)``; the last answer after ``timeout``."""
    deadline = time.monotonic() + timeout
    state = {}
    while time.monotonic() < deadline:
        try:
            status, state = get_json(base + "/api/state")
        except OSError:
            status = None
        if status == 200 and ready(state):
            return state
        time.sleep(0.05)
    return state


@pytest.mark.slow
def test_a_game_line_changed_by_another_program_is_left_out_not_fatal(ledger):
    """An action line another program made unreadable: the game's page says so, /stats leaves the game out."""
    import sqlite3

    path, records = ledger
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE actions SET line='peg' WHERE id=(SELECT min(id) FROM actions WHERE game_id=1)")
    conn.close()
    with web_server(path) as base:
        status, _, page = get(base + "/games/1")
        stats_status, stats = get_json(base + "/api/stats")
        assert get(base + "/stats")[0] == 200
    assert status == 200 and b"no longer replays" in page and b"cannot be drawn" in page
    assert stats_status == 200 and stats == json.loads(json.dumps(player_stats(records[1:3])))


def test_warming_counts_every_game_that_is_over(ledger, tmp_path):
    """The start-up warm-up replays the finished and abandoned games (not the live one); no ledger, nothing."""
    from firmware.web.warm import warm, warm_in_background

    path, _ = ledger
    assert warm(path) == 3
    assert warm(tmp_path / "none.sqlite3") == 0
    thread = warm_in_background(path)
    thread.join(30)
    assert not thread.is_alive()
