"""The maximal-margin hyperplane, exact, by a working set; and the certificate of
inseparability that the same loop produces.

``maximal_margin`` scales the data, grows a working set of candidate support vectors
with the margin QP (``_solvers``, Clarabel), verifies the optimality conditions on
every sample and maps the answer back. On inseparable data it returns the Farkas
certificate and, if asked, the limit C → ∞ of the soft margin. The estimator
(``_svm``) and the separability functions (``_certificates``) both stand on it.
"""

import warnings
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from ._compat import any_dask
from ._dask import verify_on_blocks
from ._proofs import (
    certificate_holds,
    feature_spread,
    proven_margins,
    rounding_factor,
)
from ._solvers import (
    SolverError,
    face_margin_qp,
    hull_intersection_lp,
    hull_margin,
    least_hinge_ipm,
    margin_from_feasible,
    margin_qp,
    total_hinge_lp,
)
from ._working_set import AugmentedRows, ScaledRows, grow, worst_violators


@dataclass(repr=False)
class SeparabilityResult:
    """Whether two classes are linearly separable, with a certificate either way.

    Separable: ``coef``, ``intercept`` with ``c_i (coef · x_i + intercept) ≥ 1`` for
    every sample (``c = +1`` for ``classes[1]``): the maximal-margin hyperplane, so
    ``margin`` (its geometric margin, ``1/‖coef‖``) is the largest margin of any
    separating hyperplane. Inseparable: ``certificate_indices`` of a few samples of each class
    and ``certificate_weights`` (λ ≥ 0, summing to 1 within each class) whose convex
    combinations coincide at ``common_point``: a point in both convex hulls, so no
    hyperplane has the two classes on strictly opposite sides (Gordan, Farkas).
    Either certificate is checked with one matrix product by :meth:`verify`.

    Attributes
    ----------
    separable : bool
    classes : ndarray of shape (2,)
        The negative and the positive class.
    coef, intercept, margin : ndarray, float, float
        The maximal-margin hyperplane and its geometric margin (None when
        inseparable).
    certificate_indices, certificate_weights : ndarray
        The samples and weights of the inseparability certificate (None when
        separable).
    common_point : ndarray of shape (n_features,)
        The point both weighted combinations give.
    certificate_signs : ndarray
        ``c`` (+1 for ``classes[1]``) of the certificate's samples.
    center, intercept_at_center : ndarray of shape (n_features,), float
        The same hyperplane about a centre of the data:
        ``coef · (x - center) + intercept_at_center``. It is what
        :meth:`verify` evaluates. Given only where the data lie so far from the
        origin that float64 cannot add ``intercept`` to ``coef · x`` (a
        ``UserWarning`` then says so); None otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import linear_separability
    >>> X = np.array([[0.0, 0.0], [2.0, 2.0], [0.0, 2.0], [2.0, 0.0]])
    >>> result = linear_separability(X, [0, 0, 1, 1])  # the XOR square
    >>> result.separable, result.common_point, result.verify(X, [0, 0, 1, 1])
    (False, array([1., 1.]), True)
    >>> result
    SeparabilityResult(separable=False, certificate of 4 samples, classes=[0, 1])
    """

    separable: bool
    classes: np.ndarray
    coef: np.ndarray = None
    intercept: float = None
    margin: float = None
    certificate_indices: np.ndarray = None
    certificate_weights: np.ndarray = None
    common_point: np.ndarray = None
    certificate_signs: np.ndarray = None  # c of the certificate's samples
    center: np.ndarray = None
    intercept_at_center: float = None

    def verify(self, X, y, rtol=1e-9):
        """Re-check the certificate on ``(X, y)``, with float64's rounding bounded.

        A hyperplane holds when ``c_i (coef · x_i + intercept) ≥ 1 - rtol`` on every
        row of the two classes, less a proven bound on the rounding of the scores
        (evaluated about ``center`` when the result has one: far from the origin
        ``coef · x + intercept`` has no digits left). An inseparability certificate
        holds when ``λ ≥ 0`` sums to 1 on each side and its two combinations
        coincide in every feature to ``rtol`` of that feature's spread over the two
        classes, plus the rounding of the sums: a gap in a feature of small units is
        not hidden by the size of the others, whatever the units.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            A dask array is checked block by block (only the certificate's own
            rows and each feature's extremes come to the client).
        y : array-like of shape (n_samples,)
            Labels; samples of classes other than ``classes`` are ignored.
        rtol : float, default=1e-9
            Tolerance of the margins (below 1) and of the certificate's equalities
            (relative to each feature's spread).

        Returns
        -------
        valid : bool
        """
        if any_dask(X, y):
            return verify_on_blocks(self, X, y, rtol)
        y = np.asarray(y)
        if not sp.issparse(X):
            X = np.asarray(X, dtype=float)
        in_pair = np.isin(y, self.classes)
        c = np.where(y == self.classes[1], 1.0, -1.0)
        if self.separable:
            margins = proven_margins(
                X[in_pair], c[in_pair], **self._hyperplane_fields()
            )
            return bool(np.all(margins >= 1 - rtol))
        indices = np.asarray(self.certificate_indices)
        if not np.all(in_pair[indices]):
            return False
        points = X[indices]
        points = points.toarray() if sp.issparse(points) else np.asarray(points, float)
        return self._certificate_holds(
            points, c[indices], feature_spread(X[in_pair]), rtol
        )

    def _hyperplane_fields(self):
        """The keyword arguments of :func:`~._proofs.proven_margins`."""
        return dict(
            coef=self.coef,
            intercept=self.intercept,
            center=self.center,
            intercept_at_center=self.intercept_at_center,
        )

    def _certificate_holds(self, points, signs, spread, rtol):
        """The certificate on its own rows (``points``, labelled ``signs``)."""
        return certificate_holds(
            points,
            signs,
            np.asarray(self.certificate_weights, dtype=float),
            np.asarray(self.common_point, dtype=float),
            spread,
            rtol,
        )

    def describe(self):
        """One line: the verdict and the size of its certificate."""
        if self.separable:
            return f"separable, by a hyperplane of margin {self.margin:.6g}"
        counts = [
            int(np.sum(self.certificate_signs < 0)),
            int(np.sum(self.certificate_signs > 0)),
        ]
        negative, positive = (str(label) for label in self.classes)
        return (
            f"{counts[1]} sample(s) of class {positive} and {counts[0]} of class "
            f"{negative} have convex combinations that coincide at "
            f"{np.array2string(self.common_point, precision=6)}"
        )

    def __repr__(self):
        """Short: the verdict and its size, no arrays (they are attributes)."""
        classes = np.asarray(self.classes).tolist()
        if self.separable:
            return (
                f"SeparabilityResult(separable=True, margin={self.margin:.6g}, "
                f"classes={classes})"
            )
        return (
            f"SeparabilityResult(separable=False, certificate of "
            f"{len(self.certificate_indices)} samples, classes={classes})"
        )


