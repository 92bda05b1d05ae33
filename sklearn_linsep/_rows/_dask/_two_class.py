"""One two-class problem on dask blocks: the passes a working set asks of its rows."""

from functools import partial

import numpy as np

from ... import _kernels
from ..._proofs import proven_margins
from ..._validation import encode_known_labels
from ..._working_set import (
    equilibrated_copy,
    frame_scales,
    seed_direction,
    spreads_uneven,
)
from ._tasks import tree_reduce, validate_block


def _block_problem(X, codes, sample_weight, classes, positive, negative):
    """``(X, codes, c, weights, active)`` of one block whose labels are encoded:
    c = +1 for the positive classes, -1 for the negative ones, 0 (inactive) for the
    rest and for weight 0."""
    X = np.asarray(X, dtype=np.float64)
    c = _sides(len(classes), positive, negative)[codes]
    weights = (
        np.ones(X.shape[0])
        if sample_weight is None
        else np.asarray(sample_weight, dtype=np.float64).ravel()
    )
    return X, codes, c, weights, (c != 0) & (weights > 0)


def _codes(y, classes):
    """A block's labels, checked by the first pass, encoded again."""
    return encode_known_labels(np.asarray(y).ravel(), classes)


def _summary(X, y, w, classes, positive, negative, name):
    """Validates the block (once, on the first pass) and sums it up: active
    counts and sums per side, and the extremes of the active rows."""
    X, codes, w, _ = validate_block(X, y, w, classes, name)
    X, _, c, _, active = _block_problem(X, codes, w, classes, positive, negative)
    p = X.shape[1]
    high = X[active].max(axis=0) if active.any() else np.full(p, -np.inf)
    low = X[active].min(axis=0) if active.any() else np.full(p, np.inf)
    pos, neg = active & (c > 0), active & (c < 0)
    return (
        np.array([pos.sum(), neg.sum()], dtype=float),
        np.vstack([X[pos].sum(axis=0), X[neg].sum(axis=0)]),
        high,
        low,
    )


def _travelling(X, codes, c, weights, local, offset, values):
    """What a block sends to the client for the rows ``local``: their global
    indices, values, rows, labels, weights and class codes."""
    return (local + offset, values, X[local], c[local], weights[local], codes[local])


def _seed_block(X, y, w, classes, positive, negative, offset, direction, shift, size):
    codes = _codes(y, classes)
    X, codes, c, weights, active = _block_problem(
        X, codes, w, classes, positive, negative
    )
    signed = c * (X @ direction + shift)
    chosen = []
    for side in (1.0, -1.0):
        members = np.flatnonzero(active & (c == side))
        take = min(size, members.size)
        if take:
            chosen.append(members[np.argpartition(signed[members], take - 1)[:take]])
    local = np.concatenate(chosen) if chosen else np.array([], dtype=np.intp)
    return _travelling(X, codes, c, weights, local, offset, signed[local])


def _sides(n_classes, positive, negative):
    side = np.zeros(n_classes)
    side[positive], side[negative] = 1.0, -1.0
    return side


