"""What a backend provides: the module interface, ``Rows`` and ``TwoClassRows``.

A backend is a module of ``sklearn_linsep._rows`` with four functions:

- ``handles(*arrays) -> bool``: whether these arrays are its kind (decided without
  importing anything the caller has not imported);
- ``rows(X, y, sample_weight, *, name, estimator, reset, accept_sparse) -> Rows``:
  the labelled rows of one fit, validated as far as can be without a pass;
- ``map_rows(estimator, X, func, *args, accept_sparse) -> array``: ``func`` on the
  rows of X, checked against the fitted estimator (prediction);
- ``verify(result, X, y, rtol, check="proof") -> bool``: a ``SeparabilityResult``
  checked on X (``check`` as ``SeparabilityResult.verify``'s).

Only the backends know where the rows live; everything above them speaks these
protocols: ``Rows`` (one fit's labelled rows), and the two problem kinds the
exact core solves on them, ``TwoClassRows`` and ``PairRows`` (on what both are,
``ScaledProblem``: what the core asks of every backend; and
``InMemoryTwoClassRows`` / ``InMemoryPairRows`` with what it asks only where
``cheap_passes``: the rows in memory). The core
checks them at its entry (:func:`check_protocol`).
"""

from functools import cache
from typing import Protocol

import numpy as np


class Rows(Protocol):
    """The labelled rows of one fit.

    Attributes
    ----------
    name : str
        Who asked (for error messages).
    in_memory : bool
        Whether ``X``, ``y_encoded`` and ``sample_weight`` are arrays in memory
        (validated), for the methods that need every row at once.
    n_features : int
    dtype : numpy.dtype
        The working dtype of X (float32 stays, the rest is float64).
    classes : ndarray
        The sorted distinct labels (a backend may need a pass to know them; one
        that has made :meth:`statistics` knows them from it).
    """

    name: str
    in_memory: bool
    n_features: int
    dtype: np.dtype
    classes: np.ndarray

    def statistics(self, per_class):
        """The :class:`~sklearn_linsep._stats.ClassStatistics` of the rows, in one
        pass; ``per_class(n_classes) -> bool`` says whether to keep the scatter of
        each class."""

    def two_class(self, positive, negative):
        """The :class:`TwoClassRows` of the classes ``positive`` (c = +1) against
        ``negative`` (c = -1), indices into :attr:`classes`; rows of other classes
        are out of it."""

    def joint(self):
        """The pairs (row, other class) of Kesler's construction of every class
        at once: an object that answers what :class:`TwoClassRows` answers, over
        constraint ids ``i K + k`` (:class:`~._memory_pairs.KeslerRows`
        in memory)."""

    def support_rows(self, indices):
        """``(rows, class_codes)`` of the rows ``indices`` of X that a problem
        of these rows used (its support vectors)."""

    def mean_range(self, positive, negative, numerical_rank=None, exact_rank=False):
        """The :class:`~sklearn_linsep._fredholm.MeanRange` of the classes
        ``positive`` and ``negative`` (indices into :attr:`classes`): whether
        their mean difference lies in the range of their pooled scatter, proved
        on their rows, or undecided with the reason (``exact_rank``: S's exact
        rank proved too, where the exact step decides)."""


class ScaledProblem(Protocol):
    """What the exact core asks of every problem on ``Z = (X - centre) /
    scale``, whatever its constraints (rows of two classes, or pairs of K).

    Attributes
    ----------
    cheap_passes : bool
        Whether a pass over every row is cheap (the rows are in memory): the
        soft limit may then choose an interior point over all rows (~30 passes),
        and sparse rows the route in the span of the rows (which reads X whole).
    sparse : bool
        Whether X is a sparse matrix (the sparse routes apply).
    n_samples, n_features : int
    centre : ndarray of shape (n_features,)
    scale : float
    feature_scale, spread : ndarray of shape (n_features,)
    magnitude : ndarray of shape (n_features,)
        The largest ``|x_j|`` of an active row.
    rounding : float
        The relative rounding of a margin evaluated on Z.
    """

    cheap_passes: bool
    sparse: bool
    n_samples: int
    n_features: int
    centre: np.ndarray
    scale: float
    feature_scale: np.ndarray
    spread: np.ndarray
    magnitude: np.ndarray
    rounding: float

    def equilibrated(self):
        """The same problem with each feature divided by its own spread."""

    @property
    def uneven(self):
        """Whether the features' spreads are too far apart for one scale."""

    def original_rows(self, indices):
        """Rows of X itself, dense."""

    def indices_in_X(self, indices):
        """The problem's row indices as rows of the X the caller gave."""

    def seed(self, size):
        """A first working set: the constraints nearest the hyperplanes halfway
        between the class means."""

    def violators(self, coef, intercept, threshold, working, batch=None,
                  slack=None, every=True):  # fmt: skip
        """``(ids, inside)``: the constraints outside ``working`` whose margin
        is below ``threshold`` less their row's slack (``slack = (sorted rows,
        values)``, or None: :func:`~sklearn_linsep._working_set.margin_limits`),
        the ``batch`` worst (of pairs, only each row's worst), and the
        violations of ``working``. With ``every=False`` a backend may look at
        its candidate rows only (none found does not prove that no row
        violates): for a loop whose answer a later loop checks on every row."""

    def proven_min_margin(self, coef, intercept, center=None, intercept_at_center=None):
        """The smallest margin on X less a proven bound on its rounding."""

    def total_hinge(self, coef, intercept):
        """``Σ s_i max(0, 1 - margin_i)`` (of pairs, each row's worst)."""

    def to_original(self, coef, intercept):
        """The hyperplane (or machine) of Z as one of X."""


