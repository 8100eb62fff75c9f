"""Column widths of the report's groups table, estimated from the text it holds.

A table with ``table-layout: fixed`` is laid out from its ``<col>`` widths alone; with
the automatic layout the renderer first measures the content of every cell, which
for a 200-group table took about a second of the PDF's rendering.  The widths here
are the DejaVu Sans advance widths of each column's longest text (the report's
font, bundled with matplotlib), so no number is cut; when the columns would not fit
the page, the table keeps the automatic layout.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["fixed_widths", "text_em"]


@functools.cache
def _advances(bold: bool) -> tuple[dict[str, float], float]:
    """Per-character advance widths (em) of the bundled DejaVu Sans, and the widest."""
    import matplotlib
    from matplotlib.ft2font import FT2Font, LoadFlags

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    font = FT2Font(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name))
    units = font.units_per_EM
    table: dict[str, float] = {}
    for ch in ("0123456789.,:;%+−-–—<>=()/ ∞×≤≥abcdefghijklmnopqrstuvwxyz"
               "ABCDEFGHIJKLMNOPQRSTUVWXYZ_'\"σΦ"):
        glyph = font.load_char(ord(ch), flags=LoadFlags.NO_SCALE)
        table[ch] = glyph.horiAdvance / units
    return table, max(table.values())


def text_em(text: str, *, bold: bool = False) -> float:
    """Width of ``text`` on one line in em of its font size (DejaVu Sans, no kerning).

    Characters outside the measured set count as the widest measured one, so the
    estimate errs on the wide side.

    Examples
    --------
    >>> round(text_em("0.25"), 4)  # three digits of 1303/2048 em and a stop of 651/2048
    2.2266
    """
    table, widest = _advances(bold)
    return sum(table.get(ch, widest) for ch in text)


def _words_em(label: str) -> float:
    """Width of the longest word of a heading (headings wrap between words)."""
    return max((text_em(w, bold=True) for w in label.split()), default=0.0)


def fixed_widths(columns: Sequence[tuple[str, Iterable[str]]], *, badge_column: int,
                 badge_scale: float, available_em: float,
                 padding_em: float = 0.5) -> list[float] | None:
    """Widths in em (of the table's font) of every column but the first, or ``None``.

    Parameters
    ----------
    columns : sequence of (heading, cell texts)
        Every column of the table in order.  The first column takes what is left
        and gets no width (it holds free text that may wrap).
    badge_column : int
        Index of the column whose cells are badges set at ``badge_scale`` times the
        table's font size, in bold, with 0.3 em of padding on each side.
    badge_scale : float
    available_em : float
        Width of the page's content area in em of the table's font.
    padding_em : float
        Horizontal padding of a cell (both sides together).

    Returns
    -------
    list of float or None
        ``None`` when the columns would leave the first one less than 4 em: then
        the automatic layout is the better choice.
    """
    widths = []
    for index, (heading, cells) in enumerate(columns):
        if index == 0:
            continue
        if index == badge_column:
            body = max((badge_scale * (text_em(c, bold=True) + 0.6) for c in set(cells)),
                       default=0.0)
        else:
            body = max((text_em(c) for c in set(cells)), default=0.0)
        widths.append(round(max(body, _words_em(heading)) + padding_em + 0.3, 1))
    if available_em - sum(widths) < 4.0:
        return None
    return widths
