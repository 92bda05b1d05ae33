"""The linear machine of K classes, exact, as a problem kind of the driver
(:mod:`._driver`) on a working set of Kesler's pairs (row, other class;
:mod:`sklearn_linsep._kesler`): the joint verdict with its certificate (Farkas weights
on the pairs, checked on X) and the Crammer–Singer maximal margin; with ``soft`` the
C → ∞ limit: the least total hinge (a row's is its worst pair's), then the largest
margin among machines attaining it.
"""

from functools import partial
from itertools import combinations

import numpy as np
import scipy.sparse as sp

from .._exact._kkt import exact_machine_of_pairs, separator_budget
from .._exact._numbers import as_fmpq
from .._kesler import class_columns, pair_margins, pairs_of
from .._rows._protocol import InMemoryPairRows, PairRows
from .._threads import threads_for_fit
from .._working_set import grow, no_progress, rows_in_memory
from ..exceptions import SolverError
from ._certificate import checked_certificate
from ._driver import ProblemKind, check_rows, exact_margin
from ._kkt import DualTerms, dual_problems, mark_if_far
from ._result import JointMarginResult, label_codes
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
    exact_finish_suits,
    pair_sizes,
    refuse_dense_pairs,
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
        return frame.anchors()

    def in_units(self, tol):
        return WarmMachine(self.rows, tol, keep_digits=True)

    def misses(self, ids, solution, tol):
        """A pair violated past tol/2, or the dual conditions missed."""
        terms = self.terms(self.rows, ids, solution)
        return not np.min(terms.margins) >= 1 - tol / 2 or bool(
            dual_problems(terms, solution, tol / 2, tol / 2)
        )

    def from_feasible(self, ids, feasible, tol):
        pairs = self.rows.pairs(ids)
        return machine_from_feasible(*pairs, self.n_classes, *feasible, tol)

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
        """The Farkas weights on the pairs of a working set that no machine
        separates, from one LP where each feature is divided by its own spread (μ
        is the same in every affine frame), verified on X before it is returned."""
        kesler = self.rows
        frame = kesler.equilibrated()
        weights = kesler_flow_lp(*frame.uncentred_pairs(working), kesler.n_classes)
        if weights is None:
            raise SolverError(
                "The classes come too close to touching for float precision to "
                "decide whether a linear machine separates them: the margin QP found "
                "no machine on a subset of the pairs, and the certificate's LP no "
                "weights either. Check for near-duplicate rows with different "
                "labels, or rescale the features."
            )
        keep = weights > 0
        return checked_certificate(kesler, working[keep], weights[keep], self.classes)

    def known_certificate(self):
        """Two equal rows under two labels (a document filed twice): their pairs,
        each the other's reverse, admit no machine (weights 1 and 1). Found by one
        search over the rows in memory, where the loop would meet them only after
        rounds whose subproblems cannot settle (400 x 100, K = 4, three rows copied
        under another label: 3.6 s to the verdict)."""
        rows = self.rows
        found = rows.opposite_duplicates() if rows.cheap_passes else None
        if found is None:
            return None
        (i, j), codes = found, rows.codes
        ids = np.sort([i * self.n_classes + codes[j], j * self.n_classes + codes[i]])
        try:
            return checked_certificate(rows, ids, np.ones(2), self.classes)
        except SolverError:  # unproved: the rounds find their own
            return None

    def certified_ids(self, certificate, ids):
        """The pairs ``ids`` and the certificate's (its rows are X's, as the
        pairs' rows are: :class:`KeslerRows` holds X whole)."""
        rows, others = self.certified_pairs(certificate)
        return np.union1d(ids, rows * self.n_classes + others)

    def unseparated(self, rounds, certificate):
        empty = np.array([], dtype=np.intp)
        return JointMarginResult(None, None, False, 0.0, empty, empty,
                                 np.array([]), np.inf, rounds, certificate)  # fmt: skip

    def soft_limit(self, working, tol, batch):
        return mark_if_far(self.rows, _soft_limit(self.rows, working, tol, batch), 3)

    def finish_exactly(self):
        """From Clarabel's support with each feature scaled, in rationals on every pair
        (:func:`~sklearn_linsep._exact._kkt.exact_machine_of_pairs`): no active set
        settles where features ~1e6 apart make the multipliers cancel."""
        rows, K = self.rows, self.rows.n_classes
        active = rows_in_memory(rows)  # every pair in memory
        if active is None or not exact_finish_suits(active.size * (K - 1),
                                                    K * (rows.n_features + 1)):
            return None
        position, others = _every_pair(rows, active)
        Z, own, others = rows.pairs(active[position] * K + others)
        try:
            guess = kesler_support_guess(Z, own, others, K)
        except SolverError:
            return None
        found = guess.feasible and exact_machine_of_pairs(
            rows.original_rows(active[position]), own, others, K, guess.dual
        )
        if not found:
            return None
        W, b, dual = found
        on = {(position[j], others[j]): v for j, v in enumerate(dual) if v > 0}
        return self.maximal_of(active, (W, b, on)).answer

    def certified_pairs(self, certificate):
        others = label_codes(certificate.certificate_classes, self.classes)[1]
        return certificate.certificate_indices, others

    def separator_budget(self, n_rows):
        K, p = self.n_classes, self.rows.n_features
        suits = exact_finish_suits(n_rows * (K - 1))
        return separator_budget(K * (p + 1)) if suits else None

    def exact_separator(self, W, b):
        """The separable result of a machine decided in rationals, its ``coef`` and
        ``intercept`` the float64 roundings."""
        coef = np.array([[float(value) for value in row] for row in W])
        empty = np.array([], dtype=np.intp)
        return JointMarginResult(
            coef, np.array([float(value) for value in b]), True, machine_margin(coef),
            empty, empty, np.array([]), 0.0, 0, exact_coef=W, exact_intercept=b,
        )  # fmt: skip

    def exact_maximal(self, result, rows, others, mu):
        """Its margin ``min_{j<k} 1/‖w_j - w_k‖`` from the rationals."""
        result.support_classes, result.dual = others, mu
        W = result.exact_coef  # FLINT below: no gcd in Python
        pairs = combinations([[as_fmpq(value) for value in w] for w in W], 2)
        squares = [sum((a - c) ** 2 for a, c in zip(u, v)) for u, v in pairs]
        result.margin = 1 / float(max(squares)) ** 0.5 if any(squares) else np.nan


