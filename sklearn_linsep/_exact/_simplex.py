"""Farkas' alternative decided exactly on every row: the simplex method in
rationals (FLINT), warm-started from a float certificate, priced in float64
with every rounding bounded.

Where float64 finds the classes inseparable only to a tolerance (a certificate
that neither its enclosure nor a rational solve on its rows proves), the
question is decided exactly on all the rows, at any size, by the LP

    min t  subject to  A λ + t e = e,  λ ≥ 0,  t ≥ 0,

over the columns of Farkas' system ``A λ = e`` (:func:`~._farkas.pairs_matrix`:
a column per (row, other class) pair; two classes are the case K = 2, a pair
per row). ``t = 1``,
``λ = 0`` is feasible, and every basis that holds the column of ``t`` is
(``B⁻¹ e`` is ``t``'s unit vector), so the method starts where the float
certificate points: ``t`` and the certificate's columns. Its optimum is

- ``t = 0``: ``λ = B⁻¹ e ≥ 0`` is a certificate, exact (Fractions);
- ``t = 1``: the dual ``y`` (``Bᵀ y`` = ``t``'s unit cost) has ``A_jᵀ y ≤ 0``
  on every column and ``eᵀ y = 1``: a separator, exact, with every pair
  margin at least 1 (see :func:`~._farkas.pairs_separator`).

Each step solves two systems of the basis's size in rationals
(``flint.fmpq_mat.solve``: 10 ms at 52 × 52, where Python's integers take
0.3 s) and prices every column in float64, ``|fl(A_jᵀ ỹ) - A_jᵀ y| ≤ bound``
(Higham's γ, and ``ỹ``'s own rounding); only the columns that bound leaves
undecided are priced in rationals. On near-touching data the float
certificate's columns are nearly the optimal basis: 0 or 1 steps (measured in
``benchmarks/bench_exact.py``).

The steps are degenerate but the last (every basic λ is 0): Dantzig's rule
(the largest price per unit column norm, preferring a step that ends the
method or moves a unit column out) for the first ``BLAND_AFTER`` steps,
Bland's after (the smallest index entering and leaving), which cannot cycle.
``EXACT_PIVOTS`` and ``EXACT_SIMPLEX_WORK`` bound them, and
``EXACT_SIMPLEX_EQUATIONS`` the system.
Where the optimal basis is far from the certificate's (classes jointly
separable by a hair, where the machine's every class needs its own tight
pairs), or there is no certificate, the steps start (again) from HiGHS's
optimum of the same LP with its equations made orthonormal. Beyond the bound
from both starts, the caller says the certificate holds to a tolerance only.

Most steps are not taken in rationals at all. From each start the same
steps are first taken in floating point (:func:`_float_pivots`, QSopt_ex's
approach): float64 LU solves refined with residuals in extended precision,
prices near 0 taken again in it, the largest pivot leaving. They stop where
they settle (no column prices positive, or ``t`` would leave), and the exact
steps check that basis, one step as a rule: K = 3 separable by a hair of
2^-44 took 144 exact steps (2.8 s) and now takes about 100 float ones and one
exact (0.2 s). A float step is a guess: every basis holding ``t`` is
feasible, and the one handed over is proved nonsingular by its determinant
modulo a prime, so a misstep costs exact steps, never the answer.
Everything is decided on the rows exactly centred (:class:`CentredFrame`):
offsets of 2^30 spreads otherwise leave every basis too ill-conditioned for
float steps, and the exact numbers 30 bits longer.
"""

import numpy as np

from ._dyadic import MODULUS
from ._enclosure import ROUNDING_UNIT, rounding_factor
from ._farkas import (
    EXACT_ENTRIES,
    EXACT_SOLVE_WORK,
    as_hyperplane,
    decidable,
    equations,
    every_pair,
    pairs_matrix,
    pairs_separator,
    side_pairs,
)
from ._frames import CentredFrame
from ._numbers import (
    as_fmpq,
    as_fraction,
    determinant_nonzero,
    fmpq_matrix,
    fraction,
    solve_exactly,
)

