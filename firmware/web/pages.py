"""The pages, rendered on the server as plain HTML (meaningful without JavaScript).

Nothing runs inline: the style is one ``<style>`` element whose hash the
Content-Security-Policy names (``CONTENT_SECURITY_POLICY``), the live updates a
script served as a file (``/live.js``). Every name from the ledger goes through
:mod:`.names`.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from ledger.rows import GameRow, GameTimes
from scorer.game import PHASE_WORDS, Phase
from scorer.history import race_lines
from scorer.variants import VARIANTS, SkunkLines

from .board import COLOURS, PALETTES, board_svg, geometry_for, peg_hole
from .charts import CHART_FONT, PHONE_FONT, distribution_svg, race_svg
from .names import name_html, name_text, text_html, visible
from .qr import MARK as QR_MARK
from .records import line_marks, ordinal, taken_back

if TYPE_CHECKING:  # annotations only
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
HTML_OPEN = "<!doctype html><html lang=en>"
# The choice of palette at the foot of every page: shown by palette.js, which makes it work
PALETTE_CHOICE = ('<footer class="palette" id="palette-choice" hidden><label>Colours <select id="palette">'
                  + "".join(f'<option value="{name}">{name}</option>' for name in PALETTES) + "</select></label></footer>")
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; script-src 'self'; style-src 'sha256-{STYLE_HASH}'; img-src 'self'; "
    "connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
NAV = (("/", "Board"), ("/phone", "My seat"), ("/games", "Games"), ("/stats", "Stats"))
HEAD_LINKS = ('<link rel="manifest" href="/manifest.webmanifest"><meta name="theme-color" content="#14110f">'
              '<link rel="apple-touch-icon" href="/icon-192.png">')


def page(title: str, here: str, body: str, live: bool = False, script: str | None = None) -> str:
    """A whole page: the header, the body, the style inline (allowed by its hash), the live
    page's scripts by their addresses (live.js, then ``script``: nothing fetched from elsewhere)."""
    links = "".join(f'<a href="{href}"{" class=here" if href == here else ""}>{name}</a>' for href, name in NAV)
    brand = "span" if "<h1" in body else "h1"  # a page without a heading of its own is headed by the brand
    # the live state in words beside its dot (live.js changes both): a phone has no hover
    dot = ('<span class="live-state"><span id="live-dot" class="live-dot" aria-hidden="true"></span>'
           '<span id="live-word" role="status">not live</span></span>') if live else ""
    scripts = (SCRIPT_URL, script) if script else (SCRIPT_URL,)  # live.js first: a page's own script hears it
    script = "".join(f'<script src="{src}" defer></script>' for src in scripts) if live else ""
    refresh = '<noscript><meta http-equiv="refresh" content="10"></noscript>' if live else ""
    return (
        f"{HTML_OPEN}<head><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="description" content="The live cribbage board: scores, pegs and whose count is next">'
        f"{refresh}<title>{escape(title)}</title>{HEAD_LINKS}<style>{STYLE}</style>"
        f'<script src="{PALETTE_SCRIPT_URL}" defer></script></head><body>'  # deferred: it blocks no drawing
        f'<header><{brand} class="brand">cribbage-board</{brand}>{links}{dot}</header>'
        f"<main>{body}</main>{PALETTE_CHOICE}{script}</body></html>"
    )


def in_palette(html: bytes, palette: str) -> bytes:
    """A page (bytes of :func:`page`) opened in a palette of the LEDs: its root element's class.
    Anything else is left as it is."""
    if palette == "standard" or palette not in PALETTES or not html.startswith(HTML_OPEN.encode()):
        return html
    return html.replace(HTML_OPEN.encode(), f'{HTML_OPEN[:-1]} class="palette-{palette}">'.encode(), 1)


def problem_html(problem: str) -> str:
    return f'<p class="problem" role="alert">{escape(visible(problem))}</p>'


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


