"""The exact layer's number back-end, the one module importing ``flint`` or
``fractions`` (on first use: most fits never reach the exact layer). FLINT does
the work (``fmpq_mat`` solves and products, ``fmpz_mat`` fraction-free solves,
``nmod_mat`` ranks, pivots, determinants); scalars passed between modules and out
are :class:`fractions.Fraction` (equal to ints, readable; an ``fmpq`` never
equals a ``Fraction``, so the two must not meet): each crossing is a function here.
"""

import numpy as np

from ._dyadic import MODULUS, residue_matrix


def _flint():
    import flint  # on first use: not at import

    return flint


def _fraction_type():
    from fractions import Fraction  # on first use: not at import

    return Fraction


def fraction(numerator, denominator=1):
    """The Fraction ``numerator / denominator`` of two ints."""
    return _fraction_type()(int(numerator), int(denominator))


def rational(values):
    """Exact Fractions of float64 values (an int or a float each), flattened."""
    Fraction = _fraction_type()
    return [Fraction(float(value)) for value in np.ravel(values)]


def rational_scalar(value):
    """One float64 (or int) as its exact Fraction."""
    return _fraction_type()(float(value))


def exact_dot(w, x):
    """``Σ w_k x_k`` of two sequences of rationals (Fractions or ints), exactly."""
    return sum((a * b for a, b in zip(w, x, strict=True)), fraction(0))


def exact_matrix_product(left, right):
    """``left @ right`` exactly, as lists of Fractions: ``left`` rows of
    rationals (Fractions, ints or floats), ``right`` a float64 matrix (FLINT's
    product: a sum of Fractions per entry took 9 ms each at 460 terms)."""
    flint = _flint()
    right = np.asarray(right, dtype=float)
    product = flint.fmpq_mat(
        len(left), right.shape[0], [as_fmpq(value) for row in left for value in row]
    ) * flint.fmpq_mat(*right.shape, [as_fmpq(value) for value in right.ravel().tolist()])
    return [
        [as_fraction(product[i, j]) for j in range(product.ncols())]
        for i in range(product.nrows())
    ]


def as_fmpq(value):
    """A float (numpy's too), int, Fraction or ``fmpq`` as a ``flint.fmpq``, exactly."""
    if isinstance(value, (float, np.floating)):
        return _flint().fmpq(*float(value).as_integer_ratio())
    return _flint().fmpq(int(value.numerator), int(value.denominator))


def as_fraction(value):
    """An ``fmpq`` (or ``fmpz``, int, Fraction) as a :class:`fractions.Fraction`."""
    return fraction(int(value.numerator), int(value.denominator))


def scattered(size, positions, values):
    """``size`` Fractions: ``values`` (fmpq or Fractions) at ``positions``, else 0."""
    full = [fraction(0)] * size
    for at, value in zip(positions, values, strict=True):
        full[at] = as_fraction(value)
    return full


def fmpq_matrix(rows, columns, *entries):
    """A ``flint.fmpq_mat`` (zeros without ``entries``, a flat row-major list)."""
    return _flint().fmpq_mat(rows, columns, *entries)


class ExactRows:
    """``self(ids)``: the float64 rows ``source(ids)`` (``width`` entries each) as
    an ``fmpq_mat`` of FLINT's rationals, each row converted once, on first need."""

    def __init__(self, source, width):
        self.source, self.width, self.cache = source, width, {}

    def __call__(self, ids):
        if missing := list(dict.fromkeys(i for i in ids if i not in self.cache)):
            for i, row in zip(missing, self.source(missing).tolist(), strict=True):
                self.cache[i] = [as_fmpq(value) for value in row]
        entries = [value for i in ids for value in self.cache[i]]
        return fmpq_matrix(len(ids), self.width, entries)


def fmpz_matrix(*shape_and_entries):
    """A ``flint.fmpz_mat``: of a list of int rows, or rows, columns, a flat list."""
    return _flint().fmpz_mat(*shape_and_entries)


def echelon_pivots(residues, prime):
    """``(rank, pivot columns)`` of an int64 residue matrix's rref modulo ``prime``."""
    m, p = residues.shape
    if not (m and p):
        return 0, []
    echelon, rank = _flint().nmod_mat(m, p, residues.ravel().tolist(), prime).rref()
    return rank, _leading_columns(echelon, rank)


def _leading_columns(echelon, rank):
    """The column of each of a row echelon form's first ``rank`` rows' leading
    entry, left to right."""
    pivots, column = [], 0
    for row in range(rank):
        while echelon[row, column] == 0:
            column += 1
        pivots.append(column)
    return pivots


def determinant_nonzero(matrix, prime):
    """Whether ``det(matrix) ≢ 0`` modulo ``prime`` (so ≠ 0 over the rationals)."""
    entries = residue_matrix(matrix).ravel().tolist()  # modulo MODULUS
    return _flint().nmod_mat(*matrix.shape, entries, prime).det() != 0


def solve_exactly(A, e):
    """``("unique", λ)`` where ``A λ = e`` has exactly one solution, ``("none",
    None)`` where it has none and A's columns are independent, ``("dependent",
    None)`` otherwise. ``A`` (m × k, as a rule m ≥ k) and ``e`` float64 (exact) or
    rationals; ``λ`` Fractions. One rref of ``[A | e]`` in FLINT's rationals; of
    float64 equations more than k + 1, of only those independent modulo a prime
    (:func:`_on_independent_rows`)."""
    k = len(A[0]) if len(A) else 0
    if isinstance(A, np.ndarray) and A.dtype == np.float64 and len(A) > k + 1:
        found = _on_independent_rows(A, np.asarray(e, dtype=np.float64))
        if found is not None:
            return found
    status, solution = _rref_solve(A, e)
    return status, None if solution is None else [as_fraction(v) for v in solution]


def _rref_solve(A, e):
    """:func:`solve_exactly` by one rref of all of ``[A | e]``, λ as ``fmpq``."""
    m, k = len(A), len(A[0]) if len(A) else 0
    entries = [as_fmpq(value) for row, target in zip(A, e, strict=True)
               for value in (*row, target)]  # fmt: skip
    echelon, rank = fmpq_matrix(m, k + 1, entries).rref()
    pivots = _leading_columns(echelon, rank)
    if k in pivots:  # a row 0 = 1: no solution
        return ("none", None) if len(pivots) == k + 1 else ("dependent", None)
    if len(pivots) < k:
        return "dependent", None
    return "unique", [echelon[row, k] for row in range(k)]


def _on_independent_rows(A, e):
    """:func:`solve_exactly` from the rows of ``[A | e]`` independent modulo
    ``MODULUS`` (so over the rationals; at most k + 1 of them, however many
    equations: the rows of features that are exact combinations of others,
    integer data of low rank, cost nothing), the one solution they give then
    checked on every row in rationals; None where those rows leave λ free (the
    rank modulo the prime may be below the rational one: the whole rref decides)."""
    m, k = A.shape
    system = np.column_stack([A, e])
    _, rows = echelon_pivots(residue_matrix(system.T), MODULUS)
    if len(rows) < k:  # fewer than the unknowns: no unique solution from them
        return None
    status, solution = _rref_solve(A[rows], e[rows])
    if status == "dependent":
        return None
    if status == "none":  # the chosen rows' columns are independent: A's too
        return "none", None
    product = fmpq_matrix(m, k, [as_fmpq(value) for value in A.ravel()]) * (
        fmpq_matrix(k, 1, solution)
    )
    if all(product[i, 0] == as_fmpq(target) for i, target in enumerate(e)):
        return "unique", [as_fraction(value) for value in solution]
    return "none", None  # the only candidate misses a row
