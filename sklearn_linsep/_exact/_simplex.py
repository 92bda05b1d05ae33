"""Farkas' alternative decided exactly on every row: the simplex method in
rationals (FLINT), warm-started from a float certificate (one neither its
enclosure nor a rational solve on its rows proves), priced in float64 with
every rounding bounded. The LP

    min t  subject to  A λ + t e = e,  λ ≥ 0,  t ≥ 0,

over the columns of Farkas' system ``A λ = e`` (:func:`~._farkas.pairs_matrix`,
a column per (row, other class) pair) decides it on all the rows. Every basis
holding ``t``'s column is feasible (``B⁻¹ e`` is ``t``'s unit vector), so the
method starts at ``t`` and the certificate's columns. At its optimum, ``t = 0``
gives an exact certificate ``λ = B⁻¹ e ≥ 0``; ``t = 1`` an exact separator, the
dual ``y`` (``Bᵀ y`` = ``t``'s unit cost) having ``A_jᵀ y ≤ 0`` on every column
and ``eᵀ y = 1``, so every pair margin ≥ 1 (:func:`~._farkas.pairs_separator`).

A step solves two rational systems of the basis's size and prices every column
in float64, ``|fl(A_jᵀ ỹ) - A_jᵀ y| ≤ bound`` (Higham's γ, ``ỹ``'s own rounding);
only columns the bound leaves undecided are priced in rationals. Most steps are
first taken in floating point (:func:`_float_pivots`, as in QSopt_ex), the exact
steps checking the basis they settle on: a float step is a guess, but every
basis holding ``t`` is feasible and the one handed over is proved nonsingular
modulo a prime, so a misstep costs exact steps, never the answer. Where the
optimal basis is far from the certificate's (classes jointly separable by a
hair), or there is none, the steps start (again) from HiGHS's optimum. All is
decided on the rows exactly centred (:class:`CentredFrame`): offsets of 2^30
spreads leave bases too ill-conditioned for float steps.
"""

import numpy as np

from ._dyadic import MODULUS, row_chunks
from ._enclosure import ROUNDING_UNIT, rounding_factor
from ._farkas import (
    EXACT_ENTRIES,
    EXACT_SOLVE_WORK,
    class_groups,
    decidable,
    equations,
    every_pair,
    pairs_matrix,
    pairs_separator,
)
from ._frames import CentredFrame
from ._numbers import (
    ExactRows,
    as_fraction,
    determinant_nonzero,
    fmpq_matrix,
    scattered,
    solve_exactly,
)

# Limits of the steps, past which the caller says the certificate holds to a
# tolerance only: EXACT_PIVOTS, and EXACT_SIMPLEX_WORK / m³ on m equations (a
# step is two exact solves), so that giving up costs a few seconds at any size.
EXACT_PIVOTS = 200
EXACT_SIMPLEX_WORK = 200 * 60**3
# Steps after which Dantzig's rule (which could cycle) gives way to Bland's.
BLAND_AFTER = 150
# Exact steps from float64's certificate before the start from HiGHS's optimum.
CERTIFICATE_PIVOTS = 50
# Float steps from HiGHS's start; the exact steps start wherever they stop.
FLOAT_PIVOTS = 1_000
# Float steps stop short of bases of reciprocal condition below this: float64's
# LU has no correct digit there (cond · 2^-53 ≥ 8) and the basis may be singular
# exactly. Near-touching bases reach condition 2^50 by nature.
FLOAT_CONDITION = 2.0**-60
# Refinements of a float solve at most (each contracts the error by cond · 2^-53).
REFINEMENTS = 8
# Columns tried in turn where a step's basis is that near singular.
FLOAT_RETRIES = 8
# Float steps from float64's certificate, fewer: if they do not settle, HiGHS's.
CERTIFICATE_FLOAT_PIVOTS = 200
# What refined float steps take for 0, relative to the sizes summed: 64 extended
# rounding units (2^-58 with x87's long double; else 2^-47, hairs left exact).
FLOAT_RESOLUTION = 64 * float(np.finfo(np.longdouble).eps)
# The largest system stepped in rationals, in equations (p + 2 for two
# classes, (K - 1)(p + 1) + 1 jointly).
EXACT_SIMPLEX_EQUATIONS = 200
# HiGHS's time limit on one LP of the float start (a guess: without it the
# steps start from unit columns); its dual simplex has cycled in its cleanup.
FLOAT_START_SECONDS = 1.0
# The steps of an unlimited decision: Bland's rule ends it long before.
UNLIMITED = 10**9
# Entering candidates whose step is estimated before one is taken.
LOOKAHEAD = 64
T = -1  # the column of t (e) in a basis; -2 - r, equation r's unit column
# Columns priced at once (times the equations): bounds the float pass's memory.
PRICE_BLOCK_ENTRIES = 4_000_000


