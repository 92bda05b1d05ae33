"""The pairs (row, other class) of K classes on dask blocks: the passes the
joint verdict and the Crammer–Singer margin ask of their rows, each one task
per block running the in-memory block pass (:mod:`sklearn_linsep._kesler`)."""

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


def _pass_block(
    X, y, w, classes, offset, centre, scale, coef, intercept, threshold, slack,
    working, batch,
):  # fmt: skip
    """One pass over a block: its ``batch`` worst violators, least margin and
    total hinge."""
    X, codes, weights, active = _block(X, y, w, classes)
    margin, other = block_worst(X, codes, active, centre, scale, coef, intercept)
    least = float(margin.min()) if active.any() else np.inf
    total = float(weights[active] @ np.maximum(0.0, 1.0 - margin[active]))
    rows = np.arange(X.shape[0]) + offset
    ids, violation = block_violations(
        margin, other, rows, len(classes), threshold, slack, working
    )
    local = np.flatnonzero(violation > 0)
    local = local[select_per_group(violation[local], np.zeros(local.size), [batch])]
    groups = np.zeros(local.size, dtype=np.intp)
    part = _sent(X, codes, weights, local, offset, ids[local], violation[local], groups)
    return part, least, total


def _seed_block(X, y, w, classes, offset, centre, scale, means, size):
    X, codes, weights, active = _block(X, y, w, classes)
    local, ids, values, groups = block_seed(
        X, codes, active, centre, scale, means, size
    )
    ids = ids + offset * len(classes)  # a block's row i is row offset + i
    return _sent(X, codes, weights, local, offset, ids, values, groups), np.inf, 0.0


def _proven_block(X, y, w, classes, offset, coef, intercept, center, at_center):
    X, codes, _, active = _block(X, y, w, classes)
    if not active.any():
        return np.inf
    return float(
        joint_proven_margins(
            X[active], codes[active], coef, intercept, center, at_center
        ).min()
    )


class DaskKeslerRows(Pairs):
    """The pairs (row, other class) of K classes on the row blocks of a
    :class:`DaskRows`, answering what :class:`~sklearn_linsep._kesler.KeslerRows`
    answers in memory, by the same block passes.

    The client keeps the rows the working set asked for (in the rows'
    ``fetched``, where ``support_rows`` finds them); a pass is one task per
    block, reduced in a tree that keeps the worst violators (the seed: the rows
    nearest the nearest-mean machine's boundaries, and the anchors). The centre
    and the scales come from the rows' class summary. A round makes one pass,
    which also gives the least margin and total hinge of its machine.
    """

    in_memory = False

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
        self._passes = {"anchors": None, "last": None}  # shared with its frames

    def _tasks(self, function, *args):
        import dask

        task = dask.delayed(function, pure=True)
        return [
            task(X, y, w, self.classes, offset, *args)
            for (X, y, w), offset in zip(self._blocks, self._offsets, strict=True)
        ]

    def _reduced(self, parts, limits):
        """The tree-reduced ``(rows sent, least, total)``; the rows are kept."""
        part, least, total = tree_reduce(
            parts, partial(_merge, limits=limits)
        ).compute()
        chosen = select_per_group(part[1], part[6], limits)  # one block: unmerged
        part = tuple(field[chosen] for field in part)
        for index, row, code, weight in zip(
            part[5], part[2], part[3], part[4], strict=True
        ):
            self._fetched[int(index)] = (row, weight, code)
        return part, least, total

    def _cached(self, rows, field):
        return fetched_field(self._fetched, rows, field)

    def original_rows(self, rows):
        return fetched_rows(self._fetched, rows, self.n_features)

    @property
    def codes(self):
        return _FetchedCodes(self)

    def row_weights(self, rows):
        return self._cached(rows, 1).astype(float)

    def seed(self, size):
        """As :meth:`KeslerRows.seed`, in one pass."""
        means = (self._means - self.centre) / self.scale
        limits = seed_limits(self.n_classes, size)
        parts = self._tasks(_seed_block, self.centre, self.scale, means, size)
        part, _, _ = self._reduced(parts, limits)
        ids, groups = part[0], part[6]
        self._passes["anchors"] = np.unique(ids[groups >= self.n_classes])
        return np.unique(ids)

    def _pass(self, coef, intercept, threshold, working, batch, slack):
        parts = self._tasks(
            _pass_block, self.centre, self.scale, coef, intercept, threshold,
            slack, np.asarray(working), batch,
        )  # fmt: skip
        part, least, total = self._reduced(parts, [batch])
        self._passes["last"] = (self._key(coef, intercept), least, total)
        return part

    def _key(self, coef, intercept):
        return (
            np.asarray(coef).tobytes(),
            np.asarray(intercept).tobytes(),
            np.asarray(self.scale).tobytes(),
        )

    def violators(self, coef, intercept, threshold, working, batch=None, slack=None):
        """As :meth:`KeslerRows.violators`, in one pass over the blocks."""
        part = self._pass(
            coef, intercept, threshold, working, batch or self.n_samples, slack
        )
        inside = working_violations(self, coef, intercept, threshold, working, slack)
        return part[0].astype(np.intp), inside

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
