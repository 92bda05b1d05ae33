"""Exact rational arithmetic for the proofs: Farkas' alternative decided over
the rationals, on the float64 inputs as they are.

Every float64 is a rational (a dyadic one), so a statement about the rows as
given can be decided exactly: :class:`fractions.Fraction` of a float is exact.
The routines here are a fraction-free solve in Python's integers and small dense
simplex steps in its rationals, meant for the few rows a proof names where the
float enclosure (``_enclosure.enclosed_positive``) cannot decide (a certificate has
at most p + 2 rows for two classes, (K - 1)(p + 1) + 1 pairs jointly), and for
small problems that float64 cannot decide (classes within 1e-13 of touching).
Their cost grows quickly with the size: ``EXACT_SOLVE_WORK`` bounds a
certificate's solve and ``EXACT_ENTRIES`` the systems of the first phase (a
whole small problem). The systems are built once in float64, whose entries
(signs times inputs) are exact (:func:`two_class_matrix`,
:func:`pairs_matrix`), for the enclosure and the rationals alike.

Two systems speak of separability (Farkas' lemma):

- **two classes** (:func:`two_class_system`): weights ``λ ≥ 0`` on the rows,
  summing to 1 on each side, with ``Σ λ_i c_i x_i = 0`` (a point in both convex
  hulls), or else ``w, b`` with ``c_i (w·x_i + b) > 0`` on every row;
- **K classes jointly** (:func:`pairs_system`): weights ``μ ≥ 0`` on pairs (row
  i, other class k), summing to 1, with ``Σ μ (e_{y_i} - e_k) ⊗ (x_i, 1) = 0``, or
  else a machine ``W, b`` whose every pair margin is positive.
"""

import numpy as np

from ._dyadic import (
    MODULUS,
    integer_rows,
    integer_shifts,
    prime_residues,
    residue_matrix,
    row_chunks,
)
from ._enclosure import ROUNDING_UNIT, rounding_factor

# The largest problems decided in rationals, as their Farkas system's entries
# (equations times unknowns): the first phase's tableau of Fractions took 19 x 80
# (K = 3, p = 5, n = 40) ~10 ms, 12 x 100 inseparable 2 s, 67 x 56 78 s.
EXACT_ENTRIES = 1_600
# The largest certificate solved in rationals where the float enclosure cannot
# decide it, as the fraction-free elimination's work (equations times unknowns
# squared): 22 x 22 (p = 20) 0.01-0.02 s, 32 x 32 0.04 s, 42 x 42 0.2-0.3 s,
# 102 x 102 6.7 s (its integers grow to ~10 000 bits); a degenerate certificate
# of 5 rows at p = 768 costs 5 x 5 x 770.
EXACT_SOLVE_WORK = 42**3


def rational(values):
    """Exact Fractions of float64 values (an int or a float each)."""
    from fractions import Fraction  # on first use: not at import

    return [Fraction(float(value)) for value in np.ravel(values)]


def farkas_alternative(A, e):
    """Exactly one of ``λ ≥ 0`` with ``A λ = e``, or ``y`` with ``Aᵀ y ≤ 0`` and
    ``eᵀ y > 0``, found by the simplex method's first phase in rationals
    (Bland's rule: it cannot cycle).

    Parameters
    ----------
    A : list of m lists of n Fractions
    e : list of m Fractions

    Returns
    -------
    ("solution", λ) or ("ray", y) : a tag and a list of Fractions
    """
    from fractions import Fraction  # on first use: not at import

    m, n = len(A), len(A[0]) if A else 0
    flip = [-1 if value < 0 else 1 for value in e]
    # The tableau of min Σ a subject to (S A) λ + a = S e, λ, a ≥ 0, S the flips.
    rows = [
        [flip[i] * A[i][j] for j in range(n)]
        + [Fraction(int(i == k)) for k in range(m)]
        + [flip[i] * e[i]]
        for i in range(m)
    ]
    basis = [n + i for i in range(m)]
    # The reduced costs as one more row (cost 1 on each artificial, priced out),
    # kept by the pivots.
    reduced = [-sum(row[j] for row in rows) for j in range(n)] + [Fraction(0)] * m
    reduced.append(-sum(row[-1] for row in rows))
    while True:
        entering = next((j for j in range(n + m) if reduced[j] < 0), None)
        if entering is None:
            break
        leaving = _ratio_test(rows, basis, entering)
        if leaving is None:  # unbounded below: impossible for Σ a ≥ 0
            raise AssertionError("phase one is bounded")  # pragma: no cover
        _pivot(rows, reduced, leaving, entering)
        basis[leaving] = entering
    if reduced[-1] == 0:  # Σ a = 0: λ solves A λ = e
        weights = [Fraction(0)] * n
        for i, column in enumerate(basis):
            if column < n:
                weights[column] = rows[i][-1]
        return "solution", weights
    # The dual u of phase one: reduced cost of artificial i is 1 - u_i.
    return "ray", [flip[i] * (1 - reduced[n + i]) for i in range(m)]


