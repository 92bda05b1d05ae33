"""Deciding linear separability with certificates, and the classical facts around it.

``linear_separability`` runs the exact core's working-set loop (``_margin``): a
subset's maximal-margin hyperplane that satisfies every sample proves the whole
set separable; a subset without one proves it inseparable, and its certificate (a
point in both convex hulls, weights from HiGHS or the nearest points) holds for the
whole set, proved on the rows as given. ``perceptron_mistake_bound`` is Novikoff's
bound from the exact margin; ``cover_separability_probability`` is Cover's count.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy import special
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ._margin import (
    JointSeparabilityResult,
    SeparabilityResult,
    joint_margin_of,
    maximal_margin_of,
    minimum_errors,
)
from ._margin._result import external_stacklevel
from ._rows import class_pairs, pair_workers, rows_of
from ._rows._memory_two_class import AugmentedRows, ScaledRows
from ._threads import in_threads
from ._validation import plain_label, validate_labelled_data
from .exceptions import SolverError


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "multiclass": [StrOptions({"pairs", "joint"})],
        "tol": [Interval(Real, 0, 1, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def linear_separability(X, y, *, multiclass="pairs", tol=1e-9):
    """Decide whether classes can be split by hyperplanes, with a certificate.

    Separable: the result holds ``coef`` and ``intercept`` with
    ``c_i (coef · x_i + intercept) ≥ 1`` for every sample (``c = +1`` for the
    second class): anyone can check it with one matrix product. Inseparable: it
    holds the Farkas (Gordan) certificate, a few samples of each class with weights
    ``λ ≥ 0`` summing to 1 within each class whose weighted means coincide: a point
    in both convex hulls, which no hyperplane can have strictly on both sides.

    Both answers come from one engine, the nearest points of the two classes'
    convex hulls (SPEC §10), on a working set of candidate support vectors grown
    by the samples the subset's hyperplane violates (one pass over X per round).
    Apart, the hulls give the maximal-margin hyperplane: ``coef`` and ``intercept``
    are :class:`HardMarginSVM`'s, and ``margin`` is the largest geometric margin
    of any separator. Meeting, their common point with its convex weights is the
    certificate (or, where rounding spoils those weights, a basic solution of the
    hull-intersection LP on the working set: at most p + 2 samples). An answer
    that cannot be verified raises :class:`~sklearn_linsep.SolverError`. X whose
    centred entries fall outside [1e-100, 1e100] is refused with a ValueError that
    says so (the dual coefficients, α over the spread's square, would leave
    float64's range): rescale X by a constant, which changes no verdict.

    With K > 2 classes there are two questions. ``multiclass="pairs"`` asks it of
    every pair of classes. ``multiclass="joint"`` asks whether one linear machine
    (``argmax_k w_k·x + b_k``) classifies every row right: whether some W, b
    give ``(w_{y_i} - w_k)·x_i + b_{y_i} - b_k ≥ 1`` for every row i and other
    class k (Kesler's construction: a two-class question in K(p + 1)
    dimensions whose rows are the n(K - 1) pairs (row, other class), never
    formed). The same working-set engine answers it on pairs: separable, the
    Crammer–Singer maximal margin; inseparable, Farkas weights on pairs that
    balance per class (:class:`JointSeparabilityResult`). One-vs-rest
    separability implies joint, which implies pairwise; neither converse holds
    (digits, standardised: jointly separable, one-vs-rest not).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    multiclass : {"pairs", "joint"}, default="pairs"
        For K > 2 classes: every pair of classes apart, or all classes at once
        by one linear machine. Two classes give the two-class result either way.
    tol : float, default=1e-9
        Relative tolerance of the maximal margin's constraints and optimality
        conditions, as in :class:`HardMarginSVM`.

    Returns
    -------
    result : SeparabilityResult, dict or JointSeparabilityResult
        For two classes, the result. For more, with ``multiclass="pairs"`` a dict
        of results keyed by the pairs of classes ``(a, b)``, ``a < b``; with
        ``"joint"`` one :class:`JointSeparabilityResult`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep import linear_separability
    >>> X, y = load_iris(return_X_y=True)
    >>> pairs = linear_separability(X, y)
    >>> {pair: result.separable for pair, result in pairs.items()}
    {(0, 1): True, (0, 2): True, (1, 2): False}
    >>> pairs[1, 2].verify(X, y), len(pairs[1, 2].certificate_indices) <= 6
    (True, True)
    >>> joint = linear_separability(X, y, multiclass="joint")
    >>> joint.separable, joint.verify(X, y)
    (False, True)
    """
    index = getattr(X, "index", None)  # a DataFrame's: its rows' labels
    # X's finiteness checked in the problems' first pass (one pass fewer)
    rows = rows_of(X, y, name="linear_separability", finite=False)
    classes = rows.classes
    if multiclass == "joint" and len(classes) > 2:
        return _labelled(joint_separability_of(rows.joint(), classes, tol), index)

    def decide(pair):
        (a, b), problem = pair
        result = separability_of(problem, classes[[a, b]], tol)
        if not result.separable:
            result.certificate_indices = problem.indices_in_X(
                result.certificate_indices
            )
        return (plain_label(classes[a]), plain_label(classes[b])), result

    # The pairs side by side where they are large, each on its own copy of its
    # rows (a worker's copy goes before its next is made): the results and the
    # warnings are the loop's, in the pairs' order.
    decided = in_threads(decide, class_pairs(rows), pair_workers(rows), _rewarn)
    results = {pair: _labelled(result, index) for pair, result in decided}
    return next(iter(results.values())) if len(classes) == 2 else results


def _rewarn(message, category):
    """A pair's warning, raised again from the caller's frame."""
    warnings.warn(message, category, stacklevel=external_stacklevel())


def _labelled(result, index):
    """The result with its certificate's rows by X's index, where X had one."""
    if index is not None and not result.separable:
        result.certificate_index = np.asarray(index)[result.certificate_indices]
    return result


def separability_of(two_class, classes, tol):
    """:func:`linear_separability` of one two-class problem (a
    :class:`~sklearn_linsep._rows._protocol.TwoClassRows`): the maximal margin, or the
    certificate of its absence, in the problem's rows."""
    # Sparse rows too: the working set keeps them sparse (the rows' Gram matrix),
    # and an LP over every row first cost up to 100x (separable 20 000 x 3 000
    # text: 103 s, 4 s without it; inseparable, 455 s against 150 s).
    result = maximal_margin_of(
        two_class, tol=tol, soft=False, classes=classes, verdict=True
    )
    if not result.separable:
        return result.certificate
    return SeparabilityResult(
        separable=True,
        classes=np.asarray(classes),
        coef=result.coef,
        intercept=float(result.intercept),
        margin=float(result.margin),
        # About a centre only where float64 cannot evaluate coef · x + intercept.
        center=result.center if result.needs_center else None,
        intercept_at_center=result.intercept_at_center if result.needs_center else None,
        exact_coef=result.exact_coef,
        exact_intercept=result.exact_intercept,
    )


def joint_separability_of(kesler, classes, tol):
    """:func:`linear_separability` of K classes jointly, from
    :func:`~._margin.joint_margin_of` on their pairs (row, other class)."""
    result = joint_margin_of(
        kesler, tol=tol, soft=False, classes=classes, units_or_verdict=True,
        verdict=True,
    )  # fmt: skip
    if not result.separable:
        return result.certificate
    far = result.needs_center
    return JointSeparabilityResult(
        separable=True,
        classes=np.asarray(classes),
        coef=result.coef,
        intercept=result.intercept,
        margin=float(result.margin),
        center=result.center if far else None,
        intercept_at_center=result.intercept_at_center if far else None,
        exact_coef=result.exact_coef,
        exact_intercept=result.exact_intercept,
    )


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "time_limit": [Interval(Real, 0, None, closed="neither")],
        "effort": [Interval(Integral, 0, None, closed="left"), None],
        "tol": [Interval(Real, 0, 1, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def minimum_error_separation(X, y, *, time_limit=60.0, effort=80, tol=1e-9):
    r"""The fewest rows to remove for the classes to become linearly separable.

    The minimum-error (maximum feasible subsystem) problem: the smallest set R of
    rows such that the rows outside R are split by a hyperplane (K > 2 classes:
    classified right by one linear machine, and a certificate is the rows of
    Farkas weights on (row, other class) pairs). Its size does not
    change under any invertible affine map of the features, unlike the least
    total hinge, which is in the data's units. The search bounds it from both
    sides and stops when the bounds meet (``optimal``), after ``effort`` exact
    verdicts, or at ``time_limit``:

    - **lower bound**, combinatorial Benders (Codato & Fischetti, 2006): every
      certificate of inseparability (the rows of a point in both convex hulls) is
      a set of rows of which at least one must go. The fewest rows that meet every
      certificate found so far (a hitting-set MIP, HiGHS's branch and bound) are
      at least as many as R; they are also the next candidate, whose remaining
      rows the exact verdict either separates (the bounds meet) or answers with
      new certificates. No big-M, no tolerance on w.
    - **upper bound**, a greedy removal (the rows of largest hinge under the
      C → ∞ soft limit of the rows kept, until the rest separate; then each
      removed row that can come back does) and every candidate that separates.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Dense (a sparse X is refused).
    y : array-like of shape (n_samples,)
        Two classes: split by a hyperplane. More: jointly, by one linear machine
        (``argmax_k w_k·x + b_k``, :func:`linear_separability` with
        ``multiclass="joint"``), whose certificates are the cuts. For a pair of
        them ask of the pair's rows; for one against the rest, of ``y == k``.
    time_limit : float, default=60.0
        Seconds of wall-clock time, a safety cap: the bounds at that time are
        returned (they depend on the machine's speed). It is checked between
        solver calls, so one long solve on large data can overrun it.
    effort : int or None, default=80
        The most exact verdicts the search makes (each a working-set solve on
        the rows kept: the greedy removal's steps, and one per certificate): a
        limit of work that gives the same bounds on any machine (the greedy
        removal spends at most half of it, a soft-limit solve counting as a
        verdict), as ``linsep report --effort`` has it. None: until the bounds
        meet or ``time_limit`` (whose bounds depend on the machine).
    tol : float, default=1e-9
        Tolerance of the verdicts, as in :func:`linear_separability`.

    Returns
    -------
    result : MinimumErrorResult
        ``lower_bound``, ``upper_bound``, ``optimal``, ``removed`` (the rows of a
        removal of ``upper_bound`` rows) and ``coef``, ``intercept`` (the
        maximal-margin hyperplane of the rows kept).

    See Also
    --------
    linear_separability : The verdict, with its certificate.
    PocketPerceptron : A hyperplane of few errors, without a bound.

    References
    ----------
    G. Codato and M. Fischetti, "Combinatorial Benders' cuts for mixed-integer
    linear programming", Operations Research 54(4), 756-766, 2006.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep import minimum_error_separation
    >>> X, y = load_iris(return_X_y=True)
    >>> pair = y > 0  # versicolor and virginica
    >>> result = minimum_error_separation(X[pair], y[pair])
    >>> result.lower_bound, result.upper_bound, result.optimal
    (1, 1, True)

    All three classes, one linear machine for all:

    >>> result = minimum_error_separation(X, y)
    >>> result.lower_bound, result.upper_bound, result.optimal, result.coef.shape
    (1, 1, True, (3, 4))
    """
    X, classes, y_encoded, _ = validate_labelled_data(
        X, y, None, "minimum_error_separation"
    )
    return minimum_errors(
        X.astype(np.float64, copy=False),
        np.where(y_encoded == 1, 1.0, -1.0) if len(classes) == 2 else y_encoded,
        classes,
        time_limit=time_limit,
        effort=effort,
        tol=tol,
    )


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "bound": [StrOptions({"guaranteed", "textbook"})],
    },
    prefer_skip_nested_validation=True,
)
def perceptron_mistake_bound(X, y, *, bound="guaranteed"):
    r"""Novikoff's bound on the number of updates of the perceptron.

    With :math:`w_0 = 0` and a constant rate, the perceptron on the augmented
    samples :math:`\tilde x = (x, 1)` makes at most :math:`(\tilde R/\tilde\gamma)^2`
    updates on linearly separable data, with :math:`\tilde R = \max\|\tilde x_i\|`
    and :math:`\tilde\gamma` the largest margin of a unit-norm separator through
    the origin of the augmented space (the hard margin on :math:`\tilde x` with no
    separate bias). That is ``bound="guaranteed"``. The often-quoted
    :math:`(R/\gamma)^2`, with :math:`R = \max\|x_i\|` and :math:`\gamma` the
    margin of the free-bias maximal-margin hyperplane, is smaller and not
    guaranteed for the augmented update (``bound="textbook"``). Both margins are
    computed exactly (the working-set QP). Inseparable data give ``inf``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two classes.
    bound : {"guaranteed", "textbook"}, default="guaranteed"

    Returns
    -------
    bound : float

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep import perceptron_mistake_bound
    >>> X, y = load_iris(return_X_y=True)
    >>> X, y = X[:, :2], y == 0  # setosa against the rest (SPEC §6)
    >>> round(perceptron_mistake_bound(X, y)), round(perceptron_mistake_bound(
    ...     X, y, bound="textbook"), 1)
    (51387, 9567.0)
    """
    X, classes, y_encoded, _ = validate_labelled_data(
        X, y, None, "perceptron_mistake_bound", accept_sparse=True
    )
    if len(classes) != 2:
        raise ValueError(
            f"perceptron_mistake_bound takes two classes; got {len(classes)}. "
            "For one class against the rest pass y == k."
        )
    c = np.where(y_encoded == 1, 1.0, -1.0)
    # In float64 whatever X's dtype: float32 squares overflow past |x| ~ 1e19.
    X64 = X.astype(np.float64, copy=False)
    squared_norms = np.asarray(
        X64.multiply(X64).sum(axis=1)
        if hasattr(X64, "multiply")
        else np.einsum("ij,ij->i", X64, X64)
    ).ravel()
    # Decide separability on the centred problem, whose numerics do not depend on
    # where the data sit; the augmented one is separable exactly when it is.
    if not maximal_margin_of(ScaledRows(X, c), soft=False, classes=classes).separable:
        return np.inf
    augmented = bound == "guaranteed"
    if not augmented:
        result = maximal_margin_of(ScaledRows(X, c), soft=False)
    else:
        try:
            result = maximal_margin_of(AugmentedRows(X, c), soft=False, augmented=True)
        except SolverError as error:
            raise SolverError(_AUGMENTED_TOO_SMALL + f" ({error})") from error
        if not result.separable:
            raise SolverError(_AUGMENTED_TOO_SMALL)
    radius_squared = np.max(squared_norms + (1.0 if augmented else 0.0))
    return float(radius_squared / result.margin**2)


_AUGMENTED_TOO_SMALL = (
    "The data are separable, but the margin of the augmented samples (x, 1) through "
    "the origin is too small for the QP to resolve: the data sit far from the "
    "origin relative to their spread, and the guaranteed bound is astronomically "
    "large. Centre X first, or use bound='textbook'."
)


@validate_params(
    {
        "n_samples": [Interval(Integral, 0, None, closed="left")],
        "n_features": [Interval(Integral, 0, None, closed="left")],
        "affine": ["boolean"],
        "method": [StrOptions({"exact", "ripley"})],
    },
    prefer_skip_nested_validation=True,
)
def cover_separability_probability(
    n_samples, n_features, *, affine=True, method="exact"
):
    r"""Probability that a random labelling of points in general position is
    linearly separable (Cover's counting theorem).

    Of the :math:`2^Z` labellings of :math:`Z` points in general position in
    :math:`\mathbb{R}^N`, :math:`C(Z, N) = 2\sum_{k=0}^{N-1}\binom{Z-1}{k}` are
    separable by a hyperplane through the origin; an affine hyperplane in
    :math:`\mathbb{R}^N` counts as one through the origin in :math:`\mathbb{R}^{N+1}`
    (``affine=True``). The probability :math:`C(Z, N)/2^Z` is the chance that a
    Binomial(Z - 1, 1/2) variable is at most N - 1, computed from the regularised
    incomplete beta function: within a few units in the last place of the exact
    count's ratio (1e-14 relative) and stable for Z in the millions. It is 1/2 at
    Z = 2N (to those last places). ``method="ripley"`` gives Ripley's normal
    approximation :math:`\Phi((2N - Z)/\sqrt Z)`.

    Parameters
    ----------
    n_samples : int
        Z, the number of points.
    n_features : int
        The dimension of the space.
    affine : bool, default=True
        Count affine hyperplanes (with an intercept), i.e. N = n_features + 1.
    method : {"exact", "ripley"}, default="exact"

    Returns
    -------
    probability : float

    Examples
    --------
    >>> from sklearn_linsep import cover_separability_probability
    >>> cover_separability_probability(6, 2)  # Z = 2N with N = 3
    0.5
    >>> cover_separability_probability(3, 2)  # Z ≤ N: every labelling separates
    1.0
    """
    dimension = n_features + (1 if affine else 0)
    if n_samples == 0:
        return 1.0
    if method == "ripley":
        return float(special.ndtr((2 * dimension - n_samples) / np.sqrt(n_samples)))
    # P(B ≤ k) for B ~ Binomial(m, 1/2) is I_{1/2}(m - k, k + 1) (scipy.stats'
    # binom.cdf evaluates the same function otherwise: the last bits may differ).
    k, trials = dimension - 1, n_samples - 1
    if k < 0:
        return 0.0
    if k >= trials:
        return 1.0
    return float(special.betainc(trials - k, k + 1, 0.5))