class TwoClassRows(ScaledProblem, Protocol):
    """One two-class problem on ``Z``: its constraints are the rows, labelled
    ``c = ±1``."""

    def rows(self, indices):
        """Rows of Z."""

    def labels(self, indices):
        """``c = ±1`` of the rows."""

    def sample_weights(self, indices):
        """The weights of the rows."""

    def min_margin(self, coef, intercept, original=False):
        """The smallest margin of an active row (on X itself with ``original``)."""

    def opposite_duplicates(self):
        """A certificate of two equal rows of opposite sides, or None."""


class InMemoryTwoClassRows(TwoClassRows, Protocol):
    """What the core asks of two-class rows only where ``cheap_passes`` (every
    row in memory: the soft limit's interior point over all rows, the wide
    route's Gram matrix, the rational decisions on every row).

    Attributes
    ----------
    X : {ndarray, sparse matrix}
        The rows of X itself (all of them: ``active`` marks the problem's).
    c : ndarray
        ±1 of each row (0 outside the problem).
    weights : ndarray
        The sample weights (0 outside the problem).
    active : ndarray of bool
        The rows of the problem.
    """

    X: object
    c: np.ndarray
    weights: np.ndarray
    active: np.ndarray

    def margins(self, coef, intercept):
        """``c_i (w·z_i + b)`` of every row."""

    def scores(self, coef, intercept):
        """``w·z_i + b`` of every row."""

    def augmented_gram(self, theta, single=False):
        """The Gram matrix of the active rows augmented by a constant, weighted by
        ``theta`` (float32 products where ``single``)."""

    def normal_product(self, theta, coef, intercept):
        """The scores ``s`` of a hyperplane and ``Σ θ_i s_i (z_i, 1)``, in one pass."""

    def augmented_sum(self, v, absolute=False):
        """``Σ v_i (z_i, 1)`` over the active rows (of ``|z_i|`` with
        ``absolute``)."""

    def keep_centred(self):
        """Keep Z in memory from the next pass on, where it fits."""


class PairRows(ScaledProblem, Protocol):
    """K classes as pairs (row, other class) of Kesler's construction, never
    formed, over constraint ids ``i K + k``.

    Attributes
    ----------
    n_classes : int
    codes : array-like of int
        Each row's class code.
    """

    n_classes: int
    codes: object

    def rows(self, rows):
        """Rows of Z (row ids, not pair ids)."""

    def pairs(self, ids):
        """``(rows of Z, own classes, other classes)`` of the pairs ``ids``."""

    def pair_margins(self, ids, coef, intercept):
        """The margins of the pairs ``ids`` under the machine."""

    def dual_combination(self, ids, alpha):
        """``(Σ α_j B_j z_jᵀ, Σ α_j |B_j| |z_j|ᵀ)`` of the pairs (each row once)."""

    def anchors(self):
        """Pair ids every working set keeps."""

    def row_weights(self, rows):
        """The sample weights of the rows."""

    def min_margin(self, coef, intercept):
        """The least pair margin of an active row."""


class InMemoryPairRows(PairRows, Protocol):
    """What the core asks of pairs only where ``cheap_passes``."""

    X: object
    weights: np.ndarray
    active: np.ndarray

    def opposite_duplicates(self):
        """Two equal active rows of different classes ``(i, j)``, or None."""


@cache
def protocol_members(protocol):
    """The names a protocol declares: its attributes and its methods."""
    names = set()
    for klass in protocol.__mro__:
        if klass in (Protocol, object) or not getattr(klass, "_is_protocol", False):
            continue
        names |= set(getattr(klass, "__annotations__", {}))
        names |= {name for name in vars(klass) if not name.startswith("_")}
    return frozenset(names)


@cache
def _not_in_class(klass, protocol):
    """The members of ``protocol`` that no class of ``klass``'s MRO defines (once
    a class: a pair's problem is checked once per pair of classes)."""
    return tuple(sorted(
        name for name in protocol_members(protocol)
        if not any(name in vars(base) for base in klass.__mro__)
    ))  # fmt: skip


def check_protocol(rows, protocol):
    """Raise TypeError where ``rows`` lacks a member of ``protocol``: looked up
    without evaluating anything (a property of dask rows may cost a pass)."""
    own = getattr(rows, "__dict__", {})
    missing = [name for name in _not_in_class(type(rows), protocol) if name not in own]
    if missing:
        raise TypeError(
            f"{type(rows).__name__} does not provide {', '.join(missing)} of "
            f"{protocol.__name__} (sklearn_linsep._rows._protocol)"
        )
