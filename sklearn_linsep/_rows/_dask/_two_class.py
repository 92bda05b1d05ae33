"""One two-class problem on dask blocks: the passes a working set asks of its rows."""

import operator
from functools import partial

import numpy as np

from ... import _kernels
from ..._proofs import proven_margins
from ..._validation import encode_known_labels
from ..._working_set import (
    class_sides,
    equilibrated_copy,
    frame_scales,
    margin_limits,
    nearest_per_side,
    seed_direction,
    spreads_uneven,
    worst_violators,
)
from ._bounds import OWN_POOL_ROWS, least_margins
from ._tasks import fetched_field, fetched_rows, tree_reduce

# The candidate rows each block keeps on its worker between passes, per side: at
# least the seed's size, else four seeds, POOL_ROWS or a POOL_SHARE of the block's
# rows, whichever is most, within POOL_BYTES over all blocks. A share, as the rows
# near the support are a share of a block, not a count: 1e7 x 20 with a margin in
# blocks of 1e6 rows, 1 024 a side missed some, so a full pass found them and a
# third confirmed; 1 953 a side, two passes, as blocks of 5e5 with 1 024.
POOL_ROWS = 1024
POOL_SHARE = 1 / 512
POOL_BYTES = 1 << 28
# A block's rows nearest its own classes' mid-hyperplane (the class summary's pools,
# before the classes are known) share two thirds of the 1 024 nearest the whole
# data's: eight times as many hold the support as those did (4e6 x 20 in blocks of
# 5e5: one full pass, not two; bench_scale.py).
EARLY_POOL_ROWS = 8 * POOL_ROWS
# Pools are kept concatenated in groups of about this many bytes: a round is then
# a few tasks, not one per block (each task costs the scheduler a millisecond or
# so, and the soft limit makes dozens of rounds).
POOL_GROUP_BYTES = 1 << 25


def _pool_budget(n_features, n_blocks):
    """Rows per side a block's pool may hold for all blocks' to fit ``POOL_BYTES``
    (16 bytes a value: a row and its copy)."""
    return POOL_BYTES // (16 * n_features * max(n_blocks, 1))


def pool_rows_for(size, n_features, n_blocks, block_rows=0):
    """Rows per side each block (of at most ``block_rows`` rows) keeps in its pool
    for a seed of ``size`` rows."""
    wanted = max(4 * size, POOL_ROWS, int(POOL_SHARE * block_rows))
    return int(max(size, min(wanted, _pool_budget(n_features, n_blocks))))


def early_pool_rows(n_features, n_blocks, block_rows=0):
    """Rows per side of the class summary's early pools: ``EARLY_POOL_ROWS``, or a
    ``POOL_SHARE`` of a block of ``block_rows`` where that is more (the rounds'
    pools come out of them), fewer where all blocks' would pass ``POOL_BYTES`` (a
    seed whose pools need more makes its own pass), and ``OWN_POOL_ROWS`` more
    nearest the block's own hyperplane (its bound's, :mod:`._bounds`; outside the
    budget, a few percent of it, so that the budget never takes them from the
    seed's candidates: at 5e7 x 20 in 100 blocks it would have, and the soft limit
    then took two full passes)."""
    wanted = max(EARLY_POOL_ROWS, int(POOL_SHARE * block_rows))
    return int(min(wanted, _pool_budget(n_features, n_blocks))) + OWN_POOL_ROWS


def _block_problem(X, codes, sample_weight, classes, positive, negative):
    """``(X, codes, c, weights, active)`` of one block whose labels are encoded:
    c = +1 for the positive classes, -1 for the negative ones, 0 (inactive) for the
    rest and for weight 0."""
    X = np.asarray(X, dtype=np.float64)
    c = class_sides(len(classes), positive, negative)[codes]
    weights = (
        np.ones(X.shape[0])
        if sample_weight is None
        else np.asarray(sample_weight, dtype=np.float64).ravel()
    )
    return X, codes, c, weights, (c != 0) & (weights > 0)


def _codes(y, classes):
    """A block's labels, checked by the first pass, encoded again."""
    return encode_known_labels(np.asarray(y).ravel(), classes)


def _travelling(X, codes, c, weights, local, offset, values):
    """What a block sends to the client for the rows ``local``: their global
    indices, values, rows, labels, weights (``weights`` empty: all 1) and class
    codes."""
    weights = weights[local] if weights.size else np.ones(len(local))
    return (local + offset, values, X[local], c[local], weights, codes[local])