def live_html(state: dict | None, problem: str | None, recent: list[dict], messages=(),
              layout: Layout | None = None) -> str:
    """The inside of the live board: scores, what comes next, the board, the last entries."""
    if problem:
        return problem_html(problem) + '<p class="muted">This page keeps trying and shows the game once the ledger can be read.</p>'
    if not state or not state.get("variant"):
        return '<p class="problem">No game in the ledger yet: start one on the board.</p>'
    sides_html = []
    for i, side in enumerate(state["sides"]):
        deals = state["dealer"] in side["seats"]
        won = state.get("winner") == side["name"]
        seats = ", ".join(name_html(seat) for seat in side["seats"]) if len(side["seats"]) > 1 else ""
        sides_html.append(
            f'<section class="side side-{i % len(COLOURS)}{" winner" if won else ""}" data-side="{escape(visible(side["name"]))}">'
            + f'<div class="head"><div class="name" title="{escape(name_text(side["name"]))}">{name_html(side["name"])}</div>'
            + ('<span class="badge" title="dealer">deals</span>' if deals else "") + "</div>"
            f'<div class="score" data-score>{side["score"]}</div>'
            f'<div class="sub">back peg {side["back"]} · {state["target"] - side["score"]} to go'
            + (f" · lap {lap + 1}" if (lap := peg_hole(side["score"], state["target"])[1]) else "")
            + "</div>" + (f'<div class="sub seats" title="{escape(", ".join(name_text(seat) for seat in side["seats"]))}">{seats}</div>'
                          if seats else "") + "</section>"
        )
    phase = Phase(state["phase"])
    facts = [f'{escape(state["variant"])} to <b>{state["target"]}</b>', f'deal <b>{state["deal"]}</b>',
             f'<b>{name_html(state["dealer"])}</b> deals', f'<b>{PHASE_WORDS[phase]}</b>'
             + (" <span class=muted>(a jack cut: 2 for the dealer, his heels)</span>" if phase is Phase.HEELS else "")]
    order = state.get("show_order") or []
    if order and not state.get("winner"):
        rest = ", then ".join(f"{name_html(o['seat'])} {o['count']}" for o in order[1:])
        facts.append(f'next count <b>{name_html(order[0]["seat"])} {order[0]["count"]}</b>'
                     + (f" <span class=muted>then {rest}</span>" if rest else ""))
    options = state["options"]
    extras = [name for name, on in (("exact-out", options["exact_out"]), ("muggins", options["muggins"])) if on]
    if options["skunk"] != "acc":
        extras.append(f"skunk lines: {options['skunk']}")
    if extras:
        facts.append(f'<span class="muted">{escape(", ".join(extras))}</span>')
    parts = [f'<div class="sides n{len(sides_html)}">{"".join(sides_html)}</div>', f'<div class="facts">{"<span>" + "</span><span>".join(facts) + "</span>"}</div>']
    if state.get("winner"):
        result = state["result"].replace("-", " ")
        parts.append(f'<div class="result">{name_html(state["winner"])} wins by {state["margin"]}'
                     + ("" if result == "win" else f", a {escape(result)}")
                     + f' ({_count(state["game_points"], "match point")})</div>')
    if state.get("note"):
        parts.append(f'<div class="note">{text_html(state["note"])}</div>')
    match = state["match"]
    if match["games"]:
        tally = ", ".join(f"{name_html(t['side'])} won {_count(t['wins'], 'game')} "
                          f"({_count(t['game_points'], 'match point')})" for t in match["tally"] if t["wins"])
        parts.append(f'<div class="facts"><span>match after {_count(match["games"], "game")}: {tally}</span></div>')
    left = "".join(parts)
    geometry = geometry_for(len(state["sides"]), layout)
    variant = VARIANTS.get(state["variant"])
    lines = [] if variant and variant.lowball else line_marks(race_lines(state["target"], SkunkLines(options["skunk"])))
    board = board_svg(state, geometry, lines) + board_svg(state, geometry, lines, tall=True)  # CSS shows one
    items = "".join(f'<li class="{e["action"]}{" undone" if e.get("undone") else ""}">{text_html(e["text"])}</li>'
                    for e in recent)  # an entry an undo took back is struck out, the undo is not
    entries = (f'<h2>last entries</h2><ol class="entries" reversed>{items}</ol>' if recent
               else '<p class="muted">No entries yet in this game.</p>')
    notes = "".join(problem_html(m) for m in messages)
    return f'<div class="live"><div>{left}{notes}</div><div>{board}{entries}</div></div>'