def certificate_from_subset(
    scaled, working, classes=(0, 1), fit_intercept=True, weights=None
):
    """The Farkas certificate of a subset of samples that admits no separator.

    ``λ`` from the hull-intersection LP on the scaled rows is valid on the original
    X too: ``Σ λ_i c_i (x_i - m) / s = 0`` and ``Σ λ_i c_i = 0`` give
    ``Σ λ_i c_i x_i = 0``. Being valid for the subset, it is valid for all samples.
    Two equal samples with opposite labels, when there are any, are the certificate
    (the smallest there is). The certificate is verified before it is returned: a
    solver that wrongly declared the subset infeasible gives a SolverError, never
    a false certificate.
    """
    pair = scaled.opposite_duplicates() if fit_intercept else None
    if pair is not None:
        return _checked_certificate(scaled, np.asarray(pair), np.ones(2), classes)
    if weights is not None:  # the nearest points' common point, when it verifies
        keep = weights > 0
        try:
            return _checked_certificate(scaled, working[keep], weights[keep], classes)
        except SolverError:
            pass  # the LP below finds a basic one, often where rounding hurt λ
    # λ is the same in every affine frame: the LP sees each feature at its own
    # spread, so its tolerances do not hide a gap in a feature of small units.
    frame = scaled.equilibrated() if fit_intercept else scaled
    weights = hull_intersection_lp(
        frame.rows(working), frame.labels(working), fit_intercept
    )
    if weights is None:
        raise SolverError(
            "The classes come too close to touching for float precision to decide "
            "whether a hyperplane separates them: no separator was found on a subset "
            "of the samples, and no point in both convex hulls either. Check for "
            "near-duplicate rows with different labels, or rescale the features."
        )
    keep = weights > 0
    return _checked_certificate(scaled, working[keep], weights[keep], classes)


def _checked_certificate(scaled, indices, weights, classes):
    """The SeparabilityResult of weights on rows, verified on those rows."""
    points = scaled.original_rows(indices)
    signs = scaled.labels(indices)
    common = weights[signs > 0] @ points[signs > 0]
    result = SeparabilityResult(
        separable=False,
        classes=np.asarray(classes),
        certificate_indices=indices,
        certificate_weights=weights,
        common_point=common,
        certificate_signs=signs,
    )
    # Checked on its own rows, feature by feature against the data's spreads.
    if not result._certificate_holds(points, signs, scaled.spread, rtol=1e-9):
        raise SolverError(
            "The solvers declared the classes inseparable, but the certificate they "
            "gave does not hold: the classes come within the solvers' precision "
            "(about 1e-9 of a feature's spread) of touching, too close to decide. "
            "Check for near-duplicate rows with different labels."
        )
    return result