def _ratio_test(rows, basis, entering):
    """The leaving row: least ratio, ties to the smallest basic index (Bland)."""
    best = None
    for i, row in enumerate(rows):
        if row[entering] > 0:
            ratio = row[-1] / row[entering]
            if best is None or (ratio, basis[i]) < (best[0], basis[best[1]]):
                best = (ratio, i)
    return None if best is None else best[1]


def _pivot(rows, reduced, leaving, entering):
    pivot_row = rows[leaving]
    pivot = pivot_row[entering]
    rows[leaving] = pivot_row = [value / pivot for value in pivot_row]
    for row in [*rows[:leaving], *rows[leaving + 1 :], reduced]:
        factor = row[entering]
        if factor:
            row[:] = [a - factor * b for a, b in zip(row, pivot_row)]


def two_class_matrix(points, signs, constants=True):
    """``(A, e)`` in float64 of the two-class Farkas system on these rows:
    ``Σ λ c x = 0`` per feature, ``Σ_{c>0} λ = 1``, ``Σ_{c<0} λ = 1`` (the last
    two rows zero without ``constants``). Every entry is a sign times an input,
    so exact: the system is the rational one."""
    points = np.asarray(points, dtype=float)
    signs = np.sign(np.asarray(signs, dtype=float))
    sides = np.vstack([signs > 0, signs < 0]).astype(float)
    A = np.vstack([(signs[:, None] * points).T, sides if constants else 0 * sides])
    return A, np.r_[np.zeros(points.shape[1]), 1.0, 1.0]


def two_class_system(points, signs):
    """``(A, e)`` of :func:`two_class_matrix` in rationals; a ray ``y`` gives
    the hyperplane ``w = -y[:p]``, ``b = (y[p+1] - y[p]) / 2`` (see
    :func:`two_class_separator`)."""
    return in_rationals(*two_class_matrix(points, signs))


def in_rationals(A, e):
    """A float64 system as lists of exact Fractions."""
    return [rational(row) for row in A], rational(e)


def two_class_separator(ray, p):
    """``(w, b)`` in rationals from a ray of :func:`two_class_system`: with
    ``y = (v, y₊, y₋)``, ``Aᵀ y ≤ 0`` says ``c_i x_i·v + y_side ≤ 0``, so
    ``w = -v`` puts the positive rows at ``≥ y₊`` and the negative ones at
    ``≤ -y₋``, and ``y₊ + y₋ > 0`` leaves room for ``b`` between them."""
    w = [-value for value in ray[:p]]
    return w, (ray[p + 1] - ray[p]) / 2


def pairs_matrix(points, own, others, n_classes, constants=True):
    """``(A, e)`` in float64 of the K-class Farkas system on pairs (row
    ``points[j]`` of class ``own[j]``, other class ``others[j]``): per class and
    feature, and per class for the constant (zero without ``constants``),
    ``Σ μ (e_own - e_other) ⊗ (x, 1) = 0``; and ``Σ μ = 1``. Exact entries, as
    :func:`two_class_matrix`'s."""
    points = np.asarray(points, dtype=float)
    m, p = points.shape
    extended = np.hstack([points, np.full((m, 1), float(constants))])
    classes = np.arange(n_classes)[:, None]
    sign = (np.asarray(own) == classes).astype(float) - (np.asarray(others) == classes)
    A = (sign[:, None, :] * extended.T[None]).reshape(n_classes * (p + 1), m)
    A = np.vstack([A, np.ones((1, m)) if constants else np.zeros((1, m))])
    return A, np.r_[np.zeros(n_classes * (p + 1)), 1.0]


def pairs_system(points, own, others, n_classes):
    """``(A, e)`` of :func:`pairs_matrix` in rationals."""
    return in_rationals(*pairs_matrix(points, own, others, n_classes))


def pairs_separator(ray, n_classes, p):
    """``(W, b)`` in rationals (K rows of p, K) from a ray of
    :func:`pairs_system`: ``Aᵀ y ≤ 0`` with ``y_last > 0`` gives every pair
    ``(w_own - w_other)·x + b_own - b_other ≥ y_last > 0`` for ``-y``."""
    width = p + 1
    W = [[-ray[k * width + f] for f in range(p)] for k in range(n_classes)]
    b = [-ray[k * width + p] for k in range(n_classes)]
    return W, b


def decidable(rows, features, n_classes=2):
    """Whether the Farkas system of ``rows`` rows of ``features`` features
    (two classes, or K jointly: every pair) is within ``EXACT_ENTRIES``: the
    rows can then be decided in rationals whatever a float certificate says."""
    if n_classes == 2:
        return rows * (features + 2) <= EXACT_ENTRIES
    equations = n_classes * (features + 1) + 1
    return rows * (n_classes - 1) * equations <= EXACT_ENTRIES


