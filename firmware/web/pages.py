"""The pages, rendered on the server from the templates in ``templates/`` (meaningful without JavaScript).

Nothing runs inline: the style is one ``<style>`` element whose hash the
Content-Security-Policy names (``CONTENT_SECURITY_POLICY``), the live updates a
script served as a file (``/live.js``). The functions here gather what each
template shows; every name from the ledger is escaped by the templates and
passed through :mod:`.names`.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup

from ledger.rows import GameRow, GameTimes
from scorer.game import PHASE_WORDS, Phase
from scorer.history import race_lines
from scorer.variants import VARIANTS, SkunkLines

from ..server.sheets import csv_cell
from ..wire.acts import usable_by_seat
from .board import COLOURS, PALETTES, board_svg, geometry_for, peg_hole
from .charts import CHART_FONT, PHONE_FONT, distribution_svg, race_svg
from .names import visible
from .records import line_marks, ordinal, taken_back
from .render import ENV, render

if TYPE_CHECKING:
    from hardware.layout import Layout

HERE = Path(__file__).resolve().parent
# Each side's colour in the page's palette: the root's class (``palette-NAME``) picks the palette,
# every element of side i takes --c from its class ``side-i``, and what is drawn in a side's colour
# (score cards, pegs, start holes, lap badges, chart lines and bars) is drawn in --c.
SIDE_COLOURS = (
    ":root { " + " ".join(f"--c{i}:{colour};" for i, colour in enumerate(COLOURS)) + " }\n"
    + "".join(f".palette-{name} {{ " + " ".join(f"--c{i}:{colour};" for i, colour in enumerate(colours)) + " }\n"
              for name, colours in PALETTES.items() if name != "standard")
    + "".join(f".side-{i} {{ --c:var(--c{i}); }}\n" for i in range(len(COLOURS)))
    + ".peg, .lap, .card.player .bar { fill:var(--c); } .hole.start, .race .line, .legend-item line { stroke:var(--c); }\n"
)
CHART_STYLE = (f".race text, .dist text {{ font-size:{CHART_FONT}px; }}\n"
               f"@media (max-width: 600px) {{ .race text, .dist text {{ font-size:{PHONE_FONT}px; }} }}\n")
STYLE = (HERE / "style.css").read_text(encoding="utf-8") + SIDE_COLOURS + CHART_STYLE
SCRIPT = (HERE / "live.js").read_bytes()
SCRIPT_URL = f"/live.js?v={hashlib.sha256(SCRIPT).hexdigest()[:12]}"  # a new script, a new address
PHONE_SCRIPT = (HERE / "phone.js").read_bytes()
PHONE_SCRIPT_URL = f"/phone.js?v={hashlib.sha256(PHONE_SCRIPT).hexdigest()[:12]}"
PALETTE_COOKIE = "cribbage_palette"  # a browser's choice of palette (palette.js sets it, app.InPalette reads it)
PALETTE_SCRIPT = ((HERE / "palette.js").read_text(encoding="utf-8")
                  .replace("PALETTE_NAMES", json.dumps(list(PALETTES))).replace("PALETTE_COOKIE", PALETTE_COOKIE)
                  .encode())
PALETTE_SCRIPT_URL = f"/palette.js?v={hashlib.sha256(PALETTE_SCRIPT).hexdigest()[:12]}"
HTML_OPEN = "<!doctype html><html lang=en>"  # how base.html begins
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; script-src 'self'; style-src 'sha256-{STYLE_HASH}'; img-src 'self'; "
    "connect-src 'self'; manifest-src 'self'; worker-src 'self'; media-src 'self'; base-uri 'none'; "
    "form-action 'self'; "
    "frame-ancestors 'none'"
)
NAV = (("/", "Board"), ("/phone", "My seat"), ("/games", "Games"), ("/stats", "Stats"))
# What every page shares (base.html); the style is the project's own stylesheet, put in as it is.
ENV.globals.update(style=Markup(STYLE), nav=NAV, palettes=tuple(PALETTES), live_script_url=SCRIPT_URL,
                   palette_script_url=PALETTE_SCRIPT_URL, phone_script_url=PHONE_SCRIPT_URL)


def in_palette(html: bytes, palette: str) -> bytes:
    """A page (bytes of a template extending base.html) opened in a palette of the LEDs: its root
    element's class. Anything else is left as it is."""
    if palette == "standard" or palette not in PALETTES or not html.startswith(HTML_OPEN.encode()):
        return html
    return html.replace(HTML_OPEN.encode(), f'{HTML_OPEN[:-1]} class="palette-{palette}">'.encode(), 1)