def board_page(state, problem, recent, messages=(), layout=None) -> str:
    inner = live_html(state, problem, recent, messages, layout)
    key, _ = said(state, recent)  # said by live.js only for an entry made after the page was loaded
    region = f'<p id="said" class="vh" role="status" aria-live="polite" aria-atomic="true" data-key="{escape(key)}"></p>'
    return page(live_title(state), "/", f'<div id="live">{inner}</div>{region}{QR_MARK}', live=True)  # the QR per request


# ---- a seat's phone --------------------------------------------------------------

PLAY_CHIPS = (1, 2, 3, 4, 5, 6, 8, 12)  # the play's usual counts: a go, fifteen or pair, runs, pair royal
SUITS = (("C", "\u2663"), ("D", "\u2666"), ("H", "\u2665"), ("S", "\u2660"))
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")


def pair_page(code: str) -> str:
    """``/P/CODE``: one button that pairs this phone (a page first, so that a link preview pairs nothing)."""
    body = ('<div class="pair"><h1>Score from this phone</h1>'
            '<p>This pairs this phone with the seat the board showed the code for. The code works once, '
            'for two minutes.</p><form method="post" action="/pair">'
            f'<input type="hidden" name="code" value="{escape(code[:64])}">'
            '<button type="submit">Pair this phone</button></form></div>')
    return page("Pair a phone · cribbage-board", "/phone", body)


def pair_result(message: str) -> str:
    return page("Not paired · cribbage-board", "/phone",
                f'<h1>Not paired</h1>{problem_html(message)}<p><a href="/">Watch the board</a></p>')


def unpaired_page(message: str) -> str:
    return page("My seat · cribbage-board", "/phone",
                f'<h1>My seat</h1><p>{escape(message)}.</p><p>Any phone can watch the game: '
                '<a href="/">the board</a>.</p>')


def seat_status(state: dict | None, seat: int) -> str:
    """The seat's line: its player and score, and the next count (as ``phone.js`` keeps it)."""
    if not state or not state.get("variant"):
        return "No game on the board yet."
    seats = state.get("seats") or []
    if seat >= len(seats):
        return "This game has no player on your seat."
    name = seats[seat]
    side = next((side for side in state["sides"] if name in side["seats"]), None)
    line = f"You: <b>{name_html(name)}</b> {side['score'] if side else ''}"
    upcoming = state.get("next")
    if state.get("winner"):
        line += f"<span>{name_html(state['winner'])} won</span>"
    elif upcoming:
        after = " (after the play)" if state.get("phase") in ("heels", "play") else ""
        line += f"<span>Next count: {name_html(upcoming['seat'])} {escape(upcoming['count'])}{after}</span>"
    return line


def _allowed(state: dict | None, seat: int) -> dict[str, bool]:
    """Which of the seat's buttons can be used now (``phone.js`` keeps them so): heels and the crib for
    the dealer, muggins when it is on."""
    state = state or {}
    seats = state.get("seats") or []
    dealer = seat < len(seats) and state.get("dealer") == seats[seat]
    return {"heels": dealer and state.get("phase") == "heels", "crib": dealer,
            "claim": bool(state.get("options", {}).get("muggins"))}