def _seed_block(X, y, w, classes, positive, negative, offset, direction, shift, size):
    codes = _codes(y, classes)
    X, codes, c, weights, active = _block_problem(
        X, codes, w, classes, positive, negative
    )
    signed = c * (X @ direction + shift)
    local = nearest_per_side(signed, c, active, size)
    return _travelling(X, codes, c, weights, local, offset, signed[local])


def _block_margins(X, y, w, classes, positive, negative, centre, coef, intercept):
    """``(X, codes, weights, margins)`` of one block; margins are ``+inf`` for
    rows out of the problem (see :func:`~sklearn_linsep._kernels.centred_margins`)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    codes = _codes(y, classes)
    weights = np.empty(0) if w is None else np.asarray(w, dtype=np.float64).ravel()
    side = class_sides(len(classes), positive, negative)
    return X, codes, weights, _margins(X, codes, side, weights, centre, coef, intercept)


def _margins(X, codes, side, weights, centre, coef, intercept):
    """``side[code] · ((x - centre)·coef + intercept)`` of every row (``+inf`` out
    of the problem), by the one kernel of blocks and pools."""
    margins = np.empty(X.shape[0])
    _kernels.centred_margins(
        X, codes, side, weights, centre, coef, float(intercept), margins
    )
    return margins


def _from_early_pool(
    pool, classes, positive, negative, offset, direction, shift, size
):  # fmt: skip
    """A block's early pool (the class summary's, :func:`~._summary._early_pool`)
    as a seed's pool: of its rows, the ``size`` of each side nearest the seed's
    hyperplane, with their codes, sides and signed distances to it (an empty pool
    for a block it had none)."""
    if pool is None:
        empty = np.array([], dtype=np.intp)
        return (empty, np.array([]), np.empty((0, len(direction))), np.array([]),
                np.array([]), empty)  # fmt: skip
    rows, X, labels, weights, _ = pool
    codes = _codes(labels, classes)
    c = class_sides(len(classes), positive, negative)[codes]
    signed = c * (X @ direction + shift)
    local = nearest_per_side(signed, c, np.ones(len(c), bool), size)
    return (rows[local] + offset, signed[local], X[local], c[local], weights[local],
            codes[local])  # fmt: skip


def _pool_violators(
    pool, classes, positive, negative, centre, scale, coef, intercept, threshold,
    working, slack, batch,
):  # fmt: skip
    """The violators of a hyperplane among a block's pool of candidate rows
    (kept on its worker), as :func:`_full_pass_block` finds them in the block:
    the same margins, row by row, the ``batch`` worst outside ``working``."""
    indices, _, X, _, weights, codes = pool
    side = class_sides(len(classes), positive, negative)
    frame = (centre, scale, coef, intercept, threshold, working, slack, batch)
    return _worst_in_pool(indices, X, codes, weights, side, *frame)[0]


def _early_pool_pass(
    pool, offset, classes, positive, negative, centre, scale, coef, intercept,
    threshold, working, slack, batch,
):  # fmt: skip
    """Of a block's early pool (kept on its worker), what :func:`_full_pass_block`
    gives of the block's rows: its ``batch`` worst violators outside ``working``,
    smallest margin and total hinge (the rows outside it are the block's bound's:
    :meth:`DaskScaledRows._bounded_pass`)."""
    rows, X, labels, weights, _ = pool
    side = class_sides(len(classes), positive, negative)
    frame = (centre, scale, coef, intercept, threshold, working, slack, batch)
    worst, margins = _worst_in_pool(
        rows + offset, X, _codes(labels, classes), weights, side, *frame
    )
    return worst, *_least_and_hinge(margins, weights)


def _worst_in_pool(
    indices, X, codes, weights, side, centre, scale, coef, intercept, threshold,
    working, slack, batch,
):  # fmt: skip
    """``(rows sent, margins)``: of a pool's rows (global ``indices``), the
    ``batch`` worst violators outside ``working`` as :func:`_travelling` sends
    them, and every row's margin."""
    margins = _margins(X, codes, side, weights, centre, coef / scale, intercept)
    violation = margin_limits(indices, threshold, slack) - margins
    local, _ = worst_violators(
        violation, np.flatnonzero(np.isin(indices, working)), batch
    )
    part = (indices, violation, X, side[codes], weights, codes)
    return tuple(field[local] for field in part), margins


def _pool_bound(pool):
    """An early pool's :class:`~._bounds.BlockBound` (None: a block without one)."""
    return None if pool is None else pool[4]


def _concatenated(*pools):
    """Pools (or any row-returning parts) as one."""
    return tuple(np.concatenate(fields) for fields in zip(*pools, strict=True))


