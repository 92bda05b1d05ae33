"""The pairs (row, other class) of K classes on dask blocks: the passes the
joint verdict and the Crammer–Singer margin ask of their rows, each one task
per block running the in-memory block pass (:mod:`sklearn_linsep._kesler`).

Full passes are few: every pass also sends the client a *pool* of candidate
rows per block (of each class, the rows nearest the boundaries of the pass's
machine), and a round of the working-set loop looks for its violators in the
pools, on the client, making a full pass only when they hold none.
"""

import operator
from functools import partial

import numpy as np

from ..._kesler import (
    Pairs,
    block_seed,
    block_violations,
    block_worst,
    seed_limits,
    select_per_group,
    working_violations,
)
from ..._proofs import joint_proven_margins
from ..._working_set import frame_scales
from ._tasks import fetched_field, fetched_rows, tree_reduce
from ._two_class import _codes

# The candidate rows of each class each block sends to the client's pool: four
# times the seed's size or POOL_ROWS, whichever is more, and no more than
# POOL_BYTES over all blocks and classes hold. A round looks at every row of the
# pool, on the client.
POOL_ROWS = 256
POOL_BYTES = 1 << 26


def _block(X, y, w, classes):
    """``(X, codes, weights, active)`` of a block in float64 (weights 1 without)."""
    X = np.asarray(X, dtype=np.float64)
    weights = (
        np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64).ravel()
    )
    return X, _codes(y, classes), weights, weights > 0


def _sent(X, codes, weights, local, offset, ids, values, groups):
    """What a block sends for its rows ``local``: pair ids, values, rows, class
    codes, weights, global row indices and groups (see ``select_per_group``)."""
    return (ids, values, X[local], codes[local], weights[local], local + offset, groups)


def _pool(X, codes, weights, active, margin, offset, pool_rows, n_classes):
    """A block's candidate rows: of each class, the ``pool_rows`` active rows
    of least ``margin`` (their worst pair's), as ``(global indices, rows, class
    codes, weights)``."""
    local = np.flatnonzero(active)
    limits = [pool_rows] * n_classes
    local = np.sort(local[select_per_group(-margin[local], codes[local], limits)])
    return (local + offset, X[local], codes[local], weights[local])


def _merge(first, second, limits):
    """Two blocks' results: their rows (the best per group) and their numbers
    (least margin: the smaller; total hinge: the sum)."""
    part = tuple(
        np.concatenate([a, b]) for a, b in zip(first[0], second[0], strict=True)
    )
    chosen = select_per_group(part[1], part[6], limits)
    return (
        tuple(field[chosen] for field in part),
        min(first[1], second[1]),
        first[2] + second[2],
    )


def _worst_violators(violation, batch):
    """Positions of the ``batch`` largest positive violations."""
    local = np.flatnonzero(violation > 0)
    return local[select_per_group(violation[local], np.zeros(local.size), [batch])]


def _pass_block(
    X, y, w, classes, offset, centre, scale, coef, intercept, threshold, slack,
    working, batch, pool_rows,
):  # fmt: skip
    """One pass over a block: its ``batch`` worst violators, least margin and
    total hinge, and its pool (the rows nearest the machine's boundaries)."""
    X, codes, weights, active = _block(X, y, w, classes)
    margin, other = block_worst(X, codes, active, centre, scale, coef, intercept)
    least = float(margin.min()) if active.any() else np.inf
    total = float(weights[active] @ np.maximum(0.0, 1.0 - margin[active]))
    rows = np.arange(X.shape[0]) + offset
    ids, violation = block_violations(
        margin, other, rows, len(classes), threshold, slack, working
    )
    local = _worst_violators(violation, batch)
    groups = np.zeros(local.size, dtype=np.intp)
    part = _sent(X, codes, weights, local, offset, ids[local], violation[local], groups)
    pool = _pool(X, codes, weights, active, margin, offset, pool_rows, len(classes))
    return part, least, total, pool


def _seed_block(X, y, w, classes, offset, centre, scale, means, size, pool_rows):
    """A block's seed candidates (:func:`block_seed`), and its pool: the rows
    nearest the nearest-mean machine's boundaries."""
    X, codes, weights, active = _block(X, y, w, classes)
    local, ids, values, groups = block_seed(
        X, codes, active, centre, scale, means, size
    )
    ids = ids + offset * len(classes)  # a block's row i is row offset + i
    intercept = -0.5 * np.sum(means**2, axis=1)
    margin, _ = block_worst(X, codes, active, centre, scale, means, intercept)
    pool = _pool(X, codes, weights, active, margin, offset, pool_rows, len(classes))
    sent = _sent(X, codes, weights, local, offset, ids, values, groups)
    return sent, np.inf, 0.0, pool


