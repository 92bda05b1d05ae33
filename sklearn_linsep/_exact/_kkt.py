"""The Crammer–Singer maximal margin of a set of pairs in rationals (FLINT), from
a float64 guess of its support: where features lie on scales far apart (1e-6 to
1e6: multipliers of 1e12 and more cancel in the large features' equations), no
float64 active set settles, yet a scaled interior point (Clarabel) still finds
the support. On it the maximiser is rational, the support's equality QP solved
exactly, and it is the maximal margin when the KKT conditions hold in rationals
(every ``α ≥ 0``, every pair margin ``≥ 1``). A wrong guess is fixed by a few
exchanges (the most negative multiplier leaves, the most violated pair joins),
else None: never a machine the rationals did not check. The QP in Gram form
(``B`` the pairs' class columns ``e_own - e_other``, ``G = (X Xᵀ) ∘ (B Bᵀ)``):
``G α + B b = 1``, ``Bᵀ α + ν 1 = 0``, ``Σ b = 0``; ``W = Σ_j α_j B_j x_jᵀ``.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._dyadic import MODULUS, residue_matrix
from ._farkas import every_pair, pair_margins_near, pairs_matrix
from ._numbers import (
    ExactRows,
    as_fmpq,
    as_fraction,
    echelon_pivots,
    fmpq_matrix,
    scattered,
    solve_exactly,
)

# Exchanges after the guess (each an exact solve).
EXACT_EXCHANGES = 8
# The work of the exchanges from a separator's nearest pairs: the sum over them
# of the held pairs' count cubed (each an exact solve of that size); about 3 s.
SEPARATOR_WORK = 5e7
# An interior point's support: the pairs whose multiplier over slack (z / s, both
# positive on every pair) is above each cut in turn, the first that settles.
SUPPORT_CUTS = (1.0, 1e2, 1e-2)


@dataclass(frozen=True)
class Budget:
    """How far the exchanges may go: their number, and their work (Σ held³)."""

    exchanges: int = EXACT_EXCHANGES
    work: float = np.inf


def exact_machine_of_pairs(points, own, others, n_classes, guess, budget=Budget()):
    """``(W, b, α)``: the Crammer–Singer maximal margin of the pairs (row
    ``points[j]`` of class ``own[j]`` against ``others[j]``) in rationals
    (``W``: K lists of Fractions, ``b``: K Fractions summing to 0, ``α``:
    Fractions, one per pair, 0 off the support), checked exactly; None where
    the support from ``guess`` (one per pair: an interior point's multiplier
    over its slack, cut at each of ``SUPPORT_CUTS`` in turn) does not settle
    within ``budget``'s exchanges, or its system is singular.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep._exact._kkt import exact_machine_of_pairs
    >>> points = np.array([[0.0], [0.0], [2.0], [2.0]])
    >>> own, others = np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0])
    >>> W, b, alpha = exact_machine_of_pairs(points, own, others, 2,
    ...                                      np.array([5.0, 0.0, 5.0, 0.0]))
    >>> [str(w[0]) for w in W], [str(v) for v in b]
    (['-1/2', '1/2'], ['1/2', '-1/2'])
    """
    points = np.asarray(points, dtype=float)
    own, others = np.asarray(own, np.intp), np.asarray(others, np.intp)
    guess = np.asarray(guess, dtype=float)
    exact = _ExactPairs(points, own, others, n_classes)
    order = np.argsort(-guess, kind="stable")
    tried = set()
    for cut in SUPPORT_CUTS:
        held = exact.independent(order[guess[order] > cut].tolist())
        if frozenset(held) in tried:
            continue
        tried.add(frozenset(held))
        found = _settled(exact, held, len(own), budget)
        if found is not None:
            return found
    return None


def _settled(exact, held, m, budget):
    """The exact KKT point from the pairs ``held``, exchanged as in
    :func:`exact_machine_of_pairs`; None where it does not settle within ``budget``."""
    work = 0.0
    for _ in range(budget.exchanges + 1):
        work += len(held) ** 3
        if not held or work > budget.work:  # nothing held, or out of work
            return None
        solved = exact.equality_qp(held)
        if solved is None:
            return None
        alpha, b = solved
        negative = [i for i, value in enumerate(alpha) if value < 0]
        if negative:
            held.pop(min(negative, key=alpha.__getitem__))
            continue
        W = exact.machine(held, alpha)
        b = exact.free_intercepts(W, b)
        violated = exact.below_one(W, b)
        if not violated:
            W = [[as_fraction(value) for value in w] for w in W.tolist()]
            return W, [as_fraction(value) for value in b], scattered(m, held, alpha)
        joining = min(violated, key=violated.__getitem__)
        wider = exact.independent([*held, joining])
        if len(wider) == len(held):  # depends on the held pairs: a swap
            leaving = exact.leaving_for(held, alpha, joining)
            if leaving is None:
                return None
            wider = [j for j in held if j != leaving] + [joining]
        held = wider
    return None


class _ExactPairs:
    """The pairs' rows as FLINT rationals, each converted once, on first need
    (of 10 000 rows, only the support and those near margin 1 are read)."""

    def __init__(self, points, own, others, n_classes):
        self.K, self.p = n_classes, points.shape[1]
        self.own, self.others = own.tolist(), others.tolist()
        # Pair j's row is unique row position[j] (a row has a pair per other class).
        self.unique_points, position = np.unique(points, axis=0, return_inverse=True)
        self.position = position.ravel().tolist()
        self._matrix = ExactRows(lambda rows: self.unique_points[rows], self.p)

    def _rows(self, pairs):
        return self._matrix([self.position[j] for j in pairs])

    @cached_property
    def unique(self):
        """Every unique row, an ``fmpq_mat``."""
        return self._matrix(range(len(self.unique_points)))

    def _constraints(self, pairs):
        """The pairs' constraint rows ``(B ⊗ x, B)`` as float64 columns (exact):
        :func:`~._farkas.pairs_matrix` less its row of ones."""
        points = self.unique_points[[self.position[j] for j in pairs]]
        own, others = ([part[j] for j in pairs] for part in (self.own, self.others))
        return pairs_matrix(points, own, others, self.K)[0][:-1]

    def independent(self, ids):
        """The first pairs of ``ids`` whose constraint rows are independent modulo
        ``MODULUS``, so over the rationals; one dependent only modulo it (odds
        ~1/MODULUS) is left out, and the exact KKT check decides all the same."""
        residues = residue_matrix(self._constraints(ids))
        return [ids[c] for c in echelon_pivots(residues, MODULUS)[1]]

    def _sign(self, i, j):
        """``B_i · B_j`` of two pairs' class columns."""
        oi, ki, oj, kj = self.own[i], self.others[i], self.own[j], self.others[j]
        return (oi == oj) - (oi == kj) - (ki == oj) + (ki == kj)

    def equality_qp(self, held):
        """``(α, b)`` of the pairs ``held`` at margin exactly 1, None if singular.
        Only held pairs' classes have unknowns (``b`` None for others, ``w`` 0:
        :meth:`free_intercepts`); each group of classes the held pairs link has
        intercepts summing to 0 (the margins leave its shift free)."""
        h = len(held)
        group = self._groups(held)  # class -> its group of linked classes
        column = {cls: h + c for c, cls in enumerate(sorted(group))}
        groups = sorted(set(group.values()))
        shift = {g: h + len(group) + i for i, g in enumerate(groups)}
        rows = self._rows(held)
        gram = rows * rows.transpose()
        n = h + len(group) + len(shift)
        system, right = fmpq_matrix(n, n), fmpq_matrix(n, 1)
        for a, i in enumerate(held):
            right[a, 0] = 1
            for c, j in enumerate(held):
                sign = self._sign(i, j)
                if sign:
                    system[a, c] = sign * gram[a, c]
            for cls, sign in ((self.own[i], 1), (self.others[i], -1)):
                system[a, column[cls]] = sign
                system[column[cls], a] = sign
        # One ν per linked group: Σ b = 0 over it fixes its shift.
        for cls, c in column.items():
            system[c, shift[group[cls]]] = system[shift[group[cls]], c] = 1
        try:
            solution = system.solve(right)
        except ZeroDivisionError:  # singular in exact arithmetic
            return None
        b = [solution[column[k], 0] if k in column else None for k in range(self.K)]
        return [solution[a, 0] for a in range(h)], b

    def leaving_for(self, held, alpha, joining):
        """The held pair that leaves where ``joining``'s constraint row is a
        combination ``Σ c_i a_i`` of the held ones (Goldfarb and Idnani's
        dependent step: the multipliers move as ``α - t c``, the first to reach
        0 leaves): of ``c_i > 0``, the least ``α_i / c_i``; None where there is
        none, or no such combination (:func:`~._numbers.solve_exactly`)."""
        rows = self._constraints([*held, joining])
        status, c = solve_exactly(rows[:, :-1], rows[:, -1])
        if status != "unique":
            return None
        ratios = [(alpha[a] / as_fmpq(value), a)
                  for a, value in enumerate(c) if value > 0]  # fmt: skip
        return held[min(ratios)[1]] if ratios else None

    def _groups(self, held):
        """Each class a held pair names -> the least class of its linked component."""
        parent = {}

        def root(cls):
            while parent.setdefault(cls, cls) != cls:
                cls = parent[cls]
            return cls

        for j in held:
            a, c = root(self.own[j]), root(self.others[j])
            parent[max(a, c)] = min(a, c)
        return {cls: root(cls) for cls in list(parent)}

    def free_intercepts(self, W, b):
        """``b``, classes no held pair names (``w`` 0) given the least intercept
        keeping their rows' pairs at margin 1 (else the largest their rivals'
        rows allow, else 0), all shifted to sum to 0: the KKT leave them free."""
        free = [cls for cls, value in enumerate(b) if value is None]
        if not free:
            return b
        scores = self.scores(W)
        b = list(b)
        for cls in free:
            low = [1 + scores[j][k] - scores[j][cls] + b[k]
                   for j, (o, k) in enumerate(zip(self.own, self.others))
                   if o == cls and b[k] is not None]  # fmt: skip
            high = [scores[j][o] + b[o] - scores[j][cls] - 1
                    for j, (o, k) in enumerate(zip(self.own, self.others))
                    if k == cls and b[o] is not None]  # fmt: skip
            b[cls] = max(low) if low else min(high) if high else as_fmpq(0)
        shift = sum(b, as_fmpq(0)) / self.K
        return [value - shift for value in b]

    def machine(self, held, alpha):
        """``W = Σ α_j B_j x_jᵀ`` (a K × p ``fmpq_mat``)."""
        classes = fmpq_matrix(self.K, len(held))
        for c, (j, value) in enumerate(zip(held, alpha, strict=True)):
            classes[self.own[j], c] += value
            classes[self.others[j], c] -= value
        return classes * self._rows(held)

    def scores(self, W):
        """``w_k · x_j`` of every pair's row and class, as lists (fast to index)."""
        scores = (self.unique * W.transpose()).tolist()
        return [scores[at] for at in self.position]

    def below_one(self, W, b):
        """``{pair: margin}`` of the pairs of margin below 1, exactly: bounded in
        float64 first, rationals only near 1 (:func:`~._farkas.pair_margins_near`)."""
        pairs = map(np.asarray, (self.position, self.own, self.others))
        ids, margins = pair_margins_near(self.unique_points, W.tolist(), b, *pairs,
                                         lambda low, spread: low - spread < 1,
                                         self._matrix)  # fmt: skip
        return {j: m for j, m in zip(ids.tolist(), margins) if m < 1}