def live_title(state: dict | None) -> str:
    """The page title: the scores, so a tab says them too. Nothing invisible: a tab shows a name's
    isolates (U+2068, U+2069) as boxes, and a name's own hidden characters are shown as U+FFFD."""
    if not state or not state.get("variant"):
        return "cribbage-board"
    return " · ".join(f"{visible(s['name'])} {s['score']}" for s in state["sides"]) + " · cribbage-board"


def said(state: dict | None, recent: list[dict]) -> tuple[str, str]:
    """(key, text): the newest entry as a screen reader hears it ("Blue pegged 4 for the crib, Blue now
    45"), and what tells it from the one before (the live region says it only when the key changes)."""
    if not recent or not state or not state.get("sides") or "said" not in recent[0]:
        return "", ""
    newest = recent[0]
    text = visible(newest["said"])
    side = next((s for s in state["sides"] if newest.get("seat") in s["seats"]), None)
    if side is not None:
        text += f", {visible(side['name'])} now {side['score']}"
    games = state.get("match", {}).get("games", 0)
    return f"{games}.{newest['n']}.{newest['action']}.{text}", text


def _count(n: int, noun: str) -> str:
    """"1 game", "2 games"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def live_context(state: dict | None, problem: str | None, recent: list[dict], messages=(),
                 layout: Layout | None = None) -> dict:
    """What live.html draws: the ledger's problem, or the game (None before the first) with the
    board, and the last entries."""
    if problem or not state or not state.get("variant"):
        return {"problem": problem, "game": None}
    target = state["target"]
    sides = []
    for i, side in enumerate(state["sides"]):
        sides.append({"colour": i % len(COLOURS), "name": side["name"], "score": side["score"], "back": side["back"],
                      "to_go": target - side["score"], "lap": peg_hole(side["score"], target)[1],
                      "won": state.get("winner") == side["name"], "deals": state["dealer"] in side["seats"],
                      "seats": side["seats"] if len(side["seats"]) > 1 else []})
    phase = Phase(state["phase"])
    options = state["options"]
    extras = [name for name, on in (("exact-out", options["exact_out"]), ("muggins", options["muggins"])) if on]
    if options["skunk"] != "acc":
        extras.append(f"skunk lines: {options['skunk']}")
    match = state["match"]
    game = {
        "sides": sides, "variant": state["variant"], "target": target, "deal": state["deal"],
        "dealer": state["dealer"], "phase": PHASE_WORDS[phase], "heels": phase is Phase.HEELS,
        "order": [] if state.get("winner") else state.get("show_order") or [], "extras": extras,
        "winner": state.get("winner"), "note": state.get("note"),
        "match": ({"games": _count(match["games"], "game"),
                   "tally": [{"side": t["side"], "wins": _count(t["wins"], "game"),
                              "points": _count(t["game_points"], "game point")} for t in match["tally"] if t["wins"]]}
                  if match["games"] else None),
    }
    if state.get("winner"):
        game.update(margin=state["margin"], result=state["result"],
                    points=_count(state["game_points"], "game point"))
    geometry = geometry_for(len(state["sides"]), layout)
    variant = VARIANTS.get(state["variant"])
    lines = [] if variant and variant.lowball else line_marks(race_lines(target, SkunkLines(options["skunk"])))
    game["boards"] = (board_svg(state, geometry, lines), board_svg(state, geometry, lines, tall=True))  # CSS shows one
    return {"problem": None, "game": game, "recent": recent, "messages": list(messages)}


def live_html(state: dict | None, problem: str | None, recent: list[dict], messages=(),
              layout: Layout | None = None) -> str:
    """The inside of the live board: scores, what comes next, the board, the last entries."""
    return render("live.html", live_context(state, problem, recent, messages, layout))


def board_page(state, problem, recent, messages=(), layout=None) -> str:
    """``/``: the live board, with the mark :mod:`.qr`'s code takes the place of (per request)."""
    key, _ = said(state, recent)  # said by live.js only for an entry made after the page was loaded
    return render("board.html", {**live_context(state, problem, recent, messages, layout),
                                 "title": live_title(state), "said_key": key})


# ---- a seat's phone --------------------------------------------------------------

