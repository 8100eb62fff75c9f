"""Numbers as every output prints them: no scientific notation for probabilities."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["format_number"]


def format_number(value: Any, digits: int = 4, *, fixed: bool = False,
                  below: bool = False) -> str:
    """Format a float for display: NaN/None as an em dash, else ``digits`` significant
    (``fixed``: ``digits`` decimals, never scientific notation, for values in [-1, 1];
    ``below``: a positive value that would round to 0 reads ``< 0.0001``); large values
    with thousands separators, never in scientific notation.

    Examples
    --------
    >>> [format_number(x) for x in (0.5, 954.523, 444311.853, 1325933.2, 3.1e-05)]
    ['0.5000', '954.52', '444,311.85', '1,325,933', '3.100e−05']
    """
    if value is None:
        return "—"
    x = float(value)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if below and 0 < x < 0.5 * 10.0 ** -digits:  # a p-value of 1e-30 is not "0.0000"
        return f"< {10.0 ** -digits:.{digits}f}"
    if x != 0 and not fixed and abs(x) < 1e-4:
        text = f"{x:.{max(digits - 1, 1)}e}"
    elif abs(x) >= 1e6:  # an interval 836.50 to 1,325,933, not 836.50 to 1.326e+06
        text = f"{x:,.0f}"
    else:
        text = f"{x:.{digits}f}" if abs(x) < 10 else f"{x:,.{max(digits - 2, 1)}f}"
        if text.lstrip("-").strip("0.") == "":
            text = text.lstrip("-")  # no "-0.00"
    return text.replace("-", "−")
