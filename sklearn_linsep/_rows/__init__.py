"""The backend seam: the only code that knows where the rows live.

Estimators and functions ask for their rows once, ``rows = rows_of(X, y, ...)``,
and then speak the protocols of :mod:`._protocol`: ``rows.statistics(...)``,
``rows.two_class(positive, negative)`` and the working-set passes on it, and
``map_rows`` at prediction. Which backend serves the arrays is decided here, in
:func:`backend_of`, and nowhere else.

A new backend is one module (see :mod:`._protocol` for its four functions) and one
entry in ``BACKENDS``. The in-memory backend serves whatever no other claims.
"""

import importlib
from itertools import combinations

from .._threads import workers_for
from . import _memory

# Backends tried in turn before the in-memory one; imported on first use, each
# deciding ``handles`` without importing its library (see ``_compat``).
BACKENDS = ("._dask",)


def backend_of(*arrays):
    """The backend module that serves these arrays."""
    for name in BACKENDS:
        backend = importlib.import_module(name, __name__)
        if backend.handles(*arrays):
            return backend
    return _memory


def rows_of(
    X, y, sample_weight=None, *, name, estimator=None, reset=True, accept_sparse=True,
    finite=True,
):  # fmt: skip
    """The :class:`~._protocol.Rows` of one fit (or score) on X, y and weights.

    Parameters
    ----------
    X, y, sample_weight : arrays of any backend
    name : str
        Who asks, for error messages.
    estimator : estimator, default=None
        Checked and recorded as ``validate_data`` does: ``n_features_in_`` and
        feature names set when ``reset``, checked against them otherwise.
    reset : bool, default=True
    accept_sparse : bool, default=True
        Whether a sparse X is taken (as CSR).
    finite : bool, default=True
        False: X's finiteness may be checked in the statistics' first pass
        over it rather than in a pass of its own (the same error).
    """
    return backend_of(X, y, sample_weight).rows(
        X,
        y,
        sample_weight,
        name=name,
        estimator=estimator,
        reset=reset,
        accept_sparse=accept_sparse,
        finite=finite,
    )


def in_memory(*arrays):
    """Whether these arrays are in memory (no other backend claims them): for
    the methods that need every row at once and refuse the others."""
    return backend_of(*arrays) is _memory


def map_rows(estimator, X, func, *args, accept_sparse=False):
    """``func(X, *args)`` on the rows of X, checked against the fitted estimator:
    an array for X in memory, a lazy array in X's row blocks for a dask X.

    ``func`` maps an ``(n, p)`` block to ``(n,)`` or ``(n, q)`` rows, and is given
    X validated as ``validate_data(reset=False)`` validates it (finite; float32
    kept, the rest float64; CSR where ``accept_sparse``).
    """
    return backend_of(X).map_rows(
        estimator, X, func, *args, accept_sparse=accept_sparse
    )


def verify(result, X, y, rtol, check="proof"):
    """``SeparabilityResult.verify`` on X and y of any backend."""
    return backend_of(X, y).verify(result, X, y, rtol, check)


def one_vs_rest(rows):
    """The two-class problems of one-vs-rest, in order: one (``classes[1]``
    against ``classes[0]``) for two classes, one per class for more. A generator:
    each problem is made when the previous one is done with."""
    n_classes = len(rows.classes)
    targets = [1] if n_classes == 2 else range(n_classes)
    for k in targets:
        yield rows.two_class([k], [j for j in range(n_classes) if j != k])


def class_pairs(rows):
    """``((a, b), problem)`` for every pair of classes ``a < b``: ``b`` against
    ``a``. A generator, as :func:`one_vs_rest`. Of K > 2 classes, from the
    backend's ``pairs`` where it has one (the pairs then share their passes over
    X: the in-memory backend's); two classes are the one two-class problem."""
    if len(rows.classes) > 2 and hasattr(rows, "pairs"):
        yield from rows.pairs()
        return
    for a, b in combinations(range(len(rows.classes)), 2):
        yield (a, b), rows.two_class([b], [a])


def pair_workers(rows):
    """How many of :func:`class_pairs`' problems run side by side: one per
    worker (:func:`~.._threads.workers_for`) where the rows are in memory (each
    pair a copy of its rows; a dask backend's passes have their own scheduler),
    of K > 2 classes."""
    n_classes = len(rows.classes)
    if n_classes <= 2 or not rows.in_memory:
        return 1
    # X.size: a sparse matrix's stored entries, an array's n p
    return workers_for(n_classes * (n_classes - 1) // 2, 2 * rows.X.size / n_classes)
