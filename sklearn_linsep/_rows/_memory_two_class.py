"""The two-class rows in memory: :class:`ScaledRows`, the in-memory
:class:`~sklearn_linsep._rows._protocol.TwoClassRows`, and :class:`AugmentedRows`, the
perceptron's augmented samples."""

import numpy as np
import scipy.sparse as sp

from .. import _kernels
from .._proofs import column_extremes, proven_margins
from .._working_set import (
    Frame,
    _masked_mean,
    _opposite_duplicates,
    chunk_rows,
    frame_scales,
    keeps_centred_copy,
    margin_limits,
    seed_indices,
    worst_violators,
)


# The Gram pass reads a kept Z in blocks of at least this many rows: at 1e5 × 768
# a float32 pass took 0.61 s in blocks of 4 096 rows, 0.74 s in one chunk's 682.
# The passes of O(n p) keep one chunk, so that a fused pass reads its block from
# cache twice, and narrow rows (a chunk of 10 485 at p = 50) keep their chunks.
GRAM_ROWS = 4096


class ScaledRows(Frame):
    """One two-class problem on X seen as ``Z = (X - centre) / scale``, without
    copying X (but for :meth:`keep_centred`).

    It holds the labels ``c = ±1`` and the weights (samples of weight 0 are
    inactive: left out of every constraint) and answers every question the
    working-set algorithms ask of the data: rows of Z by index, the worst
    violators of a hyperplane, the smallest margin, the total hinge, the seed.
    It is the in-memory :class:`~sklearn_linsep._rows._protocol.TwoClassRows`; the dask
    backend's answers the same questions with tasks over row blocks, so the
    algorithms run unchanged on either. ``indices`` are the rows of the caller's X
    that X holds, where X is a subset of it (one pair of classes); None where X is
    all of it. ``statistics`` (:class:`RowStatistics`), where the caller has
    them already (the pairs of K classes share one pass over X), stand for the
    passes that would find the centre, the extremes and the seed's class means.
    """

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
        self._centred = None  # Z, once a pass has made it (keep_centred)
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
        self._last_margins = None  # (hyperplane, margins): see margins

    def proven_min_margin(self, coef, intercept, center=None, intercept_at_center=None):
        """The smallest margin of an active sample of the hyperplane ``(coef,
        intercept)`` on X itself (or about ``center``), less a proven bound on
        the rounding of its evaluation (:func:`~._proofs.proven_margins`)."""
        margins = proven_margins(
            self.X, self.c, coef, intercept, center, intercept_at_center
        )
        return float(np.min(margins[self.active]))

    @property
    def n_samples(self):
        return len(self.c)

    def rows(self, indices):
        """Rows of Z by index. The last answer is kept: the loop asks for the
        working set's rows in its solve and again in its checks."""
        indices = np.asarray(indices)
        last = self._last_rows
        if last is not None and np.array_equal(last[0], indices):
            return last[1]
        rows = self.centred_rows(indices)
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

        Dense X is centred as it is read (a row at a time in one compiled pass,
        or a chunk of a few MB at a time), so the scores do not lose the digits
        X's offset would cancel; sparse X cannot be centred
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
        if self._centred is not None:  # Z kept for the interior point's passes
            return self._centred @ coef + intercept
        out = np.empty(self.n_samples)
        if _kernels.reads_rows(self.X):
            _kernels.centred_scores(self.X, self.centre, weights, intercept, out)
            return out
        n, p = self.X.shape
        step = chunk_rows(p)
        for start in range(0, n, step):
            block = self.X[start : start + step] - self.centre
            out[start : start + step] = block @ weights
        return out + intercept

    def _blocks(self, held=None, chunks=1):
        """``(rows, Z block)`` over all samples, a few MB at a time, or over the
        samples of the mask ``held`` only (``rows`` a slice where a whole block is
        held, else the held rows' indices): the passes below centre each block as
        :meth:`scores` does. After :meth:`keep_centred`, Z is kept for the next
        passes where it fits (:func:`~.._working_set.keeps_centred_copy`), and
        read ``chunks`` blocks at a time."""
        n, p = self.X.shape
        step = chunk_rows(p)
        if self._centred is not None:
            step *= chunks
            for start in range(0, n, step):
                rows = slice(start, min(start + step, n))
                yield _held_part(rows, self._centred[rows], held)
            return
        keep = self._keep_centred and keeps_centred_copy(
            n * p * 8, _stored_bytes(self.X)
        )
        kept = np.empty((n, p)) if keep else None
        for start in range(0, n, step):
            rows = slice(start, min(start + step, n))
            if keep:
                kept[rows] = self.centred_rows(rows)
                yield _held_part(rows, kept[rows], held)
            elif held is None:
                yield rows, self.centred_rows(rows)
            else:  # centre only the rows asked for
                index = start + np.flatnonzero(held[rows])
                yield index, self.centred_rows(index)
        if keep:
            self._centred = kept

    def keep_centred(self):
        """Keep Z in memory from the next pass on, where it fits
        (:func:`~.._working_set.keeps_centred_copy`): for an algorithm that makes
        many passes (the interior point makes ~30, and centring was half their
        time at 1e5 × 50)."""
        self._keep_centred = True

    def augmented_gram(self, theta, single=False):
        """``Σ θ_i (z_i, 1)(z_i, 1)ᵀ`` over all samples (one pass), each block's
        products in float32 where ``single``; the rows of ``θ_i = 0`` are not read.

        numpy's ``Wᵀ W`` (its BLAS's syrk), not scipy's ``dsyrk``: numpy and
        scipy each load their own OpenBLAS, and alternating the two pools with
        their default threads made this pass 4-6x slower on 2 cores (1e5 x 50:
        0.148 s against 0.018 s; one thread: 0.026 s against 0.024 s)."""
        p = self.n_features
        out = np.zeros((p + 1, p + 1))
        root = np.sqrt(theta)
        held = theta > 0
        chunks = -(-GRAM_ROWS // chunk_rows(p))
        for rows, block in self._blocks(None if held.all() else held, chunks):
            weighted = block * root[rows, None]
            out[:p, p] += root[rows] @ weighted
            if single:
                weighted = weighted.astype(np.float32)
            out[:p, :p] += weighted.T @ weighted
        out[p, :p] = out[:p, p]
        out[p, p] = theta.sum()
        return out

    def normal_product(self, theta, coef, intercept):
        """``(s, Σ θ_i s_i (z_i, 1))`` with ``s_i = z_i·coef + intercept``, in one
        pass (:meth:`scores`, then :meth:`augmented_sum` of ``θ s``, reading each
        block once)."""
        scores, out = np.empty(self.n_samples), np.zeros(self.n_features + 1)
        for rows, block in self._blocks():
            scores[rows] = block @ coef + intercept
            # θ = 0 rows out: an inactive row's score may overflow (its Z is not
            # bounded by the active rows' extremes), and 0 × inf is nan.
            weighted = np.zeros(len(block))
            np.multiply(theta[rows], scores[rows], out=weighted, where=theta[rows] != 0)
            out[:-1] += weighted @ block
            out[-1] += weighted.sum()
        return scores, out

    def augmented_sum(self, v, absolute=False):
        """``Σ v_i (z_i, 1)`` over all samples, or ``Σ v_i |(z_i, 1)|``."""
        out = np.zeros(self.n_features)
        for rows, block in self._blocks():
            out += v[rows] @ (np.abs(block) if absolute else block)
        return np.r_[out, v.sum()]

    def margins(self, coef, intercept):
        """``c_i (z_i · coef + intercept)`` of every sample. The last hyperplane's
        are kept: the loop's last look for violators and its optimality check ask
        for the same one (a pass over X each: a third of a pair's time on 10 000 x
        256 embeddings, K = 5)."""
        key = (np.asarray(coef, dtype=float).tobytes(), float(intercept))
        last = self._last_margins
        if last is not None and last[0] == key:
            return last[1]
        margins = self.c * self.scores(coef, intercept)
        margins.flags.writeable = False  # shared by the callers that ask again
        self._last_margins = (key, margins)
        return margins

    def violators(self, coef, intercept, threshold, working, batch=None,
                  slack=None, every=True):  # fmt: skip
        """``(violated, inside)``: the (at most ``batch``) samples outside
        ``working`` whose margin is below ``threshold`` less their ``slack``
        (:func:`~sklearn_linsep._working_set.margin_limits`), worst first not
        guaranteed, and that violation of the members of ``working``.
        (``every``: in memory every row is looked at anyway.)"""
        limit = threshold  # no slack: one number, no array of n
        if slack is not None:
            limit = margin_limits(np.arange(len(self.active)), threshold, slack)
        violation = np.where(self.active, limit - self.margins(coef, intercept), -np.inf)
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
        """``Σ s_i max(0, 1 - margin_i)`` over the active samples (an inactive
        sample's margin may overflow, and 0 × inf is nan)."""
        hinge = np.maximum(0.0, 1.0 - self.margins(coef, intercept))
        return float(np.sum(self.weights[self.active] * hinge[self.active]))

    def seed(self, size):
        return seed_indices(self, size)

    def opposite_duplicates(self):
        """Two equal active rows with opposite labels, or None."""
        statistics = getattr(self, "_statistics", None)
        key = None
        if statistics is not None and statistics.projection is not None:
            key = statistics.projection()
        return _opposite_duplicates(self.X, self.c, self.active, key)

    def to_original(self, coef, intercept):
        """``(w, b)`` on X of the hyperplane ``(coef, intercept)`` on Z."""
        weights = coef / self.scale
        return weights, intercept - self.centre @ weights


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


def _stored_bytes(X):
    """The bytes X's values take: its array, or a sparse matrix's entries."""
    return X.data.nbytes + X.indices.nbytes if sp.issparse(X) else X.nbytes


def _held_part(rows, block, held):
    """The rows of a block (a slice of all samples) that the mask ``held`` keeps."""
    if held is None or held[rows].all():
        return rows, block
    kept = held[rows]
    return np.arange(rows.start, rows.stop)[kept], block[kept]
