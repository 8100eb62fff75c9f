"""The confidence profile: one prediction per row, as clean NumPy arrays.

A :class:`ConfidenceProfile` is what every metric of calreport consumes.  It is
built from arrays by :meth:`ConfidenceProfile.from_arrays` (the pandas accessor
builds it from DataFrame columns) and holds

* ``conf`` -- the top-label confidence, the probability the model gives to the
  class it predicts (Martin-Maroto, Abderrahaman-Elena & de Polavieja 2026,
  "Beyond ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted
  Metrics", arXiv:2605.01796, Definition 1);
* ``correct`` -- whether the predicted class is the true one;
* optionally the true and predicted labels as integer codes into ``classes``,
  the ``N x K`` probability matrix, the binary positive-class ``score`` and
  sample weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport import _validate as v
from calreport._profile_arrays import (
    _binary_conf,
    _code_dtype,
    _Derivable,
    _is_column,
    _owned,
    _raw,
    _small_codes,
)


@dataclass(frozen=True, eq=False)
class ConfidenceProfile:
    """Validated predictions of a classifier.

    Use :meth:`from_arrays` to build one; the fields are read-only NumPy arrays.

    Attributes
    ----------
    conf : ndarray of float64, shape (N,)
        Confidence in the predicted class (top-label view).
    correct : ndarray of bool, shape (N,)
        ``y_pred == y_true``.
    y_true, y_pred : ndarray of signed integers, shape (N,), or None
        Codes into ``classes``, in the smallest signed integer type that holds them
        (int8 up to 128 classes).
    proba : ndarray of float64, shape (N, K), or None
        Class probabilities, columns ordered as ``classes``.  Binary input given as
        one positive-class column reads as ``[1 - p, p]``, built from ``score`` on
        each read (the profile holds the score alone).
    classes : ndarray, shape (K,), or None
        Class labels.
    score : ndarray of float64, shape (N,), or None
        Binary problems only: probability of the positive class ``classes[1]``.
    sample_weight : ndarray of float64, shape (N,), or None
        Non-negative row weights; importance weights are divided by their maximum
        (the scale is in ``notes["weight_scale"]``), frequency weights are counts.
    threshold : float
        Decision threshold used for binary input given as one score column.
    weights : {"importance", "frequency"}
        Meaning of ``sample_weight``: relative importance weights (every value,
        z and interval invariant to scaling all weights) or integer frequency
        counts (equal to repeating rows).
    notes : dict
        How the input was read: ``"class_rule"`` (how the classes or the positive
        class were determined), ``"class_columns"`` (probability column -> class,
        when built from a DataFrame), ``"weight_scale"`` (the maximum importance
        weight the weights were divided by).

    Notes
    -----
    A derived field: ``proba`` passed as None beside a ``score`` reads as
    ``[1 - score, score]``, built afresh on each read; the profile holds only the
    score (:attr:`proba_from_score`; :attr:`has_proba` and :attr:`proba_width`
    answer without building the matrix).  The values are those a stored copy would
    hold.
    """

    conf: np.ndarray
    correct: np.ndarray
    y_true: np.ndarray | None = None
    y_pred: np.ndarray | None = None
    # proba may be passed as None when score is given: it is derived from the score
    # (a _Derivable is a descriptor of the class, not a shared mutable default)
    proba: np.ndarray | None = _Derivable(None)  # type: ignore[assignment]  # noqa: RUF009
    classes: np.ndarray | None = None
    score: np.ndarray | None = None
    sample_weight: np.ndarray | None = None
    threshold: float = 0.5
    weights: str = "importance"
    notes: dict[str, Any] = field(default_factory=dict)
    # (score, outcome) of each calibration view, built once: every binned, local and
    # smooth metric of a summary asks for the same arrays
    _views: dict[str, tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("conf", "correct", "y_true", "y_pred", "proba", "score", "sample_weight"):
            arr = self._stored(name)
            if arr is not None:
                # a read-only view: the caller's array (and its flags) stay untouched
                view = arr.view()
                view.flags.writeable = False
                object.__setattr__(self, name, view)

    def _stored(self, name: str) -> np.ndarray | None:
        """The array held for field ``name`` (None when it is derived on reading)."""
        return self.__dict__.get("_stored_" + name, self.__dict__.get(name))

    def _derive(self, name: str) -> np.ndarray | None:
        """Field ``name`` (``"proba"``) of a binary profile, ``[1 - score, score]``
        (None without a score), as :meth:`from_arrays` would have stored it."""
        s = self.score
        if s is None:
            return None
        out = np.empty((s.shape[0], 2), order="F")  # column-major [1 - p, p]
        np.subtract(1.0, s, out=out[:, 0])
        out[:, 1] = s
        out.flags.writeable = False
        return out

    def replace(self, **changes: Any) -> ConfidenceProfile:
        """A new profile with ``changes`` to its fields, as :func:`dataclasses.replace`,
        except that fields derived from the score stay derived (not built and stored).

        Parameters
        ----------
        **changes
            New field values, e.g. ``sample_weight=None``.

        Returns
        -------
        ConfidenceProfile
        """
        kw = {f.name: self._stored(f.name) for f in fields(self) if f.init}
        return ConfidenceProfile(**{**kw, **changes})

    def take(self, rows: np.ndarray) -> ConfidenceProfile:
        """The profile restricted to ``rows`` (integer positions or a boolean mask).

        Classes, the positive class, the threshold and the weight meaning are kept,
        so a group's numbers equal those of the same rows computed with the same
        classes.  A probability matrix derived from the score stays derived, from the
        taken score.
        """
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if rows.shape != (self.n,):
                raise IndexError(f"boolean index of shape {rows.shape} does not match "
                                 f"the profile's {self.n} rows")
            rows = np.flatnonzero(rows)

        def sub(a: np.ndarray | None) -> np.ndarray | None:
            # np.take: fancy indexing of an (N, K) array copies row by row (10x slower);
            # a column-major array is taken through its transpose, as np.take would
            # first copy all of it into row-major order
            if a is None:
                return None
            if a.ndim == 2 and a.flags.f_contiguous and not a.flags.c_contiguous:
                return np.take(a.T, rows, axis=1).T
            return np.take(a, rows, axis=0)

        w = sub(self.sample_weight)
        if w is not None and self.weights == "importance" and w.size:
            top = float(w.max())
            if top > 0 and top != 1.0:
                w = v.divide_weights(w, top)  # each group on its own scale

        # a proba derived from the score stays derived (from the taken score)
        held = self._stored("proba")
        proba = sub(held)
        # a binary profile's score held as the second column of its proba: gathered once
        score = proba[:, 1] if proba is not None and _is_column(self.score, held, 1) \
            else sub(self.score)
        return ConfidenceProfile(
            conf=sub(self.conf), correct=sub(self.correct),
            y_true=sub(self.y_true), y_pred=sub(self.y_pred),
            proba=proba, classes=self.classes,
            score=score, sample_weight=w,
            threshold=self.threshold, weights=self.weights, notes=dict(self.notes),
        )

    # ------------------------------------------------------------------ shape
    @property
    def n(self) -> int:
        """Number of predictions."""
        return int(self.conf.shape[0])

    @property
    def n_classes(self) -> int | None:
        """Number of classes, when labels or probabilities are known."""
        return None if self.classes is None else len(self.classes)

    @property
    def is_binary(self) -> bool:
        """True when the problem has exactly two classes with a positive-class score."""
        return self.score is not None

    @property
    def has_proba(self) -> bool:
        """True when class probabilities are known (read :attr:`proba` only to use
        them: a binary profile builds that matrix from its score on each read)."""
        return self._stored("proba") is not None or self.score is not None

    @property
    def proba_width(self) -> int:
        """Columns of :attr:`proba` (0 without probabilities), read without building it."""
        held = self._stored("proba")
        return int(held.shape[1]) if held is not None else 2 * (self.score is not None)

    @property
    def proba_from_score(self) -> bool:
        """True when :attr:`proba` is ``[1 - score, score]`` built from the score on
        each read (binary input given as one column), not a held matrix."""
        return self._stored("proba") is None and self.score is not None

    @property
    def proba_or_score(self) -> np.ndarray | None:
        """The probabilities as a function that reads a 1-D binary score as
        ``[1 - p, p]`` takes them: the score when :attr:`proba` is built from it."""
        return self.score if self.proba_from_score else self.proba

    def true_class_proba(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The probability each row gives its true class, ``proba[i, y_true[i]]`` (of
        ``rows`` only, when given): a new array, read from the score without building
        ``[1 - p, p]`` when :attr:`proba_from_score`.

        Parameters
        ----------
        rows : ndarray of int, optional
            Positions of the rows wanted (default: every row).

        Returns
        -------
        ndarray of float64
        """
        y = self.y_true if rows is None else self.y_true[rows]
        if self.proba_from_score:
            s = self.score if rows is None else self.score[rows]
            return _binary_conf(s, y == 1)  # where(y == 1, p, 1 - p)
        return self.proba[np.arange(self.n) if rows is None else rows, y]

    @property
    def has_labels(self) -> bool:
        """True when true and predicted labels are known."""
        return self.y_true is not None and self.y_pred is not None

    @property
    def default_view(self) -> str:
        """``"positive"`` for binary input with a score column, else ``"top_label"``."""
        return "positive" if self.is_binary else "top_label"

    def view(self, view: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(score, outcome)`` for a calibration view.

        ``"top_label"`` gives (confidence, correctness); ``"positive"`` gives
        (positive-class probability, 1[y == positive class]) for binary problems.
        """
        view = self.default_view if view is None else view
        v.check_option(view, "view", ("top_label", "positive"))
        cached = self._views.get(view)
        if cached is not None:
            return cached
        if view == "top_label":
            score, outcome = self.conf, self.correct.astype(np.float64)
        elif self.score is None or self.y_true is None:
            raise ValueError(
                "view='positive' needs a binary problem with true labels and a "
                "positive-class probability column; use view='top_label' instead."
            )
        else:
            score, outcome = self.score, (self.y_true == 1).astype(np.float64)
        outcome.flags.writeable = False  # shared by every caller of this profile
        self._views[view] = (score, outcome)
        return score, outcome

    # ------------------------------------------------------------ construction
    @classmethod
    def from_arrays(
        cls,
        y_true: Any = None,
        proba: Any = None,
        *,
        y_pred: Any = None,
        conf: Any = None,
        correct: Any = None,
        classes: Any = None,
        sample_weight: Any = None,
        threshold: float = 0.5,
        pos_label: Any = None,
        weights: str = "importance",
        normalize_weights: bool = True,
        names: Mapping[str, Any] | None = None,
    ) -> ConfidenceProfile:
        """Build a profile from arrays.

        Accepted combinations (Martin-Maroto et al. 2026, Definition 1):

        * ``y_true`` + ``proba`` (1-D positive-class probability, or ``N x K``);
        * ``y_true`` + ``y_pred`` + ``conf``;
        * ``conf`` + ``correct`` (the minimal profile).

        Parameters
        ----------
        y_true : array-like, optional
            True labels (any hashable values: numbers, strings, booleans; not a mix
            of numbers and strings).
        proba : array-like, optional
            1-D: probability of the positive class of a binary problem; 2-D: one
            column per class, ordered as ``classes``.
        y_pred : array-like, optional
            Predicted labels.  Default: argmax of ``proba`` (binary: ``p >= threshold``).
        conf : array-like, optional
            Confidence in the predicted label.  Default: the probability of the
            predicted class (binary at threshold 0.5: ``max(p, 1 - p)``).  With
            ``y_pred`` a confidence below ``1/K`` warns.
        correct : array-like of bool, optional
            Correctness; derived from labels when they are given.
        classes : array-like, optional
            Class labels, one per column of ``proba``.  Default for a 2-D ``proba``:
            the sorted labels when there are exactly ``K`` of them (scikit-learn's
            ``predict_proba`` order), or the codes ``0..K-1``.  A 1-D ``proba`` is
            ``[negative, positive]``.
        sample_weight : array-like, optional
            Non-negative row weights.
        threshold : float, default 0.5
            Decision threshold for a 1-D binary ``proba``.
        pos_label : optional
            Positive class for a 1-D binary ``proba``.  Required unless the labels
            are {0, 1}, {False, True} or {-1, 1} (then the positive class is 1).
        weights : {"importance", "frequency"}, default "importance"
            Meaning of ``sample_weight``.  Importance weights are divided by their
            maximum (so every value is invariant to their scale; the scale is kept
            in ``notes["weight_scale"]``); frequency weights must be integers and
            are kept as counts.
        normalize_weights : bool, default True
            Divide importance weights by their maximum (values are invariant to the
            scale; this keeps sums finite).  A grouped call passes False and
            normalises each group on its own (:meth:`take`), so a group whose
            weights are 1e-600 of another's is not rounded to zero.
        names : dict, optional
            Display names (e.g. DataFrame column names) used in error messages; the
            entry ``"proba"`` may be a list with one name per column.

        Returns
        -------
        ConfidenceProfile
            ``notes["class_rule"]`` says how the classes (or the positive class)
            were determined.

        Raises
        ------
        ValueError, TypeError
            On missing, out-of-range or inconsistent input; the message names the
            argument, counts the offending values and says how to fix it.

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026).
        Beyond ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted
        Metrics. arXiv:2605.01796, section 2 (Definition 1).

        Examples
        --------
        >>> p = ConfidenceProfile.from_arrays([0, 1, 1], [0.2, 0.7, 0.4])
        >>> p.conf.tolist(), p.correct.tolist()
        ([0.8, 0.7, 0.6], [True, True, False])
        """
        return cls._build(y_true, proba, y_pred=y_pred, conf=conf, correct=correct,
                          classes=classes, sample_weight=sample_weight, threshold=threshold,
                          pos_label=pos_label, weights=weights,
                          normalize_weights=normalize_weights, names=names)

    @classmethod
    def _build(cls, y_true: Any = None, proba: Any = None, *, y_pred: Any = None,
               conf: Any = None, correct: Any = None, classes: Any = None,
               sample_weight: Any = None, threshold: float = 0.5, pos_label: Any = None,
               weights: str = "importance", normalize_weights: bool = True,
               names: Mapping[str, Any] | None = None, handed_over: Any = None,
               whole: bool = True) -> ConfidenceProfile:
        """:meth:`from_arrays`; ``handed_over`` is an array the caller made for this
        profile alone (the accessor's probability matrix): it is not copied again;
        ``whole=False`` for one part of the data (weights may be zero on all its rows:
        :func:`calreport._validate.check_sample_weight`)."""
        nm: dict[str, Any] = {"y_true": "y_true", "proba": "proba", "y_pred": "y_pred",
                              "conf": "conf", "correct": "correct",
                              "sample_weight": "sample_weight"}
        if names:
            nm.update(names)
        proba_columns = None
        if not isinstance(nm["proba"], str):
            proba_columns = [str(c) for c in nm["proba"]]
            nm["proba"] = ", ".join(proba_columns)
        v.check_option(weights, "weights", v.WEIGHT_KINDS)
        threshold = float(threshold)
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"`threshold` must be in (0, 1), got {threshold!r}.")
        yt = None if y_true is None else lab.factorize_labels(y_true, nm["y_true"])
        yp = None if y_pred is None else lab.factorize_labels(y_pred, nm["y_pred"])
        notes: dict[str, Any] = {}

        if proba is not None:
            if yt is None:
                raise ValueError(
                    f"`{nm['proba']}` was given without true labels: pass `y_true` too "
                    "(calibration compares probabilities with outcomes)."
                )
            prof = cls._from_proba(yt, proba, yp, conf, classes, threshold, pos_label, nm,
                                   notes, proba_columns)
        elif conf is not None and yp is not None and yt is not None:
            c = v.check_probability(conf, nm["conf"])
            if classes is None:
                cl = lab.infer_classes(yt, yp, names=(nm["y_true"], nm["y_pred"]))
                notes["class_rule"] = "sorted labels"
            else:
                cl = lab.as_classes(classes)
                notes["class_rule"] = "given"
            small = _code_dtype(len(cl))
            codes_true = lab.encode_labels(yt, cl, nm["y_true"], classes_name="the labels",
                                           dtype=small)
            codes_pred = lab.encode_labels(yp, cl, nm["y_pred"], classes_name="the labels",
                                           dtype=small)
            v.check_consistent_length(**{nm["y_true"]: len(codes_true),
                                         nm["y_pred"]: len(codes_pred), nm["conf"]: len(c)})
            lab.check_top_label_confidence(c, len(cl), nm["conf"])
            prof = dict(conf=c, correct=codes_true == codes_pred, y_true=codes_true,
                        y_pred=codes_pred, classes=cl)
        elif conf is not None and correct is not None:
            c = v.check_probability(conf, nm["conf"])
            ok = lab.check_binary_indicator(correct, nm["correct"])
            v.check_consistent_length(**{nm["conf"]: len(c), nm["correct"]: len(ok)})
            prof = dict(conf=c, correct=ok)
            correct = None
        else:
            given = [k for k, val in (("y_true", y_true), ("proba", proba), ("y_pred", y_pred),
                                      ("conf", conf), ("correct", correct)) if val is not None]
            raise ValueError(
                "Not enough columns to build a confidence profile "
                f"(given: {', '.join(given) or 'nothing'}). Pass y_true + proba, or "
                "y_true + y_pred + conf, or conf + correct."
            )

        if correct is not None:
            ok = lab.check_binary_indicator(correct, nm["correct"])
            v.check_consistent_length(**{nm["correct"]: len(ok), "the labels": len(prof["conf"])})
            bad = ok != prof["correct"]
            if bad.any():
                raise ValueError(
                    f"`{nm['correct']}` disagrees with the labels on {int(bad.sum())} rows "
                    f"(first at position {int(np.flatnonzero(bad)[0])}). Pass either "
                    "`correct` or the labels, not both."
                )
        w = v.check_sample_weight(sample_weight, len(prof["conf"]), nm["sample_weight"],
                                  kind=weights, whole=whole)
        if w is not None and weights == "importance" and normalize_weights:
            w, notes["weight_scale"] = v.normalize_weights(w)
        # the profile owns its arrays: a view of the caller's data would change with it
        raws = [r for r in (_raw(x) for x in (y_true, proba, y_pred, conf, correct,
                                              sample_weight))
                if r is not None and r is not handed_over]
        for key in ("y_true", "y_pred"):
            if prof.get(key) is not None:
                prof[key] = _small_codes(prof[key], len(prof["classes"]))
        prof = {k: _owned(a, raws) for k, a in prof.items()}
        return cls(sample_weight=_owned(w, raws), threshold=threshold, weights=weights,
                   notes=notes, **prof)

    @staticmethod
    def _from_proba(yt, proba, yp, conf, classes, threshold, pos_label, nm, notes,
                    proba_columns):
        p = v.check_proba_matrix(proba, nm["proba"], columns=proba_columns)
        n = p.shape[0]
        label_names = (nm["y_true"], nm["y_pred"])
        if p.ndim == 1:
            if classes is None:
                labels = lab.infer_classes(yt, yp, names=label_names)
                cl, notes["class_rule"] = lab.binary_classes(
                    labels, pos_label=pos_label, y_name=nm["y_true"], proba_name=nm["proba"])
            else:
                cl = lab.as_classes(classes)
                notes["class_rule"] = "given: classes=[negative, positive]"
                if len(cl) != 2:
                    raise ValueError(
                        f"A one-column `{nm['proba']}` needs exactly two classes "
                        f"[negative, positive], got classes={cl.tolist()[:10]}."
                    )
                if pos_label is not None and lab._key(pos_label) != lab._key(cl[1]):
                    # two declarations of the positive class that disagree: neither
                    # silently wins
                    neg, pos = cl.tolist()
                    raise ValueError(
                        f"classes={[neg, pos]} makes {pos!r} the positive class of "
                        f"`{nm['proba']}`, but pos_label={pos_label!r}. Pass one of them: "
                        f"classes=[negative, positive] alone, or pos_label alone."
                    )
            # the profile holds the score alone (its own copy: see _owned), and reads
            # [1 - p, p] from it (ConfidenceProfile._derive)
            score, full = p, None
            predicted = score >= threshold
            # the codes 0/1 are the bytes of the boolean array (int8, no copy)
            pred_codes = predicted.view(np.int8)
        else:
            score = None
            full = p
            k = p.shape[1]
            if classes is None:
                labels = lab.infer_classes(yt, yp, names=label_names)
                cl, notes["class_rule"] = lab.classes_for_columns(labels, k,
                                                                proba_name=nm["proba"])
            else:
                cl = lab.as_classes(classes)
                notes["class_rule"] = "given"
                if len(cl) != k:
                    raise ValueError(
                        f"`classes` has {len(cl)} labels {cl.tolist()[:12]} but "
                        f"`{nm['proba']}` has {k} columns. Pass one class per column, in "
                        f"column order, e.g. classes={lab._example_classes(cl[:k], cl)}."
                    )
            pred_codes = _small_codes(np.argmax(p, axis=1), len(cl))
            if k == 2:
                score = p[:, 1]
        small = _code_dtype(len(cl))
        codes_true = lab.encode_labels(yt, cl, nm["y_true"], dtype=small)
        v.check_consistent_length(**{nm["y_true"]: len(codes_true), nm["proba"]: n})
        if yp is not None:
            pred_codes = lab.encode_labels(yp, cl, nm["y_pred"], dtype=small)
            v.check_consistent_length(**{nm["y_pred"]: len(pred_codes), nm["proba"]: n})
        if conf is not None:
            c = v.check_probability(conf, nm["conf"])
            v.check_consistent_length(**{nm["conf"]: len(c), nm["proba"]: n})
            if yp is not None:
                lab.check_top_label_confidence(c, len(cl), nm["conf"])
        elif p.ndim == 1:
            c = _binary_conf(score, predicted if yp is None else pred_codes == 1)
        else:
            c = np.take_along_axis(full, pred_codes[:, None], axis=1)[:, 0]
        return dict(conf=c, correct=codes_true == pred_codes, y_true=codes_true,
                    y_pred=pred_codes, proba=full, classes=cl, score=score)
