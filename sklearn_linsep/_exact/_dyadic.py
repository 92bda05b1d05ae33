"""Float64 arrays as the integers and residues they exactly are (numpy only): a
float64 is ``m · 2^k`` (integer ``|m| < 2^53``), so a feature scaled by a power
of two is integers, and a value has a residue modulo any odd prime.
"""

import numpy as np

# Mersenne prime of the modular checks (a basis's determinant, independent pairs).
MODULUS = 2**61 - 1
CHUNK_ENTRIES = 1 << 18  # entries of X converted to integers at a time


def residue_matrix(values):
    """Float64 ``values`` (finite) modulo ``MODULUS``, elementwise, as uint64:
    ``m · 2^k ≡ m · 2^(k mod 61)`` (``2^61 ≡ 1``), the bits above 61 folded back.
    Zero only where the value is (no significand is a multiple of the prime)."""
    fraction, exponent = np.frexp(np.asarray(values, dtype=float))
    mantissa = np.ldexp(fraction, 53).astype(np.int64)  # exact
    magnitude = np.abs(mantissa).astype(np.uint64)
    shift = ((exponent.astype(np.int64) - 53) % 61).astype(np.uint64)
    prime = np.uint64(MODULUS)
    folded = ((magnitude << shift) & prime) + (magnitude >> (np.uint64(61) - shift))
    folded = np.where(folded >= prime, folded - prime, folded)
    return np.where((mantissa < 0) & (folded > 0), prime - folded, folded)


def _dyadic_parts(X):
    """``(odd, power)``, X = ``odd · 2^power`` elementwise (a zero: 0, int64 max)."""
    fraction, exponent = np.frexp(X)
    mantissa = np.ldexp(fraction, 53).astype(np.int64)  # exact
    zero = mantissa == 0
    lowest = np.where(zero, 1, mantissa & -mantissa)  # its lowest set bit
    trailing = np.frexp(lowest.astype(float))[1].astype(np.int64) - 1
    power = exponent.astype(np.int64) - 53 + trailing
    return mantissa >> trailing, np.where(zero, np.iinfo(np.int64).max, power)


def row_chunks(n_rows, n_columns, entries=CHUNK_ENTRIES):
    """Slices of rows of about ``entries`` entries (the last may reach past)."""
    step = max(1, entries // max(n_columns, 1))
    return (slice(start, start + step) for start in range(0, n_rows, step))


def integer_shifts(X):
    """The least shift per column (either sign) making ``X[:, j] · 2^shifts[j]``
    integers; spans and ranks stay X's."""
    least = np.full(X.shape[1], np.iinfo(np.int64).max)
    for rows in row_chunks(*X.shape):
        least = np.minimum(least, _dyadic_parts(X[rows])[1].min(axis=0))
    return np.where(least == np.iinfo(np.int64).max, 0, -least)


def integer_rows(X, shifts):
    """``X · 2^shifts`` (per column) as Python ints, a list of rows."""
    odd, power = _dyadic_parts(X)
    shift = np.where(odd == 0, 0, power + shifts)  # >= 0
    if np.max(np.frexp(np.abs(odd).astype(float))[1] + shift, initial=0) <= 62:
        return np.left_shift(odd, shift).tolist()
    return [[int(m) << int(k) for m, k in zip(row_m, row_k, strict=True)]
            for row_m, row_k in zip(odd.tolist(), shift.tolist(),
                                    strict=True)]  # fmt: skip


def prime_residues(X, prime):
    """Float64 ``X`` (finite) modulo ``prime`` (< 2^31), elementwise, as int64:
    ``(m mod prime) · (2^k mod prime)``, a product below 2^62."""
    fraction, exponent = np.frexp(np.asarray(X, dtype=float))
    mantissa = np.ldexp(fraction, 53).astype(np.int64)  # exact
    power = exponent.astype(np.int64) - 53
    low = int(power.min(initial=0))
    table = np.array([pow(2, k, prime) for k in range(low, int(power.max(initial=0)) + 1)],
                     dtype=np.int64)  # fmt: skip
    residue = np.abs(mantissa) % prime * table[power - low] % prime
    return np.where(mantissa < 0, (prime - residue) % prime, residue)
