"""pandas tables of the out-of-core scores, calibration tests and calibration error."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from calreport.metrics import calibration_index
from calreport.metrics.multiplicity import adjust_verdicts
from calreport.stats import finish as _finish
from calreport.stats.config import key_seed
from calreport.stats.sampled import (
    CALIBRATION_ERROR,
    SAMPLING_METHOD,
    sample_errors,
    sample_profiles,
    sampling_note,
)
from calreport.stats.state import StatsState
from calreport.stats.verdict import murphy, risk_verdicts, spiegelhalter

__all__ = ["calibration_error_frame", "calibration_tests_frame", "reliability_frame",
           "risk_frame", "scores_frame"]


def _index(keys: list[Any], by: Sequence[Hashable]) -> Any:
    import pandas as pd

    if len(by) > 1:
        return pd.MultiIndex.from_tuples(keys, names=list(by))
    return pd.Index(keys, name=by[0], tupleize_cols=False)


def reliability_frame(rel: dict[str, Any], keys: list[Any], by: Sequence[Hashable]) -> Any:
    """Reliability table as a DataFrame (one row per bin; grouped: (group, bin) rows)."""
    import pandas as pd

    nb = len(rel["lower"])
    fields = ("count", "weight_sum", "n_eff", "mean_score", "mean_outcome", "gap",
              "ci_low", "ci_high")
    frames = []
    for gi in range(len(keys)):
        d = {"lower": rel["lower"], "upper": rel["upper"]}
        d.update({f: rel[f][gi] for f in fields})
        frames.append(pd.DataFrame(d, index=pd.RangeIndex(nb, name="bin")))
    if not by:
        out = frames[0]
    else:
        out = pd.concat(frames, keys=_index(keys, by))
    out.attrs["view"] = rel["view"]
    return out


def risk_frame(state: StatsState, by: Sequence[Hashable], seed: int = 0) -> Any:
    """The risk assessment per group, as ``df.calib.risk()`` gives it: a Series named
    ``"risk"`` (ungrouped) or one row per group, the columns of
    :meth:`calreport.metrics.risk.RiskResult.to_dict` from
    :func:`calreport.stats.verdict.risk_verdicts` (the band, certainty claims, the
    test below certainty, the Monte Carlo null where the normal approximation is
    invalid)."""
    import pandas as pd

    # the groups listed are one family, adjusted as df.groupby(...).calib.risk() does
    rows = [r.to_dict() for r in adjust_verdicts(risk_verdicts(state, seed=seed), "holm")
            if r is not None]
    if not by:
        return pd.Series(rows[0], name="risk", dtype=object)
    return pd.DataFrame(rows, index=_index(state.keys, by))


def scores_frame(state: StatsState, by: Sequence[Hashable], view: str | None = None) -> Any:
    """Top-label Brier, sharpness and the Murphy terms per group (exact)."""
    import pandas as pd

    t = _finish.summary(state)
    m = murphy(state, view=view)
    cols = {"top_label_brier": t.values["top_label_brier"], "sharpness": t.values["sharpness"],
            "murphy_reliability": m["reliability"], "murphy_resolution": m["resolution"],
            "murphy_uncertainty": m["uncertainty"], "murphy_within_bin": m["within_bin"]}
    out = pd.DataFrame(cols, index=_index(state.keys, by) if by else None)
    return out if by else out.iloc[0].rename("value")


def calibration_tests_frame(state: StatsState, by: Sequence[Hashable]) -> Any:
    """Spiegelhalter's Z and p-value per group (exact sums)."""
    import pandas as pd

    out = pd.DataFrame(spiegelhalter(state), index=_index(state.keys, by) if by else None)
    out = out if by else out.iloc[0].rename("value")
    out.attrs["dropped"] = {
        "hl_statistic": "Hosmer-Lemeshow deciles are not computed out of core",
        "cox_intercept": "the Cox logistic fit is not computed out of core"}
    return out


def calibration_error_frame(state: StatsState, by: Sequence[Hashable],
                            view: str | None = None) -> Any:
    """ICI, E50, E90 and Emax per group, from the LOWESS curve of each group's uniform
    sample (``sample_size``; the pandas code on the sample, so a group that fits in
    the sample gets the pandas values)."""
    import pandas as pd

    if state.sample is None:
        raise ValueError("ICI needs the rows' sample: build the state with sample_size=20000 "
                         "(rows per group).")
    profiles = sample_profiles(state)

    def compute(prof: Any) -> dict[str, float]:
        try:
            r = calibration_index.calibration_error_summary(*prof.view(view))
        except ValueError:  # a half too small for the curve
            return {}
        return {"ici": r.ici, "e50": r.e50, "e90": r.e90, "emax": r.emax}

    rows = []
    for gi, k in enumerate(state.keys):
        vals = compute(profiles[k])
        errors = sample_errors(profiles[k], int(state.counts["n"][gi]), vals, None,
                               key_seed(state.config.seed, ("sampling error", k)),
                               compute=compute)
        rows.append({**vals, **{f"{m}_sampling_error": h for m, h in errors.items()}})
    out = pd.DataFrame(rows, index=_index(state.keys, by) if by else None, dtype=np.float64)
    out.attrs["sampled"] = {"sample_size": int(state.config.sample_size),
                            "rows_used": {k: int(profiles[k].n) for k in state.keys}}
    out.attrs["sampling_error"] = {m: sampling_note(m) for m in CALIBRATION_ERROR}
    out.attrs["sampling_method"] = SAMPLING_METHOD
    return out if by else out.iloc[0].rename("value")
