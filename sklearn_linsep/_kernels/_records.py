"""The kernels' argument records and constants: plain Python, no numba.

Callers build these before any kernel runs, so importing them compiles nothing and
does not import numba.
"""

from typing import NamedTuple

import numpy as np


class Samples(NamedTuple):
    """The training data of an epoch."""

    rows: tuple  # (X,) for a dense C-ordered X, (data, indices, indptr) for CSR
    codes: np.ndarray  # the class index of each sample
    first_class: int  # task k's positive class is first_class + k
    weight: np.ndarray  # sample weight × class weight, float64
    bias: float  # the last entry of x̃ = (x, bias)


# Rates.kind
RATE_CONSTANT, RATE_HYPERBOLIC, RATE_INVSCALING, RATE_TABLE = 0, 1, 2, 3


class Rates(NamedTuple):
    """A learning-rate schedule: the rate of update ``t``, counted from 0.

    Constant ``eta0``; hyperbolic ``a / (b + t)``; inverse scaling
    ``eta0 / (t + 1) ** power_t``; or a table whose row r holds the rates of updates
    ``starts[r]``, ``starts[r] + 1``, ... of task r (one row for all tasks when they
    share ``t``). Every rate is multiplied by ``scale``.
    """

    kind: int
    eta0: float
    a: float
    b: float
    power_t: float
    scale: float
    table: np.ndarray  # (1 or K, length) float64; (1, 1) unused unless RATE_TABLE
    starts: np.ndarray  # (1 or K,) int64


class Pocket(NamedTuple):
    """Gallant's pocket with ratchet, one entry (or row) per task k.

    ``run`` counts the consecutive correct classifications of the perceptron's
    ``W[k]``; the pocket ``weights[k]`` is replaced only by weights that classify a
    strictly larger weight of samples correctly (``correct[k]``).
    """

    weights: np.ndarray  # (K, p + 1) the pocket
    candidate: np.ndarray  # (K, p + 1) weights scored during this epoch
    snapshot: np.ndarray  # (K, p + 1) the longest-run weights kept for the next epoch
    correct: np.ndarray  # (K,) the pocket's correctly classified weight
    candidate_correct: np.ndarray  # (K,) the candidate's, counted during the epoch
    run: np.ndarray  # (K,) int64: the current run of W[k]
    pocket_run: np.ndarray  # (K,) int64: the pocket's longest run
    snapshot_run: np.ndarray  # (K,) int64: the snapshot's run, 0 when none is kept
    evaluating: np.ndarray  # (K,) int64: the candidate's run while it is scored, or 0
    kept: np.ndarray  # (K,) bool: W[k]'s current run is the snapshot's
    checked: np.ndarray  # (K,) bool: W[k] was scored at once during this run
    is_pocket: np.ndarray  # (K,) bool: W[k] is the pocket
    budget: np.ndarray  # (1,) int64: rows the epoch may still scan to score at once


class Average(NamedTuple):
    """The averaged perceptron's running mean of the weights, kept lazily.

    The mean of ``W`` after each of the ``n`` averaged samples is
    ``W - correction / n``: an update ``Δ`` made at the ``τ``-th averaged sample adds
    ``(τ - 1) Δ`` to ``correction``, so averaging costs one more axpy per update,
    not a pass over the weights per sample (the trick of scikit-learn's
    ``_plain_sgd``, in its additive form).
    """

    correction: np.ndarray  # (K, p + 1) Σ (τ_j - 1) Δ_j over the averaged updates
    seen: np.ndarray  # (1,) int64: samples of positive weight visited so far
    start: int  # the first averaged sample (counted from 1), as SGDClassifier's average


# An empty ``order``: the samples in their stored order. (Reading an identity order
# beside X cost 10% of a dense epoch at 1e6 x 10.)
STORED_ORDER = np.empty(0, dtype=np.int64)


# The statuses of nearest_points_kernel.
NEAREST_CONVERGED, NEAREST_STALLED, NEAREST_ITERATIONS = 0, 1, 2
# The most rows that join its step at once (the kernel's MAX_BATCH).
JOIN_MAX = 64


class NearestWorkspace(NamedTuple):
    """The kernel's buffers, allocated by the caller (``nearest_workspace``): an
    allocation compiled into the kernel costs a specialisation per shape and dtype."""

    Qt: np.ndarray  # (capacity, q) the orthonormal rows of the corral's QR
    R: np.ndarray  # (capacity, capacity)
    columns: np.ndarray  # (capacity,) intp: the corral's rows but the references
    coefficients: np.ndarray  # (capacity,) projections, right-hand sides
    target: np.ndarray  # (m,) the affine minimiser's weights, zero between uses
    direction: np.ndarray  # (q,)
    scores: np.ndarray  # (m,)
    block: np.ndarray  # (JOIN_MAX, q) the columns of rows joining at once
    projections: np.ndarray  # (2 JOIN_MAX, capacity) their coefficients
    towards: np.ndarray  # (capacity,) Qt (y_b - y_a), the references' gap


def nearest_workspace(m, q):
    """Buffers for :func:`nearest_points_kernel` on ``m`` rows of ``q`` features."""
    capacity = min(q, m) + 1
    return NearestWorkspace(
        Qt=np.zeros((capacity, q)),
        R=np.zeros((capacity, capacity)),
        columns=np.zeros(capacity, dtype=np.intp),
        coefficients=np.zeros(capacity),
        target=np.zeros(m),
        direction=np.zeros(q),
        scores=np.zeros(m),
        block=np.zeros((JOIN_MAX, q)),
        projections=np.zeros((2 * JOIN_MAX, capacity)),
        towards=np.zeros(capacity),
    )
