"""The routes of the K-class subproblem, the Crammer–Singer margin of a working set
of pairs (row, other class), registered here in order (:mod:`.` has the kinds'
signatures; :func:`~._cost.pair_dual_suits` and :func:`~._cost.wide_pairs_suits`
pick them): the pairs' dual on the rows' Gram matrix (:func:`pair_active_set`), the
certificate's LP on wide working sets, then the primal-dual active set with Clarabel,
which always answers. :class:`WarmMachine` is the loop's subproblem
(:mod:`.._multiclass`), each call warm from the last support.
"""

import numpy as np

from ..._kesler import RowGram, pair_margins, pairs_of, row_coefficients
from ..._threads import threads_for_solve
from ...exceptions import SolverError
from .._result import Hyperplane, Status
from . import Route, register, solve_by_routes
from ._active_set import _machine_by_qr, machine_on_support
from ._clarabel import kesler_margin_qp
from ._cost import pair_dual_suits, refuse_dense_pairs, wide_pairs_suits
from ._dense_dual import pair_active_set, pair_held_system, refined_pair_dual
from ._highs import kesler_flow_lp


def _settle(Z, own, others, n_classes, tol, held, keep_digits):
    """The primal-dual active set (Hintermüller, Ito & Kunisch 2002) on the pairs:
    ``held`` at margin 1 (:func:`~._solvers.machine_on_support`; ``keep_digits``,
    features far apart: α grows as the inverse square of the small scale, whose digits
    the Gram loses: :func:`~._active_set._machine_by_qr`); negative weights leave,
    pairs below margin join, at once, to a KKT point (the optimum) or None."""
    on_support = _machine_by_qr if keep_digits else machine_on_support
    held = np.array(held, dtype=bool)
    dimension = n_classes * (Z.shape[1] + 1)
    for _ in range(30):
        # More pairs than unknowns cannot all hold at 1 independently: the
        # active set would cycle on least-squares solutions (tall data).
        if not held.any() or held.sum() > dimension:
            return None
        coef, intercept, alpha = on_support(Z[held], own[held], others[held], n_classes)
        negative = alpha < -1e-12 * max(np.abs(alpha).max(), 1e-300)
        low = pair_margins(Z, own, others, coef, intercept) < 1 - tol / 2
        if not negative.any() and not low.any():
            dual = np.zeros(len(own))
            dual[held] = np.maximum(alpha, 0.0)
            return Hyperplane(True, coef, intercept, dual, status=Status.OPTIMAL)
        held[np.flatnonzero(held)[negative]] = False
        held |= low
    return None