class FarkasColumns:
    """The columns of Farkas' system ``A λ = e``, built on request:
    ``columns(ids)`` gives the float64 columns ``A[:, ids]`` (exact entries).
    Equations zero on every column, and the last of each of ``groups`` (equations
    summing to zero), are left out, so a basis of the rest can be nonsingular."""

    def __init__(self, columns, n_columns, e, groups=None):
        self.columns, self.n_columns = columns, n_columns
        self.equations = len(e)
        nonzero = np.asarray(e) != 0
        blocks = list(self.blocks())
        for block in blocks:
            A = columns(block)
            nonzero |= np.any(A != 0, axis=1)
        for group in groups or ():
            if kept := [row for row in group if nonzero[row]]:
                nonzero[kept[-1]] = False
        self.kept = np.flatnonzero(nonzero)
        self.m = self.kept.size  # a basis is m × m
        self.e = np.asarray(e, dtype=float)[self.kept]
        # One block: the columns kept, not rebuilt at every step.
        self._whole = A[self.kept] if len(blocks) == 1 else None

    def blocks(self):
        """The column ids in blocks of about ``PRICE_BLOCK_ENTRIES`` entries."""
        chunks = row_chunks(self.n_columns, self.equations, PRICE_BLOCK_ENTRIES)
        return (np.arange(c.start, min(c.stop, self.n_columns)) for c in chunks)

    def __call__(self, ids):
        ids = np.asarray(ids, dtype=np.intp)
        if self._whole is not None:
            if ids.size == self.n_columns and np.all(ids == np.arange(ids.size)):
                return self._whole  # every column in order: no copy
            return self._whole[:, ids]
        return self.columns(ids)[self.kept]


