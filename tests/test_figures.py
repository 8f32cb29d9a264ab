"""Figures as people read them: one minus sign (U+2212), a plus where asked, never a negative zero."""

import pytest

from scorer.figures import MINUS, figure


@pytest.mark.parametrize("value, places, plus, shown", [
    (-3.7, 1, False, "\u22123.7"), (-0.4, 1, True, "\u22120.4"), (11, 1, False, "11.0"), (5.4, 1, True, "+5.4"),
    (-0.04, 1, False, "0.0"), (0, 0, True, "0"), (-12, 0, True, "\u221212"), (2.345, 2, False, "2.35"),
])
def test_a_figure_has_one_minus_sign(value, places, plus, shown):
    """Negative figures carry U+2212; "+" only when asked and above zero; what rounds to zero has no sign."""
    assert figure(value, places, plus) == shown
    assert "-" not in figure(value, places, plus) and MINUS == "\u2212"
