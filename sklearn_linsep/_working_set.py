"""The working-set loop shared by the hard margin and the separability test.

A problem whose constraints are one per sample (``c_i (w·x_i + b) ≥ 1``) is solved on
a small subset of the samples; one pass over all of them finds the constraints the
subset's answer violates; the worst join the subset; repeat until none is violated.
The answer on the final subset is then the answer on all the samples: it satisfies
every constraint, and no constraint outside the subset can do better. The
subproblem (a QP or an LP) is a parameter; so is the violation of a sample.
"""

import copy
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas

from ._proofs import column_extremes, proven_margins
from ._threads import threads_for_solve
from .exceptions import SolverError

MAX_ROUNDS = 200
# Samples with a margin above 1 + DROP_ABOVE leave the working set (see grow):
# measured best of 0.05, 0.2 and 0.5 at n = 1e4-1e5, p = 20-100.
DROP_ABOVE = 0.2
CENTRED_CACHE_BYTES = 1 << 27  # 128 MB of centred rows kept between passes
# Features whose spreads differ by more than this are decided in the equilibrated
# frame (each feature divided by its own spread) before the Euclidean margin is
# finished in X's units: beyond it a small feature keeps fewer than 13 of float64's
# digits against the largest one, and a gap in it could fall under the solvers'
# tolerances (a false certificate at spreads 1e10 apart).
EQUILIBRATE_ABOVE = 1e3