def problem_rows(rows):
    """The rows a rational decision of the whole problem would read (a
    two-class or pairs rows object): its active rows in memory; none is made
    on blocks (dask: ``cheap_passes`` False), so infinitely many there."""
    return np.count_nonzero(rows.active) if rows.cheap_passes else np.inf


def fits(A):
    """Whether the system is small enough for rationals (``EXACT_ENTRIES``)."""
    return len(A) * (len(A[0]) if A else 0) <= EXACT_ENTRIES


def exact_two_class_weights(points, signs, problem_rows=0, unlimited=False):
    """``(decided, λ)``: rational weights ``λ ≥ 0`` on these rows, summing to 1
    on each side, whose two combinations coincide exactly (None where there are
    none). ``decided`` is False where the solve is beyond ``EXACT_SOLVE_WORK``
    and the problem of ``problem_rows`` rows the certificate speaks of is beyond
    :func:`decidable` (a small problem is always decided: its certificate's
    system is no larger than its own), unless ``unlimited``."""
    rows, features = np.shape(points)
    small = unlimited or decidable(problem_rows, features)
    if not (small or _quick(rows, features + 2)):
        return False, None
    return _solved(*two_class_system(points, signs), small, unlimited)


def exact_pair_weights(points, own, others, n_classes, problem_rows=0,
                       unlimited=False):  # fmt: skip
    """``(decided, μ)``: rational weights ``μ ≥ 0`` summing to 1 on these pairs
    that balance Kesler's rows exactly (None where there are none), as
    :func:`exact_two_class_weights`."""
    pairs, features = np.shape(points)
    small = unlimited or decidable(problem_rows, features, n_classes)
    if not (small or _quick(pairs, n_classes * (features + 1) + 1)):
        return False, None
    return _solved(*pairs_system(points, own, others, n_classes), small, unlimited)


def _quick(unknowns, equations):
    """Whether a certificate's fraction-free solve is within ``EXACT_SOLVE_WORK``."""
    return unknowns * unknowns * equations <= EXACT_SOLVE_WORK


def _solved(A, e, small=False, unlimited=False):
    """``(decided, λ ≥ 0 or None)`` of ``A λ = e``: a certificate's columns are
    independent as a rule, and then the one solution decides (fraction-free, in
    integers: :func:`unique_solution`); dependent ones go to the first phase
    where the system fits ``EXACT_ENTRIES`` (any size if ``unlimited``), as
    does a solve beyond ``EXACT_SOLVE_WORK`` of a ``small`` problem."""
    unknowns = len(A[0]) if A else 0
    if unlimited or _quick(unknowns, len(A)):
        status, found = unique_solution(A, e)
        if status == "unique":
            return True, (found if all(value >= 0 for value in found) else None)
        if status == "none":
            return True, None
    if not (unlimited or (small and fits(A))):
        return False, None
    tag, found = farkas_alternative(A, e)
    return True, (found if tag == "solution" else None)


def unique_solution(A, e):
    """``("unique", λ)`` where ``A λ = e`` has exactly one solution (A's columns
    independent), ``("none", None)`` where it has none and A's columns are
    independent, ``("dependent", None)`` otherwise.

    Each equation is first multiplied by the power of two that makes its
    entries integers (float64 values are dyadic: the solution does not change),
    then eliminated fraction-free (Bareiss 1968: every division exact, the
    entries minors of A, never a gcd), and only the last back substitution
    takes rationals. A 42 × 42 certificate (p = 40) took 35 s as a rational
    simplex, 0.05 s this way.
    """
    from fractions import Fraction  # on first use: not at import

    M = []
    for row, target in zip(A, e, strict=True):
        values = [*row, target]
        scale = max(value.denominator for value in values)  # powers of two
        M.append([int(value * scale) for value in values])
    m, k = len(M), len(M[0]) - 1
    previous = 1
    for col in range(k):
        pivot = next((r for r in range(col, m) if M[r][col]), None)
        if pivot is None:
            return "dependent", None
        M[col], M[pivot] = M[pivot], M[col]
        head = M[col]
        for r in range(col + 1, m):
            factor = M[r][col]
            M[r] = [(head[col] * a - factor * b) // previous
                    for a, b in zip(M[r], head)]  # fmt: skip
        previous = head[col]
    if any(M[r][k] for r in range(k, m)):
        return "none", None
    solution = [Fraction(0)] * k
    for i in reversed(range(k)):
        rest = sum((M[i][j] * solution[j] for j in range(i + 1, k)), Fraction(0))
        solution[i] = (M[i][k] - rest) / M[i][i]
    return "unique", solution


def decide_two_class(points, signs):
    """Farkas' alternative for two classes on these rows, exactly:
    ``("certificate", λ)`` (rational weights, as :func:`exact_two_class_weights`)
    or ``("separator", (w, b))``, rationals with ``c_i (w·x_i + b) ≥ 1`` on every
    row and equality on one; None beyond ``EXACT_ENTRIES``."""
    points = np.asarray(points, dtype=float)
    A, e = two_class_system(points, signs)
    if not fits(A):
        return None
    tag, found = farkas_alternative(A, e)
    if tag == "solution":
        return "certificate", found
    w, b = two_class_separator(found, points.shape[1])
    least = least_margin(points, signs, w, b)
    return "separator", ([value / least for value in w], b / least)


