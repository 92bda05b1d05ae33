"""BLAS threads for the exact core's loops of small solves.

A working-set loop solves a small dense system every round (a 50 × 50 Cholesky
takes microseconds); with the default threads each of those pays for waking and
spinning BLAS's threads, and on a shared 2-core machine whose other core is
busy, for waiting on it: the digits report took 5-7x longer with the default
threads than with one. So a fit limits BLAS to one thread:

* around its whole loop where the data are small (:func:`threads_for_fit`: no
  product over all rows is large enough for a second thread to pay);
* otherwise around each small subproblem only (:func:`threads_for_solve`),
  leaving the large products over all rows (``X @ w``, ``X.T @ X``) threaded.

The soft limit's interior point factors its normal matrix on one thread whatever
its order (``_margin/_solvers/_ipm.py``): between numpy's threaded Gram passes,
scipy's second thread made a factor of order 769 14x slower.

A fit whose machine has more than ``SMALL_MATRIX`` unknowns, or a subproblem of
more rows or pairs, keeps its threads even on small data: K = 10 classes of
2 000 × 256 factor working sets of 2 000 pairs, whose LU took 93 ms on one
thread and 52 ms on two (the whole fit: 30 s against 24 s).

One :class:`threadpoolctl.ThreadpoolController`, made at first use (after numpy's
and scipy's BLAS are loaded), serves every limit: its ``limit`` costs tens of
microseconds, where ``threadpool_limits(1)`` inspects every loaded library again
(about 2 ms).
"""

import contextlib
import functools

# Dense decompositions (eigh, Cholesky) of matrices of at most this order run on
# one thread: a 64 x 64 eigh took 95 ms with two threads beside a busy core,
# against well under 1 ms on one (the digits report makes 135 of them).
SMALL_MATRIX = 512
# Entries of X at or below which every product of a fit runs on one thread
# (4 Mi entries: 32 MB of float64; the largest pass over them, one X @ w, takes
# about 2 ms on one core).
SMALL_DATA = 1 << 22


@functools.lru_cache(maxsize=None)
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread():
    """A context in which BLAS runs on one thread."""
    return _controller().limit(limits=1, user_api="blas")


def threads_for_fit(n_samples, n_features, unknowns):
    """One BLAS thread for a whole fit on data of at most ``SMALL_DATA``
    entries whose subproblems stay small (a machine of at most
    ``SMALL_MATRIX`` ``unknowns``: p + 1 for two classes, K (p + 1) for K);
    no limit otherwise (see :func:`threads_for_solve`)."""
    if n_samples * n_features <= SMALL_DATA and unknowns <= SMALL_MATRIX:
        return one_blas_thread()
    return contextlib.nullcontext()


def threads_for_solve(size):
    """One BLAS thread for a working set's subproblem of at most
    ``SMALL_MATRIX`` rows or pairs; a larger one keeps the threads it has
    (its factorisations pay for them)."""
    if size <= SMALL_MATRIX:
        return one_blas_thread()
    return contextlib.nullcontext()


def threads_for_matrix(order):
    """One BLAS thread for a dense decomposition of a matrix of at most
    ``SMALL_MATRIX`` rows; no limit on a larger one (its threads pay)."""
    if order <= SMALL_MATRIX:
        return one_blas_thread()
    return contextlib.nullcontext()
