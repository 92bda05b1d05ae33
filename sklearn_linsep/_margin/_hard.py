"""The maximal-margin hyperplane, exact, by a working set: decided where every
feature keeps its digits, finished as the Euclidean margin in X's units, checked
by its optimality conditions on every sample and proved with its rounding bounded;
on inseparable data, the certificate and (if asked) the soft limit."""

import numpy as np

from .._threads import threads_for_fit
from .._working_set import DROP_ABOVE, AugmentedRows, ScaledRows, grow
from ..exceptions import SolverError
from ._certificate import certificate_from_subset
from ._kkt import (
    check_optimality,
    dual_problems,
    mark_if_far,
    no_hyperplane,
    proven,
    row_terms,
)
from ._result import MarginResult, margin_result, warn_if_inexact
from ._soft import soft_limit
from ._solvers import margin_from_feasible, margin_of_rows, margin_qp
from ._solvers._active_set import on_and_outside_margin
from ._wide import dense_fallback_fits, wide_maximal_margin, wide_suits

TALL_CAP = 1000  # rows a class in the seed, and rows a round, on tall data


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
    entry) first, so the solvers see entries in [-1, 1] whatever the units, and the
    answer is mapped back. Where the features' spreads are more than
    ``EQUILIBRATE_ABOVE`` apart, the verdict is first decided with each feature
    divided by its own spread, and the Euclidean margin then finished from that
    working set. Then the optimality (KKT) conditions are checked on all samples:
    feasibility ``c_i(w·x_i + b) ≥ 1 - tol``, ``w = Σ α_i c_i x_i``,
    ``Σ α_i c_i = 0`` and complementary slackness, each to ``tol`` (relative), and
    the margins are proved with their rounding bounded (:func:`~._kkt.proven`).

    On inseparable data the working set whose hulls meet (the nearest points
    decide) yields the Farkas certificate. With ``soft`` the result is then the
    limit C → ∞ of the soft margin: the minimum total hinge violation
    ``Σ s_i ξ_i`` (an LP), then the largest margin among its minimisers (a QP);
    otherwise only the certificate.

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
        Seed samples per class (default ``max(4 p + 20, 50)``, at most 1 000
        on tall data).
    batch : int, default=None
        Violated samples added per round (default ``max(4 p + 40, 100)``, at
        most 1 000 on tall data).
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
    with threads_for_fit(scaled.n_samples, scaled.n_features, scaled.n_features + 1):
        return _maximal_margin_of(
            scaled, tol, initial_size, batch, soft, augmented, classes
        )


def _maximal_margin_of(scaled, tol, initial_size, batch, soft, augmented, classes):
    check_scale(scaled.scale)
    if not augmented and wide_suits(scaled):  # text: in the span of the rows
        try:
            return wide_maximal_margin(scaled, tol, soft, classes, initial_size, batch)
        except SolverError:
            if not dense_fallback_fits(scaled):
                raise
    p = scaled.n_features
    # Measured at p = 100 (bench_exact_core.py): twice the seed and four times the
    # batch of before took 1e4 rows from 10 rounds and 64 ms to 3 and 42 ms, 1e5
    # from 16 rounds and 0.40 s to 6 and 0.25 s; neutral at p = 20.
    initial_size = initial_size or _tall_capped(max(4 * p + 20, 50), scaled)
    batch = batch or _tall_capped(max(4 * p + 40, 100), scaled)
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
        smallest = check_optimality(
            scaled, _working_terms(scaled, working, solution), solution, tol
        )
        warn_if_inexact(solution)
        result = margin_result(scaled, working, solution, rounds, True, 0.0)
        return proven(scaled, result, tol, smallest)
    unseparated = no_hyperplane(rounds)
    certificate = certificate_from_subset(
        scaled, working, classes, weights=solution.weights
    )
    if not soft:
        return MarginResult(**unseparated, certificate=certificate)
    result = soft_limit(scaled, working, tol, batch)
    result.rounds += rounds
    result.certificate = certificate
    return mark_if_far(scaled, result)


def _tall_capped(size, scaled):
    """A working set's seed or batch of rows, capped on tall data
    (:func:`capped`)."""
    return capped(size, scaled.n_features < scaled.n_samples)


def capped(size, tall):
    """A working set's seed or batch, at most ``TALL_CAP`` on tall data (rows
    or pairs alike).

    Measured on embeddings (bench_probes.py), a pair of classes of 40 000 × 1 024
    with 379 support vectors: the seed of 4 p + 20 = 4 116 rows a class took 1.33 s
    (the nearest points on 8 232 rows), 1 000 took 0.32 s; inseparable, 2.78 s and
    2.17 s. Wide data keep all their rows (the dense dual takes them at once)."""
    return min(size, TALL_CAP) if tall else size


def _grow_margin(scaled, solve, start, tol, batch):
    """The working-set loop of the hard margin from the rows ``start``."""

    def violators(solution, working):
        return scaled.violators(
            solution.coef, solution.intercept, 1.0 - tol, working, batch
        )

    # Samples far inside their side rarely become support vectors: dropping them
    # keeps the subproblem near its support vectors (its cost grows with its rows).
    return grow(start, solve, violators, drop_above=DROP_ABOVE)


def _working_terms(scaled, working, solution, fit_intercept=True):
    """The KKT conditions' terms of the working set's rows."""
    return row_terms(
        scaled.rows(working), scaled.labels(working), solution, fit_intercept
    )


def _augmented_margin(scaled, tol, initial_size, batch):
    """The margin through the origin of the augmented samples (Novikoff's)."""

    def solve(indices):
        return margin_qp(scaled.rows(indices), scaled.labels(indices), False)

    solution, working, rounds = _grow_margin(
        scaled, solve, scaled.seed(initial_size), tol, batch
    )
    if not solution.feasible:
        return MarginResult(**no_hyperplane(rounds))
    terms = _working_terms(scaled, working, solution, fit_intercept=False)
    check_optimality(scaled, terms, solution, tol)
    warn_if_inexact(solution)
    return margin_result(scaled, working, solution, rounds, True, 0.0, centred=False)


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
            and not dual_problems(
                row_terms(rows, labels, solution), solution, self.tol / 2, self.tol
            )
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
    return bool(on_and_outside_margin(margins, solution.dual > 0, tol))


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
        solution = margin_of_rows(
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
