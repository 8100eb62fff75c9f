"""Figures: the drawn data equal the numbers they show; global matplotlib state untouched."""

from __future__ import annotations

import base64
import io
import subprocess
import sys
import textwrap

import matplotlib
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from scipy import stats
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from calreport import ConfidenceProfile, plotting
from calreport.metrics import binned, local, risk, selective


def _binary(seed: int, n: int = 600, overconfidence: float = 1.6) -> ConfidenceProfile:
    rng = np.random.default_rng(seed)
    true_p = rng.beta(2, 2, n)
    y = (rng.random(n) < true_p).astype(int)
    logit = np.log(true_p / (1 - true_p)) * overconfidence
    return ConfidenceProfile.from_arrays(y, 1 / (1 + np.exp(-logit)))


@pytest.fixture(scope="module")
def binary() -> ConfidenceProfile:
    return _binary(0)


@pytest.fixture(scope="module")
def groups() -> dict[str, ConfidenceProfile]:
    return {"calibrated": _binary(1, overconfidence=1.0), "overconfident": _binary(2)}


@pytest.fixture(scope="module")
def multiclass() -> ConfidenceProfile:
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(400, 4)) * 2
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    codes = (rng.random(400)[:, None] > np.cumsum(proba, axis=1)).sum(axis=1)
    return ConfidenceProfile.from_arrays(np.array(list("abcd"))[codes], proba,
                                         classes=list("abcd"))


def _data_line(ax: Axes, label: str):
    """The line labelled ``label``, searched in every axes of the figure."""
    found = [ln for a in ax.figure.axes for ln in a.lines if ln.get_label() == label]
    (line,) = found
    return line


