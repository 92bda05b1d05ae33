"""dask arrays, walked block by block.

dask is optional. Nothing here imports it unless the caller already passed a dask
array (which means dask is installed and imported; ``_compat.is_dask_array`` tells
without importing it).

Each row block is validated and reduced where it lives, as a dask task; what comes back
to the client is O(p²) (class statistics) or the few rows a caller asks for, never
anything of size n.
"""

from dataclasses import replace
from functools import partial

import numpy as np
from sklearn.utils.validation import check_array

from ._compat import is_dask_array
from ._kernels import centred_margins
from ._stats import class_statistics
from ._validation import (
    check_labels,
    chunk_weights,
    encode_labels,
    label_codes,
    working_dtype,
)
from ._working_set import seed_direction


class DaskRows:
    """X, y (and sample weights) of one fit as aligned dask arrays, rows in blocks.

    X is rechunked to whole rows (one chunk across the features). y and the weights
    may be dask arrays or in-memory arrays; in-memory ones are cut along X's row
    chunks. Chunk sizes must be known for that, and for every row index the
    working-set algorithms use.
    """

    def __init__(self, X, y=None, sample_weight=None, name="estimator"):
        import dask.array as da

        if not is_dask_array(X):
            X = da.asarray(X)
        if X.ndim != 2:
            raise ValueError(
                f"{name} expects a 2-D dask array X; got {X.ndim} dimension(s)."
            )
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        self.X = X
        self.name = name
        self.known_chunks = not any(np.isnan(size) for size in X.chunks[0])
        self.y = None if y is None else self._aligned(y, "y")
        self.sample_weight = (
            None
            if sample_weight is None
            else self._aligned(sample_weight, "sample_weight")
        )

    def _aligned(self, values, what):
        import dask.array as da

        if is_dask_array(values):
            if values.ndim != 1:
                raise ValueError(f"{what} must be 1-D; got shape {values.shape}.")
            if values.chunks[0] == self.X.chunks[0]:
                return values
            if self.known_chunks and not any(np.isnan(s) for s in values.chunks[0]):
                if values.shape[0] != self.X.shape[0]:
                    raise ValueError(
                        f"X has {self.X.shape[0]} rows but {what} has "
                        f"{values.shape[0]} entries."
                    )
                return values.rechunk((self.X.chunks[0],))
            if values.numblocks[0] == self.X.numblocks[0]:
                return values  # unknown sizes: each block's task checks its rows
            raise ValueError(self._unknown_chunks_message(what))
        values = np.asarray(values)
        if values.ndim != 1:
            raise ValueError(f"{what} must be 1-D; got shape {values.shape}.")
        if not self.known_chunks:
            raise ValueError(self._unknown_chunks_message(what))
        if values.shape[0] != self.X.shape[0]:
            raise ValueError(
                f"X has {self.X.shape[0]} rows but {what} has {values.shape[0]} "
                "entries."
            )
        return da.from_array(values, chunks=(self.X.chunks[0],))

    def _unknown_chunks_message(self, what):
        return (
            f"{self.name}: X is a dask array of unknown chunk sizes, so {what} cannot "
            "be cut to match its blocks. Call X.compute_chunk_sizes() first, or pass "
            f"{what} as a dask array with the same blocks as X."
        )

    def require_known_chunks(self):
        if not self.known_chunks:
            raise ValueError(
                f"{self.name} needs the row count of every block of X (rows are "
                "addressed by index); this dask array's chunk sizes are unknown. Call "
                "X.compute_chunk_sizes() first."
            )

    @property
    def n_features(self):
        return int(self.X.shape[1])

    @property
    def offsets(self):
        """First row index of each block (known chunks only)."""
        return np.concatenate([[0], np.cumsum(self.X.chunks[0])]).astype(np.int64)

    def blocks(self):
        """Delayed ``(X_block, y_block, weight_block)`` per row block."""
        X_blocks = self.X.to_delayed(optimize_graph=False).ravel()
        y_blocks = (
            [None] * len(X_blocks)
            if self.y is None
            else self.y.to_delayed(optimize_graph=False).ravel()
        )
        w_blocks = (
            [None] * len(X_blocks)
            if self.sample_weight is None
            else self.sample_weight.to_delayed(optimize_graph=False).ravel()
        )
        return list(zip(X_blocks, y_blocks, w_blocks, strict=True))

    @property
    def dtype(self):
        """The dtype the blocks are validated to (float32 stays, the rest is
        float64)."""
        return working_dtype(self.X)

    def classes(self):
        """The sorted distinct labels of y, computed block by block."""
        import dask.array as da

        return check_labels(np.unique(da.unique(self.y).compute()), self.name)


