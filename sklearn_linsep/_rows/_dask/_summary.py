"""The class summary of dask rows: per class, the active rows' count, sum and
extremes, in one pass that also learns the labels and validates every block, and
leaves on each block's worker the candidates of a two-class seed (its *early
pool*), so that two classes need no pass of their own for the seed."""

import operator
from dataclasses import dataclass

import numpy as np

from ... import _kernels
from ..._validation import check_labels
from ..._working_set import nearest_per_side, seed_direction
from ._bounds import OWN_POOL_ROWS, REFINE_ROWS, block_bound, refined_plane
from ._tasks import tree_reduce, validate_block


@dataclass
class ClassSummary:
    """Per class (rows of weight > 0 only): ``counts`` (K,), ``sums`` (K, p),
    ``high`` and ``low`` (K, p), the largest and smallest value of each feature
    (-inf and inf for a class without rows)."""

    classes: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    high: np.ndarray
    low: np.ndarray

    def expanded(self, union):
        """The same summary over the classes ``union`` (a superset)."""
        if len(union) == len(self.classes):
            return self
        where = np.searchsorted(union, self.classes)
        p = self.sums.shape[1]
        counts, sums = np.zeros(len(union)), np.zeros((len(union), p))
        high, low = np.full((len(union), p), -np.inf), np.full((len(union), p), np.inf)
        counts[where], sums[where] = self.counts, self.sums
        high[where], low[where] = self.high, self.low
        return ClassSummary(union, counts, sums, high, low)

    def merge(self, other):
        union = np.union1d(self.classes, other.classes)
        a, b = self.expanded(union), other.expanded(union)
        return ClassSummary(
            union,
            a.counts + b.counts,
            a.sums + b.sums,
            np.maximum(a.high, b.high),
            np.minimum(a.low, b.low),
        )

    def sides(self, side):
        """``(counts, sums, high, low)`` of the two sides of a problem, ``side``
        giving +1, -1 or 0 per class: counts (2,) and sums (2, p) per side,
        extremes over both."""
        positive, negative = side > 0, side < 0
        both = positive | negative
        p = self.sums.shape[1]
        return (
            np.array([self.counts[positive].sum(), self.counts[negative].sum()]),
            np.vstack(
                [self.sums[positive].sum(axis=0), self.sums[negative].sum(axis=0)]
            ),
            self.high[both].max(axis=0) if both.any() else np.full(p, -np.inf),
            self.low[both].min(axis=0) if both.any() else np.full(p, np.inf),
        )


def _block_summary(X, y, w, name, pool_rows=0, keep=False):
    """A block's :class:`ClassSummary`, in one pass of a kernel
    (``_kernels.class_summaries``); with ``pool_rows``, also its early pool
    (:func:`_early_pool`) and, with ``keep``, the block itself ``(X, y, w)``,
    validated, for the passes after this one (else None)."""
    given_y, given_w = y, w
    X, codes, w, labels = validate_block(X, y, w, None, name)
    validated, X = X, np.ascontiguousarray(X, dtype=np.float64)
    K, p = len(labels), X.shape[1]
    counts, sums = np.empty(K), np.empty((K, p))
    high, low = np.empty((K, p)), np.empty((K, p))
    weights = np.zeros(0) if w is None else np.asarray(w, dtype=np.float64)
    _kernels.class_summaries(X, codes, weights, counts, sums, high, low)
    summary = ClassSummary(np.asarray(labels), counts, sums, high, low)
    if not pool_rows:
        return summary
    pool = _early_pool(X, codes, w, summary, pool_rows)
    return summary, pool, ((validated, given_y, given_w) if keep else None)


def _early_pool(X, codes, w, summary, pool_rows):
    """``(rows, X rows, labels, weights, bound)``: of a block of two labels, the
    active rows of each side nearest the hyperplane halfway between the two's means
    in the block (``pool_rows`` less ``own``; the means stand for all rows' means:
    the classes are not known yet) and the ``own`` nearest the block's own
    hyperplane (the nearest points' of the hulls of the first ones' nearest, where
    those hulls are apart: see :mod:`._bounds`), with the
    :class:`~._bounds.BlockBound` of the other rows; None for a block of another
    number of labels (its rows are read by the full passes)."""
    labels, counts = summary.classes, summary.counts
    if len(labels) != 2 or not np.all(counts > 0):
        return None
    c = np.where(codes == 1, 1.0, -1.0)  # the larger label, as two classes order it
    active = True if w is None else np.asarray(w) > 0
    means = summary.sums / counts[:, None]  # numpy's mean of the rows: the same bits
    direction, shift = seed_direction(means[1], means[0])
    signed = c * (X @ direction + shift)
    own = min(OWN_POOL_ROWS, pool_rows // 8)
    local = nearest_per_side(signed, c, active, pool_rows - own)
    # The nearest of these (a search among the pool's rows, not the block's).
    nearest = local[nearest_per_side(signed[local], c[local], True, REFINE_ROWS)]
    refined = refined_plane(X, c, nearest)
    if refined is not None:
        # Most of the pool nearest the means' hyperplane, as before: the seed's and
        # the soft limit's candidates (a flipped label tilts the pool's own
        # hyperplane: with half the pool nearest each, the soft limit took two full
        # passes, not one); the rest nearest the pool's own, which the bound is of.
        direction, shift = refined
        signed = c * (X @ direction + shift)
        chosen = np.zeros(len(c), dtype=bool)
        chosen[local] = True
        chosen[nearest_per_side(signed, c, active, own)] = True
        local = np.flatnonzero(chosen)
    bound = block_bound(signed, c, active, local, direction, shift,
                        summary.high[::-1], summary.low[::-1])  # fmt: skip
    weights = np.ones(len(local)) if w is None else np.asarray(w, np.float64)[local]
    return local, X[local], labels[codes[local]], weights, bound


def _merge(first, second):
    return first.merge(second)


def class_summary(rows, pool_rows=0, keep=()):
    """``(summary, early pools, kept)``: the :class:`ClassSummary` of a
    :class:`DaskRows`, its labels checked (two at least), in one pass merged in a
    tree; with ``pool_rows``, each block's early pool too, kept on its worker
    (delayed, one per block), else None; ``kept``, the blocks of the indices
    ``keep`` (with ``pool_rows``), kept on their workers as delayed ``(X, y, w)``
    by block index."""
    import dask

    task = dask.delayed(_block_summary, pure=True)
    chosen = set(np.asarray(keep).tolist()) if pool_rows else set()
    parts = [task(X, y, w, rows.name, pool_rows, index in chosen)
             for index, (X, y, w) in enumerate(rows.blocks())]  # fmt: skip
    pools, blocks = None, {}
    if pool_rows:
        parts = dask.persist(*parts)  # the pass once: its pools (and blocks) stay
        pick = dask.delayed(operator.getitem, pure=True)
        for index in sorted(chosen):
            block = pick(parts[index], 2)
            blocks[index] = tuple(pick(block, field) for field in range(3))
        pools = [pick(part, 1) for part in parts]
        parts = [pick(part, 0) for part in parts]
    summary = tree_reduce(parts, _merge).compute()
    summary.classes = check_labels(summary.classes, rows.name)
    return summary, pools, blocks