def machine_margin(coef):
    """``min_{j<k} 1/‖w_j - w_k‖``: a margin-1 row's least distance from the boundary
    between its class and another (nan where every row of W is the same)."""
    pairs = combinations(coef, 2)
    largest = max((np.linalg.norm(w_j - w_k) for w_j, w_k in pairs), default=0.0)
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


def _slack_rows(kesler, ids):
    """``(rows, row_of)``: the distinct rows of the pairs ``ids`` (one slack each)
    and each pair's position among them."""
    return np.unique(pairs_of(ids, kesler.n_classes)[0], return_inverse=True)


# The share of all pairs from which STALLS rounds in a row that did not raise the
# least hinge take them all (_every_pair_once_due): 1 000 x 100, K = 4, three rows
# copied, met the least hinge (6) at 692 pairs of 3 000, then 8 more LPs of 900-1 480
# pairs took 7.6 s, where the LP of all took 1.3 s. One round is no sign: iris's
# second LP (66 pairs) did not raise it, its third ended the rounds at 152 of 300.
STALLED_SHARE = 0.25
STALLS = 2


def _soft_limit(kesler, working, tol, batch):
    """The C → ∞ limit of the Crammer–Singer soft margin, each stage on a working set
    grown by the pairs its answer violates: the least total hinge (an LP, each feature
    divided by its spread: the optimum's hinges are the same in every affine frame),
    then the largest margin over its optimal face (no budget row, which would leave
    the QP without an interior). The LP weighs rows over the working set's mean weight
    (same argmin), so its tolerances and the face's thresholds are scale-free."""
    # Working sets only grow: a first one past the dense limit ends there, not after
    # the LP's rounds (3 000 documents, one under two labels: 20 s of them).
    refuse_dense_pairs(kesler, working, SOFT_LIMIT_DENSE)
    n_classes = kesler.n_classes
    lp_frame = kesler.equilibrated()
    unit, least = {}, {"best": -np.inf, "stalls": 0}  # the LP's optimum

    def least_hinge(ids):
        rows, row_of = _slack_rows(lp_frame, ids)
        weights = lp_frame.row_weights(rows)
        unit["weight"] = float(weights.mean())
        solution = kesler_hinge_lp(
            *lp_frame.uncentred_pairs(ids), n_classes, row_of, weights / unit["weight"]
        )
        solution.intercept += lp_frame.uncentred_offset(solution.coef)
        total = solution.total * unit["weight"]  # each round's unit is its own
        stalled = no_progress(total, least["best"])
        least["stalls"] = least["stalls"] + 1 if stalled else 0
        least["best"] = max(least["best"], total)
        return solution

    def violators(frame, solution, ids, stalled=False):
        """Pairs below ``1 - tol`` beyond their row's hinge ``ξ``: each row's
        ``max(0, 1 - margin)`` over its working pairs (rows with none: 0)."""
        coef, intercept = solution.coef, solution.intercept
        rows, position = _slack_rows(frame, ids)
        slack = np.zeros(rows.size)
        margins = frame.pair_margins(ids, coef, intercept)  # each row once
        np.maximum.at(slack, position, 1.0 - margins)
        # As many as the working set holds, as for two classes: the set doubles,
        # and the LP's answers, vertices of a face, violate a few pairs a row each
        # (1 000 x 100, K = 4, three rows copied: 29 LPs of 50 more, 18 s).
        violated, inside = frame.violators(
            coef, intercept, 1.0 - tol, ids, max(batch, ids.size), (rows, slack)
        )
        return _every_pair_once_due(kesler, ids, violated, stalled), inside

    def lp_violators(solution, ids):
        return violators(lp_frame, solution, ids, least["stalls"] >= STALLS)

    lp, working, rounds = grow(working, least_hinge, lp_violators)
    face = _optimal_face(kesler, lp_frame, working, lp, unit["weight"])
    coef, intercept = in_frame(lp, lp_frame, kesler)
    start = coef, intercept - intercept.mean()  # Σ b = 0: on the face too

    def largest_margin(ids):
        # The interior point loses the digits of features far apart in scale, and
        # can stall or call an almost interior-less face empty: the primal active
        # set from the LP's machine keeps every feature's digits.
        refuse_dense_pairs(kesler, ids, SOFT_LIMIT_DENSE)
        on_face = face(ids)
        holds, margin_from = _face_as_pairs(kesler, ids, on_face)

        def interior_point():
            solution = kesler_margin_qp(*kesler.uncentred_pairs(ids), n_classes,
                                        face=on_face)  # fmt: skip
            if solution.feasible:
                solution.intercept += kesler.uncentred_offset(solution.coef)
            return solution

        if kesler.uneven:
            exact = margin_from(start)
            return interior_point() if exact is None else exact
        try:
            solution = interior_point()
        except SolverError:
            exact = margin_from(start)
            if exact is None:
                raise
            return exact
        if solution.feasible and holds(solution):
            return solution
        exact = margin_from(start)
        return solution if exact is None else exact

    solution, working, more = grow(working, largest_margin, partial(violators, kesler))
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
    return _machine_result(kesler, working, solution, rounds + more, False, hinge)