PLAY_CHIPS = (1, 2, 3, 4, 5, 6, 8, 12)  # the play's usual counts: a go, fifteen or pair, runs, pair royal
SUITS = (("C", "\u2663"), ("D", "\u2666"), ("H", "\u2665"), ("S", "\u2660"))
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
CARDS = tuple((f"{rank}{suit}", f"{'10' if rank == 'T' else rank}{symbol}") for rank in RANKS for suit, symbol in SUITS)


def seat_status(state: dict | None, seat: int) -> dict:
    """The seat's glance (as ``phone.js`` keeps it): every side's ``name`` and ``score`` (``mine`` for
    the seat's own), and ``note`` when there is no player to show, else who ``won`` (and the ``result``)
    or the ``next`` count (with ``after``)."""
    if not state or not state.get("variant"):
        return {"note": "No game on the board yet.", "sides": []}
    seats = state.get("seats") or []
    name = seats[seat] if seat < len(seats) else None
    sides = [{"name": side["name"], "score": side["score"], "mine": name in side["seats"]} for side in state["sides"]]
    if name is None:
        return {"note": "This game has no player on your seat.", "sides": sides}
    return {"note": None, "sides": sides, "won": state.get("winner"), "result": state.get("result"), "next": state.get("next"),
            "after": " (after the play)" if state.get("phase") in ("heels", "play") else ""}


def seat_acts(state: dict | None, seat: int) -> tuple[str, ...]:
    """The acts the seat's phone may use now (none for a seat the game does not have)."""
    usable = usable_by_seat(state)
    return usable[seat] if seat < len(usable) else ()


def phone_context(live: dict, seat: int, token: str, away: str = "") -> dict:
    """What phone.html shows: a seat's controls (play chips and go, a keypad for the show, heels, muggins,
    undo, which two to throw, check my count) over the live board; ``phone.js`` sends each tap and
    shows the board's answer."""
    variant = VARIANTS.get((live["state"] or {}).get("variant") or "")
    acts = list(seat_acts(live["state"], seat))
    return {**live_context(live["state"], live["problem"], live["recent"], live["messages"]),
            "seat": seat, "token": token, "away": away, "status": seat_status(live["state"], seat),
            "acts": acts, "acts_json": json.dumps(acts), "state_json": json.dumps(live["state"]),
            "hand": variant.hand_size if variant else 4, "chips": PLAY_CHIPS, "cards": CARDS}


SERVICE_WORKER = ((HERE / "sw.js").read_text(encoding="utf-8")
                  .replace("PHONE_SCRIPT", PHONE_SCRIPT_URL).replace("LIVE_SCRIPT", SCRIPT_URL)
                  .replace("PALETTE_SCRIPT", PALETTE_SCRIPT_URL)
                  .replace("VERSION", hashlib.sha256(STYLE.encode() + PHONE_SCRIPT + SCRIPT + PALETTE_SCRIPT)
                           .hexdigest()[:12]))


def manifest() -> str:
    """The web manifest: the web view installs as an app that opens on the seat's page."""
    return json.dumps({
        "name": "cribbage-board", "short_name": "Cribbage", "start_url": "/phone", "scope": "/",
        "display": "standalone", "background_color": "#14110f", "theme_color": "#14110f",
        "icons": [{"src": f"/icon-{size}.png", "sizes": f"{size}x{size}", "type": "image/png", "purpose": "any"}
                  for size in (192, 512)],
    })


# ---- history ----------------------------------------------------------------


def _date(value: str | None) -> str:
    return value.replace("T", " ").rstrip("Z")[:16] if value else "—"


def _day(value: str | None) -> tuple[str, str] | None:
    """A timestamp's date and its time of day (UTC), for a narrow column; None if it has none."""
    return (value[:10], value[11:16]) if value and len(value) >= 16 else None


def _time(value: str | None) -> str:
    """The time of day of an ISO timestamp (UTC), to the second."""
    return value[11:19] if value and len(value) >= 19 else ""


def games_context(games: list[GameRow], problem: str | None, links: dict | None = None) -> dict:
    """What games.html shows: a page of games, newest first (date, players, variant, result, margin),
    the links to the pages beside it (``newest``, ``newer``, ``older``: :func:`.site.page_links`) and
    what it says when it lists none (``empty``)."""
    return {"problem": problem, "rows": [(g, _day(g.finished or g.started)) for g in games],
            "empty": "No finished games yet.", "newest": None, "newer": None, "older": None, **(links or {})}


