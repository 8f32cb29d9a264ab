"""The cells of the CSV files both servers offer, safe to open in a spreadsheet."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may run as a formula (OWASP)


def csv_cell(value: object) -> str:
    """``value`` as a cell a spreadsheet shows as text: one that would start a formula gets a
    leading quote mark, and None is an empty cell."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text
