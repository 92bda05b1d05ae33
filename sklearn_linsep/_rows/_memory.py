"""The in-memory backend: numpy arrays and scipy sparse matrices, validated once.

Every pass over the rows is one call on the whole array (``class_statistics``,
:class:`~._memory_two_class.ScaledRows`); the other backends run the same
passes block by block.
"""

import threading
from dataclasses import dataclass
from functools import partial
from itertools import combinations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from .. import _kernels
from .._fredholm import decide_mean_range
from .._proofs import column_extremes, refuse_unverifiable
from .._stats import class_statistics
from .._validation import finiteness_check, validate_labelled_data
from .._working_set import (
    RowStatistics,
    chunk_rows,
    class_sides,
    projection_key,
)
from ._memory_pairs import KeslerRows
from ._memory_two_class import ScaledRows


def handles(*arrays):
    """Every array the other backends leave: the memory backend is the last."""
    return True


def rows(
    X, y, sample_weight, *, name, estimator=None, reset=True, accept_sparse=True,
    finite=True,
):  # fmt: skip
    """:class:`MemoryRows` of validated X, y and weights (``validate_data`` with an
    estimator, which records ``n_features_in_`` and feature names when ``reset``;
    ``check_X_y`` without). ``finite=False``: a float array's finiteness is
    checked in the first pass over it (the statistics', or :meth:`MemoryRows.summaries`),
    not in a pass of its own."""
    deferred = not finite and isinstance(X, np.ndarray) and X.dtype.kind == "f"
    X, classes, y_encoded, sample_weight = validate_labelled_data(
        X,
        y,
        sample_weight,
        name,
        estimator,
        accept_sparse=accept_sparse,
        reset=reset,
        finite=not deferred,
    )
    check_finite = finiteness_check(estimator) if deferred else None
    return MemoryRows(X, classes, y_encoded, sample_weight, name, check_finite)


def map_rows(estimator, X, func, *args, accept_sparse=False):
    """``func(X, *args)`` on X validated against the fitted estimator."""
    X = validate_data(
        estimator,
        X,
        accept_sparse=accept_sparse and "csr",
        dtype=[np.float64, np.float32],
        reset=False,
    )
    return func(X, *args)


def verify(result, X, y, rtol, check="proof"):
    """``result`` checked on the arrays themselves (a certificate naming rows
    beyond them does not hold)."""
    shape = X.shape if sp.issparse(X) else np.shape(X)
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:  # a column, as scikit-learn takes it
        y = y.ravel()
    labels = y.reshape(-1)
    if len(shape) != 2 or y.ndim != 1 or shape[0] != len(labels):
        raise ValueError(
            f"verify needs X of shape (n_samples, n_features) and y of n_samples "
            f"labels; got X of shape {shape} and {len(labels)} labels."
        )
    refuse_unverifiable(result, shape[1], _distinct(labels))
    indices = getattr(result, "certificate_indices", None)
    if not result.separable and np.max(indices, initial=-1) >= shape[0]:
        return False
    return result._verify_in_memory(X, y, rtol, check)


def _distinct(labels):
    """The distinct labels (those of mixed types too, which do not sort)."""
    try:
        return np.unique(labels).tolist()
    except TypeError:
        return list(dict.fromkeys(labels.tolist()))