@dataclass
class MarginResult:
    """The hyperplane ``coef · x + intercept`` of one two-class problem."""

    coef: np.ndarray
    intercept: float
    separable: bool
    margin: float  # geometric margin 1/‖w‖ (separable), else that of the C → ∞ limit
    support: np.ndarray  # indices of the samples with positive dual weight
    dual: np.ndarray  # α_i c_i of those samples, on the original scale of X
    hinge_violation: float  # Σ s_i max(0, 1 - c_i(w·x_i + b)); 0 when separable
    rounds: int  # working-set rounds
    certificate: SeparabilityResult = None  # when inseparable
    center: np.ndarray = None  # the hyperplane is coef · (x - center) + ...
    intercept_at_center: float = None
    needs_center: bool = False  # float64 cannot evaluate coef · x + intercept


# Samples with a margin above 1 + DROP_ABOVE leave the working set (see grow):
# measured best of 0.05, 0.2 and 0.5 at n = 1e4-1e5, p = 20-100.
DROP_ABOVE = 0.2
# A soft limit whose least-hinge working set outgrows this many batches goes to
# the interior point over all samples (in memory only).
MANY_VIOLATORS = 10


def maximal_margin(
    X,
    c,
    sample_weight=None,
    tol=1e-9,
    initial_size=None,
    batch=None,
    soft=True,
    augmented=False,
    classes=(0, 1),
):
    """The maximal-margin hyperplane of the samples ``X`` labelled ``c = ±1``.

    Solves ``min ½‖w‖²`` subject to ``c_i (w·x_i + b) ≥ 1`` on the samples of
    positive weight. X is centred and divided by one scalar (its largest centred
    entry) first, so the QP sees entries in [-1, 1] whatever the units, and the
    answer is mapped back. Then the optimality (KKT) conditions are checked on all
    samples: feasibility ``c_i(w·x_i + b) ≥ 1 - tol``, ``w = Σ α_i c_i x_i``,
    ``Σ α_i c_i = 0`` and complementary slackness, each to ``tol`` (relative).

    On inseparable data the working set that the QP proves infeasible yields the
    Farkas certificate. With ``soft`` the result is then the limit C → ∞ of the
    soft margin: the minimum total hinge violation ``Σ s_i ξ_i`` (an LP), then the
    largest margin among its minimisers (a QP); otherwise only the certificate.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    c : ndarray of shape (n_samples,)
        Labels ±1.
    sample_weight : ndarray of shape (n_samples,), default=None
        Samples of weight 0 are left out; positive weights only weigh the hinge
        violations of the inseparable case (the hard margin does not depend on
        them).
    tol : float, default=1e-9
        Tolerance of the constraints and optimality conditions.
    initial_size : int, default=None
        Seed samples per class (default ``max(4 p + 20, 50)``).
    batch : int, default=None
        Violated samples added per round (default ``max(4 p + 40, 100)``).
    soft : bool, default=True
        Fit the C → ∞ limit when the data are inseparable.
    augmented : bool, default=False
        Separate the augmented samples ``(x, 1)`` by a hyperplane through the
        origin (no free intercept): the margin of Novikoff's bound. The result's
        ``coef`` then has ``n_features + 1`` entries; no certificate, no soft limit.
    classes : sequence of 2 labels, default=(0, 1)
        The labels of ``c = -1`` and ``c = +1``, for the certificate.

    Returns
    -------
    result : MarginResult
    """
    rows_type = AugmentedRows if augmented else ScaledRows
    return maximal_margin_of(
        rows_type(X, c, sample_weight),
        tol=tol,
        initial_size=initial_size,
        batch=batch,
        soft=soft,
        augmented=augmented,
        classes=classes,
    )