def _block_margins(X, y, w, classes, positive, negative, centre, coef, intercept):
    """``(X, codes, weights, margins)`` of one block; margins are ``+inf`` for
    rows out of the problem (see :func:`~sklearn_linsep._kernels.centred_margins`)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    codes = _codes(y, classes)
    weights = np.empty(0) if w is None else np.asarray(w, dtype=np.float64).ravel()
    margins = np.empty(X.shape[0])
    side = _sides(len(classes), positive, negative)
    _kernels.centred_margins(
        X, codes, side, weights, centre, coef, float(intercept), margins
    )
    return X, codes, weights, margins


def _violators_block(
    X, y, w, classes, positive, negative, offset, centre, scale, coef, intercept,
    threshold, working, batch,
):  # fmt: skip
    X, codes, weights, margins = _block_margins(
        X, y, w, classes, positive, negative, centre, coef / scale, intercept
    )
    violation = threshold - margins  # -inf out of the problem
    mine = working[(working >= offset) & (working < offset + X.shape[0])] - offset
    violation[mine] = -np.inf
    local = np.flatnonzero(violation > 0)
    if batch is not None and local.size > batch:
        local = local[np.argpartition(violation[local], -batch)[-batch:]]
    c = _sides(len(classes), positive, negative)[codes[local]]
    travelling_weights = weights[local] if weights.size else np.ones(local.size)
    return (
        local + offset,
        violation[local],
        X[local],
        c,
        travelling_weights,
        codes[local],
    )


def _reduce_block(
    X, y, w, classes, positive, negative, centre, scale, coef, intercept, what
):  # fmt: skip
    if what == "min_original":  # the hyperplane on X itself, not on Z
        centre, scale = np.zeros_like(centre), 1.0
    _, _, weights, margins = _block_margins(
        X, y, w, classes, positive, negative, centre, coef / scale, intercept
    )
    active = np.isfinite(margins)
    if what == "total_hinge":
        hinge = np.maximum(0.0, 1.0 - margins[active])
        return float(np.sum(hinge * weights[active] if weights.size else hinge))
    return float(margins[active].min()) if active.any() else np.inf


def _proven_block(
    X, y, w, classes, positive, negative, coef, intercept, center, intercept_at_center
):  # fmt: skip
    """The block's smallest proven margin (:func:`~.._proofs.proven_margins`)."""
    codes = _codes(y, classes)
    X, _, c, _, active = _block_problem(X, codes, w, classes, positive, negative)
    if not active.any():
        return np.inf
    margins = proven_margins(
        X[active], c[active], coef, intercept, center, intercept_at_center
    )
    return float(margins.min())


def _select(part, limit, per_side):
    """Of the rows a block (or a combination of blocks) sends, the ``limit``
    largest values (the worst violators), or with ``per_side`` the ``limit``
    smallest of each side (the seed); all of them when ``limit`` is None."""
    values, c = part[1], part[3]
    if limit is None:
        return part
    if per_side:
        chosen = []
        for side in (1.0, -1.0):
            members = np.flatnonzero(c == side)
            if members.size > limit:
                members = members[np.argpartition(values[members], limit - 1)[:limit]]
            chosen.append(members)
        chosen = np.concatenate(chosen)
    elif values.size > limit:
        chosen = np.argpartition(values, -limit)[-limit:]
    else:
        return part
    return tuple(field[chosen] for field in part)


def _keep_best(first, second, limit, per_side):
    merged = tuple(np.concatenate([a, b]) for a, b in zip(first, second, strict=True))
    return _select(merged, limit, per_side)


