"""The web view's pages as a player reads them: undone entries, long names, the QR code, the CSV, the charts."""

import re

from firmware.web import pages
from firmware.web.follow import LedgerFollower
from firmware.web.records import taken_back
from firmware.web.site import Site
from ledger.writer import LedgerWriter

from web_games import game_record, write_games

SIX = "game six-card seats=Alice,Bob dealer=Alice"


def up_to_a_crib(seed: int = 7) -> list[str]:
    """A six-card game's record up to and including its first crib count."""
    record = game_record(SIX, seed=seed)
    first = next(n for n, line in enumerate(record) if line.startswith("crib"))
    return record[:first + 1]


def test_taken_back_marks_what_each_undo_took_back():
    """An undo takes back the last entry standing (a redo stands again, and can be taken back again)."""
    assert taken_back(["entry", "undo"]) == {0}
    assert taken_back(["entry", "entry", "undo", "undo", "redo"]) == {0, 1}
    assert taken_back(["entry", "undo", "redo", "undo"]) == {0, 2}
    assert taken_back(["entry", "entry", "undo", "entry"]) == {1}
    assert taken_back(["undo"]) == set()


def test_after_crib_then_undo_the_crib_is_struck_out_not_the_undo(tmp_path):
    """"last entries" and the game's ledger after ``crib N`` then ``undo``: the crib entry is marked
    undone (struck out), the undo line is not."""
    state = tmp_path / "ledger.sqlite3"
    record = up_to_a_crib() + ["undo"]
    with LedgerWriter(state) as store:
        write_games(store, [record])
    follower = LedgerFollower(state)
    try:
        snap = follower.snapshot()
        undo, crib = snap.recent[:2]
        assert undo["action"] == "undo" and not undo["undone"]
        assert crib["action"] == "entry" and crib["undone"] and "crib" in crib["text"]
        html = pages.live_html(snap.state, None, list(snap.recent))
        items = re.findall(r'<li class="([^"]*)">(.*?)</li>', html)
        assert items[0][0] == "undo" and items[1][0] == "entry undone" and "crib" in items[1][1]
        assert all("undone" not in cls for cls, _ in items[2:])
        listed, played, times = Site(follower).game(1)
        rows = re.findall(r'<tr class="([^"]*)">', pages.game_page(listed, played, times))
        assert rows[-2:] == ["entry undone", "undo"] and "undone" not in "".join(rows[:-2])
    finally:
        follower.close()
    style = pages.STYLE
    assert re.search(r"\.entries li\.undone[^{]*\{[^}]*line-through", style)
    assert not re.search(r"\.entries li\.undo \{[^}]*line-through", style)


def test_a_side_card_gives_the_whole_name_in_its_title_beside_the_deals_badge(tmp_path):
    """Each score card's name carries the whole name as its title (what an ellipsis cuts, a pointer
    shows), in one head with the "deals" badge, which is no longer laid over the name."""
    state = tmp_path / "ledger.sqlite3"
    seats = "Maximilianus_Augustinus,Bartholomew_Fitzwilliam,Dé,Cat"
    with LedgerWriter(state) as store:
        write_games(store, [game_record(f"game four-hand seats={seats} dealer=Dé", seed=4, entries=5)])
    follower = LedgerFollower(state)
    try:
        snap = follower.snapshot()
    finally:
        follower.close()
    html = pages.live_html(snap.state, None, [])
    assert ('<div class="name" title="\u2068Maximilianus_Augustinus+Dé\u2069"><bdi>Maximilianus_Augustinus+Dé</bdi></div>'
            in html)  # the title isolated as every name in an attribute is
    assert len(re.findall(r'<div class="head"><div class="name" title="[^"]+"><bdi>[^<]+</bdi></div>'
                          r'<span class="badge" title="dealer">deals</span></div>', html)) == 1
    assert "position:absolute" not in pages.STYLE.split(".side .badge")[1].split("}")[0]