def _full_pass_block(
    X, y, w, classes, positive, negative, offset, centre, scale, coef, intercept,
    threshold, working, slack, batch, pool_rows,
):  # fmt: skip
    """One pass over a block for everything a round may need: its violators (the
    ``batch`` rows outside ``working`` of margin furthest below ``threshold``),
    its smallest margin and total hinge (as :func:`_reduce_block`), and its new
    pool, the ``pool_rows`` rows of each side nearest the hyperplane."""
    X, codes, weights, margins = _block_margins(
        X, y, w, classes, positive, negative, centre, coef / scale, intercept
    )
    least, total = _least_and_hinge(margins, weights)
    c = class_sides(len(classes), positive, negative)[codes]
    nearest = nearest_per_side(margins, c, np.isfinite(margins), pool_rows)
    pool = _travelling(X, codes, c, weights, nearest, offset, margins[nearest])
    limit = margin_limits(range(offset, offset + X.shape[0]), threshold, slack)
    violation = limit - margins  # -inf out of the problem
    mine = working[(working >= offset) & (working < offset + X.shape[0])] - offset
    local, _ = worst_violators(violation, mine, batch)
    violators = _travelling(X, codes, c, weights, local, offset, violation[local])
    return pool, violators, least, total


def _least_and_hinge(margins, weights):
    """The smallest margin of the rows of the problem and their total hinge
    ``Σ s_i max(0, 1 - margin_i)`` (``weights`` empty: all 1); rows out of it have
    margin ``+inf``: no hinge, and the least margin ``inf`` where none is in it."""
    short = np.flatnonzero(margins < 1.0)  # the rows of a hinge: few, as a rule
    hinge = 1.0 - margins[short]
    total = float(np.sum(hinge * weights[short] if weights.size else hinge))
    return float(margins.min(initial=np.inf)), total