def maximal_margin_of(
    scaled,
    tol=1e-9,
    initial_size=None,
    batch=None,
    soft=True,
    augmented=False,
    classes=(0, 1),
):
    """:func:`maximal_margin` of a problem already wrapped as a
    :class:`~sklearn_linsep._working_set.ScaledRows` (or a class that answers the
    same questions, such as the dask one)."""
    check_scale(scaled.scale)
    p = scaled.n_features
    # Measured at p = 100 (bench_exact_core.py): twice the seed and four times the
    # batch of before took 1e4 rows from 10 rounds and 64 ms to 3 and 42 ms, 1e5
    # from 16 rounds and 0.40 s to 6 and 0.25 s; neutral at p = 20.
    initial_size = initial_size or max(4 * p + 20, 50)
    batch = batch or max(4 * p + 40, 100)
    if augmented:  # through the origin: the margin of Novikoff's bound
        return _augmented_margin(scaled, tol, initial_size, batch)
    # The verdict is decided where every feature keeps its digits; the Euclidean
    # margin in X's units is then finished from that working set.
    frame = scaled.equilibrated() if scaled.uneven else scaled
    solution, working, rounds = _grow_margin(
        frame, _WarmHull(frame, tol), frame.seed(initial_size), tol, batch
    )
    if solution.feasible and frame is not scaled:
        # The equilibrated frame's hyperplane, on X's frame: it separates all rows.
        feasible = (solution.coef * (scaled.scale / frame.scale), solution.intercept)
        solution, working, more = _grow_margin(
            scaled, _EuclideanFinish(scaled, tol, feasible), working, tol, batch
        )
        rounds += more
    if solution.feasible:
        _check_optimality(scaled, working, solution, tol, True)
        _warn_if_inexact(solution)
        result = _margin_result(scaled, working, solution, rounds, True, 0.0)
        return _proven(scaled, result, solution, tol)
    no_hyperplane = _no_hyperplane(rounds)
    certificate = certificate_from_subset(
        scaled, working, classes, weights=solution.weights
    )
    if not soft:
        return MarginResult(**no_hyperplane, certificate=certificate)
    result = _soft_limit(scaled, working, tol, batch)
    result.rounds += rounds
    result.certificate = certificate
    return result


def _no_hyperplane(rounds):
    return dict(
        coef=None,
        intercept=0.0,
        separable=False,
        margin=0.0,
        support=np.array([], int),
        dual=np.array([]),
        hinge_violation=np.inf,
        rounds=rounds,
    )


def _grow_margin(scaled, solve, start, tol, batch):
    """The working-set loop of the hard margin from the rows ``start``."""

    def violators(solution, working):
        return scaled.violators(
            solution.coef, solution.intercept, 1.0 - tol, working, batch
        )

    # Samples far inside their side rarely become support vectors: dropping them
    # keeps the subproblem near its support vectors (its cost grows with its rows).
    return grow(start, solve, violators, drop_above=DROP_ABOVE)


def _augmented_margin(scaled, tol, initial_size, batch):
    """The margin through the origin of the augmented samples (Novikoff's)."""

    def solve(indices):
        return margin_qp(scaled.rows(indices), scaled.labels(indices), False)

    solution, working, rounds = _grow_margin(
        scaled, solve, scaled.seed(initial_size), tol, batch
    )
    if not solution.feasible:
        return MarginResult(**_no_hyperplane(rounds))
    _check_optimality(scaled, working, solution, tol, False)
    _warn_if_inexact(solution)
    return _margin_result(scaled, working, solution, rounds, True, 0.0)


def _proven(scaled, result, solution, tol):
    """The separating hyperplane, proved on every row with its rounding bounded.

    About the centre (``w·(x - centre) + b_z``, the frame the solvers worked in)
    the margins are at least ``1 - tol``; the hyperplane is scaled by at most that
    much so that the proven bound reaches 1. Far from the origin float64 may not
    hold ``w·x + intercept`` itself (an intercept of 1e15 leaves no digits): the
    result then says so (``needs_center``) and a UserWarning tells the user to
    evaluate it about ``center``.
    """
    center, at_center = scaled.centre, float(solution.intercept)
    least = scaled.proven_min_margin(result.coef, 0.0, center, at_center)
    if not least > 1 - 1e3 * tol:
        raise SolverError(
            "The maximal-margin hyperplane cannot be proved to separate the classes "
            f"in float64 (its smallest margin, rounding bounded, is {least:.3g}): "
            "the classes come too close for float precision at the data's scale."
        )
    if least < 1:  # rounding: scale up by as little as proves c (w·x + b) ≥ 1
        grow_by = (1 + 8 * np.finfo(float).eps) / least
        result.coef, at_center = result.coef * grow_by, at_center * grow_by
        result.intercept *= grow_by
        result.dual, result.margin = result.dual * grow_by, result.margin / grow_by
    result.center, result.intercept_at_center = center, at_center
    # The plain form's rounding, bounded a priori by each feature's largest |x|:
    # where it leaves the proof standing (the plain scores are within it of the
    # true ones, and so is their computed bound), no pass is needed to check it.
    p = len(result.coef)
    plain_rounding = rounding_factor(p + 3) * (
        scaled.magnitude @ np.abs(result.coef) + abs(result.intercept)
    )
    if max(least, 1.0) - 3 * plain_rounding >= 1 - PROOF_RTOL:
        return result
    plain = scaled.proven_min_margin(result.coef, result.intercept)
    if not plain >= 1 - PROOF_RTOL:
        result.needs_center = True
        warnings.warn(
            "The data lie so far from the origin against their spread that float64 "
            "cannot evaluate coef · x + intercept on them to the margin's precision "
            f"(its rounding reaches {1 - plain:.1g} of the margin; the intercept is "
            f"{result.intercept:.3g}): the hyperplane is also given about a centre "
            "of the data, as coef · (x - center) + intercept_at_center, which "
            "verify() and decision_function use. Centring the features "
            "(StandardScaler) avoids this.",
            UserWarning,
            stacklevel=4,
        )
    return result


