"""The pairs (row, other class) of K classes on dask blocks: the passes the
joint verdict and the Crammer–Singer margin ask of their rows."""

from functools import partial

import numpy as np

from ..._kesler import KeslerRows, pair_margins, worst_others
from ..._proofs import joint_proven_margins
from ..._working_set import ScaledRows, equilibrated_copy, frame_scales
from ._tasks import tree_reduce
from ._two_class import _codes


def _block(X, y, w, classes):
    """``(X, codes, weights)`` of a block in float64 (weights all 1 without)."""
    X = np.asarray(X, dtype=np.float64)
    weights = (
        np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64).ravel()
    )
    return X, _codes(y, classes), weights


def _travelling(X, codes, weights, local, offset, ids, values, groups):
    """What a block sends for its rows ``local``: pair ids, values, rows, class
    codes, weights, global row indices and a group (for selecting per group)."""
    return (ids, values, X[local], codes[local], weights[local], local + offset, groups)


def _select(part, limits):
    """Of the rows sent, per group g the ``limits[g]`` of largest value (all of
    them where ``limits[g]`` is None)."""
    groups, values = part[6], part[1]
    chosen = []
    for group in np.unique(groups):
        members = np.flatnonzero(groups == group)
        limit = limits[int(group)]
        if limit is not None and members.size > limit:
            members = members[np.argpartition(values[members], -limit)[-limit:]]
        chosen.append(members)
    chosen = np.concatenate(chosen) if chosen else np.array([], dtype=np.intp)
    return tuple(field[chosen] for field in part)


def _merge(first, second, limits):
    """Two blocks' results: their rows (the best per group) and their numbers
    (least margin: the smaller; total hinge: the sum)."""
    part = tuple(
        np.concatenate([a, b]) for a, b in zip(first[0], second[0], strict=True)
    )
    return (_select(part, limits), min(first[1], second[1]), first[2] + second[2])


def _scores(X, centre, scale, coef, intercept):
    return ((X - centre) / scale) @ coef.T + intercept


def _pass_block(
    X, y, w, classes, offset, centre, scale, coef, intercept, threshold, slack,
    working, batch,
):  # fmt: skip
    """One pass over a block: its ``batch`` worst violators (each row's worst
    pair, below ``threshold`` less the row's slack, outside ``working``), its
    least margin and its total hinge."""
    X, codes, weights = _block(X, y, w, classes)
    K = len(classes)
    margin, other = worst_others(_scores(X, centre, scale, coef, intercept), codes)
    active = weights > 0
    margin = np.where(active, margin, np.inf)
    least = float(margin.min()) if active.any() else np.inf
    total = float(weights[active] @ np.maximum(0.0, 1.0 - margin[active]))
    rows = np.arange(X.shape[0]) + offset
    limit = np.full(X.shape[0], float(threshold))
    has_slack = np.isin(slack[0], rows)
    limit[slack[0][has_slack] - offset] -= slack[1][has_slack]
    ids = rows * K + other
    violation = np.where(np.isin(ids, working), -np.inf, limit - margin)
    local = np.flatnonzero(violation > 0)
    if local.size > batch:
        local = local[np.argpartition(violation[local], -batch)[-batch:]]
    part = _travelling(
        X, codes, weights, local, offset, ids[local], violation[local],
        np.zeros(local.size, dtype=np.intp),
    )  # fmt: skip
    return part, least, total


def _seed_block(X, y, w, classes, offset, centre, scale, means, size):
    """A block's seed candidates: of each class the ``size`` rows nearest the
    nearest-mean machine's boundary (with their worst other class; group = the
    class), and of each ordered pair of classes (j, k) the row of class j
    nearest k (group K + j K + k)."""
    X, codes, weights = _block(X, y, w, classes)
    K = len(classes)
    scores = _scores(X, centre, scale, means, -0.5 * np.sum(means**2, axis=1))
    margins = scores[np.arange(X.shape[0]), codes][:, None] - scores
    margins[np.arange(X.shape[0]), codes] = np.inf
    margins[weights <= 0] = np.inf
    other = np.argmin(margins, axis=1)
    worst = margins[np.arange(X.shape[0]), other]
    local, ids, values, groups = [], [], [], []
    rows = np.arange(X.shape[0])
    for j in range(K):
        members = np.flatnonzero((codes == j) & (weights > 0))
        if not members.size:
            continue
        nearest = members[np.argsort(worst[members], kind="stable")[:size]]
        local.append(nearest)
        ids.append((nearest + offset) * K + other[nearest])
        values.append(-worst[nearest])
        groups.append(np.full(nearest.size, j))
        for k in range(K):
            if k != j:
                anchor = members[np.argmin(margins[members, k])]
                local.append([anchor])
                ids.append([(anchor + offset) * K + k])
                values.append([-margins[anchor, k]])
                groups.append([K + j * K + k])
    if not local:
        local = [rows[:0]]
        ids, values, groups = [rows[:0]], [np.zeros(0)], [rows[:0]]
    local = np.concatenate(local).astype(np.intp)
    part = _travelling(
        X, codes, weights, local, offset, np.concatenate(ids).astype(np.intp),
        np.concatenate(values).astype(float), np.concatenate(groups).astype(np.intp),
    )  # fmt: skip
    return part, np.inf, 0.0