def _reduce_block(
    X, y, w, classes, positive, negative, centre, scale, coef, intercept, what
):  # fmt: skip
    if what == "min_original":  # the hyperplane on X itself, not on Z
        centre, scale = np.zeros_like(centre), 1.0
    _, _, weights, margins = _block_margins(
        X, y, w, classes, positive, negative, centre, coef / scale, intercept
    )
    least, total = _least_and_hinge(margins, weights)
    return total if what == "total_hinge" else least


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
        chosen = nearest_per_side(values, c, True, limit)
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
    what :class:`~.._memory_two_class.ScaledRows` answers in memory (the
    :class:`~sklearn_linsep._rows._protocol.TwoClassRows` protocol).

    The client keeps only the rows that the working-set algorithms asked for (the
    seed and the violators, with their labels and weights). A full pass over the
    data runs as one dask task per block, and what comes back is those rows or a
    few numbers per block.

    Full passes are few, since a pass over a lazily built array builds it again:
    the means and extremes come from the rows' class summary (one pass for every
    problem of the rows); the seed's pools, on each worker per block the rows of
    each side nearest the seed's hyperplane, are the summary's early pools where
    the rows hold two classes (no pass), else a seed pass's; a round looks for
    violators in the pools first, and where they hold none, checks every row: by
    the early pools and each block's bound on its other rows where every bound
    holds (:meth:`_bounded_pass`: no block is read), else by a full pass. That
    pass finds the violators of all rows, and also gives every block's smallest
    margin and total hinge (which the optimality check then asks for the same
    hyperplane) and new pools, nearest the hyperplane of the round. So the answer
    is checked on every row, as before, at one pass (two separable classes whose
    blocks' bounds hold), or two or three, where the rounds made one each.

    Parameters
    ----------
    rows : DaskRows
    positive, negative : sequence of int
        Indices into ``rows.classes`` of the labels that count as c = +1 and
        c = -1; samples of other labels are left out (as are samples of weight 0).
    """

    in_memory = False
    cheap_passes = False  # a pass is a round of tasks: the soft limit grows rows
    sparse = False

    def __init__(self, rows, positive, negative):
        summary = rows.class_summary()
        self.name = rows.name
        self.classes = summary.classes
        self.sides = (np.asarray(positive), np.asarray(negative))
        self.n_samples = int(rows.X.shape[0])
        self.n_features = rows.n_features
        self._blocks = rows.blocks()
        self._offsets = rows.offsets[:-1]
        self._block_rows = rows.largest_block
        self._fetched = rows.fetched  # shared by the problems of these rows
        self._side = class_sides(len(self.classes), positive, negative)
        # The summary's early pools serve the problem of the two classes of two.
        two = len(self.classes) == 2 and set(self._side) == {-1.0, 1.0}
        self._early = rows.early_pools if two else None
        # All of them, for the bounded passes (the seed's reading leaves _early).
        self._bounded = {"pools": self._early, "bounds": None}
        rows.early_pools = None  # this problem's alone: freed on the workers with it
        self._early_rows = early_pool_rows(self.n_features, len(self._blocks),
                                           self._block_rows)  # fmt: skip
        # Shared with the equilibrated copy: pools of rows, and the numbers of the
        # last full pass keyed by its hyperplane and frame.
        self._passes = {"pools": None, "pool_rows": self._pool_rows(0), "last": None}
        counts, sums, high, low = summary.sides(self._side)
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

    def _gather(self, parts, limit, per_side):
        """The rows that row-returning tasks select, reduced on the workers:
        blocks are combined in a tree, each combination keeping only the ``limit``
        best (see :func:`_select`), so that the client receives those rows and no
        more, however many blocks there are."""
        keep = partial(_keep_best, limit=limit, per_side=per_side)
        best = tree_reduce(list(parts), keep).compute()
        return self._receive(_select(best, limit, per_side))  # one block: unkept

    def _receive(self, part):
        """Keep the rows sent (in the rows' ``fetched``); their indices."""
        indices = part[0].astype(np.intp)
        for index, row, weight, code in zip(
            indices, part[2], part[4], part[5], strict=True
        ):
            self._fetched[int(index)] = (row, weight, code)
        return indices

    def _cached(self, indices, field):
        return fetched_field(self._fetched, indices, field)

    def original_rows(self, indices):
        return fetched_rows(self._fetched, indices, self.n_features)

    def rows(self, indices):
        return (self.original_rows(indices) - self.centre) / self.scale

    def labels(self, indices):
        return self._side[self._cached(indices, 2).astype(np.intp)]

    def sample_weights(self, indices):
        return self._cached(indices, 1).astype(float)

    def indices_in_X(self, indices):
        return indices  # every problem is on all the rows of X

    def _pool_rows(self, size):
        """Rows per side each block keeps in its pool."""
        return pool_rows_for(size, self.n_features, len(self._blocks),
                             self._block_rows)  # fmt: skip

    def _grouped(self, pools):
        """The blocks' pools concatenated in groups of about
        ``POOL_GROUP_BYTES``."""
        import dask

        pool_bytes = 16 * self.n_features * self._passes["pool_rows"]
        per_group = max(1, POOL_GROUP_BYTES // pool_bytes)
        concatenated = dask.delayed(_concatenated, pure=True)
        return [
            concatenated(*pools[start : start + per_group])
            for start in range(0, len(pools), per_group)
        ]

    def seed(self, size):
        """The ``size`` rows of each side nearest the hyperplane halfway between
        the side means; each block's ``_pool_rows`` nearest stay on its worker."""
        import dask

        direction, shift = seed_direction(*self._side_means)
        self._passes["pool_rows"] = pool_rows = self._pool_rows(size)
        if self._early is not None and pool_rows <= self._early_rows:
            # Two classes: the class summary's pass left the candidates (no pass),
            # unless no block held both (sorted rows, blocks cut between them).
            task = dask.delayed(_from_early_pool, pure=True)
            early = zip(self._early, self._offsets, strict=True)
            seed = self._seed_from([task(pool, self.classes, *self.sides, offset,
                                         direction, shift, pool_rows)
                                    for pool, offset in early], size)  # fmt: skip
            self._early = None  # read once: the rounds' pools are the seed's now
            if len(np.unique(self.labels(seed))) == 2:
                return seed
        pools = self._tasks(_seed_block, direction, shift, pool_rows, with_offset=True)
        return self._seed_from(pools, size)

    def _seed_from(self, pools, size):
        """The seed's rows from ``pools``, which stay on the workers."""
        import dask

        self._passes["pools"] = dask.persist(*self._grouped(pools))
        return np.unique(self._gather(self._passes["pools"], size, per_side=True))

    def _key(self, coef, intercept):
        """The hyperplane and frame of a pass, to know a pass's numbers again."""
        return (
            np.asarray(coef, float).tobytes(),
            float(intercept),
            self.centre.tobytes(),
            np.asarray(self.scale, float).tobytes(),
        )

    def violators(self, coef, intercept, threshold, working, batch=None,
                  slack=None, every=True):  # fmt: skip
        """In the pools first; a full pass where they hold none (unless not
        ``every`` row need be looked at)."""
        working = np.asarray(working, dtype=np.int64)
        indices = np.array([], dtype=np.intp)
        frame = (self.centre, self.scale, coef, intercept, threshold, working,
                 slack, batch)  # fmt: skip
        pools = self._passes["pools"] is not None
        if pools:
            indices = self._violators_in_pools(frame)
        if indices.size == 0 and (every or not pools):
            indices = self._full_pass(frame)
        inside = margin_limits(working, threshold, slack) - self.labels(working) * (
            self.rows(working) @ coef + intercept
        )
        return np.sort(indices), inside

    def _violators_in_pools(self, frame):
        import dask

        task = dask.delayed(_pool_violators, pure=True)
        parts = [
            task(pool, self.classes, *self.sides, *frame)
            for pool in self._passes["pools"]
        ]
        return self._gather(parts, frame[-1], per_side=False)

    def _full_pass(self, frame):
        """Every block once: violators, smallest margin, total hinge, new pools
        (kept on the workers, as the pass's other results until reduced); no
        block, where its early pool and bound answer for it (:meth:`_bounded_pass`)."""
        import dask

        bounded = self._bounded_pass(frame)
        if bounded is not None:
            return bounded
        pool_rows = self._passes["pool_rows"]
        passes = dask.persist(
            *self._tasks(_full_pass_block, *frame, pool_rows, with_offset=True)
        )
        part = dask.delayed(operator.getitem, pure=True)
        pools = self._grouped([part(result, 0) for result in passes])
        self._passes["pools"] = dask.persist(*pools)
        keep = partial(_keep_best, limit=frame[-1], per_side=False)
        violators, least, total = dask.compute(
            tree_reduce([part(result, 1) for result in passes], keep),
            [part(result, 2) for result in passes],
            [part(result, 3) for result in passes],
        )
        coef, intercept = frame[2], frame[3]
        self._passes["last"] = (self._key(coef, intercept), min(least), sum(total))
        return self._receive(violators)

    def _bounded_pass(self, frame):
        """What :meth:`_full_pass` finds, from the early pools alone (no block is
        read), where every block's :class:`~._bounds.BlockBound` proves that its
        rows outside its pool have margins of at least 1, the threshold and the
        pools' least: their violators, smallest margin and total hinge are then the
        pools'. None where a block has no bound or its bound falls short."""
        import dask

        pools = self._bounded["pools"]
        if pools is None:
            return None
        centre, scale, coef, intercept, threshold = frame[:5]
        part = dask.delayed(operator.getitem, pure=True)
        if self._bounded["bounds"] is None:
            bound = dask.delayed(_pool_bound, pure=True)
            self._bounded["bounds"] = dask.compute(*[bound(pool) for pool in pools])
        # Margins c (w·x + b) of the block's sides: c = +1 is the larger label, whose
        # sign in this problem is side[1] (the problem of the two labels).
        sign = self._side[1]
        lows = least_margins(self._bounded["bounds"], sign * (coef / scale),
                             sign * intercept, centre)  # fmt: skip
        need = max(float(threshold), 1.0)
        if not np.all(lows >= need):
            return None
        task = dask.delayed(_early_pool_pass, pure=True)
        passes = [task(pool, offset, self.classes, *self.sides, *frame)
                  for pool, offset in zip(pools, self._offsets, strict=True)]  # fmt: skip
        keep = partial(_keep_best, limit=frame[-1], per_side=False)
        violators, least, total = dask.compute(
            tree_reduce([part(result, 0) for result in passes], keep),
            [part(result, 1) for result in passes],
            [part(result, 2) for result in passes],
        )
        if not np.all(lows >= min(least)):  # a row outside may be the least
            return None
        self._passes["last"] = (self._key(coef, intercept), min(least), sum(total))
        return self._receive(violators)

    def _last_pass(self, coef, intercept):
        """``(least margin, total hinge)`` of the last full pass, if it was of
        this hyperplane in this frame."""
        last = self._passes["last"]
        if last is not None and last[0] == self._key(coef, intercept):
            return last[1:]
        return None

    def _reduce(self, coef, intercept, what):
        return self._map(_reduce_block, self.centre, self.scale, coef, intercept, what)

    def min_margin(self, coef, intercept, original=False):
        known = None if original else self._last_pass(coef, intercept)
        if known is not None:
            return float(known[0])
        what = "min_original" if original else "min"
        return float(min(self._reduce(coef, intercept, what)))

    def total_hinge(self, coef, intercept):
        known = self._last_pass(coef, intercept)
        if known is not None:
            return float(known[1])
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
