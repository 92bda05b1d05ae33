"""The working-set loop shared by the hard margin and the separability test.

A problem whose constraints are one per sample (``c_i (w·x_i + b) ≥ 1``) is solved on
a small subset of the samples; one pass over all of them finds the constraints the
subset's answer violates; the worst join the subset; repeat until none is violated.
The answer on the final subset is then the answer on all the samples: it satisfies
every constraint, and no constraint outside the subset can do better. The
subproblem (a QP or an LP) is a parameter; so is the violation of a sample.
"""

import copy
import os
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import scipy.sparse as sp

from . import _kernels
from ._threads import threads_for_solve
from .exceptions import SolverError

MAX_ROUNDS = 200
# Samples with a margin above 1 + DROP_ABOVE leave the working set (see grow):
# measured best of 0.05, 0.2 and 0.5 at n = 1e4-1e5, p = 20-100.
DROP_ABOVE = 0.2
# The soft limit's rounds keep rows to a margin of 1 + SOFT_DROP_ABOVE: an LP on a
# working set without the rows that held its last answer swings to another vertex,
# violating most rows (1e5 x 50, 20 flips clustered: 15 000-65 000 of 1e5 a round
# for 20 rounds; 27 rounds, 1.74 s, where 1.0 took 17 and 2.0 12). 1.0: the cost
# model's route on the eight flip placements of bench_exact_core.py --only routes
# took 0.25-0.91x its time at 0.2 (2.0: 0.17-1.32x, its larger LPs stopping the
# rounds; rounds forced without dropping: 9 rounds, 0.55-1.25x).
SOFT_DROP_ABOVE = 1.0
# A round's optimum that rises by less than this share of the best so far is no
# progress (grow's ``progress``): the least total hinge of 1 000 x 100 rows, three
# copied under the other label, was 6 from the first round, each LP at another
# vertex of its face, and rows dropped and joined for 200 rounds (a SolverError).
ROUND_PROGRESS = 1e-9
# Centred rows kept between passes: 128 MB always; beyond, see keeps_centred_copy.
CENTRED_CACHE_BYTES = 1 << 27
# Sparse X is made dense, for a step that reads every row (the exact decisions) or a
# route that needs dense rows, up to this many entries (64 MB); beyond, the step gives
# way, or the route refuses with an error that names this limit.
DENSE_FALLBACK_ENTRIES = 1 << 23
# Features whose spreads differ by more than this are decided in the equilibrated
# frame (each feature divided by its own spread) before the Euclidean margin is
# finished in X's units: beyond it a small feature keeps fewer than 13 of float64's
# digits against the largest one, and a gap in it could fall under the solvers'
# tolerances (a false certificate at spreads 1e10 apart).
EQUILIBRATE_ABOVE = 1e3


class Frame:
    """The rules of a frame that the two-class rows and the pairs of K classes
    share: X seen as ``Z = (X - centre) / scale`` (``scale`` one scalar, or one
    per feature in the equilibrated frame), without copying X. A subclass
    provides ``X``, ``centre``, ``scale``, ``feature_scale``, ``spread`` and
    ``indices`` (the rows of the caller's X that X holds, or None)."""

    def equilibrated(self):
        """The same problem on ``Z = (X - centre) / s``, each feature divided by its
        own spread ``s_j``: the frame in which the verdict is decided when the
        spreads are far apart (:attr:`uneven`). Its margins are not X's."""
        return equilibrated_copy(self)

    @property
    def uneven(self):
        """Whether the features' spreads differ by more than ``EQUILIBRATE_ABOVE``."""
        return spreads_uneven(self.feature_scale, self.spread)

    @property
    def sparse(self):
        return sp.issparse(self.X)

    def indices_in_X(self, indices):
        """These rows as rows of the caller's X."""
        return indices if self.indices is None else self.indices[indices]

    @property
    def n_features(self):
        return self.X.shape[1]

    def original_rows(self, indices):
        """Rows of X itself, dense (a copy: X's rows by index)."""
        block = self.X[indices]
        return block.toarray() if sp.issparse(block) else np.asarray(block, float)

    def centred_rows(self, indices):
        """Z's rows by index, ``(x - centre) / scale``: centred and scaled in the copy
        :meth:`original_rows` makes (two fresh arrays of 1 000 x 500 took 4.5 ms of
        page faults, against 0.4 ms in place; the same bits), or in a copy of the
        view it gives of X's rows by a slice."""
        rows = self.original_rows(indices)
        if not rows.flags.owndata:  # X's own memory: never written
            rows = rows.copy()
        rows -= self.centre
        rows /= self.scale
        return rows

    @property
    def rounding(self):
        """Bound on the rounding of the scores per unit ``‖coef‖``."""
        magnitude = (
            float(np.max(np.abs(self.centre) / self.scale))
            if sp.issparse(self.X)
            else 1.0
        )
        return 16 * np.finfo(float).eps * (1.0 + magnitude) * np.sqrt(self.X.shape[1])