def game_context(game: GameRow, played, times: GameTimes) -> dict:
    """What game.html shows: one game's result, the pegging race, its ledger entries with times."""
    sides = [side.name for side in played.game.sides]
    r = played.race
    race = race_svg([tuple(r["start"])] + [tuple(s) for s in r["scores"]], r["sides"], r["target"],
                    line_marks(r["lines"]))
    stamps = times.entries
    undone = taken_back([item["action"] for item in played.lines])
    rows = [{**item, "undone": k in undone, "score_line": " – ".join(str(s) for s in item["scores"]),
             "time": _time(stamps[item["n"] - 1] if item["n"] - 1 < len(stamps) else None)}
            for k, item in enumerate(played.lines)]
    return {"game": game, "sides": sides, "scores": list(zip(sides, played.game.state.scores)), "race": race,
            "started": _date(times.started), "finished": _date(times.finished) if times.finished else None,
            "rows": rows, "problems": played.problems}


def games_csv(games: list[GameRow], replayed: dict[int, dict[str, int]] | None = None) -> str:
    """All games as CSV, one row a game; no cell can start a formula. A game the ledger lists
    without scores (abandoned) takes them from ``replayed`` (game id: side: score), as its page shows them."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["id", "started", "finished", "variant", "target", "players", "scores", "status",
                     "winner", "loser", "result", "margin", "game_points"])
    for g in games:
        known = g.scores if g.scores is not None else (replayed or {}).get(g.id, {})
        scores = " ".join(f"{side}:{score}" for side, score in known.items())
        row = [g.id, g.started or "", g.finished or "", g.variant, g.target, " ".join(g.seats), scores, g.status,
               g.winner or "", g.loser or "", g.result or "", "" if g.margin is None else g.margin,
               "" if g.game_points is None else g.game_points]
        writer.writerow([csv_cell(cell) for cell in row])
    return out.getvalue()


# ---- statistics ----------------------------------------------------------------


def player_key(name: str, kind: str = "player"):
    """What tells a player (or a partnership, ``A+C`` in either order) apart: names ignoring case."""
    if kind == "partnership":
        return frozenset(seat.lower() for seat in name.split("+"))
    return name.lower()


def _figure(value, fmt: str = "{}") -> str:
    return "—" if value is None else fmt.format(value)


def stats_context(players: list[dict], tables: dict[int, dict[int, int]], problem: str | None,
                  colours: dict | None = None, seen: dict | None = None) -> dict:
    """What stats.html shows: each player (and partnership), as ``scorer.history.player_stats`` counts
    them: results, averages, best hand, heels, and the hands against the exact distribution of all
    hands, in the player's colour on the board (``colours``: :func:`.site.side_colours`; the first
    side's if unknown). ``seen``, if given, is ``scorer.history.PlayerTally.seen()`` of the same
    players: how many hands scored each total, so the charts need not count the hands again."""
    cards = []
    for p in [] if problem else players:
        colour = (colours or {}).get(player_key(p["name"], p["kind"]), 0) % len(COLOURS)
        facts = [("games", p["games"]), ("wins", p["wins"]), ("skunks given", p["skunks_given"]),
                 ("skunks taken", p["skunks_taken"]), ("avg hand", _figure(p["average_hand"], "{:.2f}")),
                 ("avg crib", _figure(p["average_crib"], "{:.2f}")),
                 ("play / deal", _figure(p["play_per_deal"], "{:.2f}")),
                 ("best hand", _figure(p["best_hand"])), ("heels", p["heels"]), ("deals", p["deals"])]
        if p["abandoned"]:
            facts.append(("abandoned", p["abandoned"]))
        chart = None
        by_size = p["hands_by_size"]
        if by_size:
            size = max(by_size, key=lambda k: len(by_size[k]))
            kept = (seen or {}).get((p["kind"], player_key(p["name"], p["kind"])), {}).get(size)
            if kept is None or sum(kept.values()) != len(by_size[size]):
                kept = dict(Counter(by_size[size]))
            chart = distribution_svg(kept, tables[int(size)], p["name"], int(size), COLOURS[colour])
        percentile = None if p["percentile"] is None else ordinal(round(p["percentile"]))
        cards.append({"name": p["name"], "partnership": p["kind"] == "partnership", "colour": colour, "facts": facts,
                      "chart": chart, "percentile": percentile, "hands": len(p["hands"])})
    return {"problem": problem, "cards": cards}
