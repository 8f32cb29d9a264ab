"""The one table format the benchmarks print."""


def print_table(rows: list[tuple[str, str]]) -> None:
    """Rows of (what was measured, result), aligned under a header."""
    width = max(len(name) for name, _ in rows)
    print(f"{'benchmark':<{width}}  result")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
