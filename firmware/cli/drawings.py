"""The commands that draw for builders: the drilling template, the controls card and the wiring diagram."""

from __future__ import annotations

from .output import PROG, fail


def board_template(args) -> int:
    """``board-template -o board.pdf|board.svg``: the drilling template at 1:1."""
    from pathlib import Path

    from hardware.layout import load_layout
    from hardware.template import svg_text, template_drawing
    from scorer.variants import ResultKind, skunk_lines

    output = Path(args.output)
    kind = output.suffix.lower()
    if kind not in (".pdf", ".svg"):
        return fail(f"{PROG}: board-template writes a .pdf (tiled pages) or an .svg (one sheet), not {output}")
    if kind == ".svg" and args.paper:
        return fail(f"{PROG}: --paper tiles a PDF; an SVG is one sheet: write {output.with_suffix('.pdf')} "
                    "or leave out --paper")
    target = args.target
    if not 31 <= target <= 1000:
        return fail(f"{PROG} board-template: --target {target} is out of range: use 31 to 1000")
    layout = load_layout(args.layout, args.game_counters)
    # The ACC lines: a loser under target-30 is skunked, under target-60 double skunked.
    names = {ResultKind.SKUNK: "skunk line", ResultKind.DOUBLE_SKUNK: "double skunk"}
    marks = {line.below: f"{names[line.kind]} ({line.below})" for line in skunk_lines(target)}
    drawing = template_drawing(layout, marks, legend=kind == ".svg")  # a PDF gives the legend a page of its own
    try:
        if kind == ".pdf":
            try:
                from hardware.template_pdf import PAPER_NAMES, write_pdf

                tiling = write_pdf(drawing, args.paper or "a4", output)
            except ImportError:
                return fail(f"{PROG}: a PDF template needs reportlab: pip install reportlab (or write board.svg)")
            sheets = (f"{tiling.total} {PAPER_NAMES[tiling.paper]} "
                      f"{'landscape' if tiling.landscape else 'portrait'} pages: page 1 the instructions, "
                      f"then {len(tiling.pages)} to tape ({tiling.rows} x {tiling.columns}) where the marks meet")
        else:
            output.write_text(svg_text(drawing), encoding="utf-8")
            sheets = f"one {drawing.width:.0f} x {drawing.height:.0f} mm sheet"
    except OSError as error:
        return fail(f"{PROG}: cannot write {output}: {error.strerror or error}")
    counters = (f", {args.game_counters} game counters a side ({layout.strip_leds} LEDs)"
                if layout.counter_leds else "")
    print(f"{output}: {layout.name}{counters}, hole pitch {layout.pitch_mm:.2f} mm, {sheets}; "
          "print at 100 % (actual size) and check the 100 mm scale bar")
    return 0


def controls_card(args) -> int:
    """``controls-card -o card.pdf``: the controls of this config on one A6 page."""
    from ..board.controls import controls_card as card_of
    from ..config import load_config
    from .card import draw_card

    if not args.output.lower().endswith(".pdf"):  # the card is a PDF alone: no PDF under another name
        return fail(f"{PROG}: controls-card writes a PDF: name it .pdf, not {args.output}")
    card = card_of(load_config(args.config, args.set))
    try:
        draw_card(card, args.output)
    except OSError as error:
        return fail(f"{PROG}: cannot write {args.output}: {error.strerror or error}")
    print(f"{args.output}: the controls card, A6 (105 x 148 mm); print at 100%")
    return 0


def wiring(args) -> int:
    """``wiring -o wiring.svg``: the wiring diagram for the config's pins."""
    from pathlib import Path

    from hardware.wiring import physical_pin, wiring_svg

    from ..config import load_config

    if not args.output.lower().endswith(".svg"):  # the diagram is an SVG alone
        return fail(f"{PROG}: wiring writes an SVG: name it .svg, not {args.output}")
    config = load_config(args.config, args.set)
    hookup = config.hookup
    svg = wiring_svg(hookup, source=" + ".join(config.sources))
    try:
        Path(args.output).write_text(svg, encoding="utf-8")
    except OSError as error:
        return fail(f"{PROG}: cannot write {args.output}: {error.strerror or error}")
    data, buzzer = hookup.strip.data_gpio, hookup.buzzer_pin
    parts = (f"buttons, encoder, OLED and buzzer on GPIO{buzzer} (pin {physical_pin(buzzer)})"
             if hookup.buzzer else "buttons, encoder and OLED (buzzer off: --set buzzer.enabled=true)")
    print(f"{args.output}: strip data on GPIO{data} (pin {physical_pin(data)}), {parts} "
          f"from {' + '.join(config.sources)}")
    return 0