def decide_pairs(points, codes, n_classes):
    """Farkas' alternative for K classes jointly on these rows (every pair of a
    row and another class), exactly: ``("certificate", (rows, others, μ))`` or
    ``("separator", (W, b))`` with every pair margin ≥ 1 and one equal; None
    beyond ``EXACT_ENTRIES``."""
    points = np.asarray(points, dtype=float)
    codes = np.asarray(codes, dtype=np.intp)
    rows = np.repeat(np.arange(len(codes)), n_classes)
    others = np.tile(np.arange(n_classes), len(codes))
    keep = others != codes[rows]
    rows, others = rows[keep], others[keep]
    A, e = pairs_system(points[rows], codes[rows], others, n_classes)
    if not fits(A):
        return None
    tag, found = farkas_alternative(A, e)
    if tag == "solution":
        return "certificate", (rows, others, found)
    W, b = pairs_separator(found, n_classes, points.shape[1])
    least = least_pair_margin(points, codes, n_classes, W, b)
    return "separator", (
        [[value / least for value in row] for row in W],
        [value / least for value in b],
    )


def solves_exactly(A, e, weights):
    """Whether rational ``weights ≥ 0`` solve ``A λ = e`` exactly (``A``, ``e``
    float64 with exact entries, as :func:`two_class_matrix`'s): a stored
    certificate checked without solving for it."""
    if weights is None or len(weights) != np.shape(A)[1]:
        return False
    if any(value < 0 for value in weights):
        return False
    return all(exact_dot(rational(row), weights) == rational(target)[0]
               for row, target in zip(A, e, strict=True))  # fmt: skip


def exact_dot(w, x):
    """``Σ w_k x_k`` of two sequences of rationals (Fractions or ints), exactly."""
    from fractions import Fraction  # on first use: not at import

    return sum((a * b for a, b in zip(w, x, strict=True)), Fraction(0))


def least_margin(points, signs, w, b):
    """``min_i c_i (w·x_i + b)`` exactly, for rational ``w``, ``b``: every row
    bounded in float64 first (:func:`bounded_scores`), only those that may be
    the least evaluated in rationals."""
    points = np.asarray(points, dtype=float)
    c = np.sign(np.asarray(signs, dtype=float))
    scores = bounded_scores(points, [w], [b])
    rows = np.arange(len(points))
    if scores is not None:
        value, radius = scores
        margins = c * value[:, 0]
        rows = np.flatnonzero(margins - radius[:, 0] <= np.min(margins + radius[:, 0]))
    return min(int(c[i]) * (exact_dot(w, rational(points[i])) + b) for i in rows)


def least_pair_margin(points, codes, n_classes, W, b):
    """The least pair margin of the machine ``W``, ``b`` exactly, the pairs
    bounded in float64 first as :func:`least_margin`'s rows."""
    points = np.asarray(points, dtype=float)
    codes = np.asarray(codes, dtype=np.intp)
    rows, others = np.repeat(np.arange(len(codes)), n_classes), np.tile(
        np.arange(n_classes), len(codes)
    )
    keep = others != codes[rows]
    rows, others = rows[keep], others[keep]
    scores = bounded_scores(points, W, b)
    if scores is not None:
        margins, spread = bounded_pair_margins(*scores, rows, codes[rows], others)
        near = margins - spread <= np.min(margins + spread)
        rows, others = rows[near], others[near]
    exact = _exact_pair_margins(points, codes, n_classes, W, b, rows, others)
    return min(exact, default=None)


def bounded_pair_margins(value, radius, rows, own, others):
    """``(margins, spread)``: the pairs' margins from :func:`bounded_scores`'
    ``(value, radius)`` (row ``rows[j]``, class ``own[j]`` against
    ``others[j]``), each within ``spread`` of the exact one."""
    margins = value[rows, own] - value[rows, others]
    spread = radius[rows, own] + radius[rows, others]
    spread += 2 * ROUNDING_UNIT * np.abs(margins)  # the subtraction's own
    return margins, spread


def _exact_pair_margins(points, codes, n_classes, W, b, rows, others):
    """The margins of the pairs ``(rows, others)`` in rationals (Fractions),
    each row's K scores computed once, in FLINT's rationals (Python's
    Fractions spent 2 s in gcd on 80 pairs of a machine of 16 classes whose
    entries have hundreds of digits)."""
    import flint  # on first use: not at import

    if not rows.size:
        return []
    unique, position = np.unique(rows, return_inverse=True)
    entries = [as_fmpq(v) for v in points[unique].ravel().tolist()]
    X = flint.fmpq_mat(unique.size, points.shape[1], entries)
    machine = flint.fmpq_mat(n_classes, points.shape[1],
                             [as_fmpq(v) for w in W for v in w])  # fmt: skip
    scores = (X * machine.transpose()).tolist()
    intercepts = [as_fmpq(v) for v in b]
    exact = []
    for at, i, k in zip(position.tolist(), rows.tolist(), others.tolist()):
        own = int(codes[i])
        value = scores[at][own] - scores[at][k] + intercepts[own] - intercepts[k]
        exact.append(as_fraction(value))
    return exact