class DaskScaledRows:
    """One two-class problem on the row blocks of a :class:`DaskRows`, answering
    what :class:`~sklearn_linsep._working_set.ScaledRows` answers in memory (the
    :class:`~sklearn_linsep._rows.TwoClassRows` protocol).

    The client keeps only the rows that the working-set algorithms asked for (the
    seed and the violators, with their labels and weights); every pass over the
    data (the seed, the violators of a hyperplane, the smallest margin, the total
    hinge) runs as one dask task per block, and what comes back is those rows or a
    number per block.

    Parameters
    ----------
    rows : DaskRows
    classes : ndarray
        All labels of y, sorted.
    positive, negative : sequence of int
        Indices into ``classes`` of the labels that count as c = +1 and c = -1;
        samples of other labels are left out (as are samples of weight 0).
    """

    in_memory = False  # a pass is a round of tasks: the soft limit grows rows
    sparse = False

    def __init__(self, rows, classes, positive, negative):
        import dask

        rows.require_known_chunks()
        self.name = rows.name
        self.classes = np.asarray(classes)
        self.sides = (np.asarray(positive), np.asarray(negative))
        self.n_samples = int(rows.X.shape[0])
        self.n_features = rows.n_features
        self._blocks = rows.blocks()
        self._offsets = rows.offsets[:-1]
        self._fetched = rows.fetched  # shared by the problems of these rows
        self._side = _sides(len(self.classes), positive, negative)
        summary = dask.delayed(_summary, pure=True)
        parts = dask.compute(
            *[
                summary(X, y, w, self.classes, *self.sides, self.name)
                for X, y, w in self._blocks
            ]
        )
        counts = sum(part[0] for part in parts)
        sums = sum(part[1] for part in parts)
        high = np.max([part[2] for part in parts], axis=0)
        low = np.min([part[3] for part in parts], axis=0)
        if np.any(counts == 0):
            raise ValueError(
                f"{self.name}: one side of the problem has no sample of positive "
                "weight."
            )
        self._side_means = sums / counts[:, None]
        self.centre = sums.sum(axis=0) / counts.sum()
        self.scale, self.feature_scale, self.spread = frame_scales(
            self.centre, high, low
        )
        self.magnitude = np.maximum(np.abs(high), np.abs(low))

    def equilibrated(self):
        """As :meth:`ScaledRows.equilibrated`."""
        return equilibrated_copy(self)

    @property
    def uneven(self):
        return spreads_uneven(self.feature_scale, self.spread)

    def proven_min_margin(self, coef, intercept, center=None, intercept_at_center=None):
        """As :meth:`ScaledRows.proven_min_margin`, block by block."""
        return float(
            min(self._map(_proven_block, coef, intercept, center, intercept_at_center))
        )

    def _tasks(self, function, *args, with_offset=False):
        """Delayed ``function(X, y, w, classes, positive, negative, [offset,]
        *args)`` for every block."""
        import dask

        task = dask.delayed(function, pure=True)
        return [
            task(
                X,
                y,
                w,
                self.classes,
                *self.sides,
                *((offset,) if with_offset else ()),
                *args,
            )
            for (X, y, w), offset in zip(self._blocks, self._offsets, strict=True)
        ]

    def _map(self, function, *args):
        """One number per block, computed."""
        import dask

        return dask.compute(*self._tasks(function, *args))

    def _gather(self, function, *args, limit, per_side):
        """The rows a row-returning pass selects, reduced on the workers: blocks
        are combined in a tree, each combination keeping only the ``limit`` best
        (see :func:`_select`), so that the client receives those rows and no
        more, however many blocks there are."""
        parts = self._tasks(function, *args, with_offset=True)
        keep = partial(_keep_best, limit=limit, per_side=per_side)
        return self._receive([tree_reduce(parts, keep).compute()])

    def _receive(self, parts):
        """Keep the rows the blocks sent (in the rows' ``fetched``); ``(indices,
        values)`` of all of them."""
        indices = np.concatenate([part[0] for part in parts]).astype(np.intp)
        values = np.concatenate([part[1] for part in parts])
        for index, row, weight, code in zip(
            indices,
            (row for part in parts for row in part[2]),
            np.concatenate([part[4] for part in parts]),
            np.concatenate([part[5] for part in parts]),
            strict=True,
        ):
            self._fetched[int(index)] = (row, weight, code)
        return indices, values

    def _cached(self, indices, field):
        return np.array([self._fetched[int(i)][field] for i in indices])

    def original_rows(self, indices):
        if len(indices) == 0:
            return np.empty((0, self.n_features))
        return self._cached(indices, 0).reshape(len(indices), self.n_features)

    def rows(self, indices):
        return (self.original_rows(indices) - self.centre) / self.scale

    def labels(self, indices):
        return self._side[self._cached(indices, 2).astype(np.intp)]

    def sample_weights(self, indices):
        return self._cached(indices, 1).astype(float)

    def indices_in_X(self, indices):
        return indices  # every problem is on all the rows of X

    def seed(self, size):
        direction, shift = seed_direction(*self._side_means)
        indices, _ = self._gather(
            _seed_block, direction, shift, size, limit=size, per_side=True
        )
        return np.unique(indices)

    def violators(self, coef, intercept, threshold, working, batch=None):
        working = np.asarray(working, dtype=np.int64)
        indices, _ = self._gather(
            _violators_block,
            self.centre,
            self.scale,
            coef,
            intercept,
            threshold,
            working,
            batch,
            limit=batch,
            per_side=False,
        )
        inside = threshold - self.labels(working) * (
            self.rows(working) @ coef + intercept
        )
        return np.sort(indices), inside

    def _reduce(self, coef, intercept, what):
        return self._map(_reduce_block, self.centre, self.scale, coef, intercept, what)

    def min_margin(self, coef, intercept, original=False):
        what = "min_original" if original else "min"
        return float(min(self._reduce(coef, intercept, what)))

    def total_hinge(self, coef, intercept):
        return float(sum(self._reduce(coef, intercept, "total_hinge")))

    def opposite_duplicates(self):
        # The scan sorts all n rows; on blocks the hull-intersection LP gives a
        # certificate as valid (if not always the smallest).
        return None

    @property
    def rounding(self):
        return 16 * np.finfo(float).eps * np.sqrt(self.n_features)

    def to_original(self, coef, intercept):
        weights = coef / self.scale
        return weights, intercept - self.centre @ weights
