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

    def score_slack(self, weights):
        """``(n_samples, n_tasks)`` bounds on the rounding of :meth:`scores` and of
        the published model's scores (in X's dtype, any order of summation): a
        score within its slack of 0 has no sign ``predict`` can be trusted with
        (the kernels' ``_row_dot_sized``)."""
        unit = np.finfo(self.matrix.dtype).eps / 2
        size = abs(self.matrix) @ np.abs(weights[:, :-1]).T
        size = size + abs(self.bias * weights[:, -1])
        return (self.matrix.shape[1] + 4) * unit * (1 + 1e-6) * np.asarray(size)

    def max_squared_norm(self):
        """``max_i s_i ‖x̃_i‖²``, in float64 whatever X's dtype (a float32 row of
        entries above 1.8e19 has a squared norm float32 cannot hold)."""
        largest = 0.0
        for start in range(0, self.n_samples, _NORM_BLOCK):
            rows = slice(start, start + _NORM_BLOCK)
            block = self.matrix[rows].astype(np.float64, copy=False)
            squared = row_norms(block, squared=True) + self.bias**2
            largest = max(largest, float(np.max(self.sample_weight[rows] * squared)))
        return largest

    def accuracy(self, coef, intercept):
        """Training accuracy of a linear rule, weighted by the sample weights alone
        (what ``score(X, y, sample_weight)`` gives)."""
        scores = linear_scores(self.matrix, coef, intercept)
        predicted = labels_of(scores, np.arange(self.n_classes))
        weights = (
            np.ones(self.n_samples) if self.score_weight is None else self.score_weight
        )
        return float(np.sum(weights * (predicted == self.codes)) / np.sum(weights))