# The simplex steps before the decision is given up (the caller then says the
# certificate holds to a tolerance only): at most EXACT_PIVOTS, and at most
# EXACT_SIMPLEX_WORK / m³ on m equations (a step costs two exact solves: about
# 25 ms at m = 52, 0.11 s at 103, 0.6 s at 200), so that giving up costs a few
# seconds at any size. From a float certificate, near-touching cases take 0 to
# 3 steps; from no start (float64 found no certificate at all), tens.
EXACT_PIVOTS = 200
EXACT_SIMPLEX_WORK = 200 * 60**3
# Dantzig's rule, whose degenerate steps could cycle, gives way to Bland's
# (which cannot, but crawls over many columns) after this many steps.
BLAND_AFTER = 150
# Steps from float64's certificate before the start from HiGHS's optimum: the
# at-scale facet cases took 2-18 from wherever they finished; K = 3 separable
# by a hair ran out of 200 (2.3 s) and took 144 from HiGHS's.
CERTIFICATE_PIVOTS = 50
# Steps in floating point (:func:`_float_pivots`) before the exact ones, from
# HiGHS's start: K = 3 separable by a hair took 144 exact steps there (2.3 s),
# and takes 97-168 float ones (about 1 ms each at 43 equations, 3 ms at 63).
# Where they do not settle (K = 3, 2 000 x 30, scaled and offset: 2 000 steps
# in 7 s), the exact steps start from where they stopped.
FLOAT_PIVOTS = 1_000
# The float steps stop short of a basis of reciprocal condition below this
# (rows offset by 2^30 spreads make some): float64's LU solve has no correct
# digit there (cond · 2^-53 ≥ 8), refinement cannot converge, and the basis
# may be singular in exact arithmetic, where the exact steps could not start.
# Near-touching bases are ill-conditioned by nature (K = 3 by a hair of 2^-44
# reaches its answer through condition numbers near 2^50).
FLOAT_CONDITION = 2.0**-60
# Refinements of a float step's solve at most (each contracts the error by
# about cond · 2^-53).
REFINEMENTS = 8
# Columns tried in turn where a step's basis is that near singular.
FLOAT_RETRIES = 8
# From float64's certificate, fewer: where they do not settle (K = 3 by a
# hair wandered 1 244 steps from it, 143 from HiGHS's start), HiGHS's start.
CERTIFICATE_FLOAT_PIVOTS = 200
# What the refined float steps take for 0, relative to the sizes summed in a
# price or a step: 64 times the extended rounding unit (2^-58 with x87's
# long double; with none, 2^-47, and hairs are left to the exact steps).
FLOAT_RESOLUTION = 64 * float(np.finfo(np.longdouble).eps)
# The largest system stepped in rationals, in equations (p + 2 for two classes,
# (K - 1)(p + 1) + 1 jointly): FLINT's solve of a random float64 matrix took
# 0.011 s at 52, 0.057 s at 103, 0.30 s at 200, 2.7 s at 400 (two a step).
EXACT_SIMPLEX_EQUATIONS = 200
# HiGHS's time on one LP of the float start (a guess: without it, the steps
# start from unit columns). Its LPs take milliseconds, but on one system of
# features scaled by 2^±20 and offset (43 x 469), its dual simplex cycled in
# its cleanup for 950 s.
FLOAT_START_SECONDS = 1.0
# The steps of an unlimited decision: Bland's rule ends it long before.
UNLIMITED = 10**9
# Entering candidates whose step is estimated before one is taken.
LOOKAHEAD = 64
T = -1  # the column of t (e) in a basis; -2 - r, equation r's unit column
# Columns priced at once (times the system's equations): the float pass over
# every column is blockwise, so memory stays at a few tens of MB.
PRICE_BLOCK_ENTRIES = 4_000_000