def as_fmpq(value):
    """A float (numpy's too), int or Fraction as a ``flint.fmpq``, exactly."""
    from fractions import Fraction  # on first use: not at import

    import flint  # on first use: not at import

    if isinstance(value, (float, np.floating)):
        return flint.fmpq(*float(value).as_integer_ratio())
    value = value if isinstance(value, Fraction) else Fraction(int(value))
    return flint.fmpq(value.numerator, value.denominator)


def residues(values):
    """:func:`residue_matrix` of ``values`` as Python ints in a flat list."""
    return residue_matrix(np.ravel(values)).tolist()


def as_fraction(value):
    """A ``flint.fmpq`` as a :class:`fractions.Fraction`."""
    from fractions import Fraction  # on first use: not at import

    return Fraction(int(value.p), int(value.q))


def bounded_scores(points, W, b):
    """``(scores, radius)``: ``x_i·w_k + b_k`` in float64 for every row and
    hyperplane (rows of ``W``, rationals), each within ``radius`` of the exact
    value (Higham's γ with ``w``'s own rounding; entries below float64's
    normal range counted at its smallest step); None where a value does not
    fit float64."""
    try:
        W_float = np.array([[float(v) for v in w] for w in W], dtype=float)
        b_float = np.array([float(v) for v in b], dtype=float)
    except OverflowError:
        return None
    with np.errstate(all="ignore"):
        scores = points @ W_float.T + b_float
        magnitude = np.abs(points) @ np.abs(W_float).T + np.abs(b_float)
        gamma = rounding_factor(points.shape[1] + 2) + 2 * ROUNDING_UNIT
        radius = gamma * magnitude * (1 + gamma) + (
            np.abs(points).sum(axis=1, keepdims=True) + 1
        ) * 2.0**-1070
    if not (np.all(np.isfinite(scores)) and np.all(np.isfinite(radius))):
        return None
    return scores, radius


def exact_maximal_margin(points, signs, w, b):
    """``(w, b, multipliers)``: the maximal-margin hyperplane of these rows in
    rationals (``min ½‖w‖²`` subject to ``c_i (w·x_i + b) ≥ 1``), with the
    multiplier of each active row (a dict), from the separator ``(w, b)``
    (margins ≥ 1, one equal); None where :func:`exact_active_set` does not
    settle."""
    points = np.asarray(points, dtype=float)
    rows = [
        [int(np.sign(s)) * value for value in rational(x)] + [int(np.sign(s))]
        for x, s in zip(points, signs, strict=True)
    ]
    found = exact_active_set(rows, [*w, b], points.shape[1])
    if found is None:
        return None
    z, multipliers = found
    return z[:-1], z[-1], multipliers


def exact_maximal_machine(points, codes, n_classes, W, b):
    """``(W, b, multipliers)``: the Crammer–Singer maximal margin of these rows
    in rationals (``min ½ Σ‖w_k‖²`` subject to every pair margin
    ``(w_y - w_k)·x + b_y - b_k ≥ 1``), with the multiplier of each active pair
    (a dict keyed by (row, other class)), from the machine ``(W, b)`` (every
    pair margin ≥ 1, one equal); None where :func:`exact_active_set` does not
    settle. The intercepts are fixed up to a common shift: ``b_K`` is held at 0."""
    from fractions import Fraction  # on first use: not at import

    points = np.asarray(points, dtype=float)
    p, K = points.shape[1], n_classes
    rows, pairs = [], []
    for i, (x, own) in enumerate(zip(points, codes, strict=True)):
        x = rational(x)
        for k in range(K):
            if k == own:
                continue
            row = [Fraction(0)] * (K * p + K - 1)
            for sign, cls in ((1, own), (-1, k)):
                row[cls * p : (cls + 1) * p] = [sign * v for v in x]
                if cls < K - 1:
                    row[K * p + cls] = Fraction(sign)
            rows.append(row)
            pairs.append((i, k))
    start = [v for w in W for v in w] + [b[k] - b[K - 1] for k in range(K - 1)]
    found = exact_active_set(rows, start, K * p)
    if found is None:
        return None
    z, multipliers = found
    W = [z[k * p : (k + 1) * p] for k in range(K)]
    b = [*z[K * p :], Fraction(0)]
    return W, b, {pairs[j]: value for j, value in multipliers.items()}