# verify()'s default: the margins a proof must reach, below 1.
PROOF_RTOL = 1e-9


class _EuclideanFinish:
    """The subproblem of the Euclidean margin once the verdict is known: the
    nearest points in X's own metric, warm-started; where they miss the margin on
    the rows (features on scales so far apart that a small feature's gap is below
    the rounding of the large ones), the primal active-set method
    (:func:`~._solvers.margin_from_feasible`) from the equilibrated frame's
    hyperplane, which separates every row."""

    def __init__(self, scaled, tol, feasible):
        self.scaled, self.tol = scaled, tol
        self.hull = _WarmHull(scaled, tol)
        self.feasible = feasible  # (coef, intercept) on scaled's frame

    def __call__(self, indices):
        rows, labels = self.scaled.rows(indices), self.scaled.labels(indices)
        solution = self.hull(indices)
        if (
            solution.feasible
            and _on_margin(rows, labels, solution, self.tol / 2)
            and not _dual_problems(rows, labels, solution, self.tol / 2, self.tol)
        ):
            return solution
        solution = margin_from_feasible(rows, labels, *self.feasible, self.tol / 2)
        if solution is None:
            raise SolverError(
                "The classes separate with each feature at its own scale, but the "
                "maximal-margin hyperplane in X's units could not be finished: "
                "the features' scales are too far apart. Standardising the "
                "features (StandardScaler) may help."
            )
        self.hull.remember(indices, solution.weights)
        return solution


def _on_margin(rows, labels, solution, tol):
    """Every row at margin ≥ 1 - tol and the support within tol of 1."""
    margins = labels * (rows @ solution.coef + solution.intercept)
    support = solution.dual > 0
    return bool(
        np.min(margins) >= 1 - tol and np.all(np.abs(margins[support] - 1) <= tol)
    )


class _WarmHull:
    """The working-set subproblem: the hull margin of the rows ``indices``, each
    call started from the previous call's nearest points (their rows stay in the
    working set: they lie on the margin)."""

    def __init__(self, scaled, tol):
        self.scaled = scaled
        self.tol = tol / 2  # room for the check on all samples, at 1 - tol
        self.members = np.array([], dtype=np.intp)  # rows of the last answer
        self.weights = np.array([])  # and their λ

    def __call__(self, indices):
        start = np.zeros(len(indices))
        found = np.searchsorted(indices, self.members)  # indices are sorted
        inside = found < len(indices)
        inside[inside] = indices[found[inside]] == self.members[inside]
        start[found[inside]] = self.weights[inside]
        solution = hull_margin(
            self.scaled.rows(indices),
            self.scaled.labels(indices),
            start=start,
            tol=self.tol,
        )
        self.remember(indices, solution.weights)
        return solution

    def remember(self, indices, weights):
        """Start the next call from these weights λ on the rows ``indices``."""
        kept = np.flatnonzero(weights)
        self.members, self.weights = indices[kept], weights[kept]


def check_scale(scale):
    """Refuse data whose spread the dual coefficients (α / scale²) and the QP's
    scaling cannot represent in float64."""
    if not 1e-100 <= scale <= 1e100:
        raise ValueError(
            f"X's centred entries reach {scale:.3g}: outside [1e-100, 1e100], where "
            "the margin, the dual coefficients (α / scale²) and the scores stay "
            "representable in float64. Rescale X by a constant."
        )


def _warn_if_inexact(solution):
    if solution.status != "Solved":
        warnings.warn(
            f"Clarabel stopped with status {solution.status}; its answer passed "
            "the checks on all samples (the optimality conditions of the margin, "
            "or the least total hinge of the soft limit).",
            UserWarning,
            stacklevel=4,
        )


