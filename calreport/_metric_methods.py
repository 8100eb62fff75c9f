"""The per-metric methods shared by ``df.calib`` and ``df.groupby(...).calib``.

One thin, explicit method per registry metric, so IDE help and ``help()`` show
its formula and references (a test checks that every registry metric has its
method and that the docstring shows the registry's formula and references).
Each returns a float on a DataFrame and a Series indexed by the group keys on a
GroupBy; a NaN comes with an ``UndefinedMetricWarning`` saying why.
"""

from __future__ import annotations

from typing import Any

from calreport._calibration_tests import CalibrationTestMethods

__all__ = ["MetricMethods"]


class MetricMethods(CalibrationTestMethods):
    """Mixin: one method per summary metric; subclasses implement ``_metric`` (the
    calibration tests' p-values come from :class:`CalibrationTestMethods`)."""

    def _metric(self, name: str, **settings: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def accuracy(self) -> Any:
        """Accuracy.

        Notes
        -----
        Acc = Σ wᵢ·1[ŷᵢ = yᵢ] / Σ wᵢ

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. Definition 1.
        """
        return self._metric("accuracy")

    def cwa(self) -> Any:
        """Confidence-weighted accuracy (cwA).

        Notes
        -----
        cwA = Σ cᵢ·1[ŷᵢ = yᵢ] / Σ cᵢ, c = confidence in the predicted class

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. section 2.2, Definition 4.
        """
        return self._metric("cwa")

    def gain(self) -> Any:
        """cwA gain over accuracy.

        Notes
        -----
        gain = (cwA − Acc) / (1 − min(cwA, Acc))

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. section 3.1.
        """
        return self._metric("gain")

    def csr(self, *, eps: float = 1e-08) -> Any:
        """Calibrated Size Ratio (CSR).

        Parameters
        ----------
        eps : float, default 1e-8
            Confidences are clipped to ``[eps, 1 - eps]``.

        Notes
        -----
        CSR = (1/N) Σ_{i wrong} 1/(1 − cᵢ), confidences clipped to [ε, 1 − ε]; 1 under
        calibration

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. section 2.1, Definition 2.
        """
        return self._metric("csr", eps=eps)

    def sigma_csr(self, *, eps: float = 1e-08) -> Any:
        """σ_CSR (spread of CSR under calibration).

        Parameters
        ----------
        eps : float, default 1e-8
            Confidences are clipped to ``[eps, 1 - eps]``.

        Notes
        -----
        σ_CSR = √(Σ wᵢ² cᵢ/(1 − cᵢ)) / Σ wᵢ, the standard deviation of CSR when correctᵢ ~
        Bernoulli(cᵢ)

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. appendix A.2, Proposition 6.
        """
        return self._metric("sigma_csr", eps=eps)

    def z_csr(self, *, eps: float = 1e-08) -> Any:
        """z = (CSR − 1) / σ_CSR.

        Parameters
        ----------
        eps : float, default 1e-8
            Confidences are clipped to ``[eps, 1 - eps]``.

        Notes
        -----
        z = (CSR − 1) / σ_CSR; bands z ≤ 1 no evidence, 1 < z ≤ 3 evidence, z > 3 risky

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. section 2.1.
        """
        return self._metric("z_csr", eps=eps)

    def p_risk(
        self, *, eps: float = 1e-08, p_risk_method: str = 'auto',
        seed: int | None = None,
    ) -> Any:
        """P_risk.

        Parameters
        ----------
        eps : float, default 1e-8
            Confidences are clipped to ``[eps, 1 - eps]``.
        p_risk_method : {"auto", "normal", "monte_carlo"}, default "auto"
            Null distribution; "auto" uses the normal approximation only where it is
            valid.
        seed : int, optional
            Seed of the Monte Carlo null (default 0).

        Notes
        -----
        P_risk = P(CSR under calibration < observed CSR) when CSR > 1, else 0; by the normal
        approximation Φ(z) where it is valid, else by Monte Carlo of the null correctᵢ ~
        Bernoulli(cᵢ)

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. section 2.1 and Table 6; section 4 on small N.
        """
        return self._metric("p_risk", eps=eps, p_risk_method=p_risk_method, seed=seed)

    def ece(self, *, view: str | None = None, n_bins: int = 15, strategy: str = "uniform") -> Any:
        """Expected calibration error (ECE).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).
        n_bins : int, default 15
            Number of bins.
        strategy : {"uniform", "quantile"}, default "uniform"
            Equal-width or equal-mass bins.

        Notes
        -----
        ECE = Σ_b (|B_b| / N) · |acc(B_b) − conf(B_b)| over n_bins bins of the score

        References
        ----------
        Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining Well Calibrated
        Probabilities Using Bayesian Binning. Proceedings of the AAAI Conference on
        Artificial Intelligence 29, 2901-2907. doi:10.1609/aaai.v29i1.9602. section 3.
        Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration of Modern
        Neural Networks. Proceedings of the 34th International Conference on Machine
        Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. section 2.
        """
        return self._metric("ece", view=view, n_bins=n_bins, strategy=strategy)

    def mce(
        self, *, view: str | None = None, n_bins: int = 15,
        strategy: str = "uniform", min_count: int = 1,
    ) -> Any:
        """Maximum calibration error (MCE).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).
        n_bins : int, default 15
            Number of bins.
        strategy : {"uniform", "quantile"}, default "uniform"
            Equal-width or equal-mass bins.
        min_count : int, default 1
            Minimum rows of a bin.

        Notes
        -----
        MCE = max_b |acc(B_b) − conf(B_b)| over bins with at least min_count rows

        References
        ----------
        Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining Well Calibrated
        Probabilities Using Bayesian Binning. Proceedings of the AAAI Conference on
        Artificial Intelligence 29, 2901-2907. doi:10.1609/aaai.v29i1.9602. section 3.
        """
        return self._metric("mce", view=view, n_bins=n_bins, strategy=strategy, min_count=min_count)

    def signed_ece(
        self, *, view: str | None = None, n_bins: int = 15,
        strategy: str = "uniform",
    ) -> Any:
        """Signed ECE (confidence − accuracy).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).
        n_bins : int, default 15
            Number of bins.
        strategy : {"uniform", "quantile"}, default "uniform"
            Equal-width or equal-mass bins.

        Notes
        -----
        Σ_b (|B_b| / N) · (conf(B_b) − acc(B_b)); > 0 overconfident, < 0 underconfident

        References
        ----------
        Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration of Modern
        Neural Networks. Proceedings of the 34th International Conference on Machine
        Learning (ICML), PMLR 70, 1321-1330. arXiv:1706.04599. section 2.
        """
        return self._metric("signed_ece", view=view, n_bins=n_bins, strategy=strategy)

    def brier(self) -> Any:
        """Brier score.

        Notes
        -----
        mean of Σ_k (p_k − 1[y = k])² (binary: mean of (p − y)²), as scikit-learn

        References
        ----------
        Brier, G. W. (1950). Verification of Forecasts Expressed in Terms of Probability.
        Monthly Weather Review 78(1), 1-3.
        doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2.
        """
        return self._metric("brier")

    def log_loss(self) -> Any:
        """Log loss.

        Notes
        -----
        −mean of log p_y, p clipped to [ε, 1 − ε] with ε the float64 machine epsilon, as
        scikit-learn

        References
        ----------
        Good, I. J. (1952). Rational Decisions. Journal of the Royal Statistical Society,
        Series B 14(1), 107-114. doi:10.1111/j.2517-6161.1952.tb00104.x.
        """
        return self._metric("log_loss")

    def auc(self) -> Any:
        """AUC (macro one-vs-rest).

        Notes
        -----
        one-vs-rest AUC of each class on its probability, ties count ½; macro average over
        the classes with positives and negatives

        References
        ----------
        Hanley, J. A. & McNeil, B. J. (1982). The Meaning and Use of the Area under a
        Receiver Operating Characteristic (ROC) Curve. Radiology 143(1), 29-36.
        doi:10.1148/radiology.143.1.7063747.
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. section 2.2.
        """
        return self._metric("auc")

    def cwauc(self) -> Any:
        """Confidence-weighted AUC (cwAUC).

        Notes
        -----
        pairs (i positive, j negative) weighted by cᵢ·cⱼ, ties count ½; macro average

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. appendix A.3, Proposition 15.
        """
        return self._metric("cwauc")

    def delta_auc(self) -> Any:
        """cwAUC − AUC.

        Notes
        -----
        ΔAUC = cwAUC − AUC; > 0 when confidence helps ranking

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
        Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
        preprint. arXiv:2605.01796. appendix A.3, Proposition 16.
        """
        return self._metric("delta_auc")

    def cwsa(self, *, tau: float = 0.5) -> Any:
        """CWSA (confidence-weighted selective accuracy).

        Parameters
        ----------
        tau : float, default 0.5
            Selective threshold.

        Notes
        -----
        mean over S_τ = {c ≥ τ} of φ(c)·(2·correct − 1), φ(c) = (c − τ)/(1 − τ)

        References
        ----------
        Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025). Trust, or
        Don't Predict: Introducing the CWSA Family for Confidence-Aware Model Evaluation.
        arXiv preprint. arXiv:2505.18622. section 3.2.
        """
        return self._metric("cwsa", tau=tau)

    def cwsa_plus(self, *, tau: float = 0.5) -> Any:
        """CWSA+.

        Parameters
        ----------
        tau : float, default 0.5
            Selective threshold.

        Notes
        -----
        mean over S_τ = {c ≥ τ} of φ(c)·correct, φ(c) = (c − τ)/(1 − τ)

        References
        ----------
        Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025). Trust, or
        Don't Predict: Introducing the CWSA Family for Confidence-Aware Model Evaluation.
        arXiv preprint. arXiv:2505.18622. section 3.3.
        """
        return self._metric("cwsa_plus", tau=tau)

    def aurc(self) -> Any:
        """Area under the risk-coverage curve (AURC).

        Notes
        -----
        mean over coverage levels of the selective risk when predictions are kept in order
        of decreasing confidence (ties kept together)

        References
        ----------
        Geifman, Y. & El-Yaniv, R. (2017). Selective Classification for Deep Neural
        Networks. Advances in Neural Information Processing Systems 30 (NeurIPS).
        arXiv:1705.08500. section 2.
        Geifman, Y., Uziel, G. & El-Yaniv, R. (2019). Bias-Reduced Uncertainty Estimation
        for Deep Neural Classifiers. International Conference on Learning Representations
        (ICLR). arXiv:1805.08206. section 3.
        """
        return self._metric("aurc")

    def lcs(self, *, view: str | None = None) -> Any:
        """Local Calibration Score (LCS).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).

        Notes
        -----
        LCS = Σⱼ wⱼ (ĝ(lⱼ) − lⱼ)² / Σⱼ wⱼ, ĝ a LOWESS calibration curve on 100 grid points,
        wⱼ the reflected kernel density of the scores

        References
        ----------
        Fernandes Machado, A., Charpentier, A., Flachaire, E., Gallic, E. & Hu, F. (2024).
        From Uncertainty to Precision: Enhancing Binary Classifier Performance through
        Calibration. arXiv preprint. arXiv:2402.07790. Local Calibration Score.
        Cleveland, W. S. (1979). Robust Locally Weighted Regression and Smoothing
        Scatterplots. Journal of the American Statistical Association 74(368), 829-836.
        doi:10.1080/01621459.1979.10481038.
        """
        return self._metric("lcs", view=view)

    def tce_bpm(self, *, view: str | None = None) -> Any:
        """TCE_bpm (true calibration error, binomial process).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).

        Notes
        -----
        TCE = ∫ |g(x) − x| f(x) dx, g fitted by binomial maximum likelihood in the family
        logit g = c + a ln s − b ln(1 − s), f the Beta density of the scores

        References
        ----------
        Dong, J., Jiang, Z., Pan, D. & Yu, Z. (2025). Combining Priors with Experience:
        Confidence Calibration Based on Binomial Process Modeling. Proceedings of the AAAI
        Conference on Artificial Intelligence 39. arXiv:2412.10658. section 3.
        """
        return self._metric("tce_bpm", view=view)

    def smece(self, *, view: str | None = None) -> Any:
        """Smooth ECE (smECE).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).

        Notes
        -----
        smECE_σ = ∫ |r̂_σ(t) − t| δ̂_σ(t) dt, the calibration gap of the Gaussian-kernel
        smoothed outcome r̂_σ (reflected at 0 and 1) under the smoothed score density δ̂_σ,
        at the bandwidth σ* with smECE_σ* = σ*

        References
        ----------
        Błasiok, J. & Nakkiran, P. (2024). Smooth ECE: Principled Reliability Diagrams via
        Kernel Smoothing. International Conference on Learning Representations (ICLR).
        arXiv:2309.12236. sections 3-4.
        """
        return self._metric("smece", view=view)

    def classwise_ece(self, *, n_bins: int = 15) -> Any:
        """Class-wise ECE.

        Parameters
        ----------
        n_bins : int, default 15
            Number of bins.

        Notes
        -----
        mean over classes k of the binned ECE of p_k against 1[y = k], n_bins equal-width
        bins over all rows

        References
        ----------
        Nixon, J., Dusenberry, M. W., Zhang, L., Jerfel, G. & Tran, D. (2019). Measuring
        Calibration in Deep Learning. CVPR Workshops. arXiv:1904.01685. section 3.
        Kumar, A., Liang, P. & Ma, T. (2019). Verified Uncertainty Calibration. Advances in
        Neural Information Processing Systems 32 (NeurIPS). arXiv:1909.10155. section 3.
        """
        return self._metric("classwise_ece", n_bins=n_bins)

    def debiased_ece(self, *, view: str | None = None, n_bins: int = 15) -> Any:
        """Debiased ECE (L2).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).
        n_bins : int, default 15
            Number of bins.

        Notes
        -----
        √max(0, Σ_b (|B_b|/N)·[(ȳ_b − s̄_b)² − ȳ_b(1 − ȳ_b)/(|B_b| − 1)]) over n_bins
        equal-mass bins: the squared plug-in gap minus its sampling variance

        References
        ----------
        Kumar, A., Liang, P. & Ma, T. (2019). Verified Uncertainty Calibration. Advances in
        Neural Information Processing Systems 32 (NeurIPS). arXiv:1909.10155. section 5,
        Definition 5.2.
        """
        return self._metric("debiased_ece", view=view, n_bins=n_bins)

    def eci(self, *, view: str | None = None) -> Any:
        """Estimated calibration index (ECI).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).

        Notes
        -----
        ECI = 100 · mean over rows of (ĝ(sᵢ) − sᵢ)², ĝ the LOWESS calibration curve

        References
        ----------
        Van Hoorde, K., Van Huffel, S., Timmerman, D., Bourne, T. & Van Calster, B. (2015).
        A Spline-Based Tool to Assess and Visualize the Calibration of Multiclass Risk
        Predictions. Journal of Biomedical Informatics 54, 283-293.
        doi:10.1016/j.jbi.2014.12.016. section 2.
        """
        return self._metric("eci", view=view)

    def corp_mcb(self, *, view: str | None = None) -> Any:
        """CORP miscalibration (MCB).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).

        Notes
        -----
        MCB = S(p) − S(p̂_PAV): Brier score of the scores minus that of their isotonic (PAV)
        recalibration; S = MCB − DSC + UNC

        References
        ----------
        Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable Reliability Diagrams
        for Probabilistic Classifiers. Proceedings of the National Academy of Sciences
        118(8), e2016191118. doi:10.1073/pnas.2016191118. Eq. 3 and section 3.
        """
        return self._metric("corp_mcb", view=view)

    def corp_dsc(self, *, view: str | None = None) -> Any:
        """CORP discrimination (DSC).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).

        Notes
        -----
        DSC = S(ȳ) − S(p̂_PAV): Brier score of the base rate minus that of the PAV
        recalibration

        References
        ----------
        Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable Reliability Diagrams
        for Probabilistic Classifiers. Proceedings of the National Academy of Sciences
        118(8), e2016191118. doi:10.1073/pnas.2016191118. Eq. 3 and section 3.
        """
        return self._metric("corp_dsc", view=view)

    def corp_unc(self, *, view: str | None = None) -> Any:
        """CORP uncertainty (UNC).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column).

        Notes
        -----
        UNC = S(ȳ) = ȳ(1 − ȳ): Brier score of the base rate (a property of the data)

        References
        ----------
        Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable Reliability Diagrams
        for Probabilistic Classifiers. Proceedings of the National Academy of Sciences
        118(8), e2016191118. doi:10.1073/pnas.2016191118. Eq. 3 and section 3.
        """
        return self._metric("corp_unc", view=view)