def phone_page(live: dict, seat: int, token: str, away: str = "") -> str:
    """``/phone``: a seat's controls (play chips, a keypad for the show, heels, muggins, undo, which
    two to throw, check my count) over the live board; ``phone.js`` sends each tap and shows the
    board's answer."""
    chips = "".join(f'<button type="button" data-act="peg" data-points="{n}">+{n}</button>' for n in PLAY_CHIPS)
    digits = "".join(f'<button type="button" data-digit="{d}">{d}</button>' for d in "123456789")
    cards = "".join(f'<button type="button" data-card="{rank}{suit}" aria-pressed="false">'
                    f'{"10" if rank == "T" else rank}{symbol}</button>'
                    for rank in RANKS for suit, symbol in SUITS)
    off = {act: "" if on else " disabled" for act, on in _allowed(live["state"], seat).items()}
    controls = (
        f'<p id="status" class="status">{seat_status(live["state"], seat)}</p>'
        f'<p id="answer" class="answer{" refused" if away else ""}" role="status" aria-live="polite">{escape(away)}</p>'
        f'<section class="pad"><h2>The play</h2><div class="keys">{chips}</div></section>'
        '<section class="pad"><h2>Points</h2><div id="dial" class="dial" aria-live="off">0</div>'
        f'<div class="keys digits">{digits}<button type="button" data-digit="clear">Clear</button>'
        '<button type="button" data-digit="0">0</button>'
        '<button type="button" data-digit="19" title="19: a hand of no points">19</button></div>'
        '<div class="row"><button type="button" class="go" data-act="hand">My hand</button>'
        f'<button type="button" class="go" data-act="crib"{off["crib"]}>Crib</button>'
        '<button type="button" data-act="peg">Play</button></div>'
        f'<div class="row"><button type="button" data-act="heels"{off["heels"]}>His heels</button>'
        f'<button type="button" data-act="claim"{off["claim"]}>Muggins</button>'
        '<button type="button" class="warn" data-act="undo">Undo mine</button></div></section>'
        '<section class="pad"><h2>Which two to throw?</h2><p id="coach-pick" class="muted">Pick the six cards dealt.</p>'
        f'<div class="cards" id="coach-cards">{cards}</div>'
        '<div class="row choice"><label><input type="radio" name="coach-crib" id="coach-dealer"> My crib</label>'
        '<label><input type="radio" name="coach-crib" id="coach-pone" checked> Their crib</label></div>'
        '<table class="ranks" id="coach-table" hidden><thead><tr><th>Throw</th><th>Keep</th><th class="n">Points</th>'
        '<th class="n">Hand</th><th class="n">Crib</th></tr></thead><tbody id="coach-ranks"></tbody></table>'
        '<p id="coach-note" class="muted"></p>'
        '<div class="row"><button type="button" id="coach-clear">Clear</button></div></section>'
        '<section class="pad"><h2>Check my count</h2><p id="pick" class="muted">Pick your hand, then the starter.</p>'
        f'<div class="cards" id="cards">{cards}</div><p id="counted" class="answer"></p>'
        '<p id="count-coach" class="muted"></p>'
        '<div class="row"><button type="button" id="count-clear">Clear</button>'
        '<button type="button" class="go" id="count-peg" disabled>Peg it</button></div></section>'
        '<section class="pad"><h2>This phone</h2>'
        '<label><input type="checkbox" id="awake" checked> Keep the screen on</label>'
        '<p id="awake-note" class="muted"></p>'
        '<label><input type="checkbox" id="speak"> Say each entry aloud</label>'
        '<div class="row"><button type="button" class="warn" id="unpair">Unpair this phone</button></div></section>'
    )
    inner = live_html(live["state"], live["problem"], live["recent"], live["messages"])
    state = escape(json.dumps(live["state"]))
    variant = VARIANTS.get((live["state"] or {}).get("variant") or "")
    hand = variant.hand_size if variant else 4
    body = (f'<div id="phone" data-seat="{seat}" data-token="{escape(token)}" data-hand="{hand}" '
            f'data-state="{state}">{controls}</div>'
            f'<h2>The board</h2><div id="live">{inner}</div>')
    return page("My seat · cribbage-board", "/phone", body, live=True, script=PHONE_SCRIPT_URL)


