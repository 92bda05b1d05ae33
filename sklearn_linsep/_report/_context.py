"""What every section of the report is computed from (:class:`ReportData`)."""

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._stats import ClassStatistics
from ._read import stratified_sample


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


def fitting_rows(y, limit, seed):
    """Indices of at most about ``limit`` rows, uniform within each class and
    keeping every class (see :func:`~sklearn_linsep._report._read.stratified_sample`);
    all rows when there are no more."""
    if len(y) <= limit:
        return np.arange(len(y))
    n_classes = int(y.max()) + 1
    members = [np.flatnonzero(y == k) for k in range(n_classes)]
    chosen = stratified_sample(np.array([m.size for m in members]), limit, seed)
    return np.sort(np.concatenate([m[c] for m, c in zip(members, chosen, strict=True)]))


@dataclass
class ReportData:
    """The rows in memory (all, or a sample), their class statistics (of all
    rows), and the settings.

    ``X`` is in the file's units; :attr:`standardized` is X with every feature at
    unit variance over all rows, where the verdict, the margin and the hinge are
    computed (their figures then move with no unit of any feature).
    """

    X: np.ndarray
    y: np.ndarray
    class_names: list
    statistics: ClassStatistics
    feature_names: list
    row_ids: np.ndarray
    kappa: float = 1.0
    cv: int = 10
    standardize: bool = False
    cv_raw: bool = False
    seed: int = 0
    tol: float = 1e-9
    fit_rows: int = 5000
    effort: int = 80
    time_limit: float = 60.0
    progress: object = None
    settings: dict = field(default_factory=dict)

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
        return fitting_rows(self.y if y is None else y, self.fit_rows, self.seed)
