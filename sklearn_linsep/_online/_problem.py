"""One training call's data, in the form the kernels take."""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import row_norms

from .._base import labels_of, linear_scores
from .._kernels import Samples

# Rows whose norms are taken at once: a float64 copy of a float32 block stays small.
_NORM_BLOCK = 65_536


@dataclass
class Problem:
    """The samples of a ``fit`` or ``partial_fit`` call.

    Two classes are one task whose positive class is the second; K > 2 classes are
    K one-vs-rest tasks.
    """

    matrix: object  # X: C-ordered ndarray or CSR matrix
    codes: np.ndarray  # class index of each sample
    n_classes: int
    sample_weight: np.ndarray  # sample_weight × class_weight, float64
    bias: float  # 1.0 with an intercept, else 0.0
    score_weight: object = None  # the sample weights alone (None: all ones)

    @classmethod
    def from_data(cls, X, codes, n_classes, sample_weight, fit_intercept):
        X = X.tocsr() if sp.issparse(X) else np.ascontiguousarray(X)
        weights = (
            np.ones(X.shape[0])
            if sample_weight is None
            else np.ascontiguousarray(sample_weight, dtype=np.float64)
        )
        return cls(
            X,
            np.ascontiguousarray(codes, dtype=np.intp),
            n_classes,
            weights,
            1.0 if fit_intercept else 0.0,
        )

    @property
    def n_samples(self):
        return self.codes.shape[0]

    @property
    def n_tasks(self):
        return 1 if self.n_classes == 2 else self.n_classes

    @property
    def first_class(self):
        """The class index of task 0's positive class."""
        return 1 if self.n_classes == 2 else 0

    @property
    def n_active(self):
        """The number of samples of positive weight."""
        return int(np.count_nonzero(self.sample_weight))

    @property
    def total_weight(self):
        """``Σ s_i``, the sample weights times the class weights."""
        return float(self.sample_weight.sum())

    @property
    def samples(self):
        """The kernels' :class:`~sklearn_linsep._kernels.Samples` record."""
        if sp.issparse(self.matrix):
            rows = (self.matrix.data, self.matrix.indices, self.matrix.indptr)
        else:
            rows = (self.matrix,)
        return Samples(
            rows, self.codes, self.first_class, self.sample_weight, self.bias
        )

    @property
    def block_size(self):
        """Rows per block of ``shuffle="blocks"``: about 64 KiB of X, at least 64."""
        row_bytes = self.matrix.dtype.itemsize * max(1, self.matrix.shape[1])
        if sp.issparse(self.matrix):
            row_bytes = self.matrix.data.nbytes / max(1, self.n_samples)
        return int(max(64, 2**16 // max(1, row_bytes)))

    def targets(self):
        """``(n_samples, n_tasks)`` one-vs-rest targets ±1."""
        tasks = np.arange(self.n_tasks) + self.first_class
        return np.where(self.codes[:, None] == tasks, 1.0, -1.0)

    def scores(self, weights):
        """``(n_samples, n_tasks)`` scores ``W x̃`` of the augmented weights."""
        return self.matrix @ weights[:, :-1].T + self.bias * weights[:, -1]

    def published(self, weights):
        """``(coef, intercept)`` of the augmented weights as a fit publishes them:
        in X's dtype, as scikit-learn's Perceptron."""
        dtype = self.matrix.dtype
        return weights[:, :-1].astype(dtype), (weights[:, -1] * self.bias).astype(dtype)

    def score_slack(self, weights, rows=slice(None)):
        """``(rows, n_tasks)`` bounds on how far two evaluations of a score may
        differ, the published model's in X's dtype (by any order of summation)
        included: ``(terms + 4) (u Σ_j |w_j x̃_ij| + η)``, u and η X's dtype's unit
        roundoff and least subnormal (the kernels' ``_row_slack``). A score within
        its slack of 0 has no sign ``predict`` can be trusted with."""
        matrix = self.matrix[rows]
        size = abs(matrix) @ np.abs(weights[:, :-1]).T
        size = np.asarray(size) + abs(self.bias * weights[:, -1])
        terms = np.diff(matrix.indptr) if sp.issparse(matrix) else matrix.shape[1]
        return _slack(size, np.reshape(terms, (-1, 1)), matrix.dtype)

    def doubtful(self, weights, beyond_rounding):
        """``(n_samples, n_tasks)``: where ``predict`` with the published ``weights``
        may not give a row of positive weight its class. A score of the wrong sign
        (or not a number: float32's range) in ``predict``'s own evaluation; with
        ``beyond_rounding``, also one within its :meth:`score_slack` of 0, which
        another order of summation may turn. The slack is read where a bound by
        norms cannot clear a row, ``‖w‖ ‖x_i‖ ≥ Σ_j |w_j x_ij|``: few rows."""
        coef, intercept = self.published(weights)
        scores = linear_scores(self.matrix, coef, intercept)
        margins = self.targets() * np.reshape(scores, (self.n_samples, -1))
        doubtful = ~(margins > 0)
        if beyond_rounding:  # the bound by norms from the weights the slack reads
            norms = np.linalg.norm(weights[:, :-1], axis=1)
            size = np.outer(self._row_norms(), norms)
            size += abs(self.bias * weights[:, -1])
            # Every row's terms at most p: the slack's bound, rounded up.
            cleared = margins > _slack(size * 1.01, self.matrix.shape[1], coef.dtype)
            rows = np.flatnonzero(~np.all(cleared, axis=1))
            doubtful[rows] |= ~(margins[rows] > self.score_slack(weights, rows))
        return doubtful & (self.sample_weight > 0)[:, None]

    def _row_norms(self, squared=False):
        """``‖x_i‖`` (or its square) in float64 whatever X's dtype, a block at a
        time (a float32 row of entries above 1.8e19 has a squared norm float32
        cannot hold)."""
        norms = np.empty(self.n_samples)
        for start in range(0, self.n_samples, _NORM_BLOCK):
            rows = slice(start, start + _NORM_BLOCK)
            block = self.matrix[rows].astype(np.float64, copy=False)
            norms[rows] = row_norms(block, squared=squared)
        return norms

    def max_squared_norm(self):
        """``max_i s_i ‖x̃_i‖²``, in float64 whatever X's dtype."""
        if self.n_samples == 0:
            return 0.0
        squared = self._row_norms(squared=True) + self.bias**2
        return float(np.max(self.sample_weight * squared))

    def accuracy(self, coef, intercept):
        """Training accuracy of a linear rule, weighted by the sample weights alone
        (what ``score(X, y, sample_weight)`` gives)."""
        scores = linear_scores(self.matrix, coef, intercept)
        predicted = labels_of(scores, np.arange(self.n_classes))
        weights = (
            np.ones(self.n_samples) if self.score_weight is None else self.score_weight
        )
        return float(np.sum(weights * (predicted == self.codes)) / np.sum(weights))


def _slack(size, terms, dtype):
    """``(terms + 4) (u size + η)``, u and η ``dtype``'s unit roundoff and least
    subnormal: how far two evaluations of a sum of ``terms`` products whose
    magnitudes sum to ``size`` may differ near 0, casts to ``dtype`` included
    (the kernels' ``_row_slack``)."""
    unit, least = np.finfo(dtype).eps / 2, np.finfo(dtype).smallest_subnormal
    return (terms + 4.0) * (unit * (1 + 1e-6) * size + least)
