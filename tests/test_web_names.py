"""Names from the ledger as the web view's pages show them (firmware/web/names.py): a name that lies
(bidirectional controls, invisible characters) isolated and shown as it is, an honest one unchanged."""

import json
import re
from html.parser import HTMLParser
from types import SimpleNamespace

from ledger.rows import GameRow
from scorer.history import player_stats
from scorer.record import replay
from scorer.report import state_dict

from web_games import match_records

LIARS = {"Alice": "\u202eAlice", "Bob": "B\u200bo\u2060b\ufeff", "Cat": "\u2069\u202bCat\u2066"}
HIDDEN = re.compile("[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066\u2067\ufeff]")


def lying(data):
    """``data`` (JSON-able) with every seat name replaced by its liar."""
    text = json.dumps(data)
    for name, liar in LIARS.items():
        text = text.replace(f'"{name}', json.dumps(liar)[:-1]).replace(f" {name}", " " + json.dumps(liar)[1:-1])
    return json.loads(text)


class Shown(HTMLParser):
    """The text a page shows that holds one of ``words`` outside <bdi> and outside U+2068...U+2069."""

    VOID = {"meta", "br", "circle", "line", "rect", "polyline", "path", "input", "link"}

    def __init__(self, words):
        super().__init__()
        self.words, self.stack, self.bare = words, [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)
        for name, value in attrs:
            if name not in ("class", "href", "data-side") and value:
                self.handle_data(value)

    def handle_startendtag(self, tag, attrs):
        for name, value in attrs:
            if name not in ("class", "href", "data-side") and value:
                self.handle_data(value)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        outside = re.sub("\u2068[^\u2068\u2069]*\u2069", "", data)
        if "title" in self.stack and "head" in self.stack:
            return  # the tab's title: nothing invisible in it at all (test_titles_hold_nothing_invisible)
        if "bdi" not in self.stack and any(word in outside for word in self.words):
            self.bare.append((tuple(self.stack), data))


def check_names(html: str, words=("Alice", "o\ufffdb", "Cat", "אבי")) -> None:
    """Every name the page shows is isolated, and no character that hides or reorders text is left."""
    assert not HIDDEN.search(html), HIDDEN.search(html)
    assert re.sub("\u2068[^\u2068\u2069]*\u2069", "", html).count("\u2069") == 0
    shown = Shown(words)
    shown.feed(html)
    assert shown.bare == []


def test_names_that_lie_are_isolated_and_shown_as_they_are():
    """Names a ledger may hold (right-to-left override, zero-width and invisible characters, a stray
    isolate; a right-to-left script) are each isolated on every page (<bdi>, or U+2068..U+2069 in
    title attributes and SVG; the tab's title holds nothing invisible) and their hidden characters shown
    as U+FFFD, so "Bob 16" can never read "61 boB"."""
    from firmware.web import pages
    from firmware.web.records import play_record

    first, second = match_records(2, seats="Alice,Bob")
    live = replay(["game three-hand seats=Alice,Bob,Cat dealer=Cat", "peg Bob 2", "peg Cat 3", "undo"]).book
    state = lying(state_dict(live))
    recent = lying([{"action": "entry", "text": "Bob pegs 2"}, {"action": "undo", "text": "Cat pegs 3"}])
    board = pages.board_page(state, None, recent)
    check_names(board)
    assert "<bdi>\ufffdAlice</bdi>" in board and "<bdi>B\ufffdo\ufffdb\ufffd</bdi>" in board
    assert "<title>\ufffdAlice 0 · B\ufffdo\ufffdb\ufffd 2 · " in board  # hidden characters shown, no isolates in a tab

    done = state_dict(replay(first + second).book)
    check_names(pages.live_html(lying(done), None, []))

    rows = [GameRow(2, 1, "six-card", tuple(LIARS[n] for n in ("Alice", "Bob")), 121, "finished",
                    winner=LIARS["Bob"], loser=LIARS["Alice"], result="skunk", margin=40, game_points=2),
            GameRow(1, 1, "three-hand", tuple(LIARS.values()), 121, "abandoned"),
            GameRow(3, None, "six-card", ("אבי", "Cat"), 121, "finished", winner="אבי", result="win", margin=3)]
    check_names(pages.render("games.html", pages.games_context(rows, None)))

    played = play_record(1, first)
    race = lying(played.race)
    sides = [SimpleNamespace(name=name) for name in race["sides"]]
    lines = lying([{**line, "line": line["line"], "text": line["text"]} for line in played.lines])
    stand_in = SimpleNamespace(game=SimpleNamespace(sides=sides, state=played.game.state), race=race, lines=lines,
                               problems=[])
    check_names(pages.render("game.html", pages.game_context(rows[0], stand_in,
                                                          SimpleNamespace(entries=[], started=None, finished=None))))

    players = lying(json.loads(json.dumps(player_stats([first, second]))))
    from scorer.distribution import distribution

    check_names(pages.render("stats.html", pages.stats_context(players, {4: distribution(4, False)}, None)))


def test_a_right_to_left_name_keeps_its_letters():
    """Isolation changes no letter of an honest name in any script, and leaves emoji joiners be."""
    from firmware.web.names import name_text, visible
    from firmware.web.render import ENV

    for name in ("Alice", "אבי", "عليّ", "Zoë", "👩\u200d👩\u200d👧", "Anne-Marie"):
        assert visible(name) == name
        assert name_text(name) == f"\u2068{name}\u2069"
        assert ENV.from_string("<bdi>{{ name|visible }}</bdi>").render(name=name) == f"<bdi>{name}</bdi>"
