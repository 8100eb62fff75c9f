"""Values transcribed from the papers' tables, for the reproduction examples.

Numbers are copied as printed (four decimals, percentages in percent), from:

* Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
  Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics. arXiv
  preprint. arXiv:2605.01796.  Appendix A.6: Table 5 (perfect calibration, three
  sample sizes), Tables 8-9 (all calibration modes, N = 1000), Table 10 (cwAUC vs AUC
  counts) and Table 11 (cwAUC on one calibrated sample).
* Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025). Trust,
  or Don't Predict: Introducing the CWSA Family for Confidence-Aware Model
  Evaluation. arXiv preprint. arXiv:2505.18622.  Section 5: Tables 1-3 (tau sweeps
  of the synthetic calibrated, overconfident and random models).

Keys are the names of :mod:`calreport.synthetic` (``DISTRIBUTIONS``,
``CALIBRATION_MODES``; ``PAPER_LABELS`` maps them to the paper's row labels).
Nothing here is computed: the file is data, checked only by reading it against
the papers.
"""

#: Columns of Tables 5, 8 and 9 of Martin-Maroto et al. (2026).  ``gain``,
#: ``gt_1_sigma``, ``gt_3_sigma`` and ``p_risk`` are in percent.  ``gt_k_sigma`` is the
#: percentage of the 100 repetitions with CSR > 1 + k sigma_CSR (z > k), Table 5's
#: caption; ``p_risk`` is the mean over repetitions of P_risk = Phi(z) when CSR > 1,
#: else 0.
BEYOND_ECE_COLUMNS = ("acc", "cwa", "gain", "csr", "sigma_csr", "gt_1_sigma", "gt_3_sigma",
                      "p_risk")

