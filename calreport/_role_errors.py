"""The error raised when prediction columns cannot be resolved, and its example calls.

:class:`ColumnRoleError` states what was found and ends with the explicit call that
would resolve it, in Python (``str()``) or as the command line's flags
(:meth:`ColumnRoleError.cli_message`); :func:`_examples` writes one such call per
input shape (:data:`_SHAPES`) from the known columns and placeholders.  Raised by
:mod:`calreport._roles`, which re-exports the class.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ColumnRoleError"]


#: Placeholder column of each role in the examples of an error message.
_PLACEHOLDER = {"y": "label", "proba": "p", "pred": "y_pred", "conf": "confidence",
                "correct": "correct"}
#: The input shapes, in the order roles given in part are completed.
_SHAPES = (("y", "proba"), ("conf", "correct"), ("y", "pred", "conf"))


class ColumnRoleError(ValueError):
    """The prediction columns could not be resolved from what was given or named.

    ``str(err)`` ends with the explicit Python call; :meth:`cli_message` with the
    command line's flags (``--y``, ``--proba`` ...).

    Parameters
    ----------
    problem : str
        What was found and what is missing.
    examples : list of dict
        Role -> column(s) of each call that would resolve it.
    partial : bool, default False
        The examples name only the roles at fault (written ``df.calib(y='a', ...)``).

    Examples
    --------
    >>> err = ColumnRoleError("No labels.", [{"y": "label", "proba": "p"}])
    >>> str(err)
    "No labels. Name the columns explicitly, e.g. df.calib(y='label', proba='p')."
    >>> err.cli_message()
    'No labels. Name the columns with --y label --proba p.'
    """

    def __init__(self, problem: str, examples: Sequence[Mapping[str, Any]],
                 partial: bool = False) -> None:
        self.problem = problem
        self.examples = [dict(e) for e in examples]
        self.partial = partial
        calls = " or ".join(_python_call(e, partial) for e in self.examples)
        super().__init__(f"{problem} Name the columns explicitly, e.g. {calls}.")

    def __reduce__(self) -> Any:  # raised in a worker process, re-raised in the caller's
        return (type(self), (self.problem, self.examples, self.partial))

    def cli_message(self) -> str:
        """The message with the command line's flags instead of the Python call."""
        flags = " or ".join(_cli_flags(e) for e in self.examples)
        return f"{self.problem} Name the columns with {flags}."


def _python_call(example: Mapping[str, Any], partial: bool = False) -> str:
    args = [f"{role}={col!r}" for role, col in example.items()]
    return f"df.calib({', '.join(args)}{', ...' if partial else ''})"


def _cli_flags(example: Mapping[str, Any]) -> str:
    parts = []
    for role, col in example.items():
        for c in (col if isinstance(col, list) else [col]):
            text = str(c)
            parts.append(f"--{role} {text if text.isidentifier() else repr(text)}")
    return " ".join(parts)


def _examples(known: Mapping[str, Any], shapes: Sequence[tuple[str, ...]] = _SHAPES
              ) -> list[dict[str, Any]]:
    """One example call per shape, with the known columns and placeholders."""
    out = []
    for shape in shapes:
        example = {}
        for role in shape:
            col = known.get(role)
            example[role] = (_PLACEHOLDER[role] if col is None else
                             list(col) if isinstance(col, (list, tuple)) else col)
        out.append(example)
    return out