class ScaledRows:
    """One two-class problem on X seen as ``Z = (X - centre) / scale``, without
    copying X.

    It holds the labels ``c = ±1`` and the weights (samples of weight 0 are
    inactive: left out of every constraint) and answers every question the
    working-set algorithms ask of the data: rows of Z by index, the worst
    violators of a hyperplane, the smallest margin, the total hinge, the seed.
    It is the in-memory :class:`~sklearn_linsep._rows.TwoClassRows`; the dask
    backend's answers the same questions with tasks over row blocks, so the
    algorithms run unchanged on either. ``indices`` are the rows of the caller's X
    that X holds, where X is a subset of it (one pair of classes); None where X is
    all of it. ``statistics`` (:class:`RowStatistics`), where the caller has
    them already (the pairs of K classes share one pass over X), stand for the
    passes that would find the centre, the extremes and the seed's class means.
    """

    in_memory = True
    cheap_passes = True  # the soft limit may make ~30 passes

    def __init__(
        self, X, c, sample_weight=None, centre=True, indices=None, statistics=None
    ):
        self.X = X
        self.c = c
        self.indices = indices
        self.weights = (
            np.ones(len(c)) if sample_weight is None else np.asarray(sample_weight)
        )
        self.active = self.weights > 0
        self._keep_centred = False
        self._centred = None  # the centred blocks, once a pass has made them
        self._statistics = statistics
        active = self.active
        if statistics is not None:
            self.centre = statistics.centre if centre else np.zeros(X.shape[1])
            high, low = statistics.high, statistics.low
        else:
            self.centre = _masked_mean(X, active) if centre else np.zeros(X.shape[1])
            if active.all():  # extremes by column, without a centred copy of X
                high, low = column_extremes(X)
            else:
                high, low = column_extremes(X[active])
        self.scale, self.feature_scale, self.spread = frame_scales(
            self.centre, high, low
        )
        self.magnitude = np.maximum(np.abs(high), np.abs(low))  # largest |x_j|
        self._last_rows = None  # (indices, Z rows): the working set, asked often

    def equilibrated(self):
        """The same problem on ``Z = (X - centre) / s``, each feature divided by its
        own spread ``s_j``: the frame in which the verdict is decided when the
        spreads are far apart (:attr:`uneven`). Its margins are not X's."""
        return equilibrated_copy(self)

    @property
    def uneven(self):
        """Whether the features' spreads differ by more than ``EQUILIBRATE_ABOVE``."""
        return spreads_uneven(self.feature_scale, self.spread)

    def proven_min_margin(self, coef, intercept, center=None, intercept_at_center=None):
        """The smallest margin of an active sample of the hyperplane ``(coef,
        intercept)`` on X itself (or about ``center``), less a proven bound on
        the rounding of its evaluation (:func:`~._proofs.proven_margins`)."""
        margins = proven_margins(
            self.X, self.c, coef, intercept, center, intercept_at_center
        )
        return float(np.min(margins[self.active]))

    @property
    def sparse(self):
        return sp.issparse(self.X)

    def indices_in_X(self, indices):
        """These rows as rows of the caller's X."""
        return indices if self.indices is None else self.indices[indices]

    @property
    def n_samples(self):
        return len(self.c)

    @property
    def n_features(self):
        return self.X.shape[1]

    def original_rows(self, indices):
        """Rows of X itself, dense."""
        block = self.X[indices]
        return block.toarray() if sp.issparse(block) else np.asarray(block, float)

    def rows(self, indices):
        """Rows of Z by index. The last answer is kept: the loop asks for the
        working set's rows in its solve and again in its checks."""
        indices = np.asarray(indices)
        last = self._last_rows
        if last is not None and np.array_equal(last[0], indices):
            return last[1]
        rows = (self.original_rows(indices) - self.centre) / self.scale
        self._last_rows = (indices.copy(), rows)
        return rows

    def _all_rows(self):
        """Z whole, if the last rows asked for were every row in order."""
        last = self._last_rows
        if last is None or len(last[0]) != self.n_samples:
            return None
        return last[1] if np.array_equal(last[0], np.arange(self.n_samples)) else None

    def labels(self, indices):
        return self.c[indices]

    def sample_weights(self, indices):
        return self.weights[indices]

    def scores(self, coef, intercept):
        """``Z @ coef + intercept`` for every sample (one pass over X).

        Dense X is centred chunk by chunk (a few MB at a time), so the scores do
        not lose the digits X's offset would cancel; sparse X cannot be centred
        without filling it, and its scores carry that rounding
        (:attr:`rounding` per unit of ``‖coef‖``).
        """
        weights = coef / self.scale
        if sp.issparse(self.X):
            raw = np.asarray(self.X @ weights).ravel()
            return raw + (intercept - self.centre @ weights)
        whole = self._all_rows()
        if whole is not None:  # the working set is every row: Z is at hand
            return whole @ coef + intercept
        out = np.empty(self.n_samples)
        if self._centred is not None:  # Z kept for the interior point's passes
            for rows, block in self._centred:
                out[rows] = block @ coef
            return out + intercept
        n, p = self.X.shape
        step = chunk_rows(p)
        for start in range(0, n, step):
            block = self.X[start : start + step] - self.centre
            out[start : start + step] = block @ weights
        return out + intercept

    def _blocks(self):
        """``(slice, Z block)`` over all samples, a few MB at a time: the passes
        below centre each block as :meth:`scores` does. After
        :meth:`keep_centred`, the centred blocks are kept for the next pass (up to
        ``CENTRED_CACHE_BYTES``)."""
        if self._centred is not None:
            yield from self._centred
            return
        n, p = self.X.shape
        keep = self._keep_centred and n * p * 8 <= CENTRED_CACHE_BYTES
        blocks = []
        step = chunk_rows(p)
        for start in range(0, n, step):
            rows = slice(start, min(start + step, n))
            block = self.X[rows]
            block = block.toarray() if sp.issparse(block) else block
            blocks.append((rows, (block - self.centre) / self.scale))
            yield blocks[-1]
            if not keep:
                blocks.clear()
        if keep:
            self._centred = blocks

    def keep_centred(self):
        """Keep Z in memory from the next pass on, if it fits in
        ``CENTRED_CACHE_BYTES``: for an algorithm that makes many passes (the
        interior point makes ~30, and centring was half their time at 1e5 × 50)."""
        self._keep_centred = True

    def augmented_gram(self, theta):
        """``Σ θ_i (z_i, 1)(z_i, 1)ᵀ`` over all samples (one pass)."""
        p = self.n_features
        out = np.zeros((p + 1, p + 1))
        root = np.sqrt(theta)
        for rows, block in self._blocks():
            weighted = block * root[rows, None]
            # half the products of Zᵀ Θ Z (BLAS syrk fills the upper triangle)
            out[:p, :p] += blas.dsyrk(1.0, weighted.T)  # F-ordered: no copy
            out[:p, p] += root[rows] @ weighted
        out[:p, :p] = np.triu(out[:p, :p]) + np.triu(out[:p, :p], 1).T
        out[p, :p] = out[:p, p]
        out[p, p] = theta.sum()
        return out

    def augmented_sum(self, v, absolute=False):
        """``Σ v_i (z_i, 1)`` over all samples, or ``Σ v_i |(z_i, 1)|``."""
        out = np.zeros(self.n_features)
        for rows, block in self._blocks():
            out += v[rows] @ (np.abs(block) if absolute else block)
        return np.r_[out, v.sum()]

    def margins(self, coef, intercept):
        """``c_i (z_i · coef + intercept)`` of every sample."""
        return self.c * self.scores(coef, intercept)

    def violators(self, coef, intercept, threshold, working, batch=None, every=True):
        """``(violated, inside)``: the (at most ``batch``) samples outside
        ``working`` whose margin is below ``threshold``, worst first not
        guaranteed, and ``threshold - margin`` of the members of ``working``.
        (``every``: in memory every row is looked at anyway.)"""
        violation = np.where(
            self.active, threshold - self.margins(coef, intercept), -np.inf
        )
        return worst_violators(violation, working, batch)

    def min_margin(self, coef, intercept, original=False):
        """The smallest margin of an active sample; with ``original``, of the
        hyperplane ``(coef, intercept)`` on X itself (computed on X, not Z)."""
        if original:
            margins = self.c * (np.asarray(self.X @ coef).ravel() + intercept)
        else:
            margins = self.margins(coef, intercept)
        return float(np.min(margins[self.active]))

    def total_hinge(self, coef, intercept):
        """``Σ s_i max(0, 1 - margin_i)``."""
        hinge = np.maximum(0.0, 1.0 - self.margins(coef, intercept))
        return float(np.sum(self.weights * hinge))

    def seed(self, size):
        return seed_indices(self, size)

    def opposite_duplicates(self):
        """Two equal active rows with opposite labels, or None."""
        statistics = getattr(self, "_statistics", None)
        key = None
        if statistics is not None and statistics.projection is not None:
            key = statistics.projection()
        return _opposite_duplicates(self.X, self.c, self.active, key)

    @property
    def rounding(self):
        """Bound on the rounding of :meth:`scores` per unit ``‖coef‖``."""
        magnitude = (
            float(np.max(np.abs(self.centre) / self.scale))
            if sp.issparse(self.X)
            else 1.0
        )
        return 16 * np.finfo(float).eps * (1.0 + magnitude) * np.sqrt(self.X.shape[1])

    def to_original(self, coef, intercept):
        """``(w, b)`` on X of the hyperplane ``(coef, intercept)`` on Z."""
        weights = coef / self.scale
        return weights, intercept - self.centre @ weights


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
    """Indices ``(i, j)`` of two equal active rows with opposite labels, or None.

    Rows are sorted by a random projection (one matrix-vector product and a sort of
    n floats: ten times faster than sorting the rows' bytes at n = 10⁶); equal
    projections are then compared row by row. ``projection``: every row's
    projection, where the caller has it (:func:`projection_key`), else one pass.
    """
    candidates, key = _projected(X, active, projection)
    order = np.argsort(key, kind="stable")
    labels = c[candidates][order]
    ties = np.flatnonzero(
        (key[order[1:]] == key[order[:-1]]) & (labels[1:] != labels[:-1])
    )
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
    row by row."""
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
    one random direction (equal rows project equally), in float64 (a float32
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


def worst_violators(violation, working, batch=None):
    """``(violated, inside)`` from one violation per sample (positive: violated):
    the ``batch`` worst samples outside ``working``, and the violations of the
    members of ``working``."""
    violation = np.array(violation, dtype=float)
    inside = violation[working]
    violation[working] = -np.inf  # solved for already, to the solver's precision
    violated = np.flatnonzero(violation > 0)
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
    signed = c * (_dot64(X, direction) + offset)
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


def grow(seed, solve, violators, max_rounds=MAX_ROUNDS, drop_above=None, max_size=None):
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
    cycle: the working set then grows every round). With ``max_size``, a working set that
    outgrows it ends the loop with the solution ``None`` (the caller has a better
    way for problems that need that many rows).
    """
    working = np.unique(seed)
    seen = set()
    for rounds in range(1, max_rounds + 1):
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
        if key in seen:
            drop_above = None
        seen.add(key)
        if drop_above is not None:
            working = working[inside >= -drop_above]
        working = np.union1d(working, violated)
        if max_size is not None and working.size > max_size:
            return None, working, rounds
    raise SolverError(
        f"The working set still gained violated constraints after {max_rounds} "
        f"rounds ({working.size} samples in it)."
    )


class AugmentedRows(ScaledRows):
    """X seen as ``Z = (X, 1) / scale``: the augmented samples of the perceptron,
    divided by one scalar (which keeps margins through the origin in proportion)
    but not centred (which would not)."""

    def __init__(self, X, c, sample_weight=None):
        super().__init__(X, c, sample_weight, centre=False)
        values = X[self.active]
        values = values.data if sp.issparse(values) else values
        largest = float(np.max(np.abs(values))) if np.size(values) else 0.0
        self.scale = max(largest, 1.0)

    def rows(self, indices):
        block = self.original_rows(indices)
        return np.column_stack([block, np.ones(len(indices))]) / self.scale

    def scores(self, coef, intercept):
        raw = np.asarray(self.X @ coef[:-1]).ravel() + coef[-1]
        return raw / self.scale + intercept

    def to_original(self, coef, intercept):
        return coef / self.scale, intercept

    @property
    def rounding(self):
        return 16 * np.finfo(float).eps * np.sqrt(self.X.shape[1] + 1)