def _soft_limit(scaled, working, tol, batch):
    """The C → ∞ limit of the soft margin: among the hyperplanes of least total
    hinge, the one of largest margin (w = 0 left exactly 0: the margin is then
    undefined).

    Two routes to the same exact answer: the working set grows to take in the
    samples inside their margin (:func:`_soft_limit_by_rounds`); when it outgrows
    ``MANY_VIOLATORS`` batches (labels near random: every round would take in
    thousands of rows, and HiGHS's simplex slows with them), an interior point over
    all samples guesses the answer instead (:func:`_soft_limit_of_all`).
    """
    many = MANY_VIOLATORS * batch if scaled.in_memory else None
    # The least total hinge and its optimal face do not depend on the frame: the
    # LP sees each feature at its own spread when the spreads are far apart (its
    # dual certificate failed at spreads 1e8 apart), the margin stays X's.
    lp_frame = scaled.equilibrated() if scaled.uneven else scaled
    solution, working, rounds = _soft_limit_by_rounds(
        scaled, lp_frame, working, tol, batch, many
    )
    if solution is None:
        solution, working, more = _soft_limit_of_all(scaled, lp_frame, tol, batch)
        rounds += more
    _warn_if_inexact(solution)
    # Z lies in [-1, 1]: a w moving no score by tol is w = 0 to the QP's precision,
    # and then left as exactly 0 (the margin is undefined, not 1/‖noise‖).
    if np.linalg.norm(solution.coef, 1) <= tol:
        solution = replace(solution, coef=np.zeros_like(solution.coef))
    total = scaled.total_hinge(solution.coef, solution.intercept)
    return _margin_result(scaled, working, solution, rounds, False, total)


def _soft_limit_by_rounds(scaled, lp_frame, working, tol, batch, max_size=None):
    """The soft limit on the working-set loop of the hard margin: each round
    solves both stages on the working set (the least total hinge by the LP, then
    the largest margin at that total by the QP), takes in the worst violators and
    lets rows far inside their side go.

    Exact as the hard margin is: when no row outside the working set has positive
    hinge, the full problem's least total equals the working set's, its minimisers
    are among the working set's, and the working set's best margin is theirs. The
    rows that join per round double with the working set, so data with many margin
    violators take a few rounds, not one per ``batch``. ``(None, working, rounds)``
    when the least-hinge rounds outgrow ``max_size`` rows.
    """

    def solve(indices):
        rows, labels = scaled.rows(indices), scaled.labels(indices)
        weights = scaled.sample_weights(indices)
        lp = _checked_least_hinge(lp_frame.rows(indices), labels, weights)
        if lp.total <= 1e-12 * weights.sum():  # these rows separate: the hard margin
            solution = hull_margin(rows, labels, tol=tol / 2)
            if solution.feasible:
                return solution
        sides = _face_sides(lp.dual, weights)
        return _margin_at_least_hinge(rows, labels, weights, lp.total, sides)

    def least_hinge(indices):
        return total_hinge_lp(
            lp_frame.rows(indices),
            lp_frame.labels(indices),
            weights=lp_frame.sample_weights(indices),
        )

    def violators_in(frame):
        def violators(solution, working):
            return frame.violators(
                solution.coef,
                solution.intercept,
                1.0 - tol,
                working,
                max(batch, working.size),
            )

        return violators

    violators = violators_in(scaled)
    # The LP alone first (a round costs one simplex of p + 1 rows), then both
    # stages from the rows it kept.
    lp, working, rounds = grow(
        working,
        least_hinge,
        violators_in(lp_frame),
        drop_above=DROP_ABOVE,
        max_size=max_size,
    )
    if lp is None:
        return None, working, rounds
    solution, working, more = grow(working, solve, violators, drop_above=DROP_ABOVE)
    return solution, working, rounds + more


def _soft_limit_of_all(scaled, lp_frame, tol, batch):
    """The soft limit when many samples violate their margin.

    An interior point over all samples (:func:`~._solvers.least_hinge_ipm`)
    guesses the least-hinge hyperplane; the samples well inside their margin are
    then held at ``α = s`` (their hinge is linear there) and the exact LP runs on
    the few near the margin (:func:`_exact_least_hinge`). The largest margin on
    the LP's optimal face is found on the same working-set loop as the hard
    margin, with the face's constraints (``≥ 1``, ``= 1``, ``≤ 1`` by
    complementary slackness) in place of ``≥ 1``.
    """
    lp, alpha = _exact_least_hinge(lp_frame)
    sides = _face_sides(alpha, scaled.weights)

    def solve(indices):
        solution = face_margin_qp(
            scaled.rows(indices), scaled.labels(indices), sides[indices]
        )
        if not solution.feasible:
            raise SolverError(
                "Clarabel reports the least-hinge face infeasible on a subset of "
                "the samples, which contains the LP's answer. Standardising the "
                "features (StandardScaler) may help."
            )
        return solution

    def violators(solution, working):
        margins = scaled.margins(solution.coef, solution.intercept)
        off_face = np.where(
            sides > 0,
            1 - margins,
            np.where(sides < 0, margins - 1, np.abs(margins - 1)),
        )
        violation = np.where(scaled.active, off_face - tol, -np.inf)
        return worst_violators(violation, working, max(batch, working.size))

    start = np.flatnonzero(scaled.active & (sides == 0))
    solution, working, rounds = grow(start, solve, violators)
    if not _attains(scaled, solution, lp.total):
        raise SolverError(
            "The largest margin on the least-hinge face does not attain the least "
            "total hinge on all samples. Standardising the features (StandardScaler) "
            "may help."
        )
    return solution, working, rounds