def _points(ax: Axes, label: str) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (x, y) and marker sizes of the scatter labelled ``label``."""
    (col,) = [c for c in ax.collections if c.get_label() == label]
    return np.asarray(col.get_offsets()), np.asarray(col.get_sizes())


def _error_bars(ax: Axes, label: str) -> np.ndarray:
    """Segments ``[[(x, low), (x, high)], ...]`` of the error bars of series ``label``."""
    (container,) = [c for c in ax.containers if c.get_label() == f"_{label} intervals"]
    return np.array(container.lines[2][0].get_segments())


# ----------------------------------------------------------------- reliability diagram
def test_reliability_points_and_intervals_are_the_table(binary):
    ax = plotting.reliability_diagram(binary, n_bins=10)
    score, outcome = binary.view()
    t = binned.reliability_table(score, outcome, n_bins=10, strategy="uniform")
    ok = np.asarray(t.count) > 0
    xy, sizes = _points(ax, "observed frequency (95 % Wilson interval)")
    np.testing.assert_allclose(xy[:, 0], np.asarray(t.mean_score)[ok])
    np.testing.assert_allclose(xy[:, 1], np.asarray(t.mean_outcome)[ok])
    # marker area grows linearly with the bin count: size = 8 + 110 * count / max
    count = np.asarray(t.count, float)[ok]
    np.testing.assert_allclose(sizes, 8 + 110 * count / count.max())
    # the error bars run from ci_low to ci_high at each point
    seg = _error_bars(ax, "observed")
    np.testing.assert_allclose(seg[:, 0, 1], np.asarray(t.ci_low)[ok])
    np.testing.assert_allclose(seg[:, 1, 1], np.asarray(t.ci_high)[ok])
    # the occupancy bars underneath count the rows: independent count with equal-width
    # bins ((m-1)/M, m/M], 0 in the first bin
    hax = ax.child_axes[0]
    heights = np.array([p.get_height() for p in hax.patches])
    idx = np.clip(np.ceil(score * 10).astype(int) - 1, 0, 9)
    np.testing.assert_array_equal(heights, np.bincount(idx, minlength=10))
    assert heights.sum() == binary.n


def test_reliability_quantile_and_top_label_view(binary):
    ax = plotting.reliability_diagram(binary, view="top_label", n_bins=5, strategy="quantile")
    t = binned.reliability_table(binary.conf, binary.correct.astype(float), n_bins=5,
                                 strategy="quantile")
    xy, _ = _points(ax, "observed frequency (95 % Wilson interval)")
    np.testing.assert_allclose(xy[:, 1], np.asarray(t.mean_outcome)[
        np.asarray(t.count) > 0])
    assert ax.get_ylabel() == "Accuracy"
    assert "quantile" in ax.get_title()


def test_reliability_overlay_one_series_per_group(groups):
    ax = plotting.reliability_diagram(groups, n_bins=8)
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["perfect calibration", "calibrated", "overconfident"]
    for name, prof in groups.items():
        t = binned.reliability_table(*prof.view(), n_bins=8, strategy="uniform")
        np.testing.assert_allclose(_points(ax, name)[0][:, 1],
                                   np.asarray(t.mean_outcome)[np.asarray(t.count) > 0])
    assert len(ax.child_axes[0].patches) == 2 * 8


def test_grey_series_are_context(groups):
    ax = plotting.reliability_diagram(groups, n_bins=8, grey=["calibrated"])
    (col,) = [c for c in ax.collections if c.get_label() == "calibrated"]
    assert matplotlib.colors.to_hex(col.get_facecolor()[0]) == plotting.GREY
    # context series carry no error bars
    assert [c.get_label() for c in ax.containers] == ["_overconfident intervals"]
    ax = plotting.lowess_curve_plot(groups, grey=["calibrated"])
    (line,) = [ln for ln in ax.lines if ln.get_label().startswith("calibrated")]
    assert line.get_color() == plotting.GREY


def test_reliability_draws_on_given_axes(binary):
    fig = Figure()
    ax = fig.add_subplot()
    assert plotting.reliability_diagram(binary, ax=ax) is ax
    assert ax.figure is fig


# ------------------------------------------------------------------ calibration curve
def test_lowess_curve_is_the_lowess_curve_with_lcs(groups):
    ax = plotting.lowess_curve_plot(groups)
    for name, prof in groups.items():
        score, outcome = prof.view()
        curve = local.lowess_curve(score, outcome, frac="auto")  # the drawn span
        value = local.lcs(score, outcome)
        line = _data_line(ax, f"{name} (LCS = {value:.4f})")
        np.testing.assert_allclose(line.get_xdata(), np.asarray(curve.x))
        np.testing.assert_allclose(line.get_ydata(), np.asarray(curve.y))


# --------------------------------------------------------------- confidence histogram
def test_confidence_histogram_counts_and_reference_lines(binary):
    ax = plotting.confidence_histogram(binary, bins=10)
    edges = np.linspace(0, 1, 11)
    ok = binary.correct
    good = [p.get_height() for p in ax.containers[0]]
    bad = [p.get_height() for p in ax.containers[1]]
    np.testing.assert_array_equal(good, np.histogram(binary.conf[ok], edges)[0])
    np.testing.assert_array_equal(bad, np.histogram(binary.conf[~ok], edges)[0])
    acc_line = next(ln for ln in ax.lines if ln.get_label().startswith("accuracy"))
    assert acc_line.get_xdata()[0] == pytest.approx(ok.mean())
    conf_line = next(ln for ln in ax.lines if ln.get_label().startswith("mean confidence"))
    assert conf_line.get_xdata()[0] == pytest.approx(binary.conf.mean())


def test_confidence_histogram_uses_weights():
    p = ConfidenceProfile.from_arrays(conf=[0.62, 0.91, 0.93], correct=[1, 1, 0],
                                      sample_weight=[2.0, 1.0, 3.0], weights="frequency")
    ax = plotting.confidence_histogram(p, bins=10)
    assert [b.get_height() for b in ax.containers[0]][6] == 2.0  # 0.62 in (0.6, 0.7]
    assert [b.get_height() for b in ax.containers[1]][9] == 3.0
    acc_line = next(ln for ln in ax.lines if ln.get_label().startswith("accuracy"))
    assert acc_line.get_xdata()[0] == pytest.approx(3 / 6)


def test_confidence_histogram_refuses_several_groups(groups):
    with pytest.raises(ValueError, match="shows one profile but `profile` holds 2 groups"):
        plotting.confidence_histogram(groups)


# ------------------------------------------------------------------------ ROC / cwROC
def test_roc_curve_points_lie_on_sklearn_curve(binary):
    ax = plotting.roc_plot(binary)
    y = binary.y_true == 1
    fpr, tpr, _ = sk_roc_curve(y, binary.score, drop_intermediate=False)
    auc = roc_auc_score(y, binary.score)
    line = _data_line(ax, f"ROC, AUC = {auc:.4f}")
    pts = set(zip(np.round(fpr, 12), np.round(tpr, 12), strict=True))
    drawn = zip(np.round(line.get_xdata(), 12), np.round(line.get_ydata(), 12), strict=True)
    assert all(p in pts for p in drawn)


def test_cwroc_area_is_pair_weighted_auc():
    rng = np.random.default_rng(5)
    p = rng.uniform(size=120)
    y = (rng.random(120) < p).astype(int)
    prof = ConfidenceProfile.from_arrays(y, p)
    c = prof.conf
    # brute force over (positive, negative) pairs, weights c_i c_j, ties count 1/2
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    s_i, s_j = p[pos][:, None], p[neg][None, :]
    w = c[pos][:, None] * c[neg][None, :]
    cwauc = float((w * ((s_i > s_j) + 0.5 * (s_i == s_j))).sum() / w.sum())
    ax = plotting.roc_plot(prof)
    line = _data_line(ax, f"cwROC, cwAUC = {cwauc:.4f}")
    area = np.sum(np.diff(line.get_xdata()) * (line.get_ydata()[1:] + line.get_ydata()[:-1]))
    assert area / 2 == pytest.approx(cwauc, abs=1e-12)


def test_roc_long_curves_are_thinned_to_curve_points():
    rng = np.random.default_rng(6)
    p = rng.uniform(size=20000)
    prof = ConfidenceProfile.from_arrays((rng.random(20000) < p).astype(int), p)
    ax = plotting.roc_plot(prof)
    line = next(ln for ln in ax.lines if ln.get_label().startswith("ROC"))
    x, y = line.get_xdata(), line.get_ydata()
    assert len(x) < 2100
    assert (x[0], y[0], x[-1], y[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert np.max(np.diff(x)) < 2e-3 and np.max(np.diff(y)) < 2e-3


def test_roc_multiclass_needs_cls(multiclass):
    with pytest.raises(ValueError, match="pass cls= one of"):
        plotting.roc_plot(multiclass)
    ax = plotting.roc_plot(multiclass, cls="c")
    auc = roc_auc_score(multiclass.y_true == 2, multiclass.proba[:, 2])
    assert f"ROC, AUC = {auc:.4f}" in ax.get_legend_handles_labels()[1]
    with pytest.raises(ValueError, match="`cls` 'z' is not among"):
        plotting.roc_plot(multiclass, cls="z")


def test_roc_needs_labels():
    p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9], correct=[1, 0])
    with pytest.raises(ValueError, match="needs true labels and class probabilities"):
        plotting.roc_plot(p)


# ---------------------------------------------------------------------------- selective
def test_selective_lines_are_the_sweep(groups):
    taus = np.linspace(0.5, 0.95, 10)
    ax = plotting.selective_plot(groups, taus=taus)
    assert len(ax.figure.axes) == 4  # one panel per quantity
    for name, prof in groups.items():
        sweep = selective.selective_sweep(prof.conf, prof.correct, taus=taus)
        for key, label in (("coverage", "coverage"), ("cwsa", "CWSA"),
                           ("cwsa_plus", "CWSA+"),
                           ("selective_accuracy", "selective accuracy")):
            line = _data_line(ax, f"{name}: {label}")
            np.testing.assert_allclose(line.get_ydata(), sweep[key])
        # independent: coverage is the share of rows with c >= tau
        cov = _data_line(ax, f"{name}: coverage").get_ydata()
        np.testing.assert_allclose(cov, [(prof.conf >= t).mean() for t in taus])


def test_selective_default_grid_reaches_below_lowest_confidence(multiclass):
    ax = plotting.selective_plot(multiclass)
    tau = _data_line(ax, "coverage").get_xdata()
    assert tau[0] <= multiclass.conf.min() and tau[-1] == pytest.approx(0.99)
    assert _data_line(ax, "coverage").get_ydata()[0] == 1.0


# --------------------------------------------------------------------------------- risk
def test_risk_plot_positions_are_p_risk_on_the_z_scale():
    conf = np.array([0.9, 0.95, 0.6, 0.8, 0.99, 0.7])
    correct = np.array([1, 0, 1, 1, 0, 1], bool)
    # hand-worked: CSR = (1/(1-0.95) + 1/(1-0.99)) / 6 = (20 + 100) / 6 = 20
    # sigma = sqrt(sum c/(1-c)) / 6 = sqrt(9 + 19 + 1.5 + 4 + 99 + 7/3) / 6
    sigma = np.sqrt(9 + 19 + 1.5 + 4 + 99 + 7 / 3) / 6
    z_bad = (20 - 1) / sigma
    good = ConfidenceProfile.from_arrays(conf=[0.6, 0.7, 0.8, 0.55], correct=[1, 1, 0, 1])
    bad = ConfidenceProfile.from_arrays(conf=conf, correct=correct)
    risks = {"good": risk.risk_summary(good.conf, good.correct, seed=0),
             "bad": risk.risk_summary(bad.conf, bad.correct, seed=0)}
    ax = plotting.risk_plot(risks)
    offsets = ax.collections[0].get_offsets()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    by_name = dict(zip(labels, offsets[:, 0], strict=True))
    assert risks["bad"].z_csr == pytest.approx(z_bad)
    # x = Phi^-1(P_risk): the z-equivalent of the simulated P_risk of 6 rows, so the
    # drawn 1- and 3-sigma lines are the band rule
    assert risks["bad"].p_risk_method == "monte_carlo"
    assert by_name["bad"] == pytest.approx(stats.norm.ppf(risks["bad"].p_risk))
    assert by_name["good"] == pytest.approx(stats.norm.ppf(risks["good"].p_risk))
    # worst group on top
    assert offsets[labels.index("bad"), 1] > offsets[labels.index("good"), 1]
    # profiles are accepted and summarised the same way
    ax2 = plotting.risk_plot({"bad": bad})
    assert ax2.collections[0].get_offsets()[0, 0] == pytest.approx(by_name["bad"])
    # marker colour = the band's colour
    colours = [matplotlib.colors.to_hex(c) for c in ax.collections[0].get_facecolors()]
    assert colours[labels.index("bad")] == plotting.BAND_COLORS["risky"]


def test_risk_plot_many_groups_top_rows_and_a_strip():
    rng = np.random.default_rng(5)
    profs = {f"g{i:03d}": ConfidenceProfile.from_arrays(
        conf=rng.uniform(0.5, 0.99, 80), correct=rng.random(80) < 0.7) for i in range(60)}
    ax = plotting.risk_plot(profs, top=10)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 11 and labels[-1] == "other 50 groups"
    zs = {k: risk.risk_summary(p.conf, p.correct, seed=0).p_risk for k, p in profs.items()}
    top = sorted(zs, key=lambda k: -zs[k])[:10]
    assert labels[:10] == top
    assert len(ax.collections[1].get_offsets()) == 50
    # the height grows with the rows drawn
    small = plotting.risk_plot(dict(list(profs.items())[:3]))
    assert ax.figure.get_size_inches()[1] > small.figure.get_size_inches()[1]


def test_risk_drivers_cumulative_share():
    # errors at 0.9 and 0.6 contribute 10 and 2.5: shares 0.8 then 1.0
    p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.5, 0.7], correct=[0, 0, 1, 1])
    ax = plotting.risk_drivers_plot(p)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.8, 1.0])
    np.testing.assert_allclose(plotting.cumulative_csr_share(p), [0.8, 1.0])


# -------------------------------------------------------------------- global state
def test_rcparams_unchanged_by_all_figures(binary, groups, multiclass):
    before = matplotlib.rcParams.copy()
    plotting.reliability_diagram(groups)
    plotting.lowess_curve_plot(binary)
    plotting.confidence_histogram(binary)
    plotting.roc_plot(groups)
    plotting.selective_plot(multiclass)
    plotting.risk_plot(groups)
    fig = plotting.risk_drivers_plot(groups).figure
    plotting.figure_to_data_uri(fig)
    plotting.figure_to_data_uri(fig, fmt="png")
    after = matplotlib.rcParams.copy()
    assert dict(before) == dict(after)


def test_pyplot_is_never_imported_when_an_axes_is_given_or_a_report_is_drawn():
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import pandas as pd
        from matplotlib.figure import Figure
        from calreport import ConfidenceProfile, plotting
        p = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.2, 0.7, 0.9, 0.4])
        ax = plotting.reliability_diagram(p, ax=Figure().add_subplot())
        plotting.figure_to_data_uri(ax.figure)
        df = pd.DataFrame({"y": [0, 1, 1, 0] * 20, "p": [0.2, 0.7, 0.9, 0.4] * 20})
        df.calib(y="y", proba="p").report(ci=None).to_html()
        print("matplotlib.pyplot" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_a_figure_asked_for_goes_through_pyplot_a_report_figure_does_not(binary, groups):
    import matplotlib.pyplot as plt
    import pandas as pd

    plt.close("all")
    ax = plotting.reliability_diagram(binary)
    # registered with pyplot: a notebook's inline backend shows it at the end of the cell
    assert plt.get_fignums() == [ax.figure.number]
    acc = pd.DataFrame({"y": [0, 1, 1, 0] * 20, "p": [0.2, 0.7, 0.9, 0.4] * 20,
                        "g": ["a", "b"] * 40}).groupby("g").calib(y="y", proba="p")
    ax2 = acc.plot.selective_plot()  # several groups: a figure of four panels
    assert plt.get_fignums() == [ax.figure.number, ax2.figure.number]
    acc.report(ci=None).to_html()
    assert len(plt.get_fignums()) == 2  # the report's figures stay out of pyplot
    mine = Figure()
    plotting.roc_plot(groups, ax=mine.add_subplot())
    assert len(plt.get_fignums()) == 2  # a given ax: nothing created
    plt.close("all")


# -------------------------------------------------------------------------- embedding
def test_svg_ids_are_renamed_in_document_order():
    svg = ('<defs><path id="m0123456789"/><clipPath id="p9876543210"/>'
           '<path id="C0_1_045b9c60ab"/></defs>'
           '<use xlink:href="#m0123456789"/><g clip-path="url(#p9876543210)"/>'
           '<use xlink:href="#C0_1_045b9c60ab"/>'
           '<path id="DejaVuSans-41"/><g id="line2d_1"/>')
    out = plotting.stable_svg_ids(svg)
    assert out == ('<defs><path id="cr0"/><clipPath id="cr1"/><path id="cr2"/></defs>'
                   '<use xlink:href="#cr0"/><g clip-path="url(#cr1)"/><use xlink:href="#cr2"/>'
                   '<path id="DejaVuSans-41"/><g id="line2d_1"/>')


def test_figure_encoding_is_deterministic_svg_for_lines(binary):
    a = plotting.figure_to_data_uri(plotting.reliability_diagram(binary).figure)
    b = plotting.figure_to_data_uri(plotting.reliability_diagram(binary).figure)
    assert a == b
    assert a.startswith("data:image/svg+xml;base64,")
    svg = base64.b64decode(a.split(",", 1)[1]).decode()
    assert "<dc:date>" not in svg and "http://" not in svg.split("<svg", 1)[1].split(
        ">", 1)[1].replace("http://www.w3.org", "")


def test_dense_scatter_becomes_png():
    fig = Figure()
    rng = np.random.default_rng(0)
    fig.add_subplot().scatter(*rng.uniform(size=(2, plotting.DENSE_POINTS + 1)), s=1)
    uri = plotting.figure_to_data_uri(fig)
    assert uri.startswith("data:image/png;base64,")
    assert base64.b64decode(uri.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert uri == plotting.figure_to_data_uri(fig)


def test_png_drops_the_alpha_channel_only_of_opaque_figures():
    from PIL import Image

    def decode(uri):
        return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))

    fig = Figure(figsize=(6.4, 3.13))
    fig.add_subplot().plot([0, 1], [0, 1])
    img = decode(plotting.figure_to_data_uri(fig, fmt="png", dpi=150))
    # 6.4 x 150 = 960 pixels; 3.13 x 150 = 469.5, truncated as matplotlib's canvas does
    assert img.mode == "RGB" and img.size == (960, 469)
    clear = Figure(figsize=(2, 1))
    clear.patch.set_alpha(0.0)
    clear.add_subplot().plot([0, 1], [0, 1])
    img = decode(plotting.figure_to_data_uri(clear, fmt="png", dpi=100))
    assert img.mode == "RGBA" and img.size == (200, 100)
    assert img.getchannel("A").getextrema()[0] == 0  # the transparency is kept


def test_hostile_labels_are_drawn_literally(binary):
    groups = {"$x_{1}$ cost": binary, "_hidden": binary}
    ax = plotting.reliability_diagram(groups)
    labels = ax.get_legend_handles_labels()[1]
    assert labels[1:] == [r"\$x_{1}\$ cost", " _hidden"]
    plotting.figure_to_data_uri(ax.figure)  # renders without a mathtext error


# -------------------------------------------------------------------------- errors
def test_bad_inputs_have_clear_errors(binary):
    with pytest.raises(TypeError, match="must be a ConfidenceProfile or a mapping"):
        plotting.reliability_diagram([0.1, 0.2])
    with pytest.raises(TypeError, match=r"`profile\['a'\]` is a list"):
        plotting.lowess_curve_plot({"a": [1, 2]})
    with pytest.raises(ValueError, match="empty mapping"):
        plotting.selective_plot({})
    with pytest.raises(TypeError, match="`ax` must be a matplotlib Axes"):
        plotting.confidence_histogram(binary, ax="left")
    with pytest.raises(ValueError, match="`n_bins` must be a positive integer"):
        plotting.reliability_diagram(binary, n_bins=0)
    with pytest.raises(ValueError, match="`fmt` must be one of"):
        plotting.figure_to_data_uri(Figure(), fmt="jpg")


# ----------------------------------------------------------------------- accessor glue
def test_calib_plots_with_mapping_and_callable(groups):
    calls = []

    def source():
        calls.append(1)
        return groups

    plots = plotting.CalibPlots(source)
    assert not calls  # lazy
    ax = plots.reliability_diagram(n_bins=5)
    assert ax.get_legend_handles_labels()[1][1:] == list(groups)
    ax = plots.confidence_histogram(group="overconfident")
    assert ax.get_title() == "Confidence histogram"
    ax = plots.risk_plot()
    assert {t.get_text() for t in ax.get_yticklabels()} == set(groups)
    with pytest.raises(KeyError, match="No group 'nope'"):
        plots.roc_plot(group="nope")
    single = plotting.CalibPlots({"all": groups["calibrated"]})
    assert single.lowess_curve_plot().get_legend_handles_labels()[1][1].startswith("LCS")
    with pytest.raises(TypeError, match="CalibPlots needs a mapping"):
        plotting.CalibPlots(3)


def test_risk_drivers_grey_groups_are_one_collection_with_their_curves():
    rng = np.random.default_rng(5)
    profs = {}
    for i in range(8):
        conf = rng.uniform(0.5, 1.0, 200)
        profs[f"g{i}"] = ConfidenceProfile.from_arrays(conf=conf,
                                                       correct=rng.random(200) < conf)
    ax = plotting.risk_drivers_plot(profs, grey=[f"g{i}" for i in range(3, 8)])
    assert [line.get_label() for line in ax.lines] == ["g0", "g1", "g2"]
    (coll,) = [c for c in ax.collections if c.get_segments()]
    segs = coll.get_segments()
    assert len(segs) == 5
    # each grey path is the group's curve: same y values as the cumulative share
    for seg, g in zip(segs, [f"g{i}" for i in range(3, 8)], strict=True):
        share = plotting.cumulative_csr_share(profs[g])
        assert set(np.round(seg[:, 1], 12)) <= set(np.round(share, 12))
        assert seg[-1, 1] == pytest.approx(1.0)