def farkas_simplex(system, start, max_pivots=EXACT_PIVOTS, limited=True):
    """Farkas' alternative on every column of ``system``, exactly.

    The basis is ``t``, ``start``'s independent columns (the most wanted first:
    a float certificate's), and unit columns of equations: variables fixed at 0
    that leave at the first step that would move them and never return (``y`` is
    0 on their equations until then). Where ``start`` is empty or its steps run
    out, the steps start again from HiGHS's optimum (:func:`_float_start`).
    Without ``limited``, no limit on the steps or equations (small problems,
    whose answer is owed whatever it costs).

    Returns
    -------
    ("certificate", (ids, λ)) : Fractions ``λ > 0``, ``A[:, ids] λ = e`` exactly.
    ("separator", (y, tight)) : ``y`` Fractions, one per equation of ``A`` (0 on
        those left out), ``A_jᵀ y ≤ 0`` on every column, ``eᵀ y = 1``; ``tight``
        the last basis's columns, where ``A_jᵀ y = 0``.
    None : beyond ``max_pivots`` steps or ``EXACT_SIMPLEX_EQUATIONS`` equations
        (if ``limited``), or a basis singular in exact arithmetic.
    """
    m = system.m
    if not limited:  # Bland's rule after BLAND_AFTER steps: it ends
        max_pivots = UNLIMITED
    elif m > EXACT_SIMPLEX_EQUATIONS:
        return None
    else:
        max_pivots = min(max_pivots, EXACT_SIMPLEX_WORK // m**3)
    # columns(ids): the columns of _float_matrix as rows, in rationals (B's: Bᵀ).
    columns = ExactRows(lambda ids: _float_matrix(system, ids).T, m)
    found = None
    if len(start):
        basis, settled = _float_pivots(system, _starting_basis(system, start),
                                       CERTIFICATE_FLOAT_PIVOTS)  # fmt: skip
        if settled:
            limit = min(max_pivots, CERTIFICATE_PIVOTS)
            found = _steps(system, [basis], limit, columns)
    if found is None:
        basis, _ = _float_pivots(system, _starting_basis(system, _float_start(system)))
        found = _steps(system, [basis], max_pivots, columns)
    return found


def _float_pivots(system, basis, max_pivots=FLOAT_PIVOTS):
    """``(basis, settled)``: ``basis`` moved by :func:`_steps` in
    floating point until no column prices positive or ``t`` would leave
    (``settled``), a solve fails, or the steps run out; Dantzig's rule until a
    basis repeats, then Bland's. Solves and near-0 prices are refined in
    extended precision (:func:`_refined_solves`): a hair of 2^-44 keeps its sign."""
    trail = [basis]
    settled = _steps(system, trail, max_pivots)
    if len(trail) == 1 and not settled and max_pivots:
        # A start too ill-conditioned for float steps (cond 1e17): t and unit columns.
        trail = [basis, _starting_basis(system, [])]
        settled = _steps(system, trail, max_pivots)
    # Float64 cannot tell singular bases from near-touching ones (both reach
    # condition 2^50): the exact steps take the last one proved nonsingular
    # (its determinant nonzero modulo a prime; a False may, rarely, be wrong).
    for basis in reversed(trail):
        if determinant_nonzero(_float_matrix(system, basis), MODULUS):
            return basis, settled
        settled = False
    # Not even the start: t and unit columns, nonsingular by construction.
    return _starting_basis(system, []), False


def _steps(system, trail, max_pivots, columns=None):
    """The simplex steps of :func:`farkas_simplex` from ``trail[-1]``, each basis
    appended to ``trail``: in rationals with ``columns``, its answer (None out of
    steps, or on a basis singular exactly), Bland's rule after ``BLAND_AFTER``
    steps; else :func:`_float_pivots`', whether they settled."""
    basis, exact = trail[-1], columns is not None
    seen, bland, shunned = set(), False, []
    singular = ZeroDivisionError if exact else (np.linalg.LinAlgError, ValueError)
    try:
        y, direction = _solves(system, basis, columns)
    except singular:  # ValueError: not finite
        return None if exact else False
    for step in range(max_pivots + exact):  # the exact steps' last only prices
        bland = step >= BLAND_AFTER if exact else bland or frozenset(basis) in seen
        seen.add(frozenset(basis))
        entering = _entering(system, y, basis, columns, bland, shunned)
        if entering is None and exact:
            dual = scattered(system.equations, system.kept, y)  # 0: left out
            return "separator", (dual, [j for j in basis if j > T])
        if entering is None or step == max_pivots:
            return None if exact else not shunned
        u = direction(entering)
        tol = 0 if exact else FLOAT_RESOLUTION * np.abs(u).max(initial=0.0)
        leaving = _leaving(basis, u, exact or bland, tol)  # exact: Bland's always
        if leaving is None and exact:  # t always moves: the Farkas LP is bounded
            raise AssertionError("the Farkas LP is bounded")  # pragma: no cover
        if not exact and (leaving is None or basis[leaving] == T):
            return leaving is not None  # t would leave: settled
        stepped = [*basis[:leaving], entering, *basis[leaving + 1:]]
        if T not in stepped:  # t left: t = 0, λ = B⁻¹ e
            return "certificate", _certificate(system, stepped, columns)
        try:
            y, direction = _solves(system, stepped, columns)
        except singular:  # in floats: another column enters instead
            if exact:
                return None
            shunned.append(entering)  # float64 cannot tell it from singular
            if len(shunned) > FLOAT_RETRIES:
                return False
            continue
        basis, shunned = stepped, []
        trail.append(basis)
    return False


def _solves(system, basis, columns=None):
    """``(y, direction)``: ``y = B⁻ᵀ e_t`` and ``direction(j) = B⁻¹ A_j`` of
    ``basis``, in rationals with ``columns`` (:class:`~._numbers.ExactRows` of
    its columns), else in refined floating point (:func:`_refined_solves`)."""
    unit = [int(j == T) for j in basis]
    if columns is None:
        solve = _refined_solves(_float_matrix(system, basis))
        y = solve(np.array(unit, dtype=float), transposed=True)
        return y, lambda j: solve(system([j])[:, 0])
    B_T = columns(basis)
    y = B_T.solve(fmpq_matrix(len(basis), 1, unit)).entries()
    return y, lambda j: B_T.transpose().solve(columns([j]).transpose()).entries()


def _refined_solves(B):
    """``solve(b, transposed=False)``: ``B⁻¹ b`` (or ``B⁻ᵀ b``) in ``np.longdouble``,
    float64's LU refined up to ``REFINEMENTS`` times with residuals in extended
    precision (~2^-60 of the solution with x87's long double, else float64's).
    LinAlgError where ``B``'s reciprocal condition is below ``FLOAT_CONDITION``."""
    from scipy.linalg import lapack

    lu, pivots, info = lapack.dgetrf(B)
    if info:
        raise np.linalg.LinAlgError("singular")
    rcond, _ = lapack.dgecon(lu, np.abs(B).sum(axis=0).max(), norm="1")
    if not rcond > FLOAT_CONDITION:  # a step into it may be singular exactly
        raise np.linalg.LinAlgError("nearly singular")
    wide = B.astype(np.longdouble)

    def solve(b, transposed=False):
        trans, matrix = int(transposed), wide.T if transposed else wide
        x = lapack.dgetrs(lu, pivots, b, trans=trans)[0].astype(np.longdouble)
        for _ in range(REFINEMENTS):
            residual = (b - matrix @ x).astype(float)
            step = lapack.dgetrs(lu, pivots, residual, trans=trans)[0]
            x = x + step
            if not np.abs(step).max() > FLOAT_RESOLUTION * np.abs(x).max():
                break
        return x

    return solve


def _float_matrix(system, basis):
    """The basis's columns in float64: ``e`` for ``t``, unit columns, ``A``'s."""
    kinds = np.asarray(basis, dtype=np.intp)
    B = np.zeros((system.m, kinds.size))
    B[:, kinds > T] = system(kinds[kinds > T])
    B[:, kinds == T] = system.e[:, None]
    units = np.flatnonzero(kinds < T)
    B[-2 - kinds[units], units] = 1.0
    return B


def _float_start(system):
    """Columns to start from, from HiGHS's optimum of ``min t`` s.t. ``A λ + t e
    = e``: its positive ones, heaviest first, then the ``m`` its dual holds
    tightest. The equations are first made orthonormal (``[A e]ᵀ = Q R``, columns
    at unit size; the system ``Qᵀ``): features far apart skew A's rows."""
    from scipy.linalg import qr

    A = system(np.arange(system.n_columns))
    augmented = np.column_stack([A, system.e])
    augmented /= np.maximum(np.abs(augmented).max(axis=0), 1e-300)
    basis, _ = qr(augmented.T, mode="economic")
    rows, e = basis[:-1].T, basis[-1]
    found = _generated_columns_lp(rows, e)
    if found is None:
        return []
    weights, dual = found
    # t = 0: the weighted columns; t > 0 (λ may be 0): those with A_jᵀ y nearest 0.
    order = np.argsort(-weights)
    heavy = order[weights[order] > 1e-12 * max(weights.max(initial=0.0), 1e-300)]
    reduced = -(rows.T @ dual)
    tight = np.argsort(np.abs(reduced), kind="stable")
    tight = tight[~np.isin(tight, heavy)][: system.m]
    return [int(j) for j in np.r_[heavy, tight]]


def _generated_columns_lp(rows, e, rounds=30):
    """``(λ, y)``: HiGHS's optimum of ``min t`` s.t. ``rows λ + t e = e``, ``λ ≥
    0``, and its dual, by column generation (from the columns nearest e; the most
    negative reduced costs join until none is left). None where HiGHS fails,
    takes over ``FLOAT_START_SECONDS`` on one LP, or the rounds run out."""
    from scipy.optimize import linprog

    m, n = rows.shape
    batch = max(10 * m, 100)
    norms = np.maximum(np.linalg.norm(rows, axis=0), 1e-300)
    chosen = np.argsort(-(e @ rows) / norms, kind="stable")[:batch]
    for _ in range(rounds):
        found = linprog(np.r_[np.zeros(chosen.size), 1.0],
                        A_eq=np.column_stack([rows[:, chosen], e]), b_eq=e,
                        bounds=(0, None), method="highs",
                        options={"time_limit": FLOAT_START_SECONDS})  # fmt: skip
        if found.status != 0:
            return None
        dual = found.eqlin.marginals
        reduced = -(dual @ rows) / norms
        reduced[chosen] = 0.0
        joining = np.argsort(reduced, kind="stable")[:batch]
        joining = joining[reduced[joining] < -1e-9 * max(np.abs(dual).max(), 1e-300)]
        if not joining.size:
            weights = np.zeros(n)
            weights[chosen] = found.x[:-1]
            return weights, dual
        chosen = np.r_[chosen, joining]
    return None


def _starting_basis(system, start):
    """``t``, ``start``'s columns in its order where they are independent (in
    float64; the rationals check), then the unit columns of the equations
    they leave most uncovered."""
    m = system.m
    chosen, span = [T], _extend(np.zeros((m, 0)), system.e)
    for j in start:
        if len(chosen) == m:
            break
        wider = _extend(span, system([j])[:, 0])
        if wider is not None:
            chosen.append(int(j))
            span = wider
    while len(chosen) < m:
        uncovered = 1.0 - np.sum(span * span, axis=1)  # |e_r - P e_r|²
        row = int(np.argmax(uncovered))
        chosen.append(-2 - row)
        span = _extend(span, np.eye(m)[row], tiny=0.0)
    return chosen


def _extend(span, column, tiny=1e-10):
    """``span`` (orthonormal columns) with ``column``'s independent part, or
    None where it has almost none."""
    norm = np.linalg.norm(column)
    if not norm > 0:
        return None
    unit = column / norm
    residual = unit - span @ (span.T @ unit)
    residual -= span @ (span.T @ residual)  # twice is enough (Kahan)
    size = np.linalg.norm(residual)
    if not size > tiny:
        return None
    return np.hstack([span, (residual / size)[:, None]])


def _entering(system, y, basis, exact_columns, bland, shunned=()):
    """A column outside ``basis`` and ``shunned`` of positive price ``A_jᵀ y``
    (:func:`_prices`), in rationals where float64's bound leaves it undecided
    (with ``exact_columns`` None, ``y`` is a refined float one). With ``bland``
    the first; else :func:`_headway`'s of the ``LOOKAHEAD`` largest per unit
    norm: degenerate swaps of λ's make no headway. None where every price is ≤ 0."""
    y_float = _float_dual(y) if exact_columns is not None else _scaled(y)
    candidates, scores = [], []
    for block in system.blocks():
        A = system(block)
        prices, bound = _prices(y_float, A, wide=exact_columns is None)
        outside = ~np.isin(block, [*basis, *shunned])
        positive = outside & (prices > bound)
        undecided = np.flatnonzero(outside & ~positive & (prices >= -bound))
        if undecided.size and exact_columns is not None:
            undecided_rows = exact_columns(block[undecided])  # their transpose
            exact = (undecided_rows * fmpq_matrix(system.m, 1, y)).entries()
            positive[undecided] = [value > 0 for value in exact]
        if not positive.any():
            continue
        if bland:
            return int(block[np.argmax(positive)])
        score = np.maximum(prices, bound) / np.maximum(
            np.linalg.norm(A, axis=0), np.finfo(float).tiny
        )
        best = np.flatnonzero(positive)
        best = best[np.argsort(-score[best], kind="stable")[:LOOKAHEAD]]
        candidates.extend(block[best].tolist())
        scores.extend(score[best].tolist())
    if not candidates:
        return None
    order = np.argsort(-np.asarray(scores), kind="stable")[:LOOKAHEAD]
    candidates = [candidates[k] for k in order]
    return candidates[_headway(system, basis, candidates)]


def _prices(y, A, wide=False):
    """``(Aᵀ y, bound)`` in float64, ``|fl(Aᵀ y) - Aᵀ y| ≤ bound`` (Higham's γ);
    with ``wide``, ``y`` is a refined ``np.longdouble`` and prices near 0 are
    retaken in extended precision, bounded by ``FLOAT_RESOLUTION`` (a guess's
    bound, not a proof's)."""
    gamma = rounding_factor(A.shape[0] + 2) + 2 * ROUNDING_UNIT
    narrow = y.astype(float)
    magnitude = np.abs(narrow) @ np.abs(A)
    prices = narrow @ A
    bound = gamma * magnitude * (1 + gamma) + np.abs(A).sum(axis=0) * 2.0**-1020
    if wide:
        near = np.flatnonzero(np.abs(prices) <= bound)
        prices[near] = (y @ A[:, near].astype(np.longdouble)).astype(float)
        bound[near] = FLOAT_RESOLUTION * magnitude[near]
    return prices, bound


def _headway(system, basis, candidates):
    """Of ``candidates`` (best first), the first whose step ends the method,
    else the first moving a unit column out, else 0 (one float64 solve)."""
    kinds = np.asarray(basis)
    try:
        U = np.linalg.solve(_float_matrix(system, basis), system(candidates))
    except np.linalg.LinAlgError:
        return 0
    tol = 1e-9 * np.abs(U).max(axis=0)
    unit, lam = kinds < T, kinds > T
    moves_unit = np.any(np.abs(U[unit]) > tol, axis=0)
    ends = (U[kinds == T][0] > tol) & ~moves_unit & np.all(U[lam] <= tol, axis=0)
    for wanted in (ends, moves_unit):
        if wanted.any():
            return int(np.argmax(wanted))
    return 0


def _scaled(y):
    """``y`` scaled by a power of two to a largest entry in [1, 2)."""
    largest = np.abs(y).max(initial=0)  # 0: frexp's exponent 0, y stays 0
    return y * np.longdouble(2.0) ** (1 - int(np.frexp(largest)[1]))


def _float_dual(y):
    """``ỹ``: ``y`` (fmpq) scaled by a power of two to a largest entry in
    [1/2, 2) (prices keep their signs), correctly rounded (by integer division)."""
    fractions = [(int(v.p), int(v.q)) for v in y]
    shift = -max((p.bit_length() - q.bit_length() for p, q in fractions if p),
                 default=0)  # fmt: skip
    if shift >= 0:
        return np.array([(p << shift) / q for p, q in fractions])
    return np.array([p / (q << -shift) for p, q in fractions])


def _leaving(basis, u, bland=True, tol=0):
    """The ratio test of a degenerate step ``u``: of the blocking entries (a unit
    column the entering one would move, fixed at 0; a basic λ, at 0, it would
    make negative), the smallest index (``bland``), else the largest pivot,
    which keeps the next basis best conditioned; where none blocks, ``t``,
    which then falls to 0. Entries within ``tol`` are 0 (a refined float step's:
    ``FLOAT_RESOLUTION`` of its largest); None where even ``t`` does not move
    (rounding: the Farkas LP is bounded)."""
    blocking = [i for i, j in enumerate(basis)
                if (j < T and abs(u[i]) > tol) or (j > T and u[i] > tol)]  # fmt: skip
    if blocking:
        if bland:
            return min(blocking, key=basis.__getitem__)
        return max(blocking, key=lambda i: abs(u[i]))
    at = basis.index(T)
    return at if u[at] > tol else None


def _certificate(system, basis, exact_columns):
    """``(ids, λ)``: ``λ = B⁻¹ e`` on the basis without ``t`` (≥ 0, 0 on unit
    columns: the last step kept it feasible), its positive entries."""
    solved = exact_columns(basis).transpose().solve(exact_columns([T]).transpose())
    weights = [as_fraction(value) for value in solved.entries()]
    if any(w < 0 or (w and j < T) for w, j in zip(weights, basis)):
        raise AssertionError("the certificate is feasible")  # pragma: no cover
    keep = [i for i, w in enumerate(weights) if w > 0]
    return np.array([basis[i] for i in keep], dtype=np.intp), [weights[i] for i in keep]


def decide_pairs_on_rows(points, codes, n_classes, start, limited=True):
    """Farkas' alternative for K classes jointly on every pair (row, other
    class), exactly, from the pairs ``start`` (``(row, other)``, a float
    certificate's, heaviest first; empty: from HiGHS's optimum): ``("certificate",
    (rows, others, μ))``, ``("separator", (W, b, (rows, others)))`` in rationals
    (every pair margin ≥ 1; the last basis's pairs), or None (only if ``limited``)."""
    frame = CentredFrame(points)
    points = frame.points
    codes = np.asarray(codes, dtype=np.intp)
    K, p = n_classes, points.shape[1]
    rows, others = every_pair(codes, K)
    column_of = np.full(len(codes) * K, -1, dtype=np.intp)
    column_of[rows * K + others] = np.arange(rows.size)
    system = pairs_columns(points[rows], codes[rows], others, K)
    start = [column_of[i * K + k] for i, k in start if column_of[i * K + k] >= 0]
    found = farkas_simplex(system, start, limited=limited)
    if found is None:
        return None
    kind, answer = found
    if kind == "certificate":
        ids, weights = answer
        return kind, (rows[ids], others[ids], weights)
    y, tight = answer
    W, b = pairs_separator(y, K, p)  # every pair margin ≥ eᵀy = 1
    W, b = map(list, zip(*(frame.in_units(w, c) for w, c in zip(W, b))))
    return kind, (W, b, (rows[tight], others[tight]))


def pairs_columns(points, own, others, n_classes):
    """The :class:`FarkasColumns` of the pairs' system
    (:func:`~._farkas.pairs_matrix`), its redundant class rows left out."""
    e = pairs_matrix(points[:0], own[:0], others[:0], n_classes)[1]

    def columns(ids):
        return pairs_matrix(points[ids], own[ids], others[ids], n_classes)[0]

    groups = class_groups(n_classes, points.shape[1])
    return FarkasColumns(columns, len(own), e, groups=groups)


# ------------------------------------------------------- a certificate's weights


def exact_pair_weights(points, own, others, n_classes, problem_rows=0,
                       unlimited=False):  # fmt: skip
    """``(decided, μ)``: rational weights ``μ ≥ 0`` summing to 1 on these pairs
    that balance Kesler's rows exactly (None where there are none). ``decided``
    is False where the solve exceeds ``EXACT_SOLVE_WORK`` and the problem of
    ``problem_rows`` rows is beyond :func:`~._farkas.decidable` (a small one is
    always decided: its certificate's system is no larger), unless ``unlimited``."""
    pairs, features = np.shape(points)
    size = equations(features, n_classes)  # what the limits measure
    small = unlimited or decidable(problem_rows, features, n_classes)
    # The solve's work: its rref reads at most pairs + 1 independent equations.
    quick = unlimited or pairs * pairs * min(size, pairs + 1) <= EXACT_SOLVE_WORK
    if not (small or quick):
        return False, None
    A, e = pairs_matrix(points, own, others, n_classes)
    fits = unlimited or (small and pairs * size <= EXACT_ENTRIES)
    return _solved(A, e, class_groups(n_classes, features), quick, fits)


def _solved(A, e, groups, quick, fits):
    """``(decided, λ ≥ 0 or None)`` of ``A λ = e`` (float64, exact). Independent
    columns, the rule: the one solution decides (:func:`~._numbers.solve_exactly`,
    if ``quick``: within ``EXACT_SOLVE_WORK``). Dependent ones, or a small
    problem's solve beyond it, go to the simplex where the system ``fits``
    (``EXACT_ENTRIES``, or any size unlimited)."""
    unknowns = A.shape[1]
    if quick:
        status, found = solve_exactly(A, e)  # each entry made an fmpq once
        if status == "unique":
            return True, (found if all(value >= 0 for value in found) else None)
        if status == "none":
            return True, None
    if not fits:
        return False, None
    system = FarkasColumns(lambda ids: A[:, ids], unknowns, e, groups=groups)
    found = farkas_simplex(system, range(unknowns), limited=False)
    if found is None:  # a basis singular in exact arithmetic
        return False, None
    if found[0] != "certificate":
        return True, None
    return True, scattered(unknowns, *found[1])