def _every_pair_once_due(kesler, ids, violated, stalled=False):
    """``violated``, or every pair outside ``ids`` (rows in memory, dense within
    ``DENSE_FALLBACK_ENTRIES``) where ``ids`` and ``violated`` hold half of all
    pairs, or ``STALLED_SHARE`` of them after rounds that did not raise the least
    hinge (``stalled``): each round left would cost about as much as all pairs,
    and the LP's answers, vertices of its optimal face, leave other pairs violated
    a few a row at a time (400 x 100, K = 4, three rows copied under another
    label: 45 LPs of up to 1 039 of 1 200 pairs, 25 s)."""
    active = rows_in_memory(kesler)
    if violated.size == 0 or active is None:
        return violated
    K, held = kesler.n_classes, ids.size + violated.size
    every = active.size * (K - 1)
    if 2 * held < every and not (stalled and STALLED_SHARE * every <= held):
        return violated
    position, others = _every_pair(kesler, active)
    every = np.setdiff1d(active[position] * K + others, ids)
    try:
        refuse_dense_pairs(kesler, np.union1d(ids, every), SOFT_LIMIT_DENSE)
    except SolverError:
        return violated
    return every


def _every_pair(kesler, active):
    """``(position, others)``: every pair of the rows ``active``, by position among
    them and other class code (pair id ``active[position] · K + others``)."""
    K = kesler.n_classes
    return np.nonzero(kesler.codes[active][:, None] != np.arange(K))


