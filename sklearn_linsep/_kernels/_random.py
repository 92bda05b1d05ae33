"""Seeded random orders of the samples (splitmix64): no global random state."""

import numpy as np

from ._jit import kernel


@kernel(inline="always")
def _splitmix64(state):
    """``(next_state, 64 random bits)``."""
    state += np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@kernel
def _shuffle_in_place(values, state):
    """Fisher-Yates on ``values``; returns the advanced random state."""
    for i in range(values.shape[0] - 1, 0, -1):
        state, bits = _splitmix64(state)
        if i < 0xFFFFFFFF:
            # Lemire's multiply-shift: 32 random bits scaled to {0, ..., i}.
            j = np.int64(((bits >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        else:
            j = np.int64(bits % np.uint64(i + 1))
        values[i], values[j] = values[j], values[i]
    return state


def shuffled_order(n, seed):
    """A uniformly random permutation of ``range(n)`` (Fisher-Yates on splitmix64).

    Ten times faster than ``RandomState.permutation`` at n = 10⁶, and seeded by the
    caller: no global random state. (The identity is made here, not in compiled
    code: numba's ``np.arange`` costs 0.2 s of compilation on a first fit.)
    """
    order = np.arange(n, dtype=np.int64)
    _shuffle_in_place(order, np.uint64(seed))
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
    """
    n_blocks = (n + block - 1) // block
    blocks = np.arange(n_blocks, dtype=np.int64)
    return _block_order(n, block, blocks, np.uint64(seed))


@kernel
def _block_order(n, block, blocks, seed):
    state = _shuffle_in_place(blocks, seed)
    order = np.empty(n, dtype=np.int64)
    position = 0
    for b in blocks:
        start = b * block
        length = min(n, start + block) - start
        state, bits = _splitmix64(state)
        offset = np.int64((bits >> np.uint64(33)) % np.uint64(length))
        backwards = (bits & np.uint64(1)) == np.uint64(1)
        for step in range(length):
            row = start + (offset + step) % length
            order[position + (length - 1 - step if backwards else step)] = row
        position += length
    return order