#: Martin-Maroto et al. (2026), Table 5: perfect calibration, mean over 100 repetitions,
#: by N (the table prints N = 100, 10,000 and 100,000 although the text says N in {100,
#: 10,000}).
TABLE_5 = {
    100: {
        "uniform": (0.4987, 0.6626, 32.87, 1.0251, 0.3108, 13.00, 3.00, 29.84),
        "skew_high": (0.8662, 0.8956, 21.99, 0.9115, 11.6795, 2.00, 0.00, 16.16),
        "skew_low": (0.1456, 0.3361, 22.43, 0.9985, 0.0500, 15.00, 0.00, 32.53),
        "bimodal": (0.4970, 0.8084, 62.04, 1.2019, 7.8461, 6.00, 2.00, 17.90),
        "tight_high": (0.9039, 0.9075, 3.91, 0.9638, 0.6288, 10.00, 1.00, 26.46),
        "tight_low": (0.0991, 0.1324, 3.75, 1.0004, 0.0339, 19.00, 0.00, 37.30),
        "normal": (0.6947, 0.7087, 4.61, 1.0182, 0.1920, 17.00, 1.00, 35.81),
        "log_uniform_low": (0.1103, 0.4940, 43.39, 0.9918, 0.0783, 7.00, 0.00, 28.53),
        "log_uniform_high": (0.9358, 0.9620, 41.75, 0.4842, 27.1426, 0.00, 0.00, 3.69),
        "bell": (0.4950, 0.5407, 9.12, 1.0124, 0.1120, 21.00, 0.00, 37.83),
    },
    10000: {
        "uniform": (0.5006, 0.6671, 33.33, 0.9993, 0.0375, 9.00, 1.00, 32.75),
        "skew_high": (0.8571, 0.8889, 22.25, 1.0297, 16.1439, 1.00, 1.00, 17.72),
        "skew_low": (0.1423, 0.3329, 22.22, 1.0006, 0.0050, 18.00, 0.00, 42.14),
        "bimodal": (0.5002, 0.8096, 61.91, 1.0072, 3.6306, 1.00, 0.00, 16.72),
        "tight_high": (0.8997, 0.9034, 3.69, 1.0056, 0.0790, 12.00, 1.00, 33.00),
        "tight_low": (0.1002, 0.1332, 3.67, 0.9999, 0.0034, 14.00, 0.00, 37.56),
        "normal": (0.6986, 0.7128, 4.72, 1.0026, 0.0190, 21.00, 2.00, 40.26),
        "log_uniform_low": (0.1087, 0.4989, 43.78, 1.0012, 0.0106, 14.00, 1.00, 37.99),
        "log_uniform_high": (0.9342, 0.9611, 40.89, 0.9608, 2.7029, 2.00, 1.00, 10.22),
        "bell": (0.5003, 0.5457, 9.08, 0.9990, 0.0112, 14.00, 0.00, 31.20),
    },
    100000: {
        "uniform": (0.5002, 0.6668, 33.33, 1.0002, 0.0120, 6.00, 1.00, 24.70),
        "skew_high": (0.8571, 0.8888, 22.19, 1.0279, 10.1119, 1.00, 0.00, 16.79),
        "skew_low": (0.1428, 0.3330, 22.19, 1.0001, 0.0016, 16.00, 0.00, 39.93),
        "bimodal": (0.5000, 0.8094, 61.87, 0.9920, 5.7997, 0.00, 0.00, 15.79),
        "tight_high": (0.8999, 0.9036, 3.70, 1.0035, 0.0266, 11.00, 1.00, 40.24),
        "tight_low": (0.1001, 0.1335, 3.71, 0.9999, 0.0011, 10.00, 0.00, 33.32),
        "normal": (0.6997, 0.7139, 4.70, 0.9991, 0.0058, 5.00, 0.00, 33.31),
        "log_uniform_low": (0.1085, 0.4998, 43.90, 0.9999, 0.0037, 7.00, 0.00, 30.83),
        "log_uniform_high": (0.9344, 0.9613, 41.09, 0.9409, 0.8537, 6.00, 1.00, 11.39),
        "bell": (0.5000, 0.5454, 9.09, 1.0001, 0.0035, 15.00, 0.00, 36.37),
    },
}
#: Martin-Maroto et al. (2026), Tables 8 (part A) and 9 (part B): every calibration
#: mode, N = 1000, mean over 100 repetitions; ``TABLES_8_9[mode][distribution]``.  The
#: sigma_CSR column repeats across modes because the paper draws the confidences with a
#: seed per distribution (section 3.1), so sigma_CSR, a function of the confidences
#: only, does not depend on the mode.
TABLES_8_9 = {
    "random": {
        "uniform": (0.5007, 0.5001, -0.13, 7.2495, 0.1045, 100.00, 100.00, 100.00),
        "skew_high": (0.5032, 0.5027, -0.08, 138863.1123, 88.6478, 100.00, 100.00, 100.00),
        "skew_low": (0.5027, 0.5014, -0.25, 0.6216, 0.0157, 0.00, 0.00, 0.00),
        "bimodal": (0.5000, 0.4997, -0.06, 296252.2417, 5.6867, 100.00, 100.00, 100.00),
        "tight_high": (0.5010, 0.5009, -0.00, 37.2159, 0.2336, 100.00, 100.00, 100.00),
        "tight_low": (0.4987, 0.4991, 0.07, 0.5591, 0.0107, 0.00, 0.00, 0.00),
        "normal": (0.4982, 0.4985, 0.05, 2.0802, 0.0560, 100.00, 100.00, 100.00),
        "log_uniform_low": (0.4997, 0.4987, -0.21, 0.9792, 0.0300, 22.00, 19.00, 25.58),
        "log_uniform_high": (0.5029, 0.5028, -0.01, 36163.8773, 8.5918, 100.00, 100.00, 100.00),
        "bell": (0.4978, 0.4973, -0.10, 1.1266, 0.0352, 99.00, 63.00, 99.18),
    },
    "perfect": {
        "uniform": (0.4977, 0.6638, 33.08, 1.0062, 0.1045, 6.00, 1.00, 32.52),
        "skew_high": (0.8571, 0.8886, 22.04, 1.0249, 88.6478, 1.00, 1.00, 13.23),
        "skew_low": (0.1405, 0.3274, 21.76, 1.0032, 0.0157, 24.00, 0.00, 41.65),
        "bimodal": (0.5000, 0.8094, 61.90, 0.9768, 5.6867, 0.00, 0.00, 16.19),
        "tight_high": (0.9006, 0.9043, 3.78, 0.9719, 0.2336, 9.00, 0.00, 24.79),
        "tight_low": (0.0999, 0.1336, 3.75, 0.9998, 0.0107, 16.00, 1.00, 37.82),
        "normal": (0.6999, 0.7139, 4.67, 0.9994, 0.0560, 17.00, 1.00, 35.29),
        "log_uniform_low": (0.1068, 0.4944, 43.42, 0.9990, 0.0300, 6.00, 1.00, 33.33),
        "log_uniform_high": (0.9333, 0.9608, 41.21, 0.7147, 8.5918, 1.00, 0.00, 9.32),
        "bell": (0.4987, 0.5443, 9.11, 0.9997, 0.0352, 17.00, 0.00, 39.16),
    },
    "underconf_linear": {
        "uniform": (0.6019, 0.7353, 33.54, 0.7913, 0.1045, 0.00, 0.00, 0.59),
        "skew_high": (0.8850, 0.9102, 21.91, 0.7617, 88.6478, 0.00, 0.00, 5.71),
        "skew_low": (0.3122, 0.4623, 21.85, 0.8029, 0.0157, 0.00, 0.00, 0.00),
        "bimodal": (0.5994, 0.8480, 62.10, 0.7849, 5.6867, 0.00, 0.00, 3.39),
        "tight_high": (0.9199, 0.9229, 3.73, 0.7929, 0.2336, 3.00, 0.00, 6.06),
        "tight_low": (0.2824, 0.3085, 3.63, 0.7971, 0.0107, 0.00, 0.00, 0.00),
        "normal": (0.7580, 0.7695, 4.76, 0.8012, 0.0560, 0.00, 0.00, 0.00),
        "log_uniform_low": (0.2824, 0.5981, 44.04, 0.8033, 0.0300, 0.00, 0.00, 0.00),
        "log_uniform_high": (0.9480, 0.9694, 41.21, 0.6383, 8.5918, 1.00, 0.00, 4.85),
        "bell": (0.5982, 0.6350, 9.15, 0.8016, 0.0352, 0.00, 0.00, 0.00),
    },
    "underconf_sqrt": {
        "uniform": (0.6670, 0.8006, 40.14, 0.6127, 0.1045, 0.00, 0.00, 0.77),
        "skew_high": (0.9202, 0.9396, 24.30, 0.5230, 88.6478, 1.00, 1.00, 2.03),
        "skew_low": (0.3137, 0.5482, 34.20, 0.7790, 0.0157, 0.00, 0.00, 0.00),
        "bimodal": (0.6169, 0.8834, 69.59, 0.6306, 5.6867, 0.00, 0.00, 0.00),
        "tight_high": (0.9487, 0.9506, 3.66, 0.4973, 0.2336, 0.00, 0.00, 0.65),
        "tight_low": (0.2970, 0.3562, 8.44, 0.7769, 0.0107, 0.00, 0.00, 0.00),
        "normal": (0.8350, 0.8433, 5.01, 0.5439, 0.0560, 0.00, 0.00, 0.00),
        "log_uniform_low": (0.2135, 0.6645, 57.37, 0.8515, 0.0300, 0.00, 0.00, 0.00),
        "log_uniform_high": (0.9615, 0.9787, 44.70, 0.3393, 8.5918, 0.00, 0.00, 1.91),
        "bell": (0.6949, 0.7270, 10.55, 0.6002, 0.0352, 0.00, 0.00, 0.00),
    },
    "random_over": {
        "uniform": (0.7503, 0.8331, 33.18, 0.5022, 0.1045, 0.00, 0.00, 0.00),
        "skew_high": (0.9278, 0.9438, 22.13, 0.4553, 88.6478, 0.00, 0.00, 1.01),
        "skew_low": (0.5727, 0.6693, 22.63, 0.4975, 0.0157, 0.00, 0.00, 0.00),
        "bimodal": (0.7491, 0.9049, 62.11, 0.4865, 5.6867, 0.00, 0.00, 0.64),
        "tight_high": (0.9493, 0.9512, 3.74, 0.5199, 0.2336, 1.00, 1.00, 1.55),
        "tight_low": (0.5496, 0.5656, 3.57, 0.5004, 0.0107, 0.00, 0.00, 0.00),
        "normal": (0.8488, 0.8559, 4.69, 0.5042, 0.0560, 0.00, 0.00, 0.00),
        "log_uniform_low": (0.5523, 0.7480, 43.72, 0.5036, 0.0300, 0.00, 0.00, 0.00),
        "log_uniform_high": (0.9665, 0.9802, 41.10, 0.5388, 8.5918, 1.00, 0.00, 2.80),
        "bell": (0.7486, 0.7719, 9.29, 0.5004, 0.0352, 0.00, 0.00, 0.00),
    },
    "overconf_sqrt": {
        "uniform": (0.3345, 0.4677, 20.03, 1.9643, 0.1045, 100.00, 96.00, 99.94),
        "skew_high": (0.6860, 0.7249, 12.39, 10.4461, 88.6478, 74.00, 26.00, 89.92),
        "skew_low": (0.0804, 0.1966, 12.65, 1.1012, 0.0157, 100.00, 100.00, 100.00),
        "bimodal": (0.3849, 0.6530, 43.62, 5.7695, 5.6867, 68.00, 30.00, 87.42),
        "tight_high": (0.7014, 0.7080, 2.24, 4.4671, 0.2336, 100.00, 100.00, 100.00),
        "tight_low": (0.0517, 0.0699, 1.92, 1.0554, 0.0107, 100.00, 99.00, 100.00),
        "normal": (0.4622, 0.4760, 2.57, 1.9201, 0.0560, 100.00, 100.00, 100.00),
        "log_uniform_low": (0.0655, 0.3269, 27.99, 1.1650, 0.0300, 99.00, 85.00, 99.49),
        "log_uniform_high": (0.8614, 0.8964, 25.28, 134.9216, 8.5918, 96.00, 79.00, 98.05),
        "bell": (0.2993, 0.3322, 4.70, 1.4764, 0.0352, 100.00, 100.00, 100.00),
    },
    "overconf_half": {
        "uniform": (0.2510, 0.3344, 11.15, 8.8308, 0.1045, 100.00, 100.00, 100.00),
        "skew_high": (0.4277, 0.4436, 2.78, 57168.2115, 88.6478, 100.00, 100.00, 100.00),
        "skew_low": (0.0713, 0.1647, 10.06, 1.1243, 0.0157, 100.00, 100.00, 100.00),
        "bimodal": (0.2511, 0.4061, 20.71, 65437.4015, 5.6867, 100.00, 100.00, 100.00),
        "tight_high": (0.4516, 0.4534, 0.33, 28.5956, 0.2336, 100.00, 100.00, 100.00),
        "tight_low": (0.0500, 0.0665, 1.74, 1.0576, 0.0107, 100.00, 100.00, 100.00),
        "normal": (0.3524, 0.3594, 1.08, 2.5909, 0.0560, 100.00, 100.00, 100.00),
        "log_uniform_low": (0.0545, 0.2534, 21.05, 1.5712, 0.0300, 100.00, 99.00, 100.00),
        "log_uniform_high": (0.4683, 0.4823, 2.63, 37298.3427, 8.5918, 100.00, 100.00, 100.00),
        "bell": (0.2478, 0.2700, 2.96, 1.6257, 0.0352, 100.00, 100.00, 100.00),
    },
    "random_under": {
        "uniform": (0.2487, 0.3321, 11.10, 6.1840, 0.1045, 100.00, 100.00, 100.00),
        "skew_high": (0.4293, 0.4450, 2.75, 116891.8558, 88.6478, 99.00, 99.00, 99.53),
        "skew_low": (0.0711, 0.1671, 10.35, 1.1225, 0.0157, 100.00, 100.00, 100.00),
        "bimodal": (0.2505, 0.4061, 20.78, 23900.3248, 5.6867, 100.00, 98.00, 99.84),
        "tight_high": (0.4502, 0.4521, 0.34, 29.2531, 0.2336, 100.00, 100.00, 100.00),
        "tight_low": (0.0508, 0.0687, 1.89, 1.0565, 0.0107, 100.00, 100.00, 100.00),
        "normal": (0.3500, 0.3567, 1.04, 2.5731, 0.0560, 100.00, 100.00, 100.00),
        "log_uniform_low": (0.0550, 0.2537, 21.04, 1.6221, 0.0300, 100.00, 100.00, 100.00),
        "log_uniform_high": (0.4664, 0.4798, 2.52, 36470.1166, 8.5918, 100.00, 100.00, 100.00),
        "bell": (0.2495, 0.2718, 2.97, 1.6220, 0.0352, 100.00, 100.00, 100.00),
    },
}
#: Martin-Maroto et al. (2026), Table 10: number of the ten distributions where the
#: macro cwAUC exceeds (first) or falls below (second) the macro AUC, per calibration
#: mode.  The seventh row is printed "Overconf sqrt(c)", a mode that does not exist
#: (sqrt(c) >= c is underconfident); by its position in the table's mode order (Table 4)
#: it is "Overconf 0.5c".
TABLE_10 = {
    "random": (0, 10),
    "perfect": (9, 1),
    "underconf_linear": (9, 1),
    "underconf_sqrt": (9, 1),
    "random_over": (10, 0),
    "overconf_sqrt": (8, 2),
    "overconf_half": (2, 8),
    "random_under": (5, 5),
}
#: Columns of Table 11 of Martin-Maroto et al. (2026): ``gain`` and ``auc_gain`` in
#: percent, ``auc_gain = (cwAUC - AUC) / (1 - min(cwAUC, AUC))`` (the gain formula
#: applied to AUC).
TABLE_11_COLUMNS = ("acc", "cwa", "delta_cwa", "gain", "auc", "cwauc", "delta_auc",
                    "auc_gain")