def _face_as_pairs(kesler, ids, face):
    """``(holds, margin_from)`` of the face ``(slack_of, n_slack, tight)`` of the pairs
    ``ids`` (:func:`_optimal_face`) with the hinges eliminated: whether a machine is
    on it, and its largest margin by the primal active set from a machine on it (None
    where that does not settle, or a row keeping a hinge has no tight pair in ``ids``).
    A row's hinge ``ξ`` is fixed by any of its tight pairs ``t`` (``ξ = 1 - m_t``): its
    other pairs ``j`` keep ``m_j ≥ m_t`` (``=`` where tight), the margin of the pair
    (own = t's other class, other = j's) ``≥ 0``; and ``ξ ≥ 0`` is ``m_t ≤ 1``. Each
    constraint is a pair whose margin is ``≥``, ``=`` or ``≤`` (``sides`` +1, 0, -1)
    ``right``; ``to_pairs`` maps its multipliers to the pairs ``ids``."""
    slack_of, n_slack, tight = face
    rows, others = pairs_of(ids, kesler.n_classes)
    own = kesler.codes[rows]
    free = slack_of >= 0
    anchor = np.full(n_slack, -1)
    tight_free = np.flatnonzero(tight & free)
    anchor[slack_of[tight_free]] = tight_free  # a tight pair of each such row
    if np.any(anchor < 0):  # the interior point's answer stands as it is
        return (lambda solution: True), (lambda start: None)
    follower = np.flatnonzero(free & ~np.isin(np.arange(len(ids)), anchor))
    leader = anchor[slack_of[follower]]
    order = np.r_[np.flatnonzero(~free), anchor, follower]
    held = order.size - follower.size  # the pairs held against 1: plain, anchors
    columns = np.arange(order.size)
    to_pairs = sp.csr_matrix(
        (np.r_[np.ones(order.size), -np.ones(follower.size)],
         (np.r_[order, leader], np.r_[columns, columns[held:]])),
        shape=(len(ids), order.size),
    )  # fmt: skip
    own = np.r_[own[order[:held]], others[leader]]
    pairs = kesler.rows(rows[order]), own, others[order]
    right = np.r_[np.ones(held), np.zeros(follower.size)]
    sides = np.where(tight[order], 0.0, 1.0)
    sides[held - anchor.size : held] = -1.0  # ξ ≥ 0: an anchor's margin ≤ 1

    def holds(solution):  # to FACE_TOLERANCE
        margins = pair_margins(*pairs, solution.coef, solution.intercept)
        return bool(np.all(off_face(margins - right + 1, sides) <= FACE_TOLERANCE))

    def margin_from(start):
        solution = machine_from_feasible(
            *pairs, kesler.n_classes, *start, FACE_TOLERANCE, sides=sides, right=right
        )
        if solution is not None:
            solution.dual = to_pairs @ solution.dual
        return solution

    return holds, margin_from


def _optimal_face(kesler, lp_frame, working, lp, unit):
    """``face(ids)``: the LP's optimal face on the pairs ``ids`` as
    :func:`~._solvers.kesler_margin_qp` takes it, from the LP's μ on ``working`` (all
    pairs' dual optimum: none violates; rows weighed by weight over ``unit``), once μ
    is a dual certificate: it balances (``Σ μ φ = 0`` per class and feature, to the
    terms' rounding), no row carries more than its weight, and ``Σ μ`` is the LP's
    total (weak duality: no machine has less). By complementary slackness a pair of
    positive μ holds with equality; a row whose μ stop short of its weight has no
    hinge; rows at their weight have free ``ξ ≥ 0``."""
    mu = lp.dual
    rows, own, others = lp_frame.uncentred_pairs(working)  # μ balances in every frame
    weighted = class_columns(own, others, kesler.n_classes) * mu
    combination = np.asarray((rows.T @ weighted.T).T)
    absolute = np.asarray((abs(rows).T @ np.abs(weighted).T).T)
    slack_rows, row_of = _slack_rows(kesler, working)
    weights = kesler.row_weights(slack_rows) / unit
    carried = np.bincount(row_of, mu, minlength=weights.size)
    scale = max(mu.sum(), 1e-300)
    if (
        np.any(np.abs(combination) > 1e-9 * (absolute + scale))
        or np.any(np.abs(weighted.sum(axis=1)) > 1e-9 * scale)
        or np.any(carried > weights * (1 + 1e-9) + 1e-12)
        or abs(mu.sum() - lp.total) > 1e-9 * max(lp.total, 1.0)
    ):
        raise SolverError(
            "The least-hinge LP's multipliers do not certify its total hinge "
            f"({lp.total:.12g}): the solver's answer is not trusted."
        )
    at_weight = slack_rows[carried >= weights * (1 - 1e-9)]
    tight = working[mu > 1e-9 * mu.max(initial=0.0)]

    def face(ids):
        index, _ = pairs_of(ids, kesler.n_classes)
        free = np.isin(index, at_weight)
        slack_rows = np.unique(index[free])
        slack_of = np.where(free, np.searchsorted(slack_rows, index), -1)
        return slack_of, slack_rows.size, np.isin(ids, tight)

    return face