def exact_active_set(rows, start, penalized):
    """``(z, multipliers)``: ``min ½ Σ_{f < penalized} z_f²`` subject to
    ``a_j·z ≥ 1`` for every row ``a_j`` of ``rows``, exactly, by the primal
    active-set method from the feasible ``start`` (one constraint tight); the
    multipliers of the active rows (a dict). None where it does not settle
    within its iterations or an equality QP is singular.

    Each step solves the equality QP of the active rows exactly
    (:func:`unique_solution`) and moves toward it as far as the other rows
    allow; the row that blocks joins (independent of the active ones: the step
    keeps those at 1 and lowers it), and at the equality QP's solution a row of
    negative multiplier leaves (the smallest index: Bland's rule). Its cost is
    a pass over the rows in rationals a step, for problems within
    ``EXACT_ENTRIES``.
    """
    n = len(rows)
    z = list(start)
    margins = [exact_dot(row, z) for row in rows]
    active = [min(range(n), key=margins.__getitem__)]
    for _ in range(20 * n + 20):
        solved = _equality_qp(rows, active, penalized, z)
        if solved is None:
            return None
        target, multipliers = solved
        direction = [t - v for t, v in zip(target, z, strict=True)]
        if not any(direction):
            leaving = [j for j, m in zip(active, multipliers, strict=True) if m < 0]
            if not leaving:
                return z, dict(zip(active, multipliers, strict=True))
            active.remove(min(leaving))
            continue
        step, blocking = 1, None
        for j in range(n):
            slope = exact_dot(rows[j], direction)
            if j in active or slope >= 0:
                continue
            ratio = (exact_dot(rows[j], z) - 1) / -slope
            if ratio < step or (ratio == step and blocking is None):
                step, blocking = ratio, j
        z = [v + step * d for v, d in zip(z, direction, strict=True)]
        if blocking is not None:
            active.append(blocking)
    return None


def _equality_qp(rows, active, penalized, z):
    """``(z*, multipliers)`` of ``min ½ Σ_{f < penalized} z_f²`` subject to
    ``a_j·z = 1`` on the active rows: stationarity ``z_f = Σ μ_j a_j[f]`` for
    the penalized coordinates and ``Σ μ_j a_j[f] = 0`` for the free ones; None
    where its system is singular.

    Where the active rows leave directions ``d`` of the free coordinates
    unconstrained (``a_j·d = 0``: the objective is flat along them, as for the
    K intercepts up to a common shift), each is held at ``z``'s value by one
    more equation. Its multiplier is zero at the solution (``d`` is orthogonal
    to the active rows and to the objective's gradient), so the stationarity
    that the method's optimality test reads is the unpinned problem's."""
    from fractions import Fraction  # on first use: not at import

    width, k = len(rows[0]), len(active)
    pins = _null_space([rows[j][penalized:] for j in active], width - penalized)
    pins = [[Fraction(0)] * penalized + d for d in pins]
    zero, one = Fraction(0), Fraction(1)
    extra = len(pins)
    system, right = [], []
    for f in range(width):
        system.append([one if (g == f and f < penalized) else zero
                       for g in range(width)]
                      + [-rows[j][f] for j in active]
                      + [-d[f] for d in pins])  # fmt: skip
        right.append(zero)
    for j in active:  # the active rows at margin 1
        system.append(list(rows[j]) + [zero] * (k + extra))
        right.append(one)
    for d in pins:  # the flat directions held
        system.append(list(d) + [zero] * (k + extra))
        right.append(exact_dot(d, z))
    status, solution = unique_solution(system, right)
    if status != "unique":
        return None
    return solution[:width], solution[width : width + k]


def _null_space(matrix, columns):
    """A basis (lists of Fractions) of ``{d : M d = 0}`` for the rational
    matrix ``M`` (lists of ``columns`` entries), by reduced row echelon form."""
    from fractions import Fraction  # on first use: not at import

    reduced = [list(row) for row in matrix]
    pivots = []
    for col in range(columns):
        row = next((r for r in range(len(pivots), len(reduced)) if reduced[r][col]),
                   None)  # fmt: skip
        if row is None:
            continue
        top = len(pivots)
        reduced[top], reduced[row] = reduced[row], reduced[top]
        head = reduced[top]
        reduced[top] = head = [value / head[col] for value in head]
        for r in range(len(reduced)):
            if r != top and reduced[r][col]:
                factor = reduced[r][col]
                reduced[r] = [a - factor * b for a, b in zip(reduced[r], head)]
        pivots.append(col)
    basis = []
    for free in (col for col in range(columns) if col not in pivots):
        d = [Fraction(0)] * columns
        d[free] = Fraction(1)
        for r, col in enumerate(pivots):
            d[col] = -reduced[r][free]
        basis.append(d)
    return basis


# The span of the within-class differences (SPEC §13): whether d, the
# difference of two class means, lies in the range of their pooled scatter S.
# S's range is the span of the rows' differences to one row of their own
# class (a pivot), and d lies in it exactly where the difference of the two
# pivots does; so the question is one of integers once each feature is
# scaled by a power of two.
# The primes the span's structure is read modulo: below 2^31 (their products
# fit 64 bits, so residues are vectorised) and with 2 of multiplicative order
# above 10 000 (2^61 is 1 modulo 2^61 - 1: data holding 1 and 2^61 in a
# feature would look dependent there). A second where the first misleads.
SPAN_PRIMES = (2_147_483_629, 2_147_483_587)
# The largest rational solve taken, as rank³ · (bits / 53)^1.6 of its integer
# system (FLINT's solve of a 200 x 200 system took 0.09 s at 53 bits, 3.4 s at
# 500 and 21 s at 1 500; this is about 6 s).
EXACT_SPAN_WORK = 6e8