def _proven_block(X, y, w, classes, offset, coef, intercept, center, at_center):
    X, codes, _, active = _block(X, y, w, classes)
    if not active.any():
        return np.inf
    return float(
        joint_proven_margins(
            X[active], codes[active], coef, intercept, center, at_center
        ).min()
    )


def _pool_violators(
    pool, n_classes, centre, scale, coef, intercept, threshold, slack, working, batch
):  # fmt: skip
    """The ``batch`` worst violators among the pool's rows, as a full pass
    finds them among a block's (:func:`_pass_block`): positions in the pool and
    constraint ids."""
    indices, X, codes, weights = pool
    margin, other = block_worst(X, codes, weights > 0, centre, scale, coef, intercept)
    ids, violation = block_violations(
        margin, other, indices, n_classes, threshold, slack, working
    )
    local = _worst_violators(violation, batch)
    return local, ids[local]


def _head(result):
    """A block result's rows and numbers, without its pool."""
    return result[:3]


class DaskKeslerRows(Pairs):
    """The pairs (row, other class) of K classes on the row blocks of a
    :class:`DaskRows`, answering what :class:`~.._memory_pairs.KeslerRows`
    answers in memory, by the same block passes.

    The client keeps the rows the working set asked for (in the rows'
    ``fetched``, where ``support_rows`` finds them); a pass is one task per
    block, reduced in a tree that keeps the worst violators (the seed: the rows
    nearest the nearest-mean machine's boundaries, and the anchors). The centre
    and the scales come from the rows' class summary.

    Full passes are few, since a pass over a lazily built array builds it again:
    each pass (the seed's too) also sends the client a *pool* per block, of each
    class the rows nearest the boundaries of the pass's machine. A round looks
    for violators in the pools first (on the client, in memory: the same margins
    a pass computes, row by row) and makes a full pass only where they hold none.
    That pass finds the violators of every row (which join, with new pools
    about the round's machine), and gives the least margin and total hinge of
    its machine, which the optimality check then asks for. So the answer is
    checked on every row, as before, at about three passes (the summary, the
    seed, one to confirm) where the rounds made one each.
    """

    cheap_passes = False  # blocks: rational decisions stay on the client's rows

    def __init__(self, rows):
        summary = rows.class_summary()
        self.X = rows.X
        self.name = rows.name
        self.classes = summary.classes
        self.n_classes = len(self.classes)
        self.n_samples = int(rows.X.shape[0])
        self.indices = None
        self._blocks = rows.blocks()
        self._offsets = rows.offsets[:-1]
        self._fetched = rows.fetched
        if np.any(summary.counts == 0):
            raise ValueError(f"{self.name}: a class has no sample of positive weight.")
        self._means = summary.sums / summary.counts[:, None]
        self.centre = summary.sums.sum(axis=0) / summary.counts.sum()
        high, low = summary.high.max(axis=0), summary.low.min(axis=0)
        self.scale, self.feature_scale, self.spread = frame_scales(
            self.centre, high, low
        )
        self.magnitude = np.maximum(np.abs(high), np.abs(low))
        # Shared with its frames: the anchors, the candidate rows (and how many
        # of a class a block keeps), the numbers of the last full pass.
        self._passes = {
            "anchors": None,
            "last": None,
            "pool": None,
            "pool_rows": self._pool_rows(0),
        }

    def _pool_rows(self, size):
        """Rows of each class each block sends to the pool: ``4 size`` or
        ``POOL_ROWS``, whichever is more, within ``POOL_BYTES`` on the client
        (at least one: the pools' purpose is fewer passes, the full passes'
        to find what they miss)."""
        share = self.n_classes * max(len(self._blocks), 1) * (self.n_features + 3)
        budget = POOL_BYTES // (8 * share)
        return int(max(1, min(max(4 * size, POOL_ROWS), budget)))

    def _tasks(self, function, *args):
        import dask

        task = dask.delayed(function, pure=True)
        return [
            task(X, y, w, self.classes, offset, *args)
            for (X, y, w), offset in zip(self._blocks, self._offsets, strict=True)
        ]

    def _reduced(self, results, limits):
        """The tree-reduced ``(rows sent, least, total)`` of the blocks' results,
        whose pools become the client's; the rows sent are kept."""
        import dask

        head = dask.delayed(_head, pure=True)
        pool = dask.delayed(operator.getitem, pure=True)
        merge = partial(_merge, limits=limits)
        tree = tree_reduce([head(result) for result in results], merge)
        (part, least, total), pools = dask.compute(
            tree, [pool(result, 3) for result in results]
        )
        self._passes["pool"] = tuple(
            np.concatenate(fields) for fields in zip(*pools, strict=True)
        )
        chosen = select_per_group(part[1], part[6], limits)  # one block: unmerged
        part = tuple(field[chosen] for field in part)
        self._keep(part[5], part[2], part[4], part[3])
        return part, least, total

    def _keep(self, indices, rows, weights, codes):
        """The client keeps these rows (the working set's candidates)."""
        for index, row, weight, code in zip(indices, rows, weights, codes, strict=True):
            self._fetched[int(index)] = (row, weight, code)

    def _cached(self, rows, field):
        return fetched_field(self._fetched, rows, field)

    def original_rows(self, rows):
        return fetched_rows(self._fetched, rows, self.n_features)

    @property
    def codes(self):
        return _FetchedCodes(self)

    def row_weights(self, rows):
        return self._cached(rows, 1).astype(float)

    def nearest_seed(self, size):
        """As :meth:`KeslerRows.nearest_seed`, in one pass, which leaves the
        pools."""
        means = (self._means - self.centre) / self.scale
        limits = seed_limits(self.n_classes, size)
        self._passes["pool_rows"] = pool_rows = self._pool_rows(size)
        results = self._tasks(
            _seed_block, self.centre, self.scale, means, size, pool_rows
        )
        part, _, _ = self._reduced(results, limits)
        ids, groups = part[0], part[6]
        self._passes["anchors"] = np.unique(ids[groups >= self.n_classes])
        return np.unique(ids)

    def _pass(self, coef, intercept, threshold, working, batch, slack):
        results = self._tasks(
            _pass_block, self.centre, self.scale, coef, intercept, threshold,
            slack, np.asarray(working), batch, self._passes["pool_rows"],
        )  # fmt: skip
        part, least, total = self._reduced(results, [batch])
        self._passes["last"] = (self._key(coef, intercept), least, total)
        return part

    def _in_pool(self, coef, intercept, threshold, working, batch, slack):
        """The pool's ``batch`` worst violators (kept by the client)."""
        pool = self._passes["pool"]
        local, ids = _pool_violators(
            pool, self.n_classes, self.centre, self.scale, coef, intercept,
            threshold, slack, np.asarray(working), batch,
        )  # fmt: skip
        indices, rows, codes, weights = pool
        self._keep(indices[local], rows[local], weights[local], codes[local])
        return ids

    def _key(self, coef, intercept):
        return (
            np.asarray(coef).tobytes(),
            np.asarray(intercept).tobytes(),
            np.asarray(self.scale).tobytes(),
        )

    def violators(
        self, coef, intercept, threshold, working, batch=None, slack=None, every=True
    ):
        """As :meth:`KeslerRows.violators`: in the pools first, in a full pass
        where they hold none (with ``every=False``, not even then: none found
        does not prove that no pair violates, as for the two-class rows)."""
        batch = batch or self.n_samples
        question = (coef, intercept, threshold, working, batch, slack)
        pooled = self._passes["pool"] is not None
        ids = self._in_pool(*question) if pooled else np.array([], np.intp)
        if ids.size == 0 and (every or not pooled):
            ids = self._pass(*question)[0]
        inside = working_violations(self, coef, intercept, threshold, working, slack)
        return ids.astype(np.intp), inside

    def _numbers(self, coef, intercept):
        """``(least margin, total hinge)`` of a machine: the last pass's, if it
        was this machine's, else a pass of its own."""
        last = self._passes["last"]
        if last is None or last[0] != self._key(coef, intercept):
            self._pass(coef, intercept, -np.inf, np.array([], np.intp), 1, None)
            last = self._passes["last"]
        return last[1], last[2]

    def min_margin(self, coef, intercept):
        return self._numbers(coef, intercept)[0]

    def total_hinge(self, coef, intercept):
        return self._numbers(coef, intercept)[1]

    def proven_min_margin(self, coef, intercept, center=None, intercept_at_center=None):
        import dask

        parts = self._tasks(_proven_block, coef, intercept, center, intercept_at_center)
        return float(min(dask.compute(*parts)))


class _FetchedCodes:
    """``codes[rows]`` of rows the client holds (the working set's)."""

    def __init__(self, kesler):
        self.kesler = kesler

    def __getitem__(self, rows):
        return self.kesler._cached(np.atleast_1d(rows), 2).astype(np.intp)
