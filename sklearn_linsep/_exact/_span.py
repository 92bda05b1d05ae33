"""The span of the within-class differences, decided exactly (SPEC §13), for
:mod:`sklearn_linsep._fredholm`: whether d, the difference of two class means,
lies in the range of their pooled scatter S, spanned by the rows' differences to
one row of their class (a pivot). d lies in it exactly where the pivots'
difference does: a question of integers once features are scaled by powers of
two, its structure read modulo a prime, its answer proved in FLINT's integers.
"""

import numpy as np

from ._dyadic import integer_rows, integer_shifts, prime_residues, row_chunks
from ._numbers import echelon_pivots, fmpz_matrix, fraction

# The primes the structure is read modulo: below 2^31 (products fit 64 bits,
# so residues are vectorised) and with 2 of multiplicative order above 10 000
# (2^61 is 1 modulo 2^61 - 1: data holding 1 and 2^61 in a feature would look
# dependent there). The second where the first misleads.
SPAN_PRIMES = (2_147_483_629, 2_147_483_587)


# The largest rational solve taken, as rank³ · (bits / 53)^1.6 of its integer
# system (fitted to FLINT's solve times; about 6 s).
EXACT_SPAN_WORK = 6e8


def _beyond(rank, rows, columns=1):
    """Why a solve of these integer rows is beyond :data:`EXACT_SPAN_WORK` (its
    measure: rank³ · (bits / 53)^1.6, more for more columns); None within it."""
    bits = max((abs(value).bit_length() for row in rows for value in row), default=1)
    if rank**3 * max(bits / 53, 1.0) ** 1.6 * max(1.0, columns / 2) <= EXACT_SPAN_WORK:
        return None
    return (
        f"the exact step would solve a square system of {rank} rows of integers "
        f"of up to {bits} bits (each feature scaled by a power of two to "
        "integers), beyond its work limit"
    )


class _Span:
    """The rows' differences to their pivots, read modulo a prime and as
    integers (each feature scaled by ``shifts``), for :func:`decide_span`."""

    def __init__(self, X, pivot, shifts, prime):
        self.X, self.pivot, self.shifts, self.prime = X, pivot, shifts, prime

    def independent(self, candidates):
        """``(rows, residues)``: the earliest largest subset of ``candidates``
        whose differences are independent modulo the prime (so over the rationals)."""
        rows = np.asarray(candidates, dtype=np.intp)
        residues = prime_residues(self.X[rows], self.prime)
        residues -= prime_residues(self.X[self.pivot[rows]], self.prime)
        residues %= self.prime
        _, found = echelon_pivots(np.ascontiguousarray(residues.T), self.prime)
        return [candidates[k] for k in found], residues[found]

    def integers(self, rows):
        """The differences of ``rows`` as Python ints (a list of rows)."""
        ints = integer_rows(self.X[rows], self.shifts)
        pivots = integer_rows(self.X[self.pivot[rows]], self.shifts)
        return [[a - b for a, b in zip(x, y, strict=True)]
                for x, y in zip(ints, pivots, strict=True)]  # fmt: skip

    def contradicting(self, U):
        """The rows whose difference times the integer columns ``U`` (p x k) is
        not zero, exactly (FLINT's integer products, a chunk of rows at a time)."""
        support = np.flatnonzero(np.any(U != 0, axis=1))
        product = fmpz_matrix(support.size, U.shape[1], U[support].ravel().tolist())

        def values(rows):
            ints = integer_rows(self.X[rows][:, support], self.shifts[support])
            block = fmpz_matrix(len(ints), support.size, [v for r in ints for v in r])
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
    differences ``x_i - x_pivot[i]`` (``pivot[i]``: row i's class pivot), exactly
    on the float64 rows; the basis search starts at ``first_rows``. The structure
    is read modulo a prime (``SPAN_PRIMES``: independence there is independence
    over the rationals), the answer proved exactly:

    - ``("inside", rank, exact_rank)``: rational weights on ``rank`` independent
      differences make e, checked in every feature;
    - ``("outside", v, rank, exact_rank)``: ``v·x_i = v·x_pivot[i]`` on every row
      and ``v·e > 0`` (``v``: nonzero Fractions by feature, checked in integers);
    - ``("beyond", reason)`` past ``EXACT_SPAN_WORK``; None where both primes
      misled the search.

    ``exact_rank``: the exact rank if ``prove_rank``, else None. A round is one
    square rational solve of the basis's size; a row contradicting a direction
    joins, so at most ``p + 1`` rounds. Only the basis is held as integers.
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
        return (*found[:-1], _exact_rank(span, found[-1]) if prove_rank else None)
    return None


def _decide_modulo(span, e, e_residue, candidates):
    """:func:`decide_span` modulo one prime; its answers end with the basis's
    rows. None where a round brings no new rank (the prime misled)."""
    rank = -1
    while True:
        rows, residues = span.independent(candidates)
        if len(rows) <= rank:
            return None
        rank = len(rows)
        basis = span.integers(rows)
        with_e, features = echelon_pivots(np.vstack([residues, e_residue]), span.prime)
        if with_e == rank:  # e in the span modulo the prime: its weights
            if not rank:
                return ("inside", 0, rows) if not any(e) else None
            if rank == len(e):  # independent columns: the span is everything
                return "inside", rank, rows
            system = [[basis[k][j] for k in range(rank)] for j in features]
            if why := _beyond(rank, system):
                return "beyond", why
            weights = fmpz_matrix(system).solve(fmpz_matrix([[e[j]] for j in features]))
            combined = weights.transpose() * fmpz_matrix(basis)
            if combined.entries() != e:  # fmpq equals int
                return None
            return "inside", rank, rows
        system = [[row[j] for j in features] for row in [*basis, e]]
        if why := _beyond(rank + 1, system):
            return "beyond", why
        direction = fmpz_matrix(system).solve(fmpz_matrix([[0]] * rank + [[1]]))
        numerators, denominator = direction.numer_denom()
        U = np.zeros((len(e), 1), dtype=object)
        U[features, 0] = [int(value) for value in numerators.entries()]
        broken = span.contradicting(U)
        if not broken:
            scale = fraction(1, int(denominator))
            v = {j: fraction(U[j, 0]) * fraction(2) ** int(span.shifts[j]) * scale
                 for j in features if U[j, 0]}  # fmt: skip
            return "outside", v, rank, rows
        candidates = rows + broken[: len(e)]


def _exact_rank(span, rows):
    """The exact rank of every difference from a basis of some (``rows``): the
    basis's null space, solved in rationals, is checked on every row, a row it
    contradicts joins. None beyond ``EXACT_SPAN_WORK``, or where the prime
    stops telling independent rows apart."""
    rank = -1
    while True:
        rows, residues = span.independent(rows)
        if len(rows) <= rank:  # no new rank
            return None
        rank, features = echelon_pivots(residues, span.prime)
        free = [j for j in range(span.X.shape[1]) if j not in set(features)]
        if not free:
            return rank
        basis = span.integers(rows)
        system = [[row[j] for j in features] for row in basis]
        if _beyond(rank, system, len(free)):
            return None
        free_columns = fmpz_matrix([[row[j] for j in free] for row in basis])
        solved = fmpz_matrix(system).solve(free_columns)
        numerators, denominator = solved.numer_denom()
        U = np.zeros((span.X.shape[1], len(free)), dtype=object)
        U[features] = -np.array(numerators.tolist(), dtype=object)
        U[free, range(len(free))] = int(denominator)
        broken = span.contradicting(U)
        if not broken:
            return rank
        rows = rows + broken[: span.X.shape[1]]