class MemoryRows:
    """The :class:`~sklearn_linsep._rows.Rows` of arrays in memory: validated X
    (dense or CSR), the encoded labels and the weights (None for all ones);
    ``check_finite(X)`` where X's finiteness is left to the statistics' pass,
    else None."""

    in_memory = True

    def __init__(self, X, classes, y_encoded, sample_weight, name, check_finite=None):
        self.X = X
        self.classes = classes
        self.y_encoded = y_encoded
        self.sample_weight = sample_weight
        self.name = name
        self.check_finite = check_finite
        self._summaries = None  # ClassSummaries, from the first pass that asks

    @property
    def n_features(self):
        return self.X.shape[1]

    @property
    def dtype(self):
        return self.X.dtype

    def statistics(self, per_class):
        n_classes = len(self.classes)
        return class_statistics(
            self.X,
            self.y_encoded,
            n_classes,
            self.sample_weight,
            per_class=per_class(n_classes),
            check_finite=self.check_finite,
        )

    def two_class(self, positive, negative):
        """A :class:`ScaledRows` of X itself when the two sides take every class
        (two classes, one-vs-rest), else of the rows of the classes at hand (a
        pair of K > 2), which it maps back by ``indices``; its centre, extremes
        and seed means from :meth:`summaries` where X is read in place."""
        c = class_sides(len(self.classes), positive, negative)[self.y_encoded]
        summaries = self.summaries(in_place_only=True)
        statistics = None if summaries is None else summaries.sides(positive, negative)
        if np.all(c != 0):
            return ScaledRows(self.X, c, self.sample_weight, statistics=statistics)
        indices = np.flatnonzero(c != 0)
        weights = None if self.sample_weight is None else self.sample_weight[indices]
        return ScaledRows(
            self.X[indices], c[indices], weights, indices=indices, statistics=statistics
        )

    def summaries(self, in_place_only=False):
        """The :class:`ClassSummaries` of X's active rows, from one pass made at
        first use and kept: every problem of this fit (the pairs of K classes,
        one-vs-rest's tasks, the joint machine) takes its centre, extremes and
        class means from it, where each made two to K + 2 passes of its own
        (1e6 x 20: four passes, 64 ms, against one of 15 ms). With
        ``in_place_only``, None where the compiled pass cannot read X in place
        (sparse or Fortran-ordered X, whose class rows it would gather)."""
        if self._summaries is None:
            if in_place_only and not _kernels.reads_rows(self.X):
                self._check_finite()
                return None
            active = (
                np.ones(len(self.y_encoded), dtype=bool)
                if self.sample_weight is None
                else self.sample_weight > 0
            )
            self._summaries = class_summaries(
                self.X, self.y_encoded, len(self.classes), active
            )
            # Finite sums over every row prove X finite (a NaN or an infinity
            # makes its class's sum NaN or infinite): validation's own pass is
            # saved. Else (rows of weight 0 unread, or a sum overflowed) X's check.
            if not (active.all() and np.isfinite(self._summaries.sums).all()):
                self._check_finite()
            self.check_finite = None
        return self._summaries

    def _check_finite(self):
        """X's finiteness, where validation left it to a pass over X
        (``rows(finite=False)``): validation's error where X holds NaN or
        infinity; done once."""
        if self.check_finite is not None:
            self.check_finite(self.X)
            self.check_finite = None

    def pairs(self):
        """``((a, b), problem)`` for every pair of classes ``a < b`` (``b``
        against ``a``), each problem as :meth:`two_class` makes it, made when the
        previous one is done with; but all of them from one pass over X (each
        class's count, sum and extremes: a pair's centre, extremes and seed
        means follow from its two classes') and at most one projection of X for
        the duplicate search, where each pair alone would make five passes and
        one projection over its rows."""
        n_classes = len(self.classes)
        summary = self.summaries()
        projection = _SharedProjection(self.X)
        for a, b in combinations(range(n_classes), 2):
            c = class_sides(n_classes, [b], [a])[self.y_encoded]
            indices = np.flatnonzero(c != 0)
            weights = (
                None if self.sample_weight is None else self.sample_weight[indices]
            )
            statistics = summary.pair(a, b, partial(projection.of, indices))
            yield (
                (a, b),
                ScaledRows(
                    self.X[indices],
                    c[indices],
                    weights,
                    indices=indices,
                    statistics=statistics,
                ),
            )

    def joint(self):
        """The :class:`KeslerRows` of every class at once."""
        return KeslerRows(
            self.X,
            self.y_encoded,
            len(self.classes),
            self.sample_weight,
            summaries=self.summaries(in_place_only=True),
        )

    def mean_range(self, positive, negative, numerical_rank=None, exact_rank=False):
        """Whether the two classes' mean difference lies in the range of their
        pooled scatter, decided on their rows (a float32 X is exact in float64)."""
        keep = np.isin(self.y_encoded, [positive, negative])
        X, codes, weights = self.X, self.y_encoded, self.sample_weight
        if not keep.all():  # a pair of K classes: its rows only
            X, codes = X[keep], codes[keep]
            weights = None if weights is None else weights[keep]
        X = X.astype(np.float64) if sp.issparse(X) else np.asarray(X, np.float64)
        return decide_mean_range(X, codes, weights, numerical_rank, exact_rank)

    def support_rows(self, indices):
        # Sparse X keeps them sparse (as SVC does): text has thousands.
        vectors = self.X[indices]
        if sp.issparse(vectors):
            return sp.csr_matrix(vectors), self.y_encoded[indices]
        return np.asarray(vectors), self.y_encoded[indices]