def _echelon_pivots(residues, prime):
    """``(rank, pivot columns)`` of an int64 residue matrix's reduced echelon
    form modulo ``prime`` (FLINT)."""
    import flint  # on first use: not at import

    m, p = residues.shape
    if not (m and p):
        return 0, []
    echelon, rank = flint.nmod_mat(m, p, residues.ravel().tolist(), prime).rref()
    pivots, column = [], 0
    for row in range(rank):  # each row's leading 1, left to right
        while int(echelon[row, column]) == 0:
            column += 1
        pivots.append(column)
    return rank, pivots


def _solve(A, B):
    """The rational solution (``flint.fmpq_mat``) of the square integer system
    ``A X = B`` (lists of rows); A is nonsingular modulo a prime, so over the
    rationals."""
    import flint  # on first use: not at import

    k, columns = len(A), len(B[0])
    system = flint.fmpz_mat(k, k, [value for row in A for value in row])
    return system.solve(flint.fmpz_mat(k, columns, [v for row in B for v in row]))


def _solve_work(rank, rows, columns=1):
    """:data:`EXACT_SPAN_WORK`'s measure of a solve of these integer rows."""
    bits = max((abs(value).bit_length() for row in rows for value in row), default=1)
    return rank**3 * max(bits / 53, 1.0) ** 1.6 * max(1.0, columns / 2)


class _Span:
    """The rows' differences to their pivots, read modulo a prime and as
    integers (each feature scaled by ``shifts``), for :func:`decide_span`."""

    def __init__(self, X, pivot, shifts, prime):
        self.X, self.pivot, self.shifts, self.prime = X, pivot, shifts, prime

    def residues(self, rows):
        rows = np.asarray(rows, dtype=np.intp)
        difference = prime_residues(self.X[rows], self.prime)
        difference -= prime_residues(self.X[self.pivot[rows]], self.prime)
        return difference % self.prime

    def independent(self, candidates):
        """``(rows, residues)``: a largest set of ``candidates`` whose
        differences are independent modulo the prime (so over the
        rationals), the earliest first."""
        residues = self.residues(candidates)
        _, found = _echelon_pivots(np.ascontiguousarray(residues.T), self.prime)
        return [candidates[k] for k in found], residues[found]

    def integers(self, rows):
        """The differences of ``rows`` as Python ints (a list of rows)."""
        ints = integer_rows(self.X[rows], self.shifts)
        pivots = integer_rows(self.X[self.pivot[rows]], self.shifts)
        return [[a - b for a, b in zip(x, y, strict=True)]
                for x, y in zip(ints, pivots, strict=True)]  # fmt: skip

    def contradicting(self, U):
        """The rows whose difference times the integer columns ``U`` (p x k)
        is not zero, exactly: FLINT's integer products of X's support columns,
        a chunk of rows at a time, against their pivots'."""
        import flint  # on first use: not at import

        support = np.flatnonzero(np.any(U != 0, axis=1))
        product = flint.fmpz_mat(support.size, U.shape[1], U[support].ravel().tolist())

        def values(rows):
            ints = integer_rows(self.X[rows][:, support], self.shifts[support])
            block = flint.fmpz_mat(len(ints), support.size, [v for r in ints for v in r])
            return (block * product).tolist()

        pivots = np.unique(self.pivot)
        of_pivot = dict(zip(pivots.tolist(), values(pivots), strict=True))
        broken = []
        for rows in row_chunks(self.X.shape[0], support.size):
            for i, row in zip(range(rows.start, rows.stop), values(rows), strict=False):
                if row != of_pivot[int(self.pivot[i])]:
                    broken.append(i)
        return broken


