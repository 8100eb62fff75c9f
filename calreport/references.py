"""Bibliographic references, keyed by short names.

Every docstring ``References`` section, the report's reference list and the JSON
export cite papers through this table, so a reader can look each one up by its
authors, year, title, venue and arXiv id or DOI.

Examples
--------
>>> print(short("MartinMaroto2026"))
Martin-Maroto et al. (2026)
>>> cite("Wilson1927").startswith("Wilson, E. B. (1927).")
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["REFERENCES", "Reference", "cite", "short"]


@dataclass(frozen=True)
class Reference:
    """One bibliographic entry.

    Attributes
    ----------
    key : str
        Short name used throughout calreport (e.g. ``"MartinMaroto2026"``).
    authors : tuple of str
        Authors as "Surname, I." strings, in the published order.
    year : int
    title : str
    venue : str
        Journal, proceedings or publisher, with volume and pages where known.
    arxiv : str or None
        arXiv identifier, without the ``arXiv:`` prefix.
    doi : str or None
        Digital Object Identifier, without the resolver prefix.
    """

    key: str
    authors: tuple[str, ...]
    year: int
    title: str
    venue: str
    arxiv: str | None = None
    doi: str | None = None

    @property
    def identifier(self) -> str:
        """``arXiv:...`` and/or ``doi:...``, as a reader would look the paper up."""
        parts = []
        if self.arxiv:
            parts.append(f"arXiv:{self.arxiv}")
        if self.doi:
            parts.append(f"doi:{self.doi}")
        return ", ".join(parts)

    def format(self, section: str | None = None) -> str:
        """Full citation, optionally pointing at a section, equation or table."""
        if len(self.authors) == 1:
            names = self.authors[0]
        else:
            names = ", ".join(self.authors[:-1]) + " & " + self.authors[-1]
        text = f"{names} ({self.year}). {self.title}. {self.venue}."
        if self.identifier:
            text += f" {self.identifier}."
        if section:
            text += f" {section}."
        return text

    @property
    def short(self) -> str:
        """Author-year form, e.g. ``"Guo et al. (2017)"``."""
        surnames = [a.split(",")[0] for a in self.authors]
        if len(surnames) == 1:
            who = surnames[0]
        elif len(surnames) == 2:
            who = f"{surnames[0]} & {surnames[1]}"
        else:
            who = f"{surnames[0]} et al."
        return f"{who} ({self.year})"


_ENTRIES = (
    # --- the source papers of calreport's new metrics ---
    Reference("MartinMaroto2026",
              ("Martin-Maroto, F.", "Abderrahaman-Elena, N.", "de Polavieja, G. G."), 2026,
              "Beyond ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted "
              "Metrics", "arXiv preprint", arxiv="2605.01796"),
    Reference("Shahnazari2025",
              ("Shahnazari, K.", "Ayyoubzadeh, S. M.", "Keshtparvar, M.", "Ghaffari, P."), 2025,
              "Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware "
              "Model Evaluation", "arXiv preprint", arxiv="2505.18622"),
    Reference("FernandesMachado2024",
              ("Fernandes Machado, A.", "Charpentier, A.", "Flachaire, E.", "Gallic, E.",
               "Hu, F."), 2024,
              "From Uncertainty to Precision: Enhancing Binary Classifier Performance "
              "through Calibration", "arXiv preprint", arxiv="2402.07790"),
    Reference("Dong2025", ("Dong, J.", "Jiang, Z.", "Pan, D.", "Yu, Z."), 2025,
              "Combining Priors with Experience: Confidence Calibration Based on Binomial "
              "Process Modeling", "Proceedings of the AAAI Conference on Artificial "
              "Intelligence 39", arxiv="2412.10658"),
    # --- binned calibration error and reliability diagrams ---
    Reference("Naeini2015", ("Naeini, M. P.", "Cooper, G. F.", "Hauskrecht, M."), 2015,
              "Obtaining Well Calibrated Probabilities Using Bayesian Binning",
              "Proceedings of the AAAI Conference on Artificial Intelligence 29, 2901-2907",
              doi="10.1609/aaai.v29i1.9602"),
    Reference("Guo2017", ("Guo, C.", "Pleiss, G.", "Sun, Y.", "Weinberger, K. Q."), 2017,
              "On Calibration of Modern Neural Networks",
              "Proceedings of the 34th International Conference on Machine Learning (ICML), "
              "PMLR 70, 1321-1330", arxiv="1706.04599"),
    Reference("Nixon2019", ("Nixon, J.", "Dusenberry, M. W.", "Zhang, L.", "Jerfel, G.",
                            "Tran, D."), 2019,
              "Measuring Calibration in Deep Learning",
              "CVPR Workshops", arxiv="1904.01685"),
    Reference("Kumar2019", ("Kumar, A.", "Liang, P.", "Ma, T."), 2019,
              "Verified Uncertainty Calibration",
              "Advances in Neural Information Processing Systems 32 (NeurIPS)",
              arxiv="1909.10155"),
    Reference("Wilson1927", ("Wilson, E. B.",), 1927,
              "Probable Inference, the Law of Succession, and Statistical Inference",
              "Journal of the American Statistical Association 22(158), 209-212",
              doi="10.1080/01621459.1927.10502953"),
    Reference("Dimitriadis2021", ("Dimitriadis, T.", "Gneiting, T.", "Jordan, A. I."), 2021,
              "Stable Reliability Diagrams for Probabilistic Classifiers",
              "Proceedings of the National Academy of Sciences 118(8), e2016191118",
              doi="10.1073/pnas.2016191118"),
    Reference("Blasiok2024", ("Błasiok, J.", "Nakkiran, P."), 2024,
              "Smooth ECE: Principled Reliability Diagrams via Kernel Smoothing",
              "International Conference on Learning Representations (ICLR)",
              arxiv="2309.12236"),
    Reference("Ayer1955", ("Ayer, M.", "Brunk, H. D.", "Ewing, G. M.", "Reid, W. T.",
                           "Silverman, E."), 1955,
              "An Empirical Distribution Function for Sampling with Incomplete Information",
              "Annals of Mathematical Statistics 26(4), 641-647",
              doi="10.1214/aoms/1177728423"),
    # --- proper scores ---
    Reference("Brier1950", ("Brier, G. W.",), 1950,
              "Verification of Forecasts Expressed in Terms of Probability",
              "Monthly Weather Review 78(1), 1-3",
              doi="10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2"),
    Reference("Murphy1973", ("Murphy, A. H.",), 1973,
              "A New Vector Partition of the Probability Score",
              "Journal of Applied Meteorology 12(4), 595-600",
              doi="10.1175/1520-0450(1973)012<0595:ANVPOT>2.0.CO;2"),
    Reference("Good1952", ("Good, I. J.",), 1952, "Rational Decisions",
              "Journal of the Royal Statistical Society, Series B 14(1), 107-114",
              doi="10.1111/j.2517-6161.1952.tb00104.x"),
    Reference("Gneiting2007", ("Gneiting, T.", "Raftery, A. E."), 2007,
              "Strictly Proper Scoring Rules, Prediction, and Estimation",
              "Journal of the American Statistical Association 102(477), 359-378",
              doi="10.1198/016214506000001437"),
    Reference("Hastie2009", ("Hastie, T.", "Tibshirani, R.", "Friedman, J."), 2009,
              "The Elements of Statistical Learning: Data Mining, Inference, and "
              "Prediction (2nd ed.)", "Springer, New York",
              doi="10.1007/978-0-387-84858-7"),
    Reference("GneitingBalabdaoui2007", ("Gneiting, T.", "Balabdaoui, F.", "Raftery, A. E."),
              2007, "Probabilistic Forecasts, Calibration and Sharpness",
              "Journal of the Royal Statistical Society, Series B 69(2), 243-268",
              doi="10.1111/j.1467-9868.2007.00587.x"),
    Reference("Ehm2016", ("Ehm, W.", "Gneiting, T.", "Jordan, A.", "Krüger, F."), 2016,
              "Of Quantiles and Expectiles: Consistent Scoring Functions, Choquet "
              "Representations and Forecast Rankings",
              "Journal of the Royal Statistical Society, Series B 78(3), 505-562",
              doi="10.1111/rssb.12154"),
    # --- ranking ---
    Reference("HanleyMcNeil1982", ("Hanley, J. A.", "McNeil, B. J."), 1982,
              "The Meaning and Use of the Area under a Receiver Operating Characteristic "
              "(ROC) Curve", "Radiology 143(1), 29-36",
              doi="10.1148/radiology.143.1.7063747"),
    Reference("DeLong1988", ("DeLong, E. R.", "DeLong, D. M.", "Clarke-Pearson, D. L."), 1988,
              "Comparing the Areas under Two or More Correlated Receiver Operating "
              "Characteristic Curves: A Nonparametric Approach", "Biometrics 44(3), 837-845",
              doi="10.2307/2531595"),
    # --- classification metrics ---
    Reference("Matthews1975", ("Matthews, B. W.",), 1975,
              "Comparison of the Predicted and Observed Secondary Structure of T4 Phage "
              "Lysozyme", "Biochimica et Biophysica Acta 405(2), 442-451",
              doi="10.1016/0005-2795(75)90109-9"),
    Reference("Brodersen2010", ("Brodersen, K. H.", "Ong, C. S.", "Stephan, K. E.",
                                "Buhmann, J. M."), 2010,
              "The Balanced Accuracy and Its Posterior Distribution",
              "20th International Conference on Pattern Recognition (ICPR), 3121-3124",
              doi="10.1109/ICPR.2010.764"),
    # --- selective classification ---
    Reference("GeifmanElYaniv2017", ("Geifman, Y.", "El-Yaniv, R."), 2017,
              "Selective Classification for Deep Neural Networks",
              "Advances in Neural Information Processing Systems 30 (NeurIPS)",
              arxiv="1705.08500"),
    Reference("Geifman2019", ("Geifman, Y.", "Uziel, G.", "El-Yaniv, R."), 2019,
              "Bias-Reduced Uncertainty Estimation for Deep Neural Classifiers",
              "International Conference on Learning Representations (ICLR)",
              arxiv="1805.08206"),
    # --- clinical calibration ---
    Reference("HosmerLemeshow1980", ("Hosmer, D. W.", "Lemeshow, S."), 1980,
              "Goodness of Fit Tests for the Multiple Logistic Regression Model",
              "Communications in Statistics - Theory and Methods 9(10), 1043-1069",
              doi="10.1080/03610928008827941"),
    Reference("Spiegelhalter1986", ("Spiegelhalter, D. J.",), 1986,
              "Probabilistic Prediction in Patient Management and Clinical Trials",
              "Statistics in Medicine 5(5), 421-433", doi="10.1002/sim.4780050506"),
    Reference("Cox1958", ("Cox, D. R.",), 1958,
              "Two Further Applications of a Model for Binary Regression",
              "Biometrika 45(3/4), 562-565", doi="10.2307/2333203"),
    Reference("AustinSteyerberg2019", ("Austin, P. C.", "Steyerberg, E. W."), 2019,
              "The Integrated Calibration Index (ICI) and Related Metrics for Quantifying "
              "the Calibration of Logistic Regression Models",
              "Statistics in Medicine 38(21), 4051-4065", doi="10.1002/sim.8281"),
    Reference("VanHoorde2015", ("Van Hoorde, K.", "Van Huffel, S.", "Timmerman, D.",
                                "Bourne, T.", "Van Calster, B."), 2015,
              "A Spline-Based Tool to Assess and Visualize the Calibration of Multiclass "
              "Risk Predictions", "Journal of Biomedical Informatics 54, 283-293",
              doi="10.1016/j.jbi.2014.12.016"),
    Reference("Cleveland1979", ("Cleveland, W. S.",), 1979,
              "Robust Locally Weighted Regression and Smoothing Scatterplots",
              "Journal of the American Statistical Association 74(368), 829-836",
              doi="10.1080/01621459.1979.10481038"),
    # --- inference ---
    Reference("Efron1979", ("Efron, B.",), 1979,
              "Bootstrap Methods: Another Look at the Jackknife",
              "Annals of Statistics 7(1), 1-26", doi="10.1214/aos/1176344552"),
    Reference("Efron1982", ("Efron, B.",), 1982,
              "The Jackknife, the Bootstrap and Other Resampling Plans",
              "CBMS-NSF Regional Conference Series in Applied Mathematics 38, SIAM, "
              "Philadelphia", doi="10.1137/1.9781611970319"),
    Reference("EfronTibshirani1993", ("Efron, B.", "Tibshirani, R. J."), 1993,
              "An Introduction to the Bootstrap", "Chapman & Hall, New York",
              doi="10.1201/9780429246593"),
    Reference("DieboldMariano1995", ("Diebold, F. X.", "Mariano, R. S."), 1995,
              "Comparing Predictive Accuracy",
              "Journal of Business & Economic Statistics 13(3), 253-263",
              doi="10.1080/07350015.1995.10524599"),
    Reference("HanleyMacGibbon2006", ("Hanley, J. A.", "MacGibbon, B."), 2006,
              "Creating Non-Parametric Bootstrap Samples Using Poisson Frequencies",
              "Computer Methods and Programs in Biomedicine 83(1), 57-62",
              doi="10.1016/j.cmpb.2006.04.006"),
    Reference("ClopperPearson1934", ("Clopper, C. J.", "Pearson, E. S."), 1934,
              "The Use of Confidence or Fiducial Limits Illustrated in the Case of the "
              "Binomial", "Biometrika 26(4), 404-413", doi="10.1093/biomet/26.4.404"),
    Reference("Chamandy2012", ("Chamandy, N.", "Muralidharan, O.", "Najmi, A.", "Naidu, S."),
              2012, "Estimating Uncertainty for Massive Data Streams",
              "Technical report, Google"),
    Reference("Salmon2011", ("Salmon, J. K.", "Moraes, M. A.", "Dror, R. O.", "Shaw, D. E."),
              2011, "Parallel Random Numbers: As Easy as 1, 2, 3",
              "Proceedings of the International Conference for High Performance Computing, "
              "Networking, Storage and Analysis (SC'11)", doi="10.1145/2063384.2063405"),
    Reference("Kull2017", ("Kull, M.", "Silva Filho, T.", "Flach, P."), 2017,
              "Beta Calibration: A Well-Founded and Easily Implemented Improvement on "
              "Logistic Calibration for Binary Classifiers",
              "Proceedings of the 20th International Conference on Artificial Intelligence "
              "and Statistics (AISTATS), PMLR 54, 623-631"),
    # --- recalibration ---
    Reference("Platt1999", ("Platt, J. C.",), 1999,
              "Probabilistic Outputs for Support Vector Machines and Comparisons to "
              "Regularized Likelihood Methods",
              "Advances in Large Margin Classifiers, MIT Press, 61-74"),
    Reference("ZadroznyElkan2002", ("Zadrozny, B.", "Elkan, C."), 2002,
              "Transforming Classifier Scores into Accurate Multiclass Probability Estimates",
              "Proceedings of the 8th ACM SIGKDD International Conference on Knowledge "
              "Discovery and Data Mining, 694-699", doi="10.1145/775047.775151"),
    Reference("VovkPetej2014", ("Vovk, V.", "Petej, I."), 2014, "Venn-Abers Predictors",
              "Proceedings of the 30th Conference on Uncertainty in Artificial Intelligence "
              "(UAI), 829-838", arxiv="1211.0025"),
    Reference("Vovk2015", ("Vovk, V.", "Petej, I.", "Fedorova, V."), 2015,
              "Large-scale Probabilistic Predictors with and without Guarantees of Validity",
              "Advances in Neural Information Processing Systems 28 (NeurIPS)",
              arxiv="1511.00213"),
    Reference("Jeffreys1946", ("Jeffreys, H.",), 1946,
              "An Invariant Form for the Prior Probability in Estimation Problems",
              "Proceedings of the Royal Society of London, Series A 186(1007), 453-461",
              doi="10.1098/rspa.1946.0056"),
    Reference("Brown2001", ("Brown, L. D.", "Cai, T. T.", "DasGupta, A."), 2001,
              "Interval Estimation for a Binomial Proportion",
              "Statistical Science 16(2), 101-133", doi="10.1214/ss/1009213286"),
    Reference("Kish1965", ("Kish, L.",), 1965, "Survey Sampling", "John Wiley & Sons, New York"),
    Reference("CohenKaplan2007", ("Cohen, E.", "Kaplan, H."), 2007,
              "Summarizing Data using Bottom-k Sketches",
              "Proceedings of the 26th ACM Symposium on Principles of Distributed Computing "
              "(PODC), 225-234", doi="10.1145/1281100.1281133"),
    # --- calibration tests with p-values ---
    Reference("ArrietaIbarra2022", ("Arrieta-Ibarra, I.", "Gujral, P.", "Tannen, J.",
                                    "Tygert, M.", "Xu, C."), 2022,
              "Metrics of Calibration for Probabilistic Predictions",
              "Journal of Machine Learning Research 23(351), 1-54", arxiv="2205.09680"),
    Reference("Tygert2022", ("Tygert, M.",), 2022,
              "Calibration of P-values for Calibration and for Deviation of a Subpopulation "
              "from the Full Population", "arXiv preprint", arxiv="2202.00100"),
    Reference("Feller1951", ("Feller, W.",), 1951,
              "The Asymptotic Distribution of the Range of Sums of Independent Random "
              "Variables", "Annals of Mathematical Statistics 22(3), 427-432",
              doi="10.1214/aoms/1177729589"),
    Reference("Lee2023", ("Lee, D.", "Huang, X.", "Hassani, H.", "Dobriban, E."), 2023,
              "T-Cal: An Optimal Test for the Calibration of Predictive Models",
              "Journal of Machine Learning Research 24(335), 1-72", arxiv="2203.01850"),
    Reference("Besag1991", ("Besag, J.", "Clifford, P."), 1991,
              "Sequential Monte Carlo p-values", "Biometrika 78(2), 301-304",
              doi="10.1093/biomet/78.2.301"),
    Reference("Cochran1977", ("Cochran, W. G.",), 1977, "Sampling Techniques",
              "3rd ed., John Wiley & Sons, New York"),
    Reference("Politis1999", ("Politis, D. N.", "Romano, J. P.", "Wolf, M."), 1999,
              "Subsampling", "Springer Series in Statistics, Springer, New York",
              doi="10.1007/978-1-4612-1554-7"),
)

#: Every reference calreport cites, by key.
REFERENCES: dict[str, Reference] = {r.key: r for r in _ENTRIES}


def _get(key: str) -> Reference:
    try:
        return REFERENCES[key]
    except KeyError:
        raise KeyError(
            f"Unknown reference key {key!r}. Known keys: {', '.join(sorted(REFERENCES))}."
        ) from None


def cite(key: str, section: str | None = None) -> str:
    """Full citation of a reference, optionally with a section.

    Parameters
    ----------
    key : str
        A key of :data:`REFERENCES`.
    section : str, optional
        Section, equation, proposition or table, e.g. ``"section 2.1"``.

    Returns
    -------
    str

    Examples
    --------
    >>> cite("Brier1950").split(".")[0]
    'Brier, G'
    """
    return _get(key).format(section)


def short(key: str) -> str:
    """Author-year form of a reference, e.g. ``"Guo et al. (2017)"``."""
    return _get(key).short
