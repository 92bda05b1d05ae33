"""What every section of the report is computed from (:class:`ReportData`), and
with (:class:`ReportSettings`)."""

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._stats import ClassStatistics
from ._sample import fitting_rows


def standardizing_map(stats):
    """``(mean, scale)`` of StandardScaler on all the rows behind ``stats``
    (population variance, a constant feature keeping scale 1), from the class
    statistics alone: the total scatter is ``W + Σ_k c_k (m_k - m)(m_k - m)ᵀ``."""
    mean = stats.grand_mean
    between = stats.means - mean
    within = stats.scatter_diagonal()
    # In units of each feature's largest part, so that a feature near float64's
    # range (1e160) does not overflow in its square.
    unit = np.maximum(np.sqrt(within), np.max(np.abs(between), axis=0))
    unit = np.where(unit > 0, unit, 1.0)
    total = (np.sqrt(within) / unit) ** 2 + stats.counts @ (between / unit) ** 2
    scale = unit * np.sqrt(total / stats.total_weight)
    return mean, np.where(scale > 0, scale, 1.0)


@dataclass(frozen=True)
class ReportSettings:
    """What the report is asked to compute with, made once from the command line
    (``_command``) or from :func:`~._compute.separability_report`'s arguments
    (which say what each means): frozen, so that no section changes what the
    next one reads, and what the JSON's ``settings`` says is what ran."""

    kappa: float = 1.0
    cv: int = 10
    standardize: bool = False
    cv_raw: bool = False
    seed: int = 0
    tol: float = 1e-9
    fit_rows: int = 5000
    effort: int = 80
    time_limit: float = 60.0

    def as_json(self):
        """The JSON's ``settings``, plain Python values (``tol`` is not said:
        the command line has no option for it)."""
        return {
            "kappa": float(self.kappa),
            "cv": int(self.cv),
            "standardize": bool(self.standardize),
            "cv_raw": bool(self.cv_raw),
            "seed": int(self.seed),
            "fit_rows": int(self.fit_rows),
            "effort": int(self.effort),
            "time_limit": float(self.time_limit),
        }


@dataclass(frozen=True)
class PairFindings:
    """What the verdict found of one class pair, on standardized rows: its
    ``rows`` (indices into the rows in memory), the least total ``hinge`` on
    ``hinge_rows`` rows (0 where separable) and the hyperplane of that soft
    limit, ``soft`` (``(coef, intercept)``; the maximal-margin one where
    separable; None where it failed), and the fewest errors of a hyperplane,
    ``errors``, proved on ``rows``, with the search's ``lower`` bound (both None
    where the rows are a sample: they bound nothing of the other rows)."""

    rows: np.ndarray
    hinge: float | None
    hinge_rows: int
    soft: tuple | None
    lower: int | None
    errors: int | None


@dataclass
class ReportData:
    """The rows in memory (all, or a sample), their class statistics (of all
    rows), and the settings.

    ``X`` is in the file's units; :attr:`standardized` is X with every feature at
    unit variance over all rows, where the verdict, the margin and the hinge are
    computed (their figures then move with no unit of any feature).
    ``run_settings`` are what the run finds out about its settings (the folds
    the rows allow, the rows cross-validation used): the JSON's ``settings`` says
    them after :attr:`settings`. ``findings`` is what a section found that a later
    one reuses rather than computes again: the verdict's least total hinge and
    hyperplane of fewest errors per class pair (a :class:`PairFindings` by the
    pair's class indices), for the complexity measures. ``verdicts``, where given,
    are every pair's :func:`~sklearn_linsep.linear_separability` over every row
    (or the error it raised), their certificates' rows among X's (``row_ids``
    then being positions, sorted).
    """

    X: np.ndarray
    y: np.ndarray
    class_names: list
    statistics: ClassStatistics
    feature_names: list
    row_ids: np.ndarray
    settings: ReportSettings = field(default_factory=ReportSettings)
    progress: object = None
    run_settings: dict = field(default_factory=dict)
    findings: dict = field(default_factory=dict)
    verdicts: dict = None  # every pair's over every row (a cluster's), by codes

    @property
    def n_classes(self):
        return len(self.class_names)

    @property
    def n_rows(self):
        """Usable rows of the whole data (X may be a sample of them)."""
        return int(round(self.statistics.n_samples))

    @property
    def sampled(self):
        return self.X.shape[0] < self.n_rows

    @cached_property
    def scaling(self):
        return standardizing_map(self.statistics)

    @cached_property
    def standardized(self):
        mean, scale = self.scaling
        return (self.X - mean) / scale

    @cached_property
    def standardized_statistics(self):
        return self.statistics.rescaled(*self.scaling)

    def fitting_rows(self, y=None):
        """At most about ``fit_rows`` rows of ``y`` (default: all of y)."""
        y = self.y if y is None else y
        return fitting_rows(y, self.settings.fit_rows, self.settings.seed)
