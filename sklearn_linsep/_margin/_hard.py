"""Two classes as a problem kind of the driver: the maximal-margin hyperplane,
exact, by a working set (decided, finished in X's units, checked, proved); on
inseparable data, the certificate and (if asked) the soft limit."""

import numpy as np
import scipy.linalg

from .._exact._farkas import as_hyperplane, as_machine, side_pairs
from .._exact._kkt import MAXIMAL_ENTRIES, separator_budget
from .._rows._protocol import InMemoryTwoClassRows, TwoClassRows
from .._threads import threads_for_fit
from ..exceptions import SolverError
from ._certificate import certificate_from_subset, checked_certificate
from ._driver import (
    ProblemKind,
    WarmStart,
    check_rows,
    check_scale,
    exact_margin,
    float_route,
    grow_working_set,
)
from ._kkt import check_optimality, dual_problems, row_terms
from ._result import MarginResult, SeparabilityResult, margin_result, warn_if_inexact
from ._soft import soft_limit
from ._solvers import (
    margin_from_feasible,
    margin_of_rows,
    margin_qp,
    on_and_outside_margin,
)
from ._solvers._cost import WIDE_SEED, dense_fallback_fits, two_class_sizes, wide_suits
from ._wide import GramSubproblem, wide_soft_limit, without_duplicates


def maximal_margin_of(
    two_class,
    tol=1e-9,
    initial_size=None,
    batch=None,
    soft=True,
    augmented=False,
    classes=(0, 1),
    verdict=False,
):
    """The maximal-margin hyperplane of the rows ``two_class`` labelled ``c = ±1``.

    ``min ½‖w‖²`` subject to ``c_i (w·x_i + b) ≥ 1`` on the samples of positive
    weight, by :func:`~._driver.exact_margin`. X is centred and divided by its
    largest centred entry (entries in [-1, 1] whatever the units). The KKT
    conditions (``c_i(w·x_i + b) ≥ 1 - tol``, ``w = Σ α_i c_i x_i``,
    ``Σ α_i c_i = 0``, complementary slackness) are checked on all samples to
    ``tol`` (relative), and the margins proved (:func:`~._kkt.proven`).

    On inseparable data, the Farkas certificate of the working set whose hulls
    meet; with ``soft`` also the C → ∞ limit of the soft margin: the least total
    hinge ``Σ s_i ξ_i`` (an LP), then the largest margin of its minimisers (a QP).

    Parameters
    ----------
    two_class : TwoClassRows
        The rows, in memory or dask (:mod:`sklearn_linsep._rows._protocol`): X,
        ``c`` and the sample weights (weight 0 leaves a sample out; positive
        weights only weigh the hinge of the inseparable case).
    initial_size, batch : int, default=None
        Seed samples per class (default ``max(4 p + 20, 50)``) and violators
        added per round (default ``max(4 p + 40, 100)``); each ≤ 1 000 on tall data.
    augmented : bool, default=False
        With ``two_class`` an ``AugmentedRows``: separate ``(x, 1)`` by a
        hyperplane through the origin (the margin of Novikoff's bound): ``coef``
        has ``n_features + 1`` entries; no certificate, no soft limit.
    classes : sequence of 2 labels, default=(0, 1)
        The labels of ``c = -1`` and ``c = +1``, for the certificate.
    verdict : bool, default=False
        A separator decided in rationals stands for the answer.

    Returns
    -------
    result : MarginResult
    """
    with threads_for_fit(
        two_class.n_samples, two_class.n_features, two_class.n_features + 1
    ):
        check_rows(two_class, TwoClassRows, InMemoryTwoClassRows)
        check_scale(two_class.scale)
        if not augmented and wide_suits(two_class):  # text: in the rows' span
            try:
                problem = WideProblem(two_class, classes)
                return float_route(problem, tol, soft, initial_size, batch,
                                   verdict=verdict)  # fmt: skip
            except SolverError:
                if not dense_fallback_fits(two_class):
                    raise
        problem = TwoClassProblem(two_class, classes)
        if augmented:  # through the origin: the margin of Novikoff's bound
            return _augmented_margin(problem, tol, initial_size, batch)
        return exact_margin(problem, tol, soft, initial_size, batch, verdict=verdict)


class _WarmHull(WarmStart):
    """The hull margin of the rows ``indices``, started from the last call's
    nearest points (their rows stay in the working set: they are on the margin)."""

    def __init__(self, two_class, tol):
        self.two_class = two_class
        self.tol = tol / 2  # room for the check on all samples, at 1 - tol

    def __call__(self, indices):
        rows, labels = self.two_class.rows(indices), self.two_class.labels(indices)
        solution = margin_of_rows(rows, labels, start=self.start(indices), tol=self.tol)
        self.remember(indices, solution)
        return solution

    def remember(self, indices, solution):
        """Start the next call from the answer's weights λ on ``indices``."""
        weights = solution.weights
        kept = np.flatnonzero(weights)
        self.members, self.weights = indices[kept], weights[kept]


