"""firmware/web/charts.py: the pegging race chart, its skunk lines, its legend and its labels."""

import re

import pytest

from firmware.web.records import line_marks

from web_games import game_record


def test_a_61_game_draws_no_double_skunk_line_at_the_start():
    """In a game to 61 the double skunk is under 1 (a loser who never pegged): no line is drawn before the
    first hole, on the board or the race chart; the skunk line (31) is."""
    from firmware.web.board import board_svg, geometry_for
    from firmware.web.charts import race_svg
    from firmware.web.records import line_marks
    from scorer.history import race_lines
    from scorer.record import replay
    from scorer.report import state_dict
    from scorer.variants import SkunkLines

    marks = line_marks(race_lines(61, SkunkLines.ACC))
    assert marks == [(31, "skunk")]
    state = state_dict(replay(["game five-card seats=Alice,Bob dealer=Alice"]).book)
    for tall in (False, True):
        svg = board_svg(state, geometry_for(2), marks, tall=tall)
        assert "skunk 31" in svg and "double skunk" not in svg
    race = race_svg([(0, 3)], ["Alice", "Bob"], 61, marks)
    assert "skunk 31" in race and "double skunk" not in race



def test_the_pegging_race_has_a_legend_of_each_sides_colour_and_name():
    """The race chart names whose line is whose: a swatch of each side's colour and its name (a long
    one cut with an ellipsis, whole in the title)."""
    from firmware.web.board import COLOURS
    from firmware.web.charts import race_svg

    long = "Maximilianus_Augustinus+Desiderius_Dé"
    svg = race_svg([(0, 0), (5, 2)], ["Alice", long], 121, [(91, "skunk")])
    legend = re.search(r'<g class="legend">(.*?)</g></g>', svg).group(1)
    items = re.findall(r'<g class="legend-item"><title>(.*?)</title>.*?stroke="(#\w+)".*?<text [^>]*>(.*?)</text>', legend + "</g>")
    assert [(colour, title) for title, colour, _ in items] == [(COLOURS[0], "\u2068Alice\u2069"), (COLOURS[1], f"\u2068{long}\u2069")]
    assert items[0][2] == "\u2068Alice\u2069" and items[1][2].endswith("…\u2069") and len(items[1][2]) == 28



@pytest.mark.slow
def test_race_labels_are_placed_clear_of_every_line():
    """In the SVG as written, each line's label ("double skunk 61") takes a box (at the phone's font, the
    larger) that no race step, skunk line or other label crosses: in 29 of 30 six-card games, and the
    one left is drawn over a backing, never bare across a line."""
    from firmware.web import charts
    from firmware.web.records import play_record

    backed = 0
    for seed in range(1, 31):
        r = play_record(1, game_record("game six-card seats=Red,Blue dealer=Red", seed=seed)).race
        svg = charts.race_svg([tuple(r["start"])] + [tuple(s) for s in r["scores"]], r["sides"], r["target"],
                              line_marks(r["lines"]))
        segments = [tuple(map(float, m)) for m in re.findall(
            r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" class="(?:skunk|target)-line"', svg)]
        for points in re.findall(r'<polyline points="([^"]+)" fill="none" stroke=', svg):
            pts = [tuple(map(float, p.split(","))) for p in points.split()]
            segments += [a + b for a, b in zip(pts, pts[1:])]
        labels = [(float(x), float(y), text) for x, y, text in
                  re.findall(r'<text x="([\d.]+)" y="([\d.]+)" class="axis line-label">([^<]+)</text>', svg)]
        assert {text for _, _, text in labels} >= {"skunk 91", "double skunk 61", "game 121"}
        boxes = [charts.text_box(x, y, text) for x, y, text in labels]
        clear = all(not charts._hits(box, s, 0) for box in boxes for s in segments)
        apart = all(not charts._hits(a, b, 0) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        if '<rect x="' in svg.split('class="legend"')[0].split('class="plot"')[1]:
            backed += 1  # nowhere clear: over a backing
        else:
            assert clear and apart, seed
    assert backed <= 1