class WarmMachine:
    """The working set's subproblem, each call warm from the last support. The rows'
    Gram matrix and the pairs' held factor (:func:`~._solvers.pair_active_set`)
    persist across rounds (a round changes few pairs: an update)."""

    def __init__(self, frame, tol, keep_digits=False):
        """``keep_digits``: the primal route's equalities by QR (features' spreads
        far apart); the Gram route still goes first, its answer checked in X's
        units by the caller."""
        self.frame, self.tol, self.keep_digits = frame, tol, keep_digits
        self.support = frame.held_guess  # ids of the last support, or a seed's guess
        self.gram, self.system = RowGram(frame), None
        self.from_gram = False  # whether the last answer came by the Gram route

    def __call__(self, ids):
        held = None if self.support is None else np.isin(ids, self.support)
        self.from_gram = False
        solution = solve_by_routes("pairs", (self, ids), (self, ids, held))
        self.remember(ids, solution)
        return solution

    def shape(self, ids):
        """``(pairs, rows, features, K)`` of the pairs ``ids``, as the routes see it."""
        rows = np.unique(np.asarray(ids) // self.frame.n_classes).size
        return len(ids), rows, self.frame.n_features, self.frame.n_classes

    def gram_pairs(self, ids):
        """``(positions in the rows' Gram matrix, own classes, others)`` of pairs."""
        rows, others = pairs_of(ids, self.frame.n_classes)
        return self.gram.positions(rows), self.frame.codes[rows], others

    def on_gram_answer(self, ids, held):
        """The pairs' dual on the rows' Gram matrix (route "pairs on the Gram") on the
        sorted pairs ``ids`` from the mask ``held`` (None: all), checked on the rows;
        None where it does not settle."""
        n_classes = self.frame.n_classes
        position, own, others = self.gram_pairs(ids)
        if self.system is None:  # over constraint ids, whatever the working set
            self.system = pair_held_system(self.gram_pairs, lambda: self.gram.matrix,
                                           n_classes)
        every = np.arange(len(ids))
        last = [] if held is None or held.all() else [np.flatnonzero(held)]
        for start in [*last, every]:  # the last support; where that cycles, all
            answer = pair_active_set(
                self.gram.matrix, position, own, others, n_classes, start,
                self.tol / 2, system=(ids, self.system),
            )  # fmt: skip
            if answer is not None:
                break
        if answer is None:
            return None
        alpha, intercept, coefficients = answer
        coef = self.gram.combination(coefficients)
        if np.min(self.frame.pair_margins(ids, coef, intercept)) < 1 - self.tol / 2:
            return None
        self.from_gram = True
        return Hyperplane(True, coef, intercept, alpha, status=Status.OPTIMAL)

    def primal_answer(self, ids, held):
        """The Crammer–Singer margin of the pairs, exact: by :func:`_settle` from
        ``held`` (pairs thought at margin 1: the last support), else from Clarabel's
        support (on degenerate pairs an interior point's W is off by about the root
        of its tolerance, 2e-6 on four rows; the finish, by rounding), Clarabel's
        answer standing where that does not settle. A SolverError where that would
        make sparse rows dense beyond a limit."""
        refuse_dense_pairs(self.frame, ids)
        Z, own, others = pairs = self.frame.pairs(ids)
        K, tol, keep_digits = self.frame.n_classes, self.tol, self.keep_digits
        if held is not None:
            settled = _settle(*pairs, K, tol, held, keep_digits)
            if settled is not None:
                return settled
        try:
            solution = kesler_margin_qp(*pairs, K)
        except SolverError:
            # Clarabel stalls on some working sets with no machine (their hulls
            # touch to rounding): the certificate's LP decides those.
            if kesler_flow_lp(*pairs, K) is None:
                raise
            return Hyperplane(False, status=Status.INFEASIBLE)
        if not solution.feasible:
            return solution
        margins = pair_margins(Z, own, others, solution.coef, solution.intercept)
        held = solution.dual > 1e-8 * solution.dual.max(initial=0.0)
        held |= margins < 1 + 1e-6
        return _settle(*pairs, K, tol, held, keep_digits) or solution

    def polished(self, ids, solution):
        """The Gram route's last answer on dense rows refined on its held pairs'
        margins computed from the rows (:func:`~._dense_dual.refined_pair_dual`, solves
        of the loop's held system), to agree with the primal route to rounding (the Gram
        alone: 7e-12 of W on standardised digits; an LU of the support's equalities
        took 0.17 of 0.75 s at 2 000 x 256, K = 20); kept where a weight or a margin
        then leaves its side. Sparse rows keep it: their solves would go through
        the rows' inverse again (5 000 documents: +0.35 s of 2.5 s)."""
        if not (self.from_gram and solution.feasible) or self.frame.sparse:
            return solution
        on = solution.dual > 0
        position, own, others = self.gram_pairs(ids[on])
        K, n_rows = self.frame.n_classes, len(self.gram.matrix)

        def coef_of(alpha):
            return self.gram.combination(
                row_coefficients(position, own, others, alpha, K, n_rows)
            )

        def margins_for(alpha, intercept):
            coef = coef_of(alpha)
            return lambda keys: self.frame.pair_margins(keys, coef, intercept)

        # On the loop's threads: waking BLAS's idle ones stalled a factor of 301
        # digits pairs 0.1 s (default threads: 0.19 -> 0.09 s a call).
        with threads_for_solve(len(ids)):
            refined = refined_pair_dual(self.system, ids[on], solution.dual[on],
                                        solution.intercept, margins_for)  # fmt: skip
        if refined is None or not refined[0].size or refined[0].min() <= 0:
            return solution
        dual, (alpha, intercept) = np.zeros(len(ids)), refined
        dual[on] = alpha
        coef = coef_of(alpha)
        if np.min(self.frame.pair_margins(ids, coef, intercept)) < 1 - self.tol / 2:
            return solution
        return Hyperplane(True, coef, intercept, dual, status=Status.OPTIMAL)

    def no_machine_answer(self, ids, held):
        """Infeasible where the certificate's LP finds weights on ``ids``, else None:
        with every row a possible support vector the Gram route fails only on dependent
        rows (a document under two labels), which the LP decides fast (303 x 3 000
        text: 1.4 s, Clarabel 16 s)."""
        weights = kesler_flow_lp(*self.frame.uncentred_pairs(ids), self.frame.n_classes)
        return None if weights is None else Hyperplane(False, status=Status.INFEASIBLE)

    def remember(self, ids, solution):
        if solution.feasible:
            self.support = ids[solution.dual > 0]


def _gram_suits(sub, ids):
    """The Gram route's cost rule; where the features' spreads are far apart (X's
    units), only on rows no more than features, where the primal's Clarabel is dear
    (a document of norm 1e-8 among unit ones: 8 s to a hang, the Gram's answer
    meeting every check in X's units), not where its QR is cheap (wine's features
    1e4 apart: the Gram's answer refused each fit, 29 ms of 69)."""
    pairs, rows, features, n_classes = sub.shape(ids)
    if sub.keep_digits and features < rows:
        return False
    return pair_dual_suits(pairs, rows, features, n_classes)


# The routes of the pairs' subproblem (see :mod:`._solvers`), in their order.
register(Route(
    "pairs on the Gram", kind="pairs", priority=10, suits=_gram_suits,
    solve=WarmMachine.on_gram_answer,
))  # fmt: skip
register(Route(
    "certificate LP of wide pairs", kind="pairs", priority=20,
    suits=lambda sub, ids: not sub.keep_digits and wide_pairs_suits(*sub.shape(ids)),
    solve=WarmMachine.no_machine_answer,
))  # fmt: skip
register(Route(
    "pairs' active set and Clarabel", kind="pairs", priority=100,
    suits=lambda sub, ids: True, solve=WarmMachine.primal_answer,
))  # fmt: skip