def _exact_least_hinge(scaled):
    """The least total hinge of all samples, exact: ``(lp, α)`` with ``α`` the dual
    on every sample, proved optimal by weak duality.

    The interior point's hyperplane sorts the samples: those within ``band`` of
    their margin go to the LP, those below it are held at ``α = s`` (on the
    right-hand side), the rest at ``α = 0``. A wrong guess shows as an infeasible
    LP or a failed proof, and the band widens until, at worst, it holds every
    sample (the plain LP).
    """
    active = np.flatnonzero(scaled.active)
    c, weights = scaled.c[active], scaled.weights[active]
    scaled.keep_centred()

    def spread(values):
        full = np.zeros(scaled.n_samples)
        full[active] = values
        return full

    guess = least_hinge_ipm(
        gram=lambda theta: scaled.augmented_gram(spread(theta)),
        combine=lambda v: scaled.augmented_sum(spread(v * c)),
        products=lambda y: c * scaled.scores(y[:-1], y[-1])[active],
        upper=weights,
    )
    margins = scaled.margins(guess.coef, guess.intercept)
    for band in (1e-6, 1e-4, 1e-2, 1e-1, np.inf):
        beyond = scaled.active & (margins < 1 - band)
        near = np.flatnonzero(scaled.active & (np.abs(margins - 1) <= band))
        if near.size == 0:
            continue  # no row at the margin: the guess is off, widen the band
        held = np.where(beyond, scaled.weights, 0.0)
        lp = total_hinge_lp(
            scaled.rows(near),
            scaled.labels(near),
            weights=scaled.sample_weights(near),
            fixed=scaled.augmented_sum(held * scaled.c),
        )
        if not lp.feasible:
            continue
        alpha = held.copy()
        alpha[near] = lp.dual
        total = scaled.total_hinge(lp.coef, lp.intercept)
        if _dual_certificate_holds(
            alpha,
            scaled.weights,
            balance=scaled.augmented_sum(alpha * scaled.c),
            terms=scaled.augmented_sum(alpha, absolute=True),
            total=total,
        ):
            return replace(lp, total=total), alpha
    raise SolverError(
        "HiGHS's least total hinge on all samples does not come with a valid dual "
        "certificate. Standardising the features (StandardScaler) may help."
    )


def _face_sides(alpha, weights):
    """Each row's constraint on the LP's optimal face, by complementary slackness
    with the dual ``α``: ``+1`` (``≥ 1``) where ``α = 0``, ``0`` (``= 1``) where
    ``0 < α < s``, ``-1`` (``≤ 1``, its hinge free) where ``α = s``."""
    at_bound = alpha >= weights * (1 - 1e-9)
    return np.where(alpha <= 1e-12 * weights, 1, np.where(at_bound, -1, 0))


def _attains(scaled, solution, least):
    """Whether ``solution``'s total hinge on all samples is the least one."""
    total = scaled.total_hinge(solution.coef, solution.intercept)
    return total <= least * (1 + 1e-9) + 1e-9 * scaled.weights.sum()


def _margin_at_least_hinge(rows, labels, weights, least, sides):
    """The soft limit's second stage on a set of rows: the largest margin among
    the hyperplanes whose total hinge is ``least``."""

    def attains_least(solution):
        hinge = np.maximum(0, 1 - labels * (rows @ solution.coef + solution.intercept))
        return weights @ hinge <= least * (1 + 1e-9) + 1e-9 * weights.sum()

    # The optimal face of the LP, read off its dual by complementary slackness:
    # p + 1 variables and no budget row, whose thin interior (and the fill of
    # its dense row) made the budget QP 30x slower at 2e4 noisy rows.
    try:
        solution = face_margin_qp(rows, labels, sides)
        if solution.feasible and attains_least(solution):
            return solution
    except SolverError:
        pass
    # The LP's optimum is exact to ~1e-12 relative (a basic solution); the QP
    # gets that much room, which moves the margin by as little.
    budget = least * (1 + 1e-11) + 1e-12 * weights.sum()
    try:
        solution = margin_qp(
            rows, labels, slack_budget=budget, weights=weights, accept=attains_least
        )
    except SolverError as error:
        raise SolverError(
            f"{error} Nor did the QP over the LP's optimal face reach the least "
            "total hinge. Standardising the features (StandardScaler) may help."
        ) from error
    if not solution.feasible:
        raise SolverError(
            f"Clarabel reports the margin QP infeasible ({solution.status}) at "
            "the least total hinge the LP found, and the QP over the LP's "
            "optimal face did not reach it either: the features' scales are "
            "beyond the interior point. Standardising the features "
            "(StandardScaler) may help."
        )
    return solution