def validate_block(X, y, sample_weight, classes, name):
    """One block's ``(X, y_encoded, weights, classes)``: finite floats, known
    labels, rows that agree. ``classes=None`` takes the block's own labels (and
    returns them). Runs in a dask task; an error there reaches the client as is."""
    X = check_array(
        X, dtype=[np.float64, np.float32], ensure_min_samples=0, input_name="X"
    )
    y = np.asarray(y).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"{name}: a block of X has {X.shape[0]} rows but the matching block of y "
            f"has {y.shape[0]}: the blocks of X and y must hold the same rows."
        )
    if classes is None:  # the block's own labels
        classes, y_encoded = label_codes(y)
    else:
        y_encoded = encode_labels(y, classes, name)
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64).ravel()
        if sample_weight.shape[0] != X.shape[0]:
            raise ValueError(
                f"{name}: a block of sample_weight has {sample_weight.shape[0]} "
                f"entries but the matching block of X has {X.shape[0]} rows."
            )
        sample_weight = chunk_weights(sample_weight, X.shape[0])
    return X, y_encoded, sample_weight, classes


def tree_reduce(parts, combine):
    """Combine delayed values pairwise in a balanced tree (depth log₂ of the
    number of blocks, so no worker holds more than two partial results)."""
    import dask

    combine = dask.delayed(combine, pure=True)
    while len(parts) > 1:
        paired = [combine(a, b) for a, b in zip(parts[::2], parts[1::2], strict=False)]
        parts = paired + ([parts[-1]] if len(parts) % 2 else [])
    return parts[0]


def _labelled_block_statistics(X, y, sample_weight, per_class, name):
    """``(labels, statistics)`` of one block, its classes being the labels it
    holds: no pass over y is needed beforehand to know them all."""
    X, y_encoded, sample_weight, labels = validate_block(
        X, y, sample_weight, None, name
    )
    stats = class_statistics(
        X, y_encoded, len(labels), sample_weight, per_class=per_class
    )
    return labels, stats


def _expand(stats, labels, union):
    """The statistics of ``labels`` as statistics of the classes ``union`` (a
    class absent from the block has weight 0, which the merge ignores)."""
    if len(labels) == len(union):
        return stats
    where = np.searchsorted(union, labels)
    counts = np.zeros(len(union))
    counts[where] = stats.counts
    means = np.zeros((len(union), stats.n_features))
    means[where] = stats.means
    residual = np.zeros((len(union), stats.n_features))
    residual[where] = stats.residual
    class_scatter = None
    if stats.class_scatter is not None:
        class_scatter = np.zeros((len(union), stats.n_features, stats.n_features))
        class_scatter[where] = stats.class_scatter
    row_classes = None if stats.row_classes is None else where[stats.row_classes]
    return replace(
        stats,
        counts=counts,
        means=means,
        class_scatter=class_scatter,
        mean_residual=residual,
        row_classes=row_classes,
    )


def _merge_labelled(first, second):
    (labels_a, stats_a), (labels_b, stats_b) = first, second
    union = np.union1d(labels_a, labels_b)
    return union, _expand(stats_a, labels_a, union).merge(
        _expand(stats_b, labels_b, union)
    )


def dask_class_statistics(rows, per_class=False):
    """``(classes, statistics)`` of a :class:`DaskRows`, in one pass over its
    blocks: :func:`~sklearn_linsep._stats.class_statistics` of each block as a dask
    task (keyed by the labels the block holds), merged by Chan's update in a tree.
    Never brings rows to the client.

    ``per_class`` keeps the scatter of each class; ``"auto"``: only for more than
    two classes (the pairwise angles need it).
    """
    import dask

    block_stats = dask.delayed(_labelled_block_statistics, pure=True)
    parts = [
        block_stats(X, y, w, per_class is not False, rows.name)
        for X, y, w in rows.blocks()
    ]
    classes, stats = tree_reduce(parts, _merge_labelled).compute()
    classes = check_labels(classes, rows.name)
    if per_class == "auto" and len(classes) <= 2:
        stats = replace(stats, class_scatter=None, keep_per_class=False)
    if np.any(stats.counts == 0):
        raise ValueError(
            "Every class needs a positive total sample weight; classes "
            f"{classes[stats.counts == 0].tolist()!r} have weight zero."
        )
    return classes, stats