@dataclass(frozen=True)
class RowStatistics:
    """What :class:`ScaledRows` would otherwise find by passes over its rows,
    handed over by a caller that has them (one pass over X serves every pair of
    K classes: :meth:`~sklearn_linsep._rows._memory.MemoryRows.pairs`).

    ``centre``: the mean of the active rows; ``high`` and ``low``: each
    feature's extremes over them; ``side_means``: the means of the active rows
    of ``c > 0`` and of ``c < 0`` (the seed's hyperplane), each as
    :func:`_masked_mean` gives it (zeros for a side without rows);
    ``projection``: None, or a function giving every row's projection on the
    duplicate search's direction (:func:`_projected`), called only when the
    search runs.
    """

    centre: np.ndarray
    high: np.ndarray
    low: np.ndarray
    side_means: tuple
    projection: Optional[Callable[[], np.ndarray]] = None


def frame_scales(centre, high, low):
    """``(scale, feature_scale, spread)`` from the centre and each feature's
    extremes: one scalar for the Euclidean frame (the largest centred entry), one
    per feature for the equilibrated one (1 where a feature is constant), and each
    feature's range."""
    # A constant feature's mean may round an ulp off it: its scale is 0, not that.
    feature_scale = np.where(high > low, np.maximum(high - centre, centre - low), 0.0)
    largest = float(np.max(feature_scale)) if feature_scale.size else 0.0
    feature_scale = np.where(feature_scale > 0, feature_scale, 1.0)
    return largest if largest > 0 else 1.0, feature_scale, high - low


def spreads_uneven(feature_scale, spread):
    """Whether the non-constant features' spreads are more than
    ``EQUILIBRATE_ABOVE`` apart."""
    varying = feature_scale[spread > 0]
    return bool(varying.size and varying.max() > EQUILIBRATE_ABOVE * varying.min())


def equilibrated_copy(scaled):
    """A shallow copy of a rows object whose ``scale`` is its ``feature_scale``."""
    frame = copy.copy(scaled)
    frame.scale = scaled.feature_scale
    for cached in ("_centred", "_last_rows"):  # Z of the other frame
        if hasattr(frame, cached):
            setattr(frame, cached, None)
    return frame


def keeps_centred_copy(n_bytes, stored_bytes):
    """Whether a centred copy of X's rows, ``n_bytes`` of float64, may stay in
    memory for a method that makes many passes: up to ``CENTRED_CACHE_BYTES``;
    beyond, up to twice the bytes X stores (``stored_bytes``: a sparse X's entries)
    and a quarter of the memory free now. Re-centring was a fifth of the soft
    limit's time on 5e4 × 768 embeddings (307 MB); LinearSVC's liblinear copies a
    dense float64 X at twice its bytes (16-byte feature nodes)."""
    if n_bytes <= CENTRED_CACHE_BYTES:
        return True
    return n_bytes <= 2 * stored_bytes and n_bytes <= _free_memory() // 4


# A container's memory limit and use (cgroup v2, then v1): the host's free pages
# are not the container's.
_CGROUP_MEMORY = (
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
    (
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
        "/sys/fs/cgroup/memory/memory.usage_in_bytes",
    ),
)


def _free_memory():
    """Bytes of physical memory free now, within the container's limit where one
    is set; 0 where the platform does not say."""
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 0
    for limit_file, usage_file in _CGROUP_MEMORY:
        try:
            with open(limit_file) as limit, open(usage_file) as usage:
                free = min(free, int(limit.read()) - int(usage.read()))
            break
        except (OSError, ValueError):  # no such cgroup, or no limit ("max")
            continue
    return max(free, 0)