SERVICE_WORKER = ((HERE / "sw.js").read_text(encoding="utf-8")
                  .replace("PHONE_SCRIPT", PHONE_SCRIPT_URL).replace("LIVE_SCRIPT", SCRIPT_URL)
                  .replace("PALETTE_SCRIPT", PALETTE_SCRIPT_URL)
                  .replace("VERSION", hashlib.sha256(STYLE.encode() + PHONE_SCRIPT + SCRIPT + PALETTE_SCRIPT)
                           .hexdigest()[:12]))


def offline_page() -> str:
    """What the installed app shows when the board's web view cannot be reached (no scores kept)."""
    return page("Not connected · cribbage-board", "/",
                '<h1>Not connected</h1><p>The board\'s web view cannot be reached: check that this phone is on '
                "the board's Wi-Fi and that the board is on, then reload.</p>")


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
    return escape(value.replace("T", " ").rstrip("Z")[:16]) if value else "—"


def _day(value: str | None) -> str:
    """A date over its time of day (UTC), for a narrow column."""
    if not value or len(value) < 16:
        return "—"
    return f'{escape(value[:10])} <br><span class="muted">{escape(value[11:16])}</span>'


def _time(value: str | None) -> str:
    """The time of day of an ISO timestamp (UTC), to the second."""
    return escape(value[11:19]) if value and len(value) >= 19 else ""


def _result(game: GameRow) -> str:
    if game.status == "abandoned":
        return '<span class="muted">abandoned</span>'
    if not game.winner:
        return '<span class="muted">in play</span>'
    return f'{name_html(game.winner)} ({escape((game.result or "").replace("-", " "))})'


def games_page(games: list[GameRow], problem: str | None) -> str:
    """Every game, newest first: date, players, variant, result, margin."""
    if problem:
        body = problem_html(problem)
    elif not games:
        body = '<p class="muted">No finished games yet.</p>'
    else:
        rows = "".join(
            f'<tr><td class="id"><a href="/games/{g.id}">{g.id}</a></td><td class="date">{_day(g.finished or g.started)}</td>'
            f'<td class="players"><a href="/games/{g.id}">{", ".join(name_html(seat) for seat in g.seats)}</a></td>'
            f'<td class="variant">{escape(g.variant)}</td><td class="outcome">{_result(g)}</td>'
            f'<td class="num margin">{"" if g.margin is None else g.margin}</td></tr>'
            for g in games
        )  # on a phone each row is a card of three lines (style.css), nothing off to the side
        body = ('<div class="scroll"><table class="games"><thead><tr><th>#</th><th>date</th><th>players</th><th>variant</th>'
                f'<th>result</th><th class="num" title="margin">by</th></tr></thead><tbody>{rows}</tbody></table></div>')
    return page("Games · cribbage-board", "/games",
                f'<h1>Games</h1><p><a href="/games.csv" download>all games as CSV</a></p>{body}')


def _by(item: dict) -> str:
    """Who entered a line when it was not the board: " (Blue's phone)"."""
    if item.get("via") == "phone":
        return f' <span class="muted">({name_html(item["phone"])}\'s phone)</span>' if item.get("phone") else \
            ' <span class="muted">(a phone)</span>'
    return ' <span class="muted">(script)</span>' if item.get("via") == "script" else ""