@dataclass
class ClassSummaries:
    """Of each class's active rows: the count, the float64 sum and each
    feature's extremes (``-inf`` and ``inf`` for a class without active rows)."""

    counts: np.ndarray
    sums: np.ndarray
    highs: np.ndarray
    lows: np.ndarray

    def pair(self, a, b, projection=None):
        """The :meth:`sides` of the problem ``b`` (c = +1) against ``a``."""
        return self.sides([b], [a], projection)

    def sides(self, positive, negative, projection=None):
        """The :class:`~sklearn_linsep._working_set.RowStatistics` of the
        problem of the classes ``positive`` (c = +1) against ``negative`` (c =
        -1), or None where none of them has an active row (the problem's own
        passes then answer, as before)."""
        members = [*positive, *negative]
        count = self.counts[members].sum()
        if count == 0:
            return None
        return RowStatistics(
            centre=self.sums[members].sum(axis=0) / count,
            high=self.highs[members].max(axis=0),
            low=self.lows[members].min(axis=0),
            side_means=(self.mean(positive), self.mean(negative)),
            projection=projection,
        )

    def mean(self, classes):
        """The mean of the active rows of ``classes`` (a class or a list of
        them; zeros where they have none)."""
        classes = np.atleast_1d(np.asarray(classes, dtype=np.intp))
        return self.sums[classes].sum(axis=0) / max(self.counts[classes].sum(), 1)


def class_summaries(X, y_encoded, n_classes, active):
    """:class:`ClassSummaries` of dense or sparse X in one pass: dense C-ordered
    X by the dask blocks' compiled pass (``_kernels.class_summaries``, no copy,
    the GIL released), else each class's active rows gathered a few MB at a
    time (float32 summed in float64)."""
    p = X.shape[1]
    if _kernels.reads_rows(X):
        counts, sums = np.empty(n_classes), np.empty((n_classes, p))
        highs, lows = np.empty((n_classes, p)), np.empty((n_classes, p))
        weights = np.zeros(0) if active.all() else active.astype(np.float64)
        codes = np.asarray(y_encoded, dtype=np.intp)
        _kernels.class_summaries(X, codes, weights, counts, sums, highs, lows)
        return ClassSummaries(counts.astype(np.intp), sums, highs, lows)
    counts = np.zeros(n_classes, dtype=np.intp)
    sums = np.zeros((n_classes, p))
    highs = np.full((n_classes, p), -np.inf)
    lows = np.full((n_classes, p), np.inf)
    step = len(y_encoded) if sp.issparse(X) else chunk_rows(p)
    for k in range(n_classes):
        members = np.flatnonzero(active & (y_encoded == k))
        counts[k] = members.size
        for start in range(0, members.size, step):
            rows = members[start : start + step]
            block = X[rows]
            high, low = column_extremes(block)
            np.maximum(highs[k], high, out=highs[k])
            np.minimum(lows[k], low, out=lows[k])
            # float64 weights: float32 rows are summed in float64
            sums[k] += np.asarray(np.ones(len(rows)) @ block).ravel()
    return ClassSummaries(counts, sums, highs, lows)


class _SharedProjection:
    """The duplicate search's projection of every row of X, made on first use
    and shared by the problems on subsets of the rows (made once where they
    run side by side)."""

    def __init__(self, X):
        self.X = X
        self.key = None
        self.making = threading.Lock()

    def of(self, indices):
        with self.making:
            if self.key is None:
                self.key = projection_key(self.X)
        return self.key[indices]