def chunk_rows(p):
    """Rows of p features in one chunk of a pass over dense X (4 MB of float64)."""
    return max(1, (1 << 19) // max(p, 1))


def _float64_chunks(X):
    """``(rows, block)`` over dense X in float64: X itself where it is float64,
    else a chunk converted at a time (numpy would convert all of X first: 38 ms
    against 15 ms for a masked sum at 40 000 × 1 024 float32)."""
    if X.dtype == np.float64:
        yield slice(0, X.shape[0]), X
        return
    step = chunk_rows(X.shape[1])
    for start in range(0, X.shape[0], step):
        rows = slice(start, start + step)
        yield rows, np.asarray(X[rows], dtype=np.float64)


def _dot64(X, v):
    """``X @ v`` in float64, without a float64 copy of float32 X."""
    if sp.issparse(X):
        return np.asarray(X @ v).ravel()
    return np.concatenate([block @ v for _, block in _float64_chunks(X)])


def _dot_about(X, v, centre):
    """``X @ v`` in float64 (:func:`_dot64`), but float32 X's by the compiled
    scores pass, ``(X - centre) @ v + centre @ v`` with each value widened as it
    is read: the seed's products without a float64 copy of X (which took 1.5 ms
    a pair of 4 000 x 256 float32 rows)."""
    if X.dtype != np.float32 or not _kernels.reads_rows(X):
        return _dot64(X, v)
    out = np.empty(X.shape[0])
    _kernels.centred_scores(X, centre, v, float(centre @ v), out)
    return out


def _masked_mean(X, mask):
    """Mean of the rows where ``mask`` holds, in float64: matrix-vector products,
    no copy of X."""
    weights = mask.astype(float)
    if sp.issparse(X):
        total = np.asarray(weights @ X).ravel()
    else:
        total = sum(
            (weights[rows] @ block for rows, block in _float64_chunks(X)),
            np.zeros(X.shape[1]),
        )
    return total / max(np.count_nonzero(mask), 1)


def _opposite_duplicates(X, c, active, projection=None):
    """Indices ``(i, j)`` of two equal active rows with different labels (``c``:
    ±1, or K classes' codes), or None.

    Rows are sorted by a random projection (one matrix-vector product and a sort of
    n floats: ten times faster than sorting the rows' bytes at n = 10⁶); equal
    projections, and nearly equal ones, are then compared row by row. ``projection``: every row's
    projection, where the caller has it (:func:`projection_key`), else one pass.
    """
    candidates, key = _projected(X, active, projection)
    order = np.argsort(key, kind="stable")
    labels = c[candidates][order]
    # Equal rows' keys may differ in their last bits (BLAS sums a block's last rows
    # in another order): near ties are compared too, row by row.
    near = np.abs(np.diff(key[order])) <= 1e-9 * np.abs(key).max(initial=0.0)
    ties = np.flatnonzero(near & (labels[1:] != labels[:-1]))
    for tie in ties:
        first, second = order[tie], order[tie + 1]
        first, second = candidates[first], candidates[second]
        if _rows_equal(X, first, second):
            return int(first), int(second)
    return None


def duplicate_owners(X, c, active):
    """For each active row, the first active row equal to it with the same label
    (itself if none); -1 for inactive rows. Rows are sorted by a random
    projection, as in :func:`_opposite_duplicates`, and equal projections compared
    row by row (exactly equal only: copies whose keys differ in their last bits
    keep owners of their own, a copy's weight counted apart)."""
    owners = np.full(len(c), -1, dtype=np.intp)
    candidates, key = _projected(X, active)
    owners[candidates] = candidates
    order = np.lexsort((candidates, key, c[candidates]))
    same = (key[order[1:]] == key[order[:-1]]) & (
        c[candidates][order[1:]] == c[candidates][order[:-1]]
    )
    for tie in np.flatnonzero(same):
        first, second = order[tie], order[tie + 1]
        owner, second = owners[candidates[first]], candidates[second]
        if _rows_equal(X, owner, second):
            owners[second] = owner
    return owners


def _projected(X, active, projection=None):
    """``(candidates, key)``: the active rows' indices and their projections on
    one random direction (equal rows project equally to the last bits of BLAS's
    sums, which may differ by a row's place in its block), in float64 (a float32
    ``X @ r`` with float64 ``r`` would first copy all of X to float64).
    ``projection``: :func:`projection_key` of X, where the caller has it."""
    candidates = np.flatnonzero(active)
    if projection is None:
        projection = projection_key(X)
    return candidates, projection[candidates]


def projection_key(X):
    """Every row's projection on the duplicate search's random direction (one
    pass): a row's key depends on that row alone, so the key of a subset of rows
    is the subset of the keys."""
    direction = np.random.default_rng(0).standard_normal(X.shape[1])
    return _dot64(X, direction)


def per_feature_rows(scaled, indices):
    """The rows ``indices`` of X, each feature divided by its spread and not
    centred (sparse X stays sparse): an affine frame, in which the LPs' answers
    (a point in both hulls, the least total hinge) are X's."""
    rows = scaled.X[indices]
    if sp.issparse(rows):
        return sp.csr_matrix(rows) @ sp.diags(1.0 / scaled.feature_scale)
    return np.asarray(rows, dtype=float) / scaled.feature_scale


def _rows_equal(X, first, second):
    if sp.issparse(X):
        return (X[first] != X[second]).nnz == 0
    return np.array_equal(X[first], X[second])


def rows_in_memory(problem):
    """The indices of the problem's active rows where every row is in memory
    (``cheap_passes``: the exact steps read them all) and, sparse, may be made
    dense (``DENSE_FALLBACK_ENTRIES``), else None (blocks: no step reads every
    row). The one place the exact core reads the flag for that."""
    if not problem.cheap_passes:
        return None
    X = getattr(problem, "X", None)
    if sp.issparse(X) and X.shape[0] * X.shape[1] > DENSE_FALLBACK_ENTRIES:
        return None  # its rows would be made dense
    return np.flatnonzero(problem.active)


def problem_rows(problem):
    """The rows a rational decision of the whole problem would read: its active
    rows in memory; none is made on blocks, so infinitely many there."""
    active = rows_in_memory(problem)
    return np.inf if active is None else active.size


def margin_limits(rows, threshold, slack=None):
    """The least margin each of ``rows`` (indices, or a ``range`` of them with step
    1) must reach: ``threshold``, less the row's slack where ``slack = (sorted
    rows, values)`` gives one (the soft limit's hinges; None: no slack)."""
    limit = np.full(len(rows), float(threshold))
    if slack is not None and len(slack[0]) and isinstance(rows, range):
        # A block's rows: the few slack rows within it, not a search per row.
        low, high = np.searchsorted(slack[0], [rows.start, rows.stop])
        limit[slack[0][low:high] - rows.start] -= slack[1][low:high]
    elif slack is not None and len(slack[0]):
        where = np.minimum(np.searchsorted(slack[0], rows), len(slack[0]) - 1)
        found = slack[0][where] == rows
        limit[found] -= slack[1][where[found]]
    return limit


def worst_violators(violation, working, batch=None):
    """``(violated, inside)`` from one violation per sample (positive: violated):
    the ``batch`` worst samples outside ``working``, and the violations of the
    members of ``working``."""
    violation = np.asarray(violation, dtype=float)
    inside = violation[working]
    violated = np.flatnonzero(violation > 0)
    # Solved for already, to the solver's precision (no copy of the violations).
    violated = violated[~np.isin(violated, working)]
    if batch is not None and violated.size > batch:
        worst = np.argpartition(violation[violated], -batch)[-batch:]
        violated = violated[worst]
    return violated, inside


def seed_direction(mean_pos, mean_neg):
    """The hyperplane halfway between the class means, ``(direction, offset)``."""
    direction = mean_pos - mean_neg
    if not np.any(direction):
        direction = np.ones_like(direction)
    return direction, -direction @ (mean_pos + mean_neg) / 2


# Rows join the nearest-points kernel's steps in batches from this many features;
# fewer hold few support vectors, and the scan for more rows costs what a product
# with all rows costs (2e4 x 20: 13.0 ms against 10.8 one row a step; 2 000 x 30:
# equal).
BATCH_FROM = 32


def join_batch(q):
    """The kernel's first batch on rows of ``q`` features: none below
    ``BATCH_FROM``, at most q / 8 + 1 (digits' pairs, 64 features: 1.2x one row a
    step at 16, 0.8x at 9), at most ``JOIN_BATCH``."""
    return min(_kernels.JOIN_BATCH, q // 8 + 1) if q >= BATCH_FROM else 0


def hull_nearest_points(Z, c, weights, tol=1e-12):
    """The compiled nearest points of the hulls of ``Z[c > 0]`` and ``Z[c < 0]``
    (``_kernels.nearest_points_kernel``; ``Z`` C-ordered float64, best centred and
    scaled to about unit size) from the hull weights ``weights`` (λ, written in
    place), or where they hold one side only, from each side's row nearest the other
    along the side means' difference: ``(λ, direction v = p₊ - p₋, levels (v·p₊,
    v·p₋), status, steps allowed)``."""
    m, q = Z.shape
    if not two_sided(c[weights > 0]):
        positive, negative = np.flatnonzero(c > 0), np.flatnonzero(c < 0)
        scores = Z @ (Z[positive].mean(axis=0) - Z[negative].mean(axis=0))
        weights = np.zeros(m)
        weights[positive[np.argmin(scores[positive])]] = 1.0
        weights[negative[np.argmax(scores[negative])]] = 1.0
    for side in (c > 0, c < 0):
        weights[side] /= weights[side].sum()
    max_iter = 50 * (m + q) + 100
    workspace = _kernels.nearest_workspace(m, q)
    direction, level_positive, level_negative, _, status = (
        _kernels.nearest_points_kernel(
            Z, c, weights, tol, max_iter, workspace, join_batch(q)
        )
    )
    return weights, direction, (level_positive, level_negative), status, max_iter


def two_sided(c):
    """Whether the signs ``c`` hold both sides."""
    return bool(np.any(c > 0) and np.any(c < 0))


def seed_indices(scaled, size):
    """Candidate support vectors: of each class, the ``size`` active samples
    closest to (or beyond) the hyperplane halfway between the class means."""
    c, active, X = scaled.c, scaled.active, scaled.X
    positive = active & (c > 0)
    negative = active & (c < 0)
    if size >= max(np.count_nonzero(positive), np.count_nonzero(negative)):
        return np.flatnonzero(active)  # every row: no pass needed to choose
    statistics = getattr(scaled, "_statistics", None)
    if statistics is not None:  # the class means, from the caller's one pass
        means = statistics.side_means
    else:
        means = _masked_mean(X, positive), _masked_mean(X, negative)
    direction, offset = seed_direction(*means)
    signed = c * (_dot_about(X, direction, scaled.centre) + offset)
    return np.unique(nearest_per_side(signed, c, active, size))


def nearest_per_side(values, c, active, size):
    """Of each side's active rows (c = +1, then c = -1), the ``size`` of smallest
    ``values`` (all of them where a side has fewer), in no particular order."""
    chosen = []
    for side in (1.0, -1.0):
        members = np.flatnonzero(active & (c == side))
        if members.size > size:
            members = members[np.argpartition(values[members], size - 1)[:size]]
        chosen.append(members)
    return np.concatenate(chosen)


def class_sides(n_classes, positive, negative):
    """``c`` of each class in a two-class problem: +1 for the classes
    ``positive``, -1 for ``negative``, 0 (out of the problem) for the others."""
    side = np.zeros(n_classes)
    side[positive], side[negative] = 1.0, -1.0
    return side


def grow(
    seed, solve, violators, max_rounds=MAX_ROUNDS, drop_above=None, affordable=None,
    progress=None,
):
    """The loop: ``(solution, working_set, rounds)``.

    ``solve(indices)`` solves the subproblem on those samples and returns an
    object with a ``feasible`` attribute; an infeasible subset ends the loop (it
    proves the whole set infeasible). ``violators(solution, working)`` returns the
    samples outside the working set whose constraint is violated (the worst of
    them, as many as should join per round) and the violation of each member
    (positive: violated), as :meth:`ScaledRows.violators` does. With
    ``drop_above``, members whose violation is below ``-drop_above`` (far inside
    their side) leave the working set when others join, which keeps the
    subproblems small; one that comes back as a violator is taken in again, and
    once a working set repeats nothing is dropped any more (so the loop cannot
    cycle: the working set then grows every round). With ``affordable``, a
    predicate on the working set about to be solved, a round it refuses ends the
    loop with the solution ``None`` (the caller has a better way for problems
    that need that many rows or rounds). With ``progress``, the subproblem's
    optimum (which only rises as rows join, :data:`ROUND_PROGRESS`), members stop
    leaving at the first round that does not raise it: an optimum that is not
    unique (an LP's) may be met at another vertex every round, each violating
    other rows, in sets that never repeat.
    """
    working = np.unique(seed)
    seen, best = set(), -np.inf
    for rounds in range(1, max_rounds + 1):
        if affordable is not None and not affordable(working):
            return None, working, rounds - 1
        with threads_for_solve(working.size):  # small: threads cost more than they give
            solution = solve(working)
        if not solution.feasible:
            return solution, working, rounds
        violated, inside = violators(solution, working)
        if violated.size == 0:
            return solution, working, rounds
        # A working set met before means dropping rows cycles (a subproblem with
        # several optimal answers, each leaving other rows out: digits' 8 against
        # the rest went round 148 -> 155 -> 148 rows): from then on rows only join.
        key = working.tobytes()
        value = None if progress is None else progress(solution)
        if key in seen or (value is not None and no_progress(value, best)):
            drop_above = None
        seen.add(key)
        best = best if value is None else max(best, value)
        if drop_above is not None:
            working = working[inside >= -drop_above]
        working = np.union1d(working, violated)
    raise SolverError(
        f"The working set still gained violated constraints after {max_rounds} "
        f"rounds ({working.size} samples in it)."
    )


def no_progress(value, best):
    """Whether a round's optimum ``value`` fails to raise the ``best`` so far by
    ``ROUND_PROGRESS`` of it (False before a best)."""
    return bool(np.isfinite(best)) and value <= best + ROUND_PROGRESS * max(
        abs(best), 1.0
    )


def touched_rows(rows, indices):
    """``(points, features)``: the rows ``indices`` of X dense on the features they
    touch (sparse X in memory: a certificate of text rows reads a fraction of the
    words; other features are 0 on every one of them), and those features."""
    X = getattr(rows, "X", None)
    if not sp.issparse(X):
        points = rows.original_rows(indices)
        return points, np.arange(points.shape[1])
    return touched_features(X[indices])


def touched_features(block, named=()):
    """``(points, features)``: the rows of a sparse ``block`` as dense float64 on the
    features they touch or that are ``named`` (every other feature is 0 on each of
    them), and those features; a dense block whole (``features`` all)."""
    if not sp.issparse(block):
        return np.asarray(block, dtype=float), slice(None)
    block = sp.csr_matrix(block)
    features = np.union1d(block.indices, np.asarray(named, dtype=np.intp))
    return block[:, features].toarray().astype(float, copy=False), features


def certificate_rows(X, y, indices):
    """``(points, labels)``: the certificate's rows of X (in memory or dask) as dense
    float64 (sparse X: on the features they touch, 0 on every other), and their
    labels; else a ValueError."""
    if not hasattr(X, "compute"):  # (a dask array: only these rows come over)
        X = X.tocsr() if sp.issparse(X) else np.asarray(X, dtype=float)
    y = y if hasattr(y, "compute") else np.asarray(y).reshape(-1)
    if len(X.shape) != 2 or X.shape[0] != len(y):
        raise ValueError(
            f"exact_weights needs X of shape (n_samples, n_features) and y of "
            f"n_samples labels; got X of shape {X.shape} and {len(y)} labels."
        )
    indices = np.asarray(indices, dtype=np.intp)
    if np.max(indices, initial=-1) >= X.shape[0]:
        raise ValueError(
            f"The certificate names row {indices.max()}, beyond the "
            f"{X.shape[0]} rows of X: it is not a certificate of these data."
        )
    points = touched_features(X[indices])[0]
    if not np.all(np.isfinite(points)):
        raise ValueError("The certificate's rows of X contain NaN or infinity.")
    return points, np.asarray(y[indices])