#: Martin-Maroto et al. (2026), Table 11: one calibrated sample per distribution (the accuracies are
#: multiples of 0.001, so N = 1000 and a single draw, not a mean over repetitions).
TABLE_11 = {
    "uniform": (0.5130, 0.6949, 0.1819, 37.34, 0.6804, 0.8142, 0.1338, 41.85),
    "skew_high": (0.8510, 0.8799, 0.0289, 19.43, 0.9324, 0.9468, 0.0143, 21.18),
    "skew_low": (0.1410, 0.3484, 0.2074, 24.15, 0.5025, 0.5311, 0.0286, 5.75),
    "bimodal": (0.5010, 0.8237, 0.3227, 64.67, 0.7201, 0.9274, 0.2073, 74.06),
    "tight_high": (0.8990, 0.9023, 0.0033, 3.29, 0.9297, 0.9326, 0.0030, 4.24),
    "tight_low": (0.1000, 0.1324, 0.0324, 3.60, 0.5000, 0.4987, -0.0013, -0.27),
    "normal": (0.7240, 0.7372, 0.0132, 4.78, 0.7776, 0.7904, 0.0128, 5.75),
    "log_uniform_low": (0.1090, 0.5007, 0.3917, 43.96, 0.5081, 0.6775, 0.1693, 34.43),
    "log_uniform_high": (0.9470, 0.9692, 0.0222, 41.87, 0.9917, 0.9940, 0.0023, 28.19),
    "bell": (0.4900, 0.5371, 0.0471, 9.24, 0.5704, 0.5996, 0.0292, 6.79),
}