class FarkasColumns:
    """The columns of Farkas' system ``A λ = e``, built on request.

    Parameters
    ----------
    columns : callable
        ``columns(ids)`` gives the float64 columns ``A[:, ids]``, every entry
        exact (a sign times an input, or 0 and 1).
    n_columns : int
    e : ndarray of shape (m,)
    groups : list of sequences of int, default=None
        Equations (row indices of ``A``) that sum to zero: the last one of
        each is left out, as are equations zero on every column, so that a
        basis of the rest can be square and nonsingular.
    """

    def __init__(self, columns, n_columns, e, groups=None):
        self.columns, self.n_columns = columns, n_columns
        self.equations = len(e)
        nonzero = np.asarray(e) != 0
        blocks = list(self.blocks())
        for block in blocks:
            A = columns(block)
            nonzero |= np.any(A != 0, axis=1)
        for group in groups or ():
            kept = [row for row in group if nonzero[row]]
            if kept:
                nonzero[kept[-1]] = False
        self.kept = np.flatnonzero(nonzero)
        self.e = np.asarray(e, dtype=float)[self.kept]
        # One block: the columns kept, not rebuilt at every step.
        self._whole = A[self.kept] if len(blocks) == 1 else None

    @property
    def m(self):
        """The equations kept: a basis is m × m."""
        return self.kept.size

    def blocks(self):
        """The column ids in blocks of about ``PRICE_BLOCK_ENTRIES`` entries."""
        size = max(1, PRICE_BLOCK_ENTRIES // max(self.equations, 1))
        return (np.arange(start, min(start + size, self.n_columns))
                for start in range(0, self.n_columns, size))  # fmt: skip

    def __call__(self, ids):
        ids = np.asarray(ids, dtype=np.intp)
        if self._whole is not None:
            if ids.size == self.n_columns and np.all(ids == np.arange(ids.size)):
                return self._whole  # every column in order: no copy
            return self._whole[:, ids]
        return self.columns(ids)[self.kept]


def farkas_simplex(system, start, max_pivots=EXACT_PIVOTS, limited=True):
    """Farkas' alternative on every column of ``system`` (a
    :class:`FarkasColumns`), exactly.

    The basis is ``t``, ``start``'s columns where they are independent, and
    unit columns of equations, variables fixed at 0 that leave at the first
    step that would move them and never return: the dual ``y`` is 0 on their
    equations until a column needs them. Where ``start`` is empty, or its
    steps run out, the steps start again from HiGHS's optimum of the same LP
    (:func:`_float_start`).

    Parameters
    ----------
    system : FarkasColumns
    start : sequence of int
        Columns to start from, the most wanted first (a float certificate's,
        by weight).
    max_pivots : int, default=EXACT_PIVOTS
    limited : bool, default=True
        False: no limit on the steps or the equations.

    Returns
    -------
    ("certificate", (ids, λ)) : the columns and their weights (Fractions > 0)
        with ``A[:, ids] λ = e`` exactly.
    ("separator", (y, tight)) : ``y`` Fractions, one per equation of ``A``
        (0 on those left out), with ``A_jᵀ y ≤ 0`` on every column and
        ``eᵀ y = 1``; ``tight`` the columns of the last basis, on which
        ``A_jᵀ y = 0``.
    None : beyond ``max_pivots`` steps or ``EXACT_SIMPLEX_EQUATIONS``
        equations (never without ``limited``: small problems, whose answer
        is owed whatever it costs), or a basis singular in exact arithmetic.
    """
    m = system.m
    if not limited:  # Bland's rule after BLAND_AFTER steps: it ends
        max_pivots = UNLIMITED
    elif m > EXACT_SIMPLEX_EQUATIONS:
        return None
    else:
        max_pivots = min(max_pivots, EXACT_SIMPLEX_WORK // m**3)
    columns = _ExactColumns(system)
    # From float64's certificate where there is one (0-3 steps as a rule);
    # where that is none, or its steps run out (K classes separable by a hair:
    # each class needs tight pairs of its own, far from the certificate's),
    # from HiGHS's optimum of the same LP.
    found = None
    if len(start):
        basis, settled = _float_pivots(system, _starting_basis(system, start),
                                       CERTIFICATE_FLOAT_PIVOTS)  # fmt: skip
        if settled:
            found = _pivots(system, basis, columns, min(max_pivots, CERTIFICATE_PIVOTS))
    if found is None:
        basis, _ = _float_pivots(system, _starting_basis(system, _float_start(system)))
        found = _pivots(system, basis, columns, max_pivots)
    return found


def _float_pivots(system, basis, max_pivots=FLOAT_PIVOTS):
    """``(basis, settled)``: ``basis`` moved by :func:`_pivots`' steps taken
    in floating point (each well under a millisecond, where an exact one
    takes ten), until no column prices positive or the next step would end
    the method (``settled``), a solve fails, or the steps run out: the basis
    the exact steps start from, as QSopt_ex starts from a float solver's.
    Dantzig's rule until a basis repeats, Bland's after; a step into a basis
    of reciprocal condition below ``FLOAT_CONDITION`` is not taken, another
    column enters instead. The solves are refined with residuals in
    extended precision (:func:`_refined_solves`) and prices near 0 taken
    again in it, so that a hair of 2^-44 of the spread keeps its sign. A
    guess all the same: every basis holding ``t`` is feasible, so a misstep
    costs exact steps, never the answer."""
    trail = [basis]
    settled = _float_steps(system, trail, max_pivots)
    if len(trail) == 1 and not settled and max_pivots:
        # A start too ill-conditioned for a float step (HiGHS's columns on
        # rows near touching: condition 1e17): from t and unit columns.
        trail = [basis, _starting_basis(system, [])]
        settled = _float_steps(system, trail, max_pivots)
    # Float64 cannot tell a singular basis from a near-touching one (both
    # reach condition numbers of 2^50 and more): the last basis a determinant
    # modulo a prime proves nonsingular is the one the exact steps take.
    for basis in reversed(trail):
        if _nonsingular(system, basis):
            return basis, settled
        settled = False
    # Not even the start (its columns chosen in float64): t and unit columns,
    # nonsingular by construction.
    return _starting_basis(system, []), False


def _float_steps(system, trail, max_pivots):
    """:func:`_float_pivots`' steps, each basis appended to ``trail``;
    whether they settled."""
    basis = trail[-1]
    try:
        solve = _refined_solves(_float_matrix(system, basis))
    except (np.linalg.LinAlgError, ValueError):  # near singular, not finite
        return False
    seen, bland, shunned = set(), False, []
    for _ in range(max_pivots):
        bland = bland or frozenset(basis) in seen
        seen.add(frozenset(basis))
        y = solve((np.asarray(basis) == T).astype(float), transposed=True)
        entering = _entering(system, y, basis, None, bland, shunned)
        if entering is None:
            return not shunned
        leaving = _float_leaving(basis, solve(system([entering])[:, 0]), bland)
        if leaving is None:
            return False
        if basis[leaving] == T:
            return True
        stepped = [*basis[:leaving], entering, *basis[leaving + 1:]]
        try:
            solve = _refined_solves(_float_matrix(system, stepped))
            basis, shunned = stepped, []
            trail.append(basis)
        except (np.linalg.LinAlgError, ValueError):
            # A basis float64 cannot tell from singular: another column
            # enters instead, up to FLOAT_RETRIES of them.
            shunned.append(entering)
            if len(shunned) > FLOAT_RETRIES:
                return False
    return False


def _nonsingular(system, basis):
    """Whether the basis's determinant is nonzero modulo ``MODULUS`` (then it
    is over the rationals; a False may, rarely, be a nonsingular basis)."""
    return determinant_nonzero(_float_matrix(system, basis), MODULUS)


def _refined_solves(B):
    """``solve(b, transposed=False)``: ``B⁻¹ b`` (or ``B⁻ᵀ b``) in
    ``np.longdouble``, float64's LU solve refined (up to ``REFINEMENTS``
    times) with residuals computed in extended precision (x87's 64-bit
    significand where numpy has it: about 2^-60 of the solution's size at
    moderate condition; float64's accuracy elsewhere). LinAlgError where
    ``B``'s reciprocal condition is below ``FLOAT_CONDITION``."""
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
    m = system.m
    B = np.zeros((m, m))
    lam = [i for i, j in enumerate(basis) if j > T]
    B[:, lam] = system([basis[i] for i in lam])
    for i, j in enumerate(basis):
        if j == T:
            B[:, i] = system.e
        elif j < T:
            B[-2 - j, i] = 1.0
    return B


def _float_leaving(basis, u, bland):
    """:func:`_leaving` on a refined float step ``u``, entries within
    ``FLOAT_RESOLUTION`` of its largest taken for 0: of the blocking ones
    (every step is degenerate: any may leave), the largest pivot, which keeps
    the next basis as well conditioned as it can be (with ``bland``, the
    smallest index); None where nothing blocks (rounding)."""
    tol = FLOAT_RESOLUTION * np.abs(u).max(initial=0.0)
    blocking = [i for i, j in enumerate(basis)
                if (j < T and abs(u[i]) > tol) or (j > T and u[i] > tol)]  # fmt: skip
    if blocking:
        if bland:
            return min(blocking, key=basis.__getitem__)
        return max(blocking, key=lambda i: abs(u[i]))
    at = basis.index(T)
    return at if u[at] > tol else None


def _pivots(system, basis, columns, max_pivots):
    """The simplex steps of :func:`farkas_simplex` from ``basis``."""
    m = system.m
    for step in range(max_pivots + 1):
        B = _matrix(columns(basis))
        try:
            y = B.transpose().solve(fmpq_matrix(m, 1, [int(j == T) for j in basis]))
        except ZeroDivisionError:  # singular in exact arithmetic
            return None
        y = [y[i, 0] for i in range(m)]
        entering = _entering(system, y, basis, columns, bland=step >= BLAND_AFTER)
        if entering is None:
            return "separator", (_full_dual(system, y), [j for j in basis if j > T])
        if step == max_pivots:
            return None
        u = B.solve(fmpq_matrix(m, 1, columns([entering])[0]))
        basis[_leaving(basis, [u[i, 0] for i in range(m)])] = entering
        if T not in basis:  # t left: t = 0, λ = B⁻¹ e
            return "certificate", _certificate(system, basis, columns)
    return None  # pragma: no cover


class _ExactColumns:
    """The basis's columns as lists of fmpq, each column converted once."""

    def __init__(self, system):
        self.system, self.cache = system, {}
        self.cache[T] = [as_fmpq(value) for value in system.e]

    def __call__(self, ids):
        missing = [j for j in ids if j not in self.cache and j >= 0]
        if missing:
            for j, column in zip(missing, self.system(missing).T, strict=True):
                self.cache[j] = [as_fmpq(value) for value in column]
        return [self.cache[j] if j >= T else self._unit(-2 - j) for j in ids]

    def _unit(self, row):
        return [as_fmpq(float(r == row)) for r in range(self.system.m)]


def _matrix(columns):
    """The square ``flint.fmpq_mat`` of these columns (lists of fmpq)."""
    m = len(columns)
    return fmpq_matrix(m, m, [columns[c][r] for r in range(m) for c in range(m)])


def _float_start(system):
    """Columns to start from where float64 gave no certificate, from HiGHS's
    optimum of the same LP, ``min t`` s.t. ``A λ + t e = e``: its positive
    ones, heaviest first, then the ``m`` its dual holds tightest. The
    equations are first made orthonormal: with ``[A e]ᵀ = Q R`` (each column
    at unit size), the system ``Qᵀ`` is ``R⁻ᵀ [A e]`` (features far apart in
    scale or offset leave A's rows far from orthogonal). A guess: the exact
    steps correct it."""
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
    # Where t = 0, the weighted columns; where t > 0 (the separable side, λ
    # may be 0), the columns its dual y holds tightest, A_jᵀ y nearest 0.
    order = np.argsort(-weights)
    heavy = order[weights[order] > 1e-12 * max(weights.max(initial=0.0), 1e-300)]
    reduced = -(rows.T @ dual)
    tight = np.argsort(np.abs(reduced), kind="stable")
    tight = tight[~np.isin(tight, heavy)][: system.m]
    return [int(j) for j in np.r_[heavy, tight]]


def _generated_columns_lp(rows, e, rounds=30):
    """``(λ, y)``: HiGHS's optimum of ``min t`` s.t. ``rows λ + t e = e``,
    ``λ ≥ 0``, and its dual, by column generation: the LP on a few columns
    (those nearest e's direction at first), every column priced by its dual,
    the most negative reduced costs joining, until none is left. On 10 052
    dense columns of 52 equations HiGHS took 0.7 s at once; a few LPs of a few
    hundred columns take a tenth of that. None where HiGHS fails, or takes
    over ``FLOAT_START_SECONDS`` on one, or the rounds run out."""
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
    """A column outside ``basis`` of positive price ``A_jᵀ y``: priced in
    float64 with the rounding bounded, in rationals where that bound leaves it
    undecided (with ``exact_columns`` None, ``y`` is a refined float one,
    prices within ``FLOAT_RESOLUTION`` are taken for 0 and none is exact);
    never one of ``shunned``. With ``bland`` the first; else, of the
    ``LOOKAHEAD`` largest per unit norm, one whose step (estimated in
    float64) would end the method (``t`` leaves), else one that would move a
    unit column out, else the largest: degenerate swaps of λ's are the steps
    that make no headway. None where every price is ≤ 0."""
    y_float = _float_dual(y) if exact_columns is not None else _scaled(y)
    candidates, scores = [], []
    for block in system.blocks():
        A = system(block)
        prices, bound = _prices(y_float, A, wide=exact_columns is None)
        outside = ~np.isin(block, [*basis, *shunned])
        positive = outside & (prices > bound)
        undecided = np.flatnonzero(outside & ~positive & (prices >= -bound))
        if undecided.size and exact_columns is not None:
            ids = block[undecided]
            rows = exact_columns(ids)
            exact = fmpq_matrix(len(ids), system.m, [v for row in rows for v in row])
            exact = exact * fmpq_matrix(system.m, 1, y)
            positive[undecided] = [exact[i, 0] > 0 for i in range(len(ids))]
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
    """``(Aᵀ y, bound)`` in float64, ``|fl(Aᵀ y) - Aᵀ y| ≤ bound`` for
    float64 ``y`` (Higham's γ); with ``wide``, ``y`` is a refined
    ``np.longdouble`` one and the columns that bound leaves near 0 are priced
    again in extended precision, their bound then ``FLOAT_RESOLUTION``'s (a
    guess's, not a proof's)."""
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
    """Of ``candidates`` (best first), the first whose step would end the
    method, else the first that would move a unit column out, else 0: the
    steps estimated by one float64 solve with the basis."""
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
    largest = np.abs(y).max(initial=0)
    if not largest:
        return y
    return y * np.longdouble(2.0) ** (1 - int(np.frexp(largest)[1]))


def _float_dual(y):
    """``ỹ``: ``y`` (fmpq) scaled by a power of two to a largest entry in
    [1/2, 2) (prices keep their signs), then correctly rounded (Python's
    integer division is)."""
    fractions = [(int(v.p), int(v.q)) for v in y]
    shift = -max((p.bit_length() - q.bit_length() for p, q in fractions if p),
                 default=0)  # fmt: skip
    if shift >= 0:
        return np.array([(p << shift) / q for p, q in fractions])
    return np.array([p / (q << -shift) for p, q in fractions])


def _leaving(basis, u):
    """The ratio test of a degenerate step: a unit column that the entering
    column would move (it is fixed at 0), else a basic λ (at 0) that it would
    make negative, the smallest index (Bland); else ``t``, which then falls
    to 0."""
    blocking = [i for i, j in enumerate(basis)
                if (j < T and u[i] != 0) or (j > T and u[i] > 0)]  # fmt: skip
    if blocking:
        return min(blocking, key=basis.__getitem__)
    at = basis.index(T)
    if not u[at] > 0:  # an unbounded step: impossible for min t with t ≥ 0
        raise AssertionError("the Farkas LP is bounded")  # pragma: no cover
    return at


def _certificate(system, basis, exact_columns):
    """``(ids, λ)`` of the basis without ``t``: ``λ = B⁻¹ e`` (≥ 0 and 0 on
    the unit columns: the last step kept it feasible), its positive entries."""
    m = system.m
    e = fmpq_matrix(m, 1, [as_fmpq(v) for v in system.e])
    solved = _matrix(exact_columns(basis)).solve(e)
    weights = [as_fraction(solved[i, 0]) for i in range(m)]
    if any(w < 0 or (w and j < T) for w, j in zip(weights, basis)):
        raise AssertionError("the certificate is feasible")  # pragma: no cover
    keep = [i for i in range(m) if weights[i] > 0]
    return np.array([basis[i] for i in keep], dtype=np.intp), [weights[i] for i in keep]


def _full_dual(system, y):
    """``y`` as Fractions on every equation of ``A`` (0 on those left out)."""
    full = [fraction(0)] * system.equations
    for row, value in zip(system.kept, y, strict=True):
        full[row] = as_fraction(value)
    return full


def decide_two_class_on_rows(points, signs, start, limited=True):
    """Farkas' alternative for two classes on every row, exactly: the case
    K = 2 of :func:`decide_pairs_on_rows` (a pair per row, :func:`~._farkas.
    side_pairs`), from the rows ``start`` (a float certificate's, heaviest
    first; empty: from HiGHS's optimum): ``("certificate", (ids, λ))`` with
    ``λ = 2 μ`` summing to 1 on each side, ``("separator", (w, b, tight))``
    in rationals with ``c_i (w·x_i + b) ≥ 1`` on every row and ``tight`` the
    rows of the last basis (the maximal margin's support as a rule:
    :func:`~._kkt.maximal_two_class_on_rows`), or None (never without
    ``limited``)."""
    own, others = side_pairs(signs)
    start = [(int(i), int(others[i])) for i in start]
    found = decide_pairs_on_rows(points, own, 2, start, limited)
    if found is None:
        return None
    kind, answer = found
    if kind == "certificate":
        rows, _, weights = answer
        return kind, (rows, [2 * value for value in weights])
    W, b, (tight, _) = answer
    return kind, (*as_hyperplane(W, b), tight)


def decide_pairs_on_rows(points, codes, n_classes, start, limited=True):
    """Farkas' alternative for K classes jointly on every pair (row, other
    class), exactly, from the pairs ``start`` (``(row, other)``, a float
    certificate's, heaviest first; empty: from HiGHS's optimum):
    ``("certificate", (rows, others, μ))``, ``("separator", (W, b, (rows,
    others)))`` in rationals with every pair margin ≥ 1 and the pairs of the
    last basis, or None (:func:`farkas_simplex`; never without ``limited``).
    Decided on the rows exactly centred (:class:`~._frames.CentredFrame`)."""
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
    """The :class:`FarkasColumns` of the pairs' system (:func:`~._farkas.
    pairs_matrix`: pair ``j`` is the row ``points[j]`` of class ``own[j]``
    against ``others[j]``), its redundant class rows left out."""
    e = pairs_matrix(points[:0], own[:0], others[:0], n_classes)[1]

    def columns(ids):
        return pairs_matrix(points[ids], own[ids], others[ids], n_classes)[0]

    groups = _class_groups(n_classes, points.shape[1])
    return FarkasColumns(columns, len(own), e, groups=groups)


def _class_groups(n_classes, features):
    """The equations of the pairs' system that sum to zero: per feature (and
    the constant), its K class rows (each pair adds ``e_own - e_other``)."""
    width = features + 1
    return [range(f, n_classes * width, width) for f in range(width)]


# ------------------------------------------------------- a certificate's weights


def exact_pair_weights(points, own, others, n_classes, problem_rows=0,
                       unlimited=False):  # fmt: skip
    """``(decided, μ)``: rational weights ``μ ≥ 0`` summing to 1 on these pairs
    that balance Kesler's rows exactly (None where there are none). ``decided``
    is False where the solve is beyond ``EXACT_SOLVE_WORK`` and the problem of
    ``problem_rows`` rows the certificate speaks of is beyond
    :func:`~._farkas.decidable` (a small problem is always decided: its
    certificate's system is no larger than its own), unless ``unlimited``."""
    pairs, features = np.shape(points)
    small = unlimited or decidable(problem_rows, features, n_classes)
    if not (small or _quick(pairs, equations(features, n_classes))):
        return False, None
    A, e = pairs_matrix(points, own, others, n_classes)
    size = equations(features, n_classes)  # what the limits measure
    return _solved(A, e, _class_groups(n_classes, features), size, small, unlimited)


def _quick(unknowns, equations):
    """Whether a certificate's solve is within ``EXACT_SOLVE_WORK``."""
    return unknowns * unknowns * equations <= EXACT_SOLVE_WORK


def _solved(A, e, groups, size, small, unlimited):
    """``(decided, λ ≥ 0 or None)`` of ``A λ = e`` (float64, exact entries;
    ``size`` its equations as the limits measure them: two classes' p + 2,
    not the K = 2 system's redundant rows): a certificate's columns are
    independent as a rule, and then the one solution decides
    (:func:`~._numbers.solve_exactly`); dependent ones go to the simplex on
    its columns where the system fits ``EXACT_ENTRIES`` (any size if
    ``unlimited``), as does a solve beyond ``EXACT_SOLVE_WORK`` of a
    ``small`` problem."""
    unknowns = A.shape[1]
    if unlimited or _quick(unknowns, size):
        status, found = solve_exactly(A, e)  # each entry made an fmpq once
        if status == "unique":
            return True, (found if all(value >= 0 for value in found) else None)
        if status == "none":
            return True, None
    if not (unlimited or (small and unknowns * size <= EXACT_ENTRIES)):
        return False, None
    system = FarkasColumns(lambda ids: A[:, ids], unknowns, e, groups=groups)
    found = farkas_simplex(system, range(unknowns), limited=False)
    if found is None:  # a basis singular in exact arithmetic
        return False, None
    if found[0] != "certificate":
        return True, None
    weights = [fraction(0)] * unknowns
    for j, value in zip(*found[1], strict=True):
        weights[j] = value
    return True, weights
