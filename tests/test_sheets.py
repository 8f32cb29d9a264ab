"""The CSV cells both servers offer (firmware/server/sheets.py): shown by a spreadsheet, never run."""

from hypothesis import given
from hypothesis import strategies as st

from firmware.server.sheets import FORMULA_STARTS, csv_cell


@given(st.text(max_size=30))
def test_a_csv_cell_never_starts_as_a_formula(text):
    cell = csv_cell(text)
    assert not cell.startswith(FORMULA_STARTS)
    assert cell in (text, "'" + text)


def test_none_is_an_empty_cell_and_a_number_its_digits():
    assert csv_cell(None) == "" and csv_cell(-3) == "'-3" and csv_cell(121) == "121"
