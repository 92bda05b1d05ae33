# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Seeded random orders of the samples (splitmix64): no global random state.

The arithmetic is on ``uint64_t``, whose wraparound is the one splitmix64 relies on;
the orders are those of the former numba kernels, bit for bit, for every seed.
"""

from libc.stdint cimport int64_t, uint64_t

import numpy as np


cdef inline uint64_t _splitmix64(uint64_t *state) noexcept nogil:
    """Advances ``state`` and returns 64 random bits."""
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef uint64_t _shuffle_in_place(int64_t[::1] values, uint64_t state) noexcept nogil:
    """Fisher-Yates on ``values``; returns the advanced random state."""
    cdef Py_ssize_t i
    cdef int64_t j, swap
    cdef uint64_t bits
    for i in range(values.shape[0] - 1, 0, -1):
        bits = _splitmix64(&state)
        if i < 0xFFFFFFFFLL:
            # Lemire's multiply-shift: 32 random bits scaled to {0, ..., i}.
            j = <int64_t>(((bits >> 32) * <uint64_t>(i + 1)) >> 32)
        else:
            j = <int64_t>(bits % <uint64_t>(i + 1))
        swap = values[i]
        values[i] = values[j]
        values[j] = swap
    return state


def shuffled_order(n, seed):
    """A uniformly random permutation of ``range(n)`` (Fisher-Yates on splitmix64).

    Ten times faster than ``RandomState.permutation`` at n = 10⁶, and seeded by the
    caller: no global random state.

    Parameters
    ----------
    n : int
        Length of the permutation.
    seed : int
        Non-negative seed (taken as ``numpy.uint64``).

    Returns
    -------
    order : ndarray of shape (n,), int64
    """
    order = np.arange(n, dtype=np.int64)
    cdef int64_t[::1] values = order
    cdef uint64_t state = np.uint64(seed)
    with nogil:
        _shuffle_in_place(values, state)
    return order


def block_shuffled_order(n, block, seed):
    """``range(n)`` cut in blocks of ``block`` consecutive indices, the blocks in a
    random order, each block read in sequence from a random start (wrapping round)
    in a random direction.

    On rows permuted once beforehand this is a random visiting order whose reads
    stay sequential within a block, so the hardware prefetcher hides the memory
    latency: on 10⁶ × 10 float64 rows an epoch takes about 17 ms in this order
    against 60-70 ms in a uniformly random one (9 ms in the stored order). A
    random order inside each block measured no better than a uniform one.

    Parameters
    ----------
    n : int
        Number of indices.
    block : int
        Indices per block (the last block may be shorter).
    seed : int
        Non-negative seed (taken as ``numpy.uint64``).

    Returns
    -------
    order : ndarray of shape (n,), int64
    """
    n_blocks = (n + block - 1) // block
    blocks = np.arange(n_blocks, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] block_view = blocks
    cdef int64_t[::1] order_view = order
    cdef uint64_t state = np.uint64(seed)
    cdef int64_t n_rows = n, block_rows = block
    with nogil:
        _block_order(n_rows, block_rows, block_view, state, order_view)
    return order


cdef void _block_order(
    int64_t n, int64_t block, int64_t[::1] blocks, uint64_t state, int64_t[::1] order
) noexcept nogil:
    """Writes :func:`block_shuffled_order` into ``order`` (``blocks`` is the identity
    of the block indices, shuffled in place)."""
    cdef Py_ssize_t index
    cdef int64_t start, length, offset, step, row, position = 0
    cdef uint64_t bits
    cdef bint backwards
    state = _shuffle_in_place(blocks, state)
    for index in range(blocks.shape[0]):
        start = blocks[index] * block
        length = min(n, start + block) - start
        bits = _splitmix64(&state)
        offset = <int64_t>((bits >> 33) % <uint64_t>length)
        backwards = (bits & 1) == 1
        for step in range(length):
            row = start + (offset + step) % length
            order[position + (length - 1 - step if backwards else step)] = row
        position += length
