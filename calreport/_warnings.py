"""Warnings attributed to the line of the caller's code, not to calreport's.

A warning raised deep inside a computation is only useful when it points at the
call that asked for it (``df.calib.summary()`` in a notebook cell), whatever the
number of calreport frames in between: each public path has a different depth, so a
fixed ``stacklevel`` is right for one and wrong for the others.  :func:`warn` finds
the first frame outside the package instead (pandas' ``find_stack_level`` does the
same).
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["UndefinedMetricWarning", "caller_outside_package", "user_stacklevel", "warn"]

class UndefinedMetricWarning(UserWarning):
    """A metric is NaN on this data, or left out of an average (the message says why)."""


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _inside(filename: str) -> bool:
    return filename.startswith(_PACKAGE_DIR)


def user_stacklevel(skip: int = 1) -> int:
    """The ``stacklevel`` that attributes a warning to the first frame outside calreport.

    Parameters
    ----------
    skip : int, default 1
        Frames to start from: 1 is the function calling ``user_stacklevel`` (the one
        that will call ``warnings.warn`` with the result).

    Returns
    -------
    int
        At least 1; the level of the outermost calreport frame when no frame outside
        the package calls it (a worker thread of the library).
    """
    frame = sys._getframe(skip)
    level, last = 1, 1
    while frame is not None:
        if not _inside(frame.f_code.co_filename):
            return level
        last = level
        frame = frame.f_back
        level += 1
    return last


def warn(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` from the caller's line (the first frame outside calreport)."""
    warnings.warn(message, category, stacklevel=user_stacklevel(2) + 1)


def caller_outside_package(exclude: str = "") -> bool:
    """True when no calreport frame outside the ``exclude`` sub-package is on the stack.

    Used by the figures: one a user asks for goes through ``pyplot`` (a notebook shows
    it), one drawn for the library's own output (a report) stays a bare Figure.
    """
    skip = os.path.join(_PACKAGE_DIR, exclude, "") if exclude else None
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if _inside(name) and not (skip and name.startswith(skip)):
            return False
        frame = frame.f_back
    return True
