"""Command line: ``calreport summary | report | recalibrate | demo | compare``.

Exit codes: 0 success, 1 a ``--fail-on`` gate failed, 2 usage or input error
(one line on stderr, no traceback).  The arguments are parsed before pandas and the
metrics are imported (:mod:`calreport._cli_parser`), so ``--help`` and usage errors
answer at once; the commands live in :mod:`calreport._cli_commands`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

from calreport._cli_parser import (
    EXIT_GATE_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    build_parser,
    parse_gate,
)

__all__ = ["EXIT_GATE_FAILED", "EXIT_OK", "EXIT_USAGE", "UsageError", "build_parser", "main",
           "parse_gate"]


#: The library's keywords that have a flag of the same meaning.
_FLAGS = {"y": "--y", "proba": "--proba", "pred": "--pred", "conf": "--conf",
          "correct": "--correct", "weight": "--weight", "pos_label": "--pos-label",
          "classes": "--classes", "threshold": "--threshold", "missing": "--missing",
          "weights": "--weights", "ci_method": "--ci-method"}
# a mapping (proba={class: column}) has no flag and is left as it is
_KEYWORD = re.compile(r"\b(" + "|".join(_FLAGS) + r")=(?!\{)(\[[^\]]*\]|'[^']*'|"
                      r"\"[^\"]*\"|[^\s,;)]+?)(?=[\s,;)]|\.(?:\s|$)|$)")


def _cli_wording(message: str) -> str:
    """A library message as the command line says it: keyword arguments as flags
    (``pos_label='b'`` -> ``--pos-label b``, ``classes=['a', 'b']`` -> ``--classes a,b``)
    and the Python calls that carry them left out.

    Examples
    --------
    >>> _cli_wording("Name the positive class, e.g. pos_label='b' (df.calib(..., "
    ...              "pos_label='b'), or ConfidenceProfile.from_arrays(..., pos_label=...)).")
    'Name the positive class, e.g. --pos-label b.'
    >>> _cli_wording("Pass the classes in column order, classes=['a', 'b'].")
    'Pass the classes in column order, --classes a,b.'
    """
    message = _drop_python_calls(message)

    def flag(m: re.Match[str]) -> str:
        value = m.group(2)
        if value.startswith("["):
            items = [x.strip().strip("'\"") for x in value[1:-1].split(",")]
            value = ",".join(x for x in items if x)
        else:
            value = value.strip("'\"")
        return f"{_FLAGS[m.group(1)]} {value}"

    # the flag goes to the command, not to a Python object; a pointer to a Python call
    # becomes the command that prints the same
    message = _KEYWORD.sub(flag, message).replace(" to the accessor", "")
    return message.replace("see risk()", "see the risk verdict (calreport report)")


def _drop_python_calls(message: str) -> str:
    """Remove parentheticals that show a Python call, e.g. `` (df.calib(..., x=1))``."""
    for marker in (" (df.calib(", " (ConfidenceProfile."):
        while marker in message:
            start = message.index(marker)
            depth, end = 0, len(message)
            for i in range(start + 1, len(message)):
                depth += {"(": 1, ")": -1}.get(message[i], 0)
                if depth == 0:
                    end = i + 1
                    break
            message = message[:start] + message[end:]
    return message


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: Any = None, line: str | None = None) -> None:
    """A warning as one line, like the errors (no file and line of the program)."""
    print(f"calreport: warning: {_cli_wording(str(message))}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    import warnings

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            from calreport._cli_commands import COMMANDS  # lazy: pandas (after parsing)

            return COMMANDS[args.command](args)
    except UsageError as exc:
        print(f"calreport: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, KeyError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        cli_message = getattr(exc, "cli_message", None)  # column roles: as flags
        msg = _cli_wording(cli_message() if callable(cli_message) else msg)
        print(f"calreport: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as exc:
        print(f"calreport: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