def _proven_block(
    X, y, w, classes, offset, coef, intercept, center, intercept_at_center
):
    X, codes, weights = _block(X, y, w, classes)
    active = weights > 0
    if not active.any():
        return np.inf
    return float(
        joint_proven_margins(
            X[active], codes[active], coef, intercept, center, intercept_at_center
        ).min()
    )


class DaskKeslerRows:
    """The pairs (row, other class) of K classes on the row blocks of a
    :class:`DaskRows`, answering what :class:`~sklearn_linsep._kesler.KeslerRows`
    answers in memory.

    The client keeps the rows the working set asked for (in the rows'
    ``fetched``, where ``support_rows`` finds them); a pass is one task per block,
    reduced in a tree that keeps the worst violators (the seed: the rows nearest
    the nearest-mean machine's boundaries). The centre and the scales come from
    the rows' class summary. Each round makes one pass, which also gives the
    least margin and total hinge of its machine.
    """

    in_memory = False
    sparse = False

    def __init__(self, rows):
        summary = rows.class_summary()
        self.name = rows.name
        self.classes = summary.classes
        self.n_classes = len(self.classes)
        self.n_samples = int(rows.X.shape[0])
        self.n_features = rows.n_features
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

    uneven = ScaledRows.uneven
    indices_in_X = ScaledRows.indices_in_X
    pairs = KeslerRows.pairs
    to_original = KeslerRows.to_original

    def equilibrated(self):
        return equilibrated_copy(self)

    @property
    def rounding(self):
        return 16 * np.finfo(float).eps * 2.0 * np.sqrt(self.n_features)

    def _tasks(self, function, *args):
        import dask

        task = dask.delayed(function, pure=True)
        return [
            task(X, y, w, self.classes, offset, *args)
            for (X, y, w), offset in zip(self._blocks, self._offsets, strict=True)
        ]

    def _reduced(self, parts, limits):
        """The tree-reduced ``(rows sent, least, total)``; the rows are kept."""
        merge = partial(_merge, limits=limits)
        part, least, total = tree_reduce(parts, merge).compute()
        part = _select(part, limits)
        for index, row, code, weight in zip(
            part[5], part[2], part[3], part[4], strict=True
        ):
            self._fetched[int(index)] = (row, weight, code)
        return part, least, total

    def _cached(self, rows, field):
        return np.array([self._fetched[int(i)][field] for i in rows])

    def original_rows(self, rows):
        if len(rows) == 0:
            return np.empty((0, self.n_features))
        return self._cached(rows, 0).reshape(len(rows), self.n_features)

    def rows(self, rows):
        return (self.original_rows(rows) - self.centre) / self.scale

    @property
    def codes(self):
        return _FetchedCodes(self)

    def row_weights(self, rows):
        return self._cached(rows, 1).astype(float)

    def seed(self, size):
        """As :meth:`KeslerRows.seed`: one pass; the anchors come with it."""
        K = self.n_classes
        means = (self._means - self.centre) / self.scale
        limits = [size] * K + [1] * (K * K)
        parts = self._tasks(_seed_block, self.centre, self.scale, means, size)
        part, _, _ = self._reduced(parts, limits)
        anchor = part[6] >= K
        self._passes["anchors"] = np.unique(part[0][anchor])
        return np.unique(part[0])

    def anchors(self):
        if self._passes["anchors"] is None:
            self.seed(1)
        return self._passes["anchors"]

    def _pass(self, coef, intercept, threshold, working, batch, slack):
        empty = (np.array([], np.intp), np.array([]))
        parts = self._tasks(
            _pass_block, self.centre, self.scale, coef, intercept, threshold,
            empty if slack is None else slack, np.asarray(working), batch,
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
        batch = batch or self.n_samples
        part = self._pass(coef, intercept, threshold, working, batch, slack)
        rows, _ = np.divmod(np.asarray(working, dtype=np.intp), self.n_classes)
        limit = np.full(len(rows), float(threshold))
        if slack is not None:
            where = np.searchsorted(slack[0], rows)
            found = (where < len(slack[0])) & (
                slack[0][np.minimum(where, len(slack[0]) - 1)] == rows
            )
            limit[found] -= slack[1][where[found]]
        inside = limit - pair_margins(*self.pairs(working), coef, intercept)
        return part[0].astype(np.intp), inside

    def _numbers(self, coef, intercept):
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