def _encode_block(y, classes):
    codes = np.minimum(
        np.searchsorted(classes, np.asarray(y).ravel()), len(classes) - 1
    )
    return codes.astype(np.intp)


def _block_problem(X, y, sample_weight, classes, positive, negative):
    """``(X, codes, c, weights, active)`` of one block: c = +1 for the positive
    classes, -1 for the negative ones, 0 (inactive) for the rest and for weight 0."""
    X = np.asarray(X, dtype=np.float64)
    codes = _encode_block(y, classes)
    c = _sides(len(classes), positive, negative)[codes]
    weights = (
        np.ones(X.shape[0])
        if sample_weight is None
        else np.asarray(sample_weight, dtype=np.float64).ravel()
    )
    return X, codes, c, weights, (c != 0) & (weights > 0)


def _summary(X, y, w, classes, positive, negative, name):
    """Validates the block (once, on the first pass) and sums it up: active
    counts and sums per side, and the extremes of the active rows."""
    X, _, w, _ = validate_block(X, y, w, classes, name)
    X, _, c, _, active = _block_problem(X, y, w, classes, positive, negative)
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
    X, codes, c, weights, active = _block_problem(X, y, w, classes, positive, negative)
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
    codes = _encode_block(y, classes)
    weights = np.empty(0) if w is None else np.asarray(w, dtype=np.float64).ravel()
    margins = np.empty(X.shape[0])
    side = _sides(len(classes), positive, negative)
    centred_margins(X, codes, side, weights, centre, coef, float(intercept), margins)
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
    what :class:`~sklearn_linsep._working_set.ScaledRows` answers in memory.

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
        self._cache = {}
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
        spread = np.maximum(high - self.centre, self.centre - low)
        largest = float(np.max(spread)) if spread.size else 0.0
        self.scale = largest if largest > 0 else 1.0

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
        """Cache the rows the blocks sent; ``(indices, values)`` of all of them."""
        indices = np.concatenate([part[0] for part in parts]).astype(np.intp)
        values = np.concatenate([part[1] for part in parts])
        for index, row, c, weight, code in zip(
            indices,
            (row for part in parts for row in part[2]),
            np.concatenate([part[3] for part in parts]),
            np.concatenate([part[4] for part in parts]),
            np.concatenate([part[5] for part in parts]),
            strict=True,
        ):
            self._cache[int(index)] = (row, c, weight, code)
        return indices, values

    def _cached(self, indices, field):
        return np.array([self._cache[int(i)][field] for i in indices])

    def original_rows(self, indices):
        if len(indices) == 0:
            return np.empty((0, self.n_features))
        return self._cached(indices, 0).reshape(len(indices), self.n_features)

    def rows(self, indices):
        return (self.original_rows(indices) - self.centre) / self.scale

    def labels(self, indices):
        return self._cached(indices, 1).astype(float)

    def sample_weights(self, indices):
        return self._cached(indices, 2).astype(float)

    def class_codes(self, indices):
        return self._cached(indices, 3).astype(np.intp)

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


def _separated_block(X, y, classes, coef, intercept):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y).ravel()
    in_pair = np.isin(y, classes)
    c = np.where(y == classes[1], 1.0, -1.0)
    return bool(np.all(c[in_pair] * (X[in_pair] @ coef + intercept) > 0))


def verify_on_blocks(result, X, y, rtol):
    """:meth:`SeparabilityResult.verify` on dask arrays: a separating hyperplane
    is checked block by block (one boolean per block comes back); an
    inseparability certificate reads only its own rows."""
    import dask

    rows = DaskRows(X, y, name="SeparabilityResult.verify")
    if result.separable:
        task = dask.delayed(_separated_block, pure=True)
        checks = dask.compute(
            *[
                task(X_block, y_block, result.classes, result.coef, result.intercept)
                for X_block, y_block, _ in rows.blocks()
            ]
        )
        return all(checks)
    rows.require_known_chunks()
    indices = np.asarray(result.certificate_indices)
    order = np.argsort(indices)
    points, labels = dask.compute(rows.X[indices[order]], rows.y[indices[order]])
    restore = np.empty_like(order)
    restore[order] = np.arange(len(order))
    local = type(result)(**{**vars(result), "certificate_indices": restore})
    return local.verify(np.asarray(points), np.asarray(labels), rtol)