#: Columns of Tables 1-3 of Shahnazari et al. (2025).
CWSA_COLUMNS = ("selective_accuracy", "cwsa", "cwsa_plus", "coverage")

#: Shahnazari et al. (2025), Tables 1-3: ``CWSA_TABLES[model][printed threshold]``.
#: The published code (github.com/jay-gatz/CWSA at commit c55d6fb, ``Metrics/cwsa.py``)
#: divides CWSA by N and CWSA+ by
#: |S_tau|, and sweeps tau over ``linspace(0.5, 0.99, 20)``; the rows are grid points
#: printed with rounded labels (see :data:`CWSA_ROW_TAUS`).
CWSA_TABLES = {
    "calibrated": {  # Table 1
        0.50: (0.938, 0.7314, 0.7456, 1.000),
        0.60: (0.958, 0.6718, 0.7164, 0.882),
        0.70: (0.969, 0.5924, 0.6859, 0.754),
        0.80: (0.976, 0.4831, 0.6509, 0.584),
        0.90: (0.984, 0.3196, 0.6058, 0.349),
        0.95: (0.992, 0.1592, 0.5559, 0.168),
        0.99: (1.000, 0.0289, 0.5073, 0.057),
    },
    "overconfident": {  # Table 2
        0.50: (0.9430, 0.7973, 0.8486, 1.000),
        0.60: (0.9430, 0.7742, 0.8240, 1.000),
        0.70: (0.9430, 0.7575, 0.8062, 1.000),
        0.80: (0.9430, 0.6532, 0.6951, 1.000),
        0.90: (0.9430, 0.4941, 0.5257, 1.000),
        0.95: (0.9481, 0.1567, 0.4795, 0.347),
        0.99: (0.9574, 0.0431, 0.4748, 0.094),
    },
    "random": {  # Table 3
        0.50: (0.3366, -0.1100, 0.1652, 0.725),
        0.60: (0.3357, -0.0829, 0.1732, 0.554),
        0.70: (0.3459, -0.0712, 0.1758, 0.477),
        0.80: (0.3493, -0.0476, 0.1761, 0.292),
        0.90: (0.3229, -0.0262, 0.1570, 0.161),
        0.95: (0.3750, -0.0063, 0.1978, 0.048),
        0.99: (0.5000, -0.0003, 0.2062, 0.016),
    },
}

#: Grid threshold behind each printed row of :data:`CWSA_TABLES`, as an index into
#: ``linspace(0.5, 0.99, 20)`` (the published sweep grid).  Derived from Table 2,
#: whose model has closed forms: every confidence is U(0.9, 1), so coverage is 1 for
#: tau <= 0.9 and the mean weight of a retained row is (0.95 - tau) / (1 - tau);
#: CWSA / (2 acc - 1) = 0.7742 / 0.886, 0.7575 / 0.886, 0.6532 / 0.886 and
#: 0.4941 / 0.886 give tau = 0.604, 0.655, 0.810 and 0.887, and coverage 0.347 gives
#: tau = 0.965: grid points 4 (0.6032), 6 (0.6547), 12 (0.8095), 15 (0.8868) and
#: 18 (0.9642).  Table 3's coverages of U(0.3, 1) confidences agree within sampling
#: noise (0.554 -> tau 0.612, 0.477 -> 0.666, 0.161 -> 0.887, 0.048 -> 0.966).
CWSA_ROW_GRID_INDEX = {0.50: 0, 0.60: 4, 0.70: 6, 0.80: 12, 0.90: 15, 0.95: 18, 0.99: 19}