class TwoClassProblem(ProblemKind):
    """A :class:`~._driver.ProblemKind`: the constraints are the rows, labelled
    ``c = ±1``; the subproblem the nearest points of the two hulls."""

    not_finished = (
        "The classes separate with each feature at its own scale, but the "
        "maximal-margin hyperplane in X's units could not be finished: the "
        "features' scales are too far apart. Standardising the features "
        "(StandardScaler) may help."
    )
    n_classes = 2
    warm = _WarmHull
    basis_is_support = True

    def __init__(self, rows, classes=(0, 1)):
        self.rows, self.classes = rows, classes

    def sizes(self, initial_size, batch):
        rows = self.rows
        return two_class_sizes(rows.n_features, rows.n_samples, initial_size, batch)

    def misses(self, ids, solution, tol):
        """Off the margin (every row ≥ 1 - tol/2, the support within tol/2 of 1), or
        the dual conditions missed."""
        rows, labels = self.rows.rows(ids), self.rows.labels(ids)
        margins = labels * (rows @ solution.coef + solution.intercept)
        on = on_and_outside_margin(margins, solution.dual > 0, tol / 2)
        return not on or bool(
            dual_problems(row_terms(rows, labels, solution), solution, tol / 2, tol)
        )

    def from_feasible(self, ids, feasible, tol):
        rows, labels = self.rows.rows(ids), self.rows.labels(ids)
        return margin_from_feasible(rows, labels, *feasible, tol)

    def terms(self, frame, working, solution):
        return row_terms(frame.rows(working), frame.labels(working), solution)

    def result(self, frame, working, solution, rounds):
        return margin_result(frame, working, solution, rounds, True, 0.0)

    def certificate(self, working, solution):
        return certificate_from_subset(
            self.rows, working, self.classes, weights=solution.weights
        )

    def unseparated(self, rounds, certificate):
        empty = np.array([], dtype=np.intp)
        return MarginResult(None, 0.0, False, 0.0, empty, np.array([]), np.inf, rounds,
                            certificate)  # fmt: skip

    def soft_limit(self, working, tol, batch):
        return soft_limit(self.rows, working, tol, batch)

    # The exact pieces: K = 2 pairs, a pair per row (row, the other side), weights
    # μ = λ / 2 (:func:`~.._exact._farkas.side_pairs`); a machine ``(W, b)`` is the
    # hyperplane ``(w_1 - w_0, b_1 - b_0)`` (:func:`~.._exact._farkas.as_hyperplane`).

    def codes(self, active):
        return side_pairs(self.rows.labels(active))[0]

    def machine(self, separator):
        return as_machine(separator.exact_coef, separator.exact_intercept)

    def certified_pairs(self, certificate):
        rows = self.rows.indices_in_X(certificate.certificate_indices)
        return rows, (certificate.certificate_signs < 0).astype(np.intp)

    def checked(self, active, local, weights, exact_weights=None, **options):
        exact = SeparabilityResult._from_pair_weights(exact_weights)
        return checked_certificate(self.rows, active[local // 2], 2 * weights,
                                   self.classes, exact_weights=exact,
                                   **options)  # fmt: skip

    def separator_budget(self, n_rows):
        p = self.rows.n_features
        return separator_budget(p + 1) if n_rows * p <= MAXIMAL_ENTRIES else None

    def exact_separator(self, W, b):
        w, b = as_hyperplane(W, b)
        coef = np.array([float(value) for value in w])
        norm = scipy.linalg.norm(coef)  # BLAS's nrm2: no overflow of ‖w‖² (w ~ 1e154)
        return MarginResult(coef, float(b), True, 1.0 / norm if norm > 0 else np.inf,
                            np.array([], dtype=np.intp), np.array([]), 0.0, 0,
                            exact_coef=w, exact_intercept=b)  # fmt: skip

    def exact_maximal(self, result, rows, others, mu):
        result.dual = 2 * mu * self.rows.labels(rows)  # α c, α = 2μ
        squares = sum(value * value for value in result.exact_coef)
        try:
            result.margin = 1 / float(squares) ** 0.5
        except OverflowError:  # ‖w‖² beyond float64 (a feature of 2e-154): the margin
            pass  # of w's floats, exact_separator's, stands


class WideProblem(TwoClassProblem):
    """Two classes of wide sparse rows (:mod:`._wide`), decided in X's frame only
    (else a SolverError: the dense route follows). Later copies of equal rows of
    one class count once, weights summed (copies would make every held set holding
    them singular)."""

    equilibrates = False

    def __init__(self, two_class, classes):
        super().__init__(without_duplicates(two_class), classes)
        self.two_class = two_class

    def sizes(self, initial_size, batch):
        size = initial_size or WIDE_SEED
        return size, batch or size

    def per_round(self, batch, working):
        return max(batch, working.size)

    def subproblem(self, frame, tol):
        self.gram = GramSubproblem(frame, tol)
        return self.gram

    def terms(self, frame, working, solution):
        products = self.gram.products(working, solution)
        return row_terms(None, frame.labels(working), solution, products=products)

    def certificate(self, working, solution):
        # Asked only where the Gram dual's hulls meet: wide rows are separable as a
        # rule, and the LP over every row (one sparse dual simplex, each feature at
        # its own spread: a working set would densify the rows) is dear.
        active = np.flatnonzero(self.two_class.active)
        return certificate_from_subset(self.two_class, active, self.classes,
                                       per_feature=True)  # fmt: skip

    def soft_limit(self, working, tol, batch):
        return wide_soft_limit(self.two_class, self.rows, tol, batch)


def _augmented_margin(problem, tol, initial_size, batch):
    """The margin through the origin of the augmented samples (Novikoff's)."""
    rows = problem.rows
    initial_size, batch = problem.sizes(initial_size, batch)

    def solve(indices):
        return margin_qp(rows.rows(indices), rows.labels(indices), False)

    solution, working, rounds = grow_working_set(
        problem, rows, solve, rows.seed(initial_size), tol, batch
    )
    if not solution.feasible:
        return problem.unseparated(rounds, None)
    terms = row_terms(rows.rows(working), rows.labels(working), solution, False)
    check_optimality(rows, terms, solution, tol)
    warn_if_inexact(solution)
    return margin_result(rows, working, solution, rounds, True, 0.0, centred=False)
