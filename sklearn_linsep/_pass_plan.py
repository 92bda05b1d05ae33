"""How the one pass of :mod:`._stats` over X is made: the rows per chunk, the form
of the scatter (centred rows or the (p, p) matrix), and whether a float32 X is summed
in float32.

These are the pass's decisions of cost and precision, kept apart from its arithmetic
(:func:`~._stats.class_statistics`): each is a rule of a few lines on sizes, or on the
statistics a float32 pass returned (whether its rank decision stands or the pass is
made again in float64), with the measurements behind its constants beside it.
``ROWS_FROM_FEATURES`` is the switch that tests and benchmarks raise to force the
matrix form: patch it here, where :func:`rows_are_cheaper` reads it.
"""

import numpy as np

from ._covariance import correlation_of, full_rank_proof

# Rows per chunk: _CHUNK_ROWS where that chunk (centred, float64) stays within
# _CHUNK_BYTES, else as many as fit in it; never fewer than fill _SMALL_CHUNK_BYTES.
# Enough rows that the (p, p) merge per chunk is small beside the chunk's
# product: 1e5 x 768 took 1.66 times one X.T @ X in chunks of 682 rows, 1.28x
# in 2 730 (16 MiB) and 1.20x in 4 096 (medians of 5 on the machine of
# benchmarks/RESULTS.md). At p = 100, 4 096 to 20 971 rows made no difference
# beyond the noise (1.28-1.35x).
_CHUNK_ROWS = 4096
_CHUNK_BYTES = 1 << 25
_SMALL_CHUNK_BYTES = 1 << 22


def default_chunk_rows(n_features):
    """Rows per chunk of the pass over float64 X (see ``_CHUNK_ROWS``)."""
    row_bytes = 8 * max(n_features, 1)
    rows = min(_CHUNK_ROWS, _CHUNK_BYTES // row_bytes)
    return max(256, rows, _SMALL_CHUNK_BYTES // row_bytes)


# Wide data keep the scatter as rows once the (p, p) matrix would pass this many
# features: below it the matrix is small whatever the rows, and cheaper to use.
ROWS_FROM_FEATURES = 256


def rows_are_cheaper(n_rows, n_features, form="auto"):
    """Whether statistics of ``n_rows`` rows keep their scatter as rows: never for
    ``form="matrix"``; for "rows" while the rows are no more than the features;
    for "auto" only when the features are also more than ``ROWS_FROM_FEATURES``
    (below that, the matrix is small whatever the rows)."""
    if form == "matrix" or n_rows > n_features:
        return False
    return form == "rows" or n_features > ROWS_FROM_FEATURES


# A float32 X is centred and multiplied in float32 (twice BLAS's float64 speed),
# each chunk's product then accumulated in float64: chunks of at most this many
# rows keep the float32 sums' rounding to about √rows · eps32 of their terms.
_FLOAT32_CHUNK_ROWS = 4096


def _float32_pass_suits(n_samples, sample_weight, rows):
    """Whether float32 X makes its pass in float32: in the matrix form, without
    weights, and with a full chunk at least (below that the pass is cheap anyway,
    and small data keep float64's agreement between fit and partial_fit)."""
    return sample_weight is None and not rows and n_samples >= _FLOAT32_CHUNK_ROWS


def _float32_rank_is_clear(stats):
    """Whether the float32 pass leaves the rank decision where the float64 one
    would be: every eigenvalue of the correlation matrix above the float32
    products' rounding (about √rows · eps32 of the largest, with a margin), far
    from any rank tolerance. A direction that is zero in exact arithmetic comes
    out of float32 products at that level, where float64 products leave it below
    the tolerance (data in a subspace, a constant feature): then the pass is made
    again in float64."""
    varying, _, correlation, _ = correlation_of(
        stats.pooled_covariance(),
        np.abs(stats.means).max(axis=0),
        None,
        stats.n_samples,
        np.float32,
    )
    if not varying.size:
        return True
    noise = 16 * np.sqrt(_FLOAT32_CHUNK_ROWS) * np.finfo(np.float32).eps
    proof = full_rank_proof(correlation)  # bounds first: cheaper than eigenvalues
    if proof is not None and proof[0] > noise * proof[1]:
        return True
    eigenvalues = np.linalg.eigvalsh(correlation)  # (no vectors: a third of eigh)
    return bool(eigenvalues[0] > noise * eigenvalues[-1])