def _checked_least_hinge(rows, labels, weights):
    """The LP's least total hinge on ``rows``, proved a lower bound by its own
    dual (:func:`_dual_certificate_holds`), or a SolverError."""
    solution = total_hinge_lp(rows, labels, weights=weights)
    alpha = solution.dual
    if not _dual_certificate_holds(
        alpha,
        weights,
        balance=(alpha * labels) @ np.column_stack([rows, np.ones(len(labels))]),
        terms=alpha @ np.abs(np.column_stack([rows, np.ones(len(labels))])),
        total=solution.total,
    ):
        raise SolverError(
            "HiGHS's least total hinge does not come with a valid dual certificate "
            "on these rows. Standardising the features (StandardScaler) may help."
        )
    return solution


def _dual_certificate_holds(alpha, weights, balance, terms, total):
    """Weak duality: weights ``0 ≤ α ≤ s`` with ``Σ α c (z, 1) = 0`` (``balance``,
    to rounding relative to ``terms = Σ α |(z, 1)|``) give ``Σ s ξ ≥ Σ α`` for every
    hyperplane, so a hyperplane of total hinge ``total ≤ Σ α`` is a least one."""
    return bool(
        np.all(alpha <= weights * (1 + 1e-9))
        and np.all(np.abs(balance) <= 1e-8 * terms + 1e-12 * alpha.sum() + 1e-300)
        and alpha.sum() >= total * (1 - 1e-9)
    )


def _margin_result(scaled, working, solution, rounds, separable, hinge):
    coef, intercept = scaled.to_original(solution.coef, solution.intercept)
    dual = solution.dual
    keep = np.abs(dual) > 1e-8 * max(np.abs(dual).max(initial=0.0), 1e-300)
    support = working[keep]
    labels = scaled.labels(support)
    # w on Z is Σ α c z; on X, w = Σ (α / scale²) c x, Σ α c = 0 removing the
    # centre: balanced on the support itself, since X's offset multiplies what is
    # left of the sum.
    alpha = _balanced(dual[keep], labels)
    dual_coef = alpha * labels / scaled.scale**2
    norm = np.linalg.norm(solution.coef)
    margin = scaled.scale / norm if norm > 0 else np.nan
    return MarginResult(
        coef, float(intercept), separable, margin, support, dual_coef, hinge, rounds
    )


def _balanced(dual, c):
    """α rescaled per class so that Σ α c = 0 to rounding (the solver meets it to
    its tolerance; the centre of X would multiply what is left in the dual
    coefficients)."""
    positive, negative = dual[c > 0].sum(), dual[c < 0].sum()
    if positive <= 0 or negative <= 0:
        return dual
    middle = (positive + negative) / 2
    return np.where(c > 0, dual * (middle / positive), dual * (middle / negative))


def _dual_problems(rows, labels, solution, tol, allowed, fit_intercept=True):
    """What of the hard margin's KKT conditions on ``rows`` the solution's dual
    misses: ``w = Σ α c z``, ``Σ α c = 0`` and complementary slackness."""
    alpha = solution.dual
    working_margins = labels * (rows @ solution.coef + solution.intercept)
    norm = max(np.linalg.norm(solution.coef), 1e-300)
    problems = []
    # Componentwise, relative to the terms of each sum: features on scales far
    # apart each keep their own digits.
    terms = np.abs(rows.T) @ alpha + np.abs(solution.coef)
    allowed_w = 1e3 * tol * terms + 64 * np.finfo(float).eps * norm
    if np.any(np.abs(solution.coef - rows.T @ (alpha * labels)) > allowed_w):
        problems.append("w differs from Σ α c z")
    if fit_intercept and abs(alpha @ labels) > 1e3 * tol * max(alpha.sum(), 1.0):
        problems.append(f"Σ α c = {alpha @ labels:.2e}")
    slackness = alpha @ np.abs(working_margins - 1.0)
    if slackness > (1e3 * tol + allowed) * max(alpha.sum(), 1.0):
        problems.append(f"complementary slackness off by {slackness:.2e}")
    return problems


def _check_optimality(scaled, working, solution, tol, fit_intercept):
    """The KKT conditions of the hard margin on all samples, or a SolverError."""
    rows = scaled.rows(working)
    allowed = 10 * tol + scaled.rounding * np.linalg.norm(np.r_[solution.coef, 1.0])
    problems = []
    smallest = scaled.min_margin(solution.coef, solution.intercept)
    if smallest < 1 - allowed:
        problems.append(f"a constraint is violated by {1 - smallest:.2e}")
    problems += _dual_problems(
        rows, scaled.labels(working), solution, tol, allowed, fit_intercept
    )
    if problems:
        raise SolverError(
            "The margin QP's answer fails the optimality conditions on the data ("
            + "; ".join(problems)
            + f"; solver status {solution.status}). Standardising the features "
            "(StandardScaler) or loosening tol may help."
        )
