"""The linear machine of K classes, exact: the joint verdict with its certificate and
the Crammer–Singer maximal margin, on a working set of Kesler's pairs (row, other
class; :mod:`sklearn_linsep._kesler`) grown by the two-class loop
(:func:`~sklearn_linsep._working_set.grow`): the margin QP on the working pairs, a
pass over X for each row's worst other class. A working set without a machine yields
Farkas weights on its pairs (an LP), checked on X; with ``soft`` the C → ∞ limit
follows: the least total hinge (a row's is its worst pair's), then the largest
margin among machines attaining it.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import scipy.sparse as sp

from .._exact._farkas import tightest_pairs
from .._exact._kkt import (
    exact_machine_of_pairs,
    maximal_machine_on_rows,
    separator_budget,
    small_problem_budget,
)
from .._exact._numbers import as_fmpq
from .._exact._simplex import decide_pairs_on_rows
from .._kesler import class_columns, pair_margins, pairs_of
from .._rows._protocol import InMemoryPairRows, PairRows
from .._threads import threads_for_fit
from .._working_set import grow, rows_in_memory
from ..exceptions import SolverError
from ._certificate import checked_certificate
from ._driver import Decision, ProblemKind, check_rows, exact_margin
from ._kkt import DualTerms, dual_problems, pair_terms, plain_rounding, say_about_centre
from ._principal import decide_jointly_in_principal_frame
from ._result import (
    PROOF_RTOL,
    JointMarginResult,
)
from ._soft import in_frame, without_noise
from ._solvers import (
    kesler_flow_lp,
    kesler_hinge_lp,
    kesler_margin_qp,
    kesler_support_guess,
    machine_from_feasible,
)
from ._solvers._active_set import off_face
from ._solvers._clarabel import FACE_TOLERANCE
from ._solvers._cost import (
    SOFT_LIMIT_DENSE,
    dense_pairs_refusal,
    exact_finish_suits,
    pair_sizes,
)
from ._solvers._machine import WarmMachine


def joint_margin_of(
    kesler,
    tol=1e-9,
    soft=True,
    classes=None,
    initial_size=None,
    batch=None,
    units_or_verdict=False,
    verdict=False,
):
    """The Crammer–Singer maximal margin ``min ½ Σ‖w_k‖²``, every row's margin over
    every other class at least 1, of the pairs of ``kesler``
    (:class:`~sklearn_linsep._kesler.Pairs`), through :func:`~._driver.exact_margin`
    (which tells what ``units_or_verdict`` and ``verdict`` do): decided where every
    feature keeps its digits, finished in X's units, KKT-checked on every pair, proved
    on every row. Sizes default by :func:`~._solvers._cost.pair_sizes`."""
    unknowns = kesler.n_classes * (kesler.n_features + 1)
    check_rows(kesler, PairRows, InMemoryPairRows)
    problem = PairsProblem(kesler, classes)
    with threads_for_fit(kesler.n_samples, kesler.n_features, unknowns):
        return exact_margin(problem, tol, soft, initial_size, batch,
                            units_or_verdict, verdict)  # fmt: skip


class PairsProblem(ProblemKind):
    """K classes as a problem kind of the driver (:class:`~._driver.ProblemKind`): the
    constraints are Kesler's pairs (row, other class), a pair's id ``row · K + other``;
    the subproblem is their Crammer–Singer margin (:class:`WarmMachine`)."""

    not_finished = (
        "The classes separate jointly with each feature at its own scale, but the "
        "maximal multiclass margin in X's units could not be finished: the "
        "features' scales are too far apart. Standardising the features "
        "(StandardScaler) may help."
    )
    not_in_units = (
        "The classes separate jointly (decided with each feature divided by its "
        "spread), but the maximal multiclass margin in X's units could not be "
        "certified: the features' scales are too far apart. The machine returned "
        "is the maximal margin with each feature divided by its spread, mapped "
        "back to X; it separates every row (verify() checks it). Standardising "
        "the features (StandardScaler) gives a margin in standardised units."
    )

    warm = WarmMachine

    def __init__(self, rows, classes=None):
        self.rows, self.n_classes = rows, rows.n_classes
        self.classes = (
            np.arange(rows.n_classes) if classes is None else np.asarray(classes)
        )

    def sizes(self, initial_size, batch):
        rows = self.rows
        return pair_sizes(rows.n_features, rows.n_classes, rows.n_samples,
                          initial_size, batch)  # fmt: skip

    def anchors(self, frame):
        """One pair per ordered pair of classes: they bound the intercepts."""
        return frame.anchors()

    def in_units(self, tol):
        return WarmMachine(self.rows, tol, keep_digits=True)

    def misses(self, ids, solution, tol):
        """A pair violated past tol/2, or the dual conditions missed."""
        rows, own, others = self.rows.pairs(ids)
        terms = pair_terms(rows, own, others, solution, len(solution.coef))
        return not np.min(terms.margins) >= 1 - tol / 2 or bool(
            dual_problems(terms, solution, tol / 2, tol / 2)
        )

    def from_feasible(self, ids, feasible, tol):
        rows, own, others = self.rows.pairs(ids)
        return machine_from_feasible(rows, own, others, self.rows.n_classes,
                                     *feasible, tol)  # fmt: skip

    def terms(self, frame, working, solution):
        """Each row once (sparse rows stay sparse)."""
        alpha, K = solution.dual, frame.n_classes
        combination, absolute = frame.dual_combination(working, alpha)
        _, others = pairs_of(working, K)
        own = frame.codes[working // K]
        balance = np.bincount(own, alpha, K) - np.bincount(others, alpha, K)
        margins = frame.pair_margins(working, solution.coef, solution.intercept)
        return DualTerms(combination, absolute, balance, margins)

    def result(self, frame, working, solution, rounds):
        return _machine_result(frame, working, solution, rounds, True, 0.0)

    def certificate(self, working, solution):
        return joint_certificate(self.rows, working, self.classes)

    def unseparated(self, rounds, certificate):
        empty = np.array([], dtype=np.intp)
        return JointMarginResult(None, None, False, 0.0, empty, empty,
                                 np.array([]), np.inf, rounds, certificate)  # fmt: skip

    def soft_limit(self, working, tol, batch):
        return _soft_limit(self.rows, working, tol, batch)

    def finish_exactly(self):
        """Where float64 cannot finish the margin in X's units (no active set settles:
        features ~1e6 apart, multipliers cancelling): the maximal margin in rationals on
        every pair (:func:`~sklearn_linsep._exact._kkt.exact_machine_of_pairs`, every
        pair's margin checked exactly) from Clarabel's support with each feature scaled.
        None where that does not settle, or beyond its limits."""
        rows, K = self.rows, self.rows.n_classes
        active = rows_in_memory(rows)  # every pair in memory
        if active is None or not exact_finish_suits(active.size * (K - 1),
                                                    K * (rows.n_features + 1)):
            return None
        ids = np.setdiff1d(active[:, None] * K + np.arange(K),
                           active * K + rows.codes[active])  # fmt: skip
        Z, own, others = rows.pairs(ids)
        try:
            guess = kesler_support_guess(Z, own, others, K)
        except SolverError:
            return None
        pair_rows, _ = pairs_of(ids, K)
        found = guess.feasible and exact_machine_of_pairs(
            rows.original_rows(pair_rows), own, others, K, guess.dual
        )
        if not found:
            return None
        W, b, dual = found
        on = np.flatnonzero([value > 0 for value in dual])
        return _exact_machine(
            W, b, rows.indices_in_X(pair_rows[on]), others[on],
            [float(dual[j]) for j in on], exact=True,
        )  # fmt: skip

    def in_principal_frame(self, active):
        rows = self.rows
        return decide_jointly_in_principal_frame(
            rows.original_rows(active), rows.codes[active], self.n_classes
        )

    def checked(self, active, local, weights, **options):
        K = self.n_classes
        ids = active[local // K] * K + local % K
        return checked_certificate(
            self.rows, ids, weights, self.classes, **options
        )

    def exact_separator(self, W, b):
        return _exact_machine(W, b)

    def start_of(self, active, certificate):
        """The certificate's pairs as ``(position in active, other class code)``."""
        rows = self.rows
        position = dict(zip(rows.indices_in_X(active).tolist(), range(active.size)))
        code = {label: k for k, label in enumerate(np.asarray(self.classes).tolist())}
        heaviest = np.argsort(-certificate.certificate_weights, kind="stable")
        return [
            (position[i], code[label])
            for i, label in zip(certificate.certificate_indices[heaviest].tolist(),
                                certificate.certificate_classes[heaviest].tolist())
            if i in position
        ]  # fmt: skip

    def decide_on_rows(self, start, maximal, small=False):
        # ``maximal`` is not taken up: the separator's last basis holds pairs of
        # every class, not the margin's support (a small problem's exchanges fix it).
        rows, K = self.rows, self.n_classes
        active = np.flatnonzero(rows.active)
        points, codes = rows.original_rows(active), rows.codes[active]
        found = decide_pairs_on_rows(points, codes, K, start, limited=not small)
        if found is None:
            return None
        kind, answer = found
        if kind == "certificate":
            pair_rows, others, exact = answer
            return self.decided_certificate(active, pair_rows * K + others, exact)
        W, b, tight = answer
        maximal = small and maximal_machine_on_rows(
            points, codes, K, tight, small_problem_budget(active.size * (K - 1))
        )
        if not maximal:  # a separating machine, not the maximal one
            return Decision.of(kind, _exact_machine(W, b))
        return Decision.of("maximal", self._maximal_machine(active, *maximal))

    def maximal_from(self, separator):
        """As :meth:`TwoClassProblem.maximal_from
        <sklearn_linsep._margin._hard.TwoClassProblem.maximal_from>`, from the pairs the
        rational machine holds nearest its margin."""
        rows, K = self.rows, self.n_classes
        active = rows_in_memory(rows)
        unknowns = K * (rows.n_features + 1)
        if not (active is not None and active.size
                and exact_finish_suits(active.size * (K - 1))):  # fmt: skip
            return None
        points, codes = rows.original_rows(active), rows.codes[active]
        # As many pairs as a hyperplane's unknowns: a larger guess slows each exchange.
        near = tightest_pairs(points, codes, K, separator.exact_coef,
                              separator.exact_intercept, rows.n_features + 1)  # fmt: skip
        maximal = maximal_machine_on_rows(points, codes, K, near,
                                          separator_budget(unknowns))  # fmt: skip
        if not maximal:
            return None
        return Decision.of("maximal", self._maximal_machine(active, *maximal))

    def _maximal_machine(self, active, W, b, multipliers):
        """The rational maximal machine's result on rows ``active``; support: μ > 0."""
        on = sorted(multipliers)
        support = self.rows.indices_in_X(active[[i for i, _ in on]])
        others = np.array([k for _, k in on], dtype=np.intp)
        dual = np.array([float(multipliers[pair]) for pair in on])
        return _exact_machine(W, b, support, others, dual, exact=True)


def _exact_machine(W, b, support=(), others=(), dual=(), exact=False):
    """The separable JointMarginResult of a machine decided in rationals, its
    ``coef`` and ``intercept`` the float64 roundings; with ``exact`` (the
    maximal one) its margin ``min_{j<k} 1/‖w_j - w_k‖`` from the rationals."""
    coef = np.array([[float(value) for value in row] for row in W])
    margin = machine_margin(coef)
    if exact:
        rows = [[as_fmpq(value) for value in w] for w in W]  # FLINT: no gcd in Python
        squares = [sum((a - c) ** 2 for a, c in zip(rows[j], rows[k], strict=True))
                   for j, k in combinations(range(len(W)), 2)]  # fmt: skip
        margin = 1 / float(max(squares)) ** 0.5 if any(squares) else np.nan
    result = JointMarginResult(
        coef, np.array([float(value) for value in b]), True, margin,
        np.asarray(support, dtype=np.intp), np.asarray(others, dtype=np.intp),
        np.asarray(dual, dtype=float), 0.0, 0,
    )  # fmt: skip
    result.exact_coef, result.exact_intercept = W, b
    return result


def machine_margin(coef):
    """``min_{j<k} 1/‖w_j - w_k‖``: a margin-1 row's least distance from the boundary
    between its class and another (nan where every row of W is the same)."""
    largest = max(
        (
            np.linalg.norm(coef[j] - coef[k])
            for j, k in combinations(range(len(coef)), 2)
        ),
        default=0.0,
    )
    return 1.0 / largest if largest > 0 else np.nan


def _machine_result(kesler, working, solution, rounds, separable, hinge):
    coef, intercept = kesler.to_original(solution.coef, solution.intercept)
    alpha = solution.dual  # signed on the soft limit's face (its equalities)
    keep = np.abs(alpha) > 1e-8 * max(np.abs(alpha).max(initial=0.0), 1e-300)
    rows, others = pairs_of(working[keep], kesler.n_classes)
    return JointMarginResult(
        coef=coef,
        intercept=intercept,
        separable=separable,
        margin=machine_margin(coef),
        support=kesler.indices_in_X(rows),
        support_classes=others,
        # on X where the frame is X's divided by one scalar; else the frame's
        dual=alpha[keep] / (kesler.scale**2 if np.ndim(kesler.scale) == 0 else 1.0),
        hinge_violation=hinge,
        rounds=rounds,
        center=kesler.centre,
        intercept_at_center=np.array(solution.intercept, dtype=float),
    )


def joint_certificate(kesler, working, classes):
    """The Farkas weights on the pairs of a working set that no machine
    separates, from one LP where each feature is divided by its own spread (μ is
    the same in every affine frame), verified on X before it is returned."""
    frame = kesler.equilibrated()
    weights = kesler_flow_lp(*frame.uncentred_pairs(working), kesler.n_classes)
    if weights is None:
        raise SolverError(
            "The classes come too close to touching for float precision to decide "
            "whether a linear machine separates them: the margin QP found no "
            "machine on a subset of the pairs, and the certificate's LP no weights "
            "either. Check for near-duplicate rows with different labels, or "
            "rescale the features."
        )
    keep = weights > 0
    return checked_certificate(kesler, working[keep], weights[keep], classes)


def _slack_rows(kesler, ids):
    """``(rows, row_of)``: the distinct rows of the pairs ``ids`` (one slack each)
    and each pair's position among them."""
    pair_rows, _ = pairs_of(ids, kesler.n_classes)
    return np.unique(pair_rows, return_inverse=True)


def _soft_limit(kesler, working, tol, batch):
    """The C → ∞ limit of the Crammer–Singer soft margin, each stage on a working set
    grown by the pairs its answer violates: the least total hinge (an LP, each feature
    divided by its spread: the optimum's hinges are the same in every affine frame),
    then the largest margin over its optimal face (a QP: complementary slackness with
    the LP's dual fixes the tight pairs and the rows keeping a hinge, so no budget row
    leaves it without an interior). The LP weighs rows over the working set's mean
    weight (same argmin), so its tolerances and the face's thresholds are scale-free."""
    n_classes = kesler.n_classes
    lp_frame = kesler.equilibrated()
    unit = {}

    def least_hinge(ids):
        rows, row_of = _slack_rows(lp_frame, ids)
        weights = lp_frame.row_weights(rows)
        unit["weight"] = float(weights.mean())
        solution = kesler_hinge_lp(
            *lp_frame.uncentred_pairs(ids), n_classes, row_of, weights / unit["weight"]
        )
        solution.intercept += lp_frame.uncentred_offset(solution.coef)
        solution.feasible = True
        return solution

    def violators(frame):
        """Pairs below ``1 - tol`` beyond their row's hinge ``ξ``: each row's
        ``max(0, 1 - margin)`` over its working pairs (rows with none: 0)."""

        def beyond_hinge(solution, ids):
            coef, intercept = solution.coef, solution.intercept
            rows, position = _slack_rows(frame, ids)
            slack = np.zeros(rows.size)
            margins = frame.pair_margins(ids, coef, intercept)  # each row once
            np.maximum.at(slack, position, 1.0 - margins)
            return frame.violators(
                coef, intercept, 1.0 - tol, ids, batch, (rows, slack)
            )

        return beyond_hinge

    lp, working, rounds = grow(working, least_hinge, violators(lp_frame))
    _check_least_hinge(lp_frame, working, lp, unit["weight"])
    face = _optimal_face(kesler, working, lp.dual, unit["weight"])
    coef, intercept = in_frame(lp, lp_frame, kesler)
    intercept = np.asarray(intercept, dtype=float)
    start = coef, intercept - intercept.mean()  # Σ b = 0: on the face too

    def largest_margin(ids):
        # The interior point loses the digits of features far apart in scale, and
        # can stall or call an almost interior-less face empty: the primal active
        # set from the LP's machine keeps every feature's digits.
        refusal = dense_pairs_refusal(kesler, ids, SOFT_LIMIT_DENSE)
        if refusal is not None:
            raise SolverError(refusal)
        on_face = face(ids)
        constraints = _face_as_pairs(kesler, ids, on_face)

        def interior_point():
            solution = kesler_margin_qp(*kesler.uncentred_pairs(ids), n_classes,
                                        face=on_face)  # fmt: skip
            if solution.feasible:
                solution.intercept += kesler.uncentred_offset(solution.coef)
            return solution

        if constraints is None:
            return interior_point()
        if kesler.uneven:
            exact = constraints.margin_from(start)
            return interior_point() if exact is None else exact
        try:
            solution = interior_point()
        except SolverError:
            exact = constraints.margin_from(start)
            if exact is None:
                raise
            return exact
        if solution.feasible and constraints.holds(solution):
            return solution
        exact = constraints.margin_from(start)
        return solution if exact is None else exact

    solution, working, more = grow(working, largest_margin, violators(kesler))
    if not solution.feasible:
        raise SolverError(
            "The multiclass margin over the least-hinge face found no machine: the "
            "least-hinge LP and the QP disagree."
        )
    hinge = kesler.total_hinge(solution.coef, solution.intercept)
    if hinge / unit["weight"] > lp.total + 1e3 * tol * max(lp.total, 1.0):
        raise SolverError(
            f"The soft limit's machine has total hinge {hinge:.12g} on all rows, "
            f"above the least total hinge {lp.total * unit['weight']:.12g}."
        )
    solution = without_noise(solution, tol)
    result = _machine_result(kesler, working, solution, rounds + more, False, hinge)
    # Far from the origin coef · x + intercept may keep no digits of the hinges
    # (scores of 1e16 at offsets of 2^30 spreads): then given about the centre.
    share = 3 * plain_rounding(kesler, result)
    if share > PROOF_RTOL:
        say_about_centre(result, share)
    return result


@dataclass
class _FaceAsPairs:
    """The least-hinge face on a working set's pairs with the hinges eliminated:
    each constraint is a pair ``(z, own, other)`` whose margin is ``≥``, ``=``
    or ``≤`` (``sides`` +1, 0, -1) ``right``; ``to_pairs`` maps its
    multipliers to the working set's pairs (``W = Σ β (e_own - e_other) zᵀ``)."""

    rows: np.ndarray
    own: np.ndarray
    others: np.ndarray
    right: np.ndarray
    sides: np.ndarray
    to_pairs: object
    n_classes: int

    def holds(self, solution):
        """Whether a machine lies on the face, to ``FACE_TOLERANCE``."""
        margins = pair_margins(self.rows, self.own, self.others, solution.coef,
                               solution.intercept)  # fmt: skip
        return bool(np.all(off_face(margins - self.right + 1, self.sides)
                           <= FACE_TOLERANCE))  # fmt: skip

    def margin_from(self, start):
        """The largest margin over the face by the primal active set from ``start`` (a
        machine on it), multipliers on the working pairs; None if it does not settle."""
        solution = machine_from_feasible(
            self.rows, self.own, self.others, self.n_classes, *start,
            FACE_TOLERANCE, sides=self.sides, right=self.right,
        )  # fmt: skip
        if solution is not None:
            solution.dual = self.to_pairs @ solution.dual
        return solution


def _face_as_pairs(kesler, ids, face):
    """The face ``(slack_of, n_slack, tight)`` of the pairs ``ids``
    (:func:`_optimal_face`) as :class:`_FaceAsPairs`, or None where a row keeping a
    hinge has no tight pair among them. A row's hinge ``ξ`` is fixed by any of its
    tight pairs ``t`` (``ξ = 1 - m_t``): its other pairs ``j`` keep ``m_j ≥ m_t`` (``=``
    where tight), the margin of the pair (own = t's other class, other = j's) ``≥ 0``;
    and ``ξ ≥ 0`` is ``m_t ≤ 1``."""
    slack_of, n_slack, tight = face
    rows, others = pairs_of(ids, kesler.n_classes)
    own = kesler.codes[rows]
    free = slack_of >= 0
    anchor = np.full(n_slack, -1)
    tight_free = np.flatnonzero(tight & free)
    anchor[slack_of[tight_free]] = tight_free  # a tight pair of each such row
    if np.any(anchor < 0):
        return None
    plain = np.flatnonzero(~free)
    follower = np.flatnonzero(free & ~np.isin(np.arange(len(ids)), anchor))
    leader = anchor[slack_of[follower]]
    n_plain, n_anchor = plain.size, anchor.size
    columns = np.arange(n_plain + n_anchor + follower.size)
    to_pairs = sp.csr_matrix(
        (
            np.r_[np.ones(columns.size), -np.ones(follower.size)],
            (np.r_[plain, anchor, follower, leader],
             np.r_[columns, columns[n_plain + n_anchor:]]),
        ),
        shape=(len(ids), columns.size),
    )  # fmt: skip
    return _FaceAsPairs(
        rows=kesler.rows(np.r_[rows[plain], rows[anchor], rows[follower]]),
        own=np.r_[own[plain], own[anchor], others[leader]],
        others=np.r_[others[plain], others[anchor], others[follower]],
        right=np.r_[np.ones(n_plain + n_anchor), np.zeros(follower.size)],
        sides=np.r_[np.where(tight[plain], 0.0, 1.0), -np.ones(n_anchor),
                    np.where(tight[follower], 0.0, 1.0)],
        to_pairs=to_pairs,
        n_classes=kesler.n_classes,
    )  # fmt: skip


def _check_least_hinge(frame, working, lp, unit):
    """The LP's multipliers μ checked as a dual certificate: they balance (``Σ μ φ = 0``
    per class and feature, to the terms' rounding), no row carries more than its
    weight, and ``Σ μ`` is the LP's total: by weak duality no machine has a smaller
    total hinge."""
    mu = lp.dual
    rows, own, others = frame.uncentred_pairs(working)  # μ balances in every frame
    weighted = class_columns(own, others, frame.n_classes) * mu
    combination = np.asarray((rows.T @ weighted.T).T)
    absolute = np.asarray((abs(rows).T @ np.abs(weighted).T).T)
    balance = weighted.sum(axis=1)
    slack_rows, row_of = _slack_rows(frame, working)
    weights = frame.row_weights(slack_rows)
    carried = np.bincount(row_of, mu, minlength=weights.size)
    scale = max(mu.sum(), 1e-300)
    if (
        np.any(np.abs(combination) > 1e-9 * (absolute + scale))
        or np.any(np.abs(balance) > 1e-9 * scale)
        or np.any(carried > weights / unit * (1 + 1e-9) + 1e-12)
        or abs(mu.sum() - lp.total) > 1e-9 * max(lp.total, 1.0)
    ):
        raise SolverError(
            "The least-hinge LP's multipliers do not certify its total hinge "
            f"({lp.total:.12g}): the solver's answer is not trusted."
        )


def _optimal_face(kesler, working, multipliers, unit):
    """``face(ids)``: the LP's optimal face on the pairs ``ids`` as
    :func:`~._solvers.kesler_margin_qp` takes it, from the LP's μ on ``working`` (a dual
    optimum on all pairs once none violates; rows weighed by weight over ``unit``). By
    complementary slackness a pair of positive μ holds with equality; a row whose μ
    stop short of its weight has no hinge; rows at their weight have free ``ξ ≥ 0``."""
    n_classes = kesler.n_classes
    rows, position = _slack_rows(kesler, working)
    carried = np.bincount(position, multipliers, minlength=rows.size)
    at_weight = rows[carried >= kesler.row_weights(rows) / unit * (1 - 1e-9)]
    tight = working[multipliers > 1e-9 * multipliers.max(initial=0.0)]

    def face(ids):
        index, _ = pairs_of(ids, n_classes)
        free = np.isin(index, at_weight)
        slack_rows = np.unique(index[free])
        slack_of = np.where(free, np.searchsorted(slack_rows, index), -1)
        return slack_of, slack_rows.size, np.isin(ids, tight)

    return face