def game_page(game: GameRow, played, times: GameTimes) -> str:
    """One game: its result, the pegging race, its ledger entries with times, the record to download."""
    gid = game.id
    sides = [side.name for side in played.game.sides]
    r = played.race
    race = race_svg([tuple(r["start"])] + [tuple(s) for s in r["scores"]], r["sides"], r["target"],
                    line_marks(r["lines"]))
    scores = ", ".join(f"{name_html(n)} {s}" for n, s in zip(sides, played.game.state.scores))
    finished = f'<span>finished {_date(times.finished)}</span>' if times.finished else ""
    head = (f'<h1>Game {gid}: {" v ".join(name_html(side) for side in sides)}</h1>'
            f'<div class="facts"><span>{escape(game.variant)} to <b>{game.target}</b></span>'
            f'<span>{_result(game)}</span>'
            + (f'<span>by <b>{game.margin}</b>, {game.game_points} game points</span>' if game.winner else "")
            + f'<span>{scores}</span><span>started {_date(times.started)}</span>{finished}</div>'
            f'<p><a href="/games/{gid}.txt" download>game record (.txt)</a> · '
            f'<a href="/api/games/{gid}">JSON</a></p>')
    rows = []
    stamps = times.entries
    undone = taken_back([item["action"] for item in played.lines])
    for k, item in enumerate(played.lines):
        when = stamps[item["n"] - 1] if item["n"] - 1 < len(stamps) else None
        rows.append(
            f'<tr class="{item["action"]}{" undone" if k in undone else ""}"><td class="num">{item["n"]}</td><td>{_time(when)}</td>'
            f'<td class="wide"><code>{text_html(item["line"])}</code></td><td class="entry">{text_html(item["text"]) if item["action"] == "entry" else item["action"] + ": " + text_html(item["text"])}{_by(item)}</td>'
            f'<td class="num">{" – ".join(str(s) for s in item["scores"])}</td></tr>'
        )
    table = ('<div class="scroll"><table><thead><tr><th class="num">#</th><th>time</th><th class="wide">record</th>'
             f'<th>entry</th><th class="num">scores</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    problems = "".join(problem_html(p) for p in played.problems)
    return page(f"Game {gid} · cribbage-board", "/games",
                f'{head}<h2>pegging race</h2>{race}{problems}<h2>ledger</h2>{table}')


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may run as a formula (OWASP)


def csv_cell(value) -> str:
    """A cell a spreadsheet shows as text: one that would start a formula gets a leading quote."""
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


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


def stats_page(players: list[dict], tables: dict[int, dict[int, int]], problem: str | None,
               colours: dict | None = None) -> str:
    """Each player (and partnership), as ``scorer.history.player_stats`` counts them: results,
    averages, best hand, heels, and the hands against the exact distribution of all hands, in the
    player's colour on the board (``colours``: :func:`.site.side_colours`; the first side's if unknown)."""
    if problem:
        return page("Stats · cribbage-board", "/stats", "<h1>Statistics</h1>" + problem_html(problem))
    if not players:
        return page("Stats · cribbage-board", "/stats", '<h1>Statistics</h1><p class="muted">No games yet.</p>')

    def fig(value, fmt="{}"):
        return "—" if value is None else fmt.format(value)

    cards = []
    for p in players:
        colour = (colours or {}).get(player_key(p["name"], p["kind"]), 0) % len(COLOURS)
        facts = [("games", p["games"]), ("wins", p["wins"]), ("skunks given", p["skunks_given"]),
                 ("skunks taken", p["skunks_taken"]), ("avg hand", fig(p["average_hand"], "{:.2f}")),
                 ("avg crib", fig(p["average_crib"], "{:.2f}")), ("play / deal", fig(p["play_per_deal"], "{:.2f}")),
                 ("best hand", fig(p["best_hand"])), ("heels", p["heels"]), ("deals", p["deals"])]
        if p["abandoned"]:
            facts.append(("abandoned", p["abandoned"]))
        dl = "".join(f"<div><dt>{name}</dt><dd>{value}</dd></div>" for name, value in facts)
        chart = ""
        by_size = p["hands_by_size"]
        if by_size:
            size = max(by_size, key=lambda k: len(by_size[k]))
            chart = distribution_svg(by_size[size], tables[int(size)], p["name"], int(size), COLOURS[colour])
        sentence = ""
        if p["percentile"] is not None:
            sentence = (f'<p>{name_html(p["name"])}\'s hands ran at the <b>{ordinal(round(p["percentile"]))} percentile</b> '
                        f'of all possible hands ({len(p["hands"])} hands counted).</p>')
        kind = " (partnership)" if p["kind"] == "partnership" else ""
        cards.append(f'<section class="card player side-{colour}"><h2>{name_html(p["name"])}{kind}</h2><dl>{dl}</dl>'
                     f'{sentence}{chart}</section>')
    return page("Stats · cribbage-board", "/stats", "<h1>Statistics</h1>" + "".join(cards))
