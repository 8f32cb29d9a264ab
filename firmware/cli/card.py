"""The printable controls card: one A6 page drawn with reportlab from a :class:`ControlsCard`.

Text is real PDF text (sharp at any printer resolution, and searchable); the
content streams are left uncompressed, so the card's words can be read back.
"""

from __future__ import annotations

from pathlib import Path

from ..board.controls import MENU_NAVIGATION, Control, ControlsCard

MM = 72 / 25.4
PAGE = (105 * MM, 148 * MM)  # A6 portrait, in points
MARGIN = 5 * MM
INK = (0.12, 0.12, 0.14)
GREY = (0.42, 0.42, 0.45)
RULE = (0.75, 0.75, 0.78)
BODY, SMALL = ("Helvetica", 7.5), ("Helvetica", 6.4)
BOLD = "Helvetica-Bold"


class _Pen:
    """Draws lines of text down the page from the top margin, remembering where it is."""

    def __init__(self, canvas):
        self.c = canvas
        self.y = PAGE[1] - MARGIN
        self.width = PAGE[0] - 2 * MARGIN

    def text(self, x: float, text: str, font=BODY, colour=INK, bold=False) -> None:
        self.c.setFillColorRGB(*colour)
        self.c.setFont(BOLD if bold else font[0], font[1])
        self.c.drawString(x, self.y, text)

    def wrapped(self, x: float, text: str, width: float, font=BODY, colour=INK, leading=None) -> None:
        """Text wrapped to ``width``; the pen ends below its last line."""
        from reportlab.lib.utils import simpleSplit

        leading = leading or font[1] * 1.22
        for line in simpleSplit(text, font[0], font[1], width):
            self.text(x, line, font, colour)
            self.y -= leading

    def heading(self, title: str) -> None:
        self.y -= 2.5
        self.c.setStrokeColorRGB(*RULE)
        self.c.setLineWidth(0.5)
        self.c.line(MARGIN, self.y + 9, PAGE[0] - MARGIN, self.y + 9)
        self.text(MARGIN, title.upper(), ("Helvetica", 6.6), GREY, bold=True)
        self.y -= 9.5

    def gesture(self, label: str, does: str, column: float) -> None:
        """A gesture in the left column (``column`` wide) and what it does beside it."""
        self.text(MARGIN, label, BODY, INK, bold=True)
        self.wrapped(MARGIN + column, does, self.width - column)
        self.y -= 1


def _gesture_label(control: Control, hold_s: float) -> str:
    return f"hold {hold_s:g} s" if control.gesture == "hold" else control.gesture


def _button_grid(pen: _Pen, card: ControlsCard) -> None:
    """The four player buttons, two a row: a swatch in the side's colour, the player, the pin."""
    c = pen.c
    column = pen.width / 2
    for index, button in enumerate(card.buttons):
        x = MARGIN + (index % 2) * column
        if index % 2 == 0 and index:
            pen.y -= 21
        cy = pen.y + 2.5
        c.setLineWidth(0.8)
        c.setStrokeColorRGB(*INK)
        if button.player:
            c.setFillColorRGB(*(v / 255 for v in button.colour))
            c.circle(x + 6, cy, 5.5, stroke=1, fill=1)
        else:
            c.setStrokeColorRGB(*RULE)
            c.circle(x + 6, cy, 5.5, stroke=1, fill=0)
        pen.text(x + 15, button.player or "no player", ("Helvetica", 9.5),
                 INK if button.player else GREY, bold=bool(button.player))
        pen.y -= 8
        pen.text(x + 15, f"{button.name} button, GPIO {button.pin}", SMALL, GREY)
        pen.y += 8
    pen.y -= 20


def draw_card(card: ControlsCard, path: str | Path) -> float:
    """Write the card as a one-page A6 PDF; returns the lowest point the content reached."""
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(str(path), pagesize=PAGE, pageCompression=0)
    c.setTitle("cribbage-board controls")
    c.setAuthor("cribbage-board")
    c.setSubject(card.game)
    pen = _Pen(c)

    pen.y -= 9
    pen.text(MARGIN, "cribbage-board", ("Helvetica", 14), INK, bold=True)
    c.setFont("Helvetica", 14)
    title_width = c.stringWidth("cribbage-board ", BOLD, 14)
    pen.text(MARGIN + title_width, "controls", ("Helvetica", 14), GREY)
    pen.y -= 11
    pen.wrapped(MARGIN, card.game, pen.width, BODY, INK)
    pen.wrapped(MARGIN, card.options, pen.width, SMALL, GREY)

    labels = [_gesture_label(control, card.hold_s) for control in card.controls]
    column = max(c.stringWidth(label, BOLD, BODY[1]) for label in labels) + 7
    by_part: dict[str, list[Control]] = {}
    for control in card.controls:
        by_part.setdefault(control.part, []).append(control)

    pen.heading("Player buttons")
    _button_grid(pen, card)
    for control in by_part["colour"]:
        pen.gesture(_gesture_label(control, card.hold_s), control.does, column)

    pen.heading("Knob")
    for control in by_part["knob"]:
        pen.gesture(_gesture_label(control, card.hold_s), control.does, column)

    pen.heading("Undo")
    for control in by_part["undo"]:
        pen.gesture(_gesture_label(control, card.hold_s), control.does, column)

    pen.heading("Menu")
    for control in by_part["menu"]:
        pen.gesture(_gesture_label(control, card.hold_s), control.does, column)
    pen.wrapped(MARGIN, MENU_NAVIGATION, pen.width, SMALL, GREY)
    pen.y -= 2
    label_width = max(c.stringWidth(label, BOLD, SMALL[1]) for label, _ in card.menu) + 5
    for label, does in card.menu:
        pen.text(MARGIN, label, SMALL, INK, bold=True)
        pen.wrapped(MARGIN + label_width, does, pen.width - label_width, SMALL, INK, leading=7.6)
    lowest = pen.y

    pins = ", ".join(f"{name} {pin}" for name, pin in card.pins.items())
    c.setFont(*SMALL)
    c.setFillColorRGB(*GREY)
    c.drawString(MARGIN, MARGIN + 8, f"GPIO (BCM): {pins}")
    source = card.source
    while c.stringWidth(f"config: {source}", *SMALL) > pen.width and len(source) > 4:
        source = "..." + source[4:]  # a long path loses its start, the file name stays
    c.drawString(MARGIN, MARGIN, f"config: {source}")
    c.showPage()
    c.save()
    return lowest
