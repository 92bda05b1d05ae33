"""The in-memory backend: numpy arrays and scipy sparse matrices, validated once.

Every pass over the rows is one call on the whole array (``class_statistics``,
:class:`~sklearn_linsep._working_set.ScaledRows`); the other backends run the same
passes block by block.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from .._kesler import KeslerRows
from .._stats import class_statistics
from .._validation import validate_labelled_data
from .._working_set import ScaledRows, class_sides


def handles(*arrays):
    """Every array the other backends leave: the memory backend is the last."""
    return True


def rows(X, y, sample_weight, *, name, estimator=None, reset=True, accept_sparse=True):
    """:class:`MemoryRows` of validated X, y and weights (``validate_data`` with an
    estimator, which records ``n_features_in_`` and feature names when ``reset``;
    ``check_X_y`` without)."""
    X, classes, y_encoded, sample_weight = validate_labelled_data(
        X,
        y,
        sample_weight,
        name,
        estimator,
        accept_sparse=accept_sparse,
        reset=reset,
    )
    return MemoryRows(X, classes, y_encoded, sample_weight, name)


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


def verify(result, X, y, rtol):
    """``result`` checked on the arrays themselves (a certificate naming rows
    beyond them does not hold)."""
    shape = X.shape if sp.issparse(X) else np.shape(X)
    n_labels = len(np.asarray(y).reshape(-1))
    if len(shape) != 2 or shape[0] != n_labels:
        raise ValueError(
            f"verify needs X of shape (n_samples, n_features) and y of n_samples "
            f"labels; got X of shape {shape} and {n_labels} labels."
        )
    indices = getattr(result, "certificate_indices", None)
    if not result.separable and np.max(indices, initial=-1) >= shape[0]:
        return False
    return result._verify_in_memory(X, y, rtol)


class MemoryRows:
    """The :class:`~sklearn_linsep._rows.Rows` of arrays in memory: validated X
    (dense or CSR), the encoded labels and the weights (None for all ones)."""

    in_memory = True

    def __init__(self, X, classes, y_encoded, sample_weight, name):
        self.X = X
        self.classes = classes
        self.y_encoded = y_encoded
        self.sample_weight = sample_weight
        self.name = name

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
        )

    def two_class(self, positive, negative):
        """A :class:`ScaledRows` of X itself when the two sides take every class
        (two classes, one-vs-rest), else of the rows of the classes at hand (a
        pair of K > 2), which it maps back by ``indices``."""
        c = class_sides(len(self.classes), positive, negative)[self.y_encoded]
        if np.all(c != 0):
            return ScaledRows(self.X, c, self.sample_weight)
        indices = np.flatnonzero(c != 0)
        weights = None if self.sample_weight is None else self.sample_weight[indices]
        return ScaledRows(self.X[indices], c[indices], weights, indices=indices)

    def joint(self):
        """The :class:`KeslerRows` of every class at once."""
        return KeslerRows(
            self.X, self.y_encoded, len(self.classes), self.sample_weight
        )

    def support_rows(self, indices):
        # Sparse X keeps them sparse (as SVC does): text has thousands.
        vectors = self.X[indices]
        if sp.issparse(vectors):
            return sp.csr_matrix(vectors), self.y_encoded[indices]
        return np.asarray(vectors), self.y_encoded[indices]