# The rows' entries beyond which the maximal margin is not solved in rationals.
MAXIMAL_ENTRIES = 5_000_000


def small_problem_budget(pairs):
    """The exchanges allowed on a problem within :data:`~._farkas.EXACT_ENTRIES`,
    whose answer is owed whatever it costs."""
    return Budget(20 * pairs + 20)


def separator_budget(unknowns):
    """The exchanges allowed from a separator's nearest pairs (a poor guess of
    the support: its weights may cancel), growing with the ``unknowns`` (p + 1,
    or K (p + 1)), within ``SEPARATOR_WORK``."""
    return Budget(EXACT_EXCHANGES + unknowns // 8, SEPARATOR_WORK)


def maximal_machine_on_rows(points, codes, n_classes, support,
                            budget=Budget()):  # fmt: skip
    """``(W, b, {(row, other): α > 0})``: the Crammer–Singer maximal margin of
    every pair of these rows in rationals, from the pairs ``(rows, others)`` a
    separator of :func:`~._simplex.decide_pairs_on_rows` held tight
    (``support``); None where they do not settle, or beyond ``MAXIMAL_ENTRIES``
    entries."""
    if np.size(points) > MAXIMAL_ENTRIES:
        return None
    codes = np.asarray(codes, dtype=np.intp)
    rows, others = every_pair(codes, n_classes)
    held = np.asarray(support[0]) * n_classes + np.asarray(support[1])
    guess = np.where(np.isin(rows * n_classes + others, held), 1e3, 0.0)
    found = exact_machine_of_pairs(points[rows], codes[rows], others, n_classes,
                                   guess, budget)  # fmt: skip
    if found is None:
        return None
    W, b, alpha = found
    multipliers = {(int(i), int(k)): value
                   for i, k, value in zip(rows, others, alpha) if value > 0}  # fmt: skip
    return W, b, multipliers