def decide_span(X, pivot, target, first_rows, prove_rank=False):
    """Whether ``e = x_a - x_b`` (``target = (a, b)``) lies in the span of the
    differences ``x_i - x_pivot[i]``, exactly, over the float64 rows as
    rationals; ``pivot[i]`` is the pivot of row i's class (itself for a
    pivot). ``first_rows`` are where the search for a basis starts.

    The structure (which differences are independent, which features pivot)
    is read modulo a prime (``SPAN_PRIMES``), where independence proves
    independence over the rationals; the answer is then proved exactly:

    - ``("inside", rank, exact_rank)``: rational weights on ``rank``
      independent differences make e, checked in every feature;
    - ``("outside", v, rank, exact_rank)``: ``v·x_i = v·x_pivot[i]`` on every
      row and ``v·e > 0`` (``v`` its nonzero Fractions by feature, checked in
      integers);
    - ``("beyond", reason)`` where the rational solve would exceed
      ``EXACT_SPAN_WORK``; None where both primes misled the search.

    ``exact_rank`` is the differences' exact rank where ``prove_rank`` asks
    for it (the basis's null space, solved exactly, holds on every row), else
    None. Each round solves one square system of the basis's size in
    rationals (FLINT); a row that contradicts a direction joins the basis, so
    at most ``p + 1`` rounds. Only the basis is held as integers.
    """
    X = np.asarray(X, dtype=float)
    pivot = np.asarray(pivot)
    shifts = integer_shifts(X)
    a, b = integer_rows(X[list(target)], shifts)
    e = [u - v for u, v in zip(a, b, strict=True)]
    for prime in SPAN_PRIMES:
        span = _Span(X, pivot, shifts, prime)
        e_residue = (prime_residues(X[target[0]], prime)
                     - prime_residues(X[target[1]], prime)) % prime  # fmt: skip
        found = _decide_modulo(span, e, e_residue, list(first_rows))
        if found is None:
            continue
        if found[0] == "beyond":
            return found
        if found[0] == "inside" and found[1] == X.shape[1]:  # full rank
            return (*found[:-1], found[1])
        if not prove_rank:
            return (*found[:-1], None)
        exact = _exact_rank(span, found[-1])
        return (*found[:-1], exact) if exact != "misled" else found[:-1] + (None,)
    return None


def _decide_modulo(span, e, e_residue, candidates):
    """:func:`decide_span` modulo one prime; its answers end with the basis's
    rows. None where a round brings no new rank (the prime misled)."""
    import flint  # on first use: not at import

    from fractions import Fraction  # on first use: not at import

    rank = -1
    while True:
        rows, residues = span.independent(candidates)
        if len(rows) <= rank:
            return None
        rank = len(rows)
        basis = span.integers(rows)
        with_e, features = _echelon_pivots(np.vstack([residues, e_residue]), span.prime)
        if with_e == rank:  # e in the span modulo the prime: its weights
            if not rank:
                return ("inside", 0, rows) if not any(e) else None
            if rank == len(e):  # independent columns: the span is everything
                return "inside", rank, rows
            _, features = _echelon_pivots(residues, span.prime)
            system = [[basis[k][j] for k in range(rank)] for j in features]
            if _solve_work(rank, system) > EXACT_SPAN_WORK:
                return "beyond", _beyond_message(rank, system)
            weights = _solve(system, [[e[j]] for j in features])
            combined = weights.transpose() * flint.fmpz_mat(basis)
            if combined.entries() != [flint.fmpq(value) for value in e]:
                return None
            return "inside", rank, rows
        system = [[row[j] for j in features] for row in [*basis, e]]
        if _solve_work(rank + 1, system) > EXACT_SPAN_WORK:
            return "beyond", _beyond_message(rank + 1, system)
        direction = _solve(system, [[0]] * rank + [[1]])
        numerators, denominator = direction.numer_denom()
        U = np.zeros((len(e), 1), dtype=object)
        U[features, 0] = [int(value) for value in numerators.entries()]
        broken = span.contradicting(U)
        if not broken:
            scale = Fraction(1, int(denominator))
            v = {j: Fraction(U[j, 0]) * Fraction(2) ** int(span.shifts[j]) * scale
                 for j in features if U[j, 0]}  # fmt: skip
            return "outside", v, rank, rows
        candidates = rows + broken[: len(e)]


def _exact_rank(span, rows):
    """The exact rank of every difference, from a basis of some (``rows``):
    the null space of the basis, solved in rationals, is checked on every row;
    a row it contradicts joins. ``"misled"`` where the prime stops telling
    independent rows apart, None beyond ``EXACT_SPAN_WORK``."""
    import flint  # on first use: not at import

    while True:
        rows, residues = span.independent(rows)
        rank, features = _echelon_pivots(residues, span.prime)
        free = [j for j in range(span.X.shape[1]) if j not in set(features)]
        if not free:
            return rank
        basis = span.integers(rows)
        system = [[row[j] for j in features] for row in basis]
        if _solve_work(rank, system, len(free)) > EXACT_SPAN_WORK:
            return None
        solved = _solve(system, [[row[j] for j in free] for row in basis])
        numerators, denominator = solved.numer_denom()
        U = np.zeros((span.X.shape[1], len(free)), dtype=object)
        U[features] = -np.array(numerators.tolist(), dtype=object)
        U[free, range(len(free))] = int(denominator)
        broken = span.contradicting(U)
        if not broken:
            return rank
        grown, _ = span.independent(rows + broken[: span.X.shape[1]])
        if len(grown) <= rank:
            return "misled"
        rows = grown


def _beyond_message(rank, system):
    bits = max(abs(value).bit_length() for row in system for value in row)
    return (
        f"the exact step would solve a square system of {rank} rows of integers "
        f"of up to {bits} bits (each feature scaled by a power of two to "
        "integers), beyond its work limit"
    )
