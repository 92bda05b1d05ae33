"""The pairs of K classes in memory: :class:`KeslerRows`."""

import numpy as np

from .._kesler import (
    FACE_ROWS,
    Pairs,
    block_seed,
    block_violations,
    block_worst,
    face_guess,
    seed_limits,
    select_per_group,
    working_violations,
)
from .._proofs import column_extremes, joint_proven_margins
from .._working_set import (
    _masked_mean,
    _opposite_duplicates,
    frame_scales,
    worst_violators,
)


class KeslerRows(Pairs):
    """The pairs (row, other class) of K classes on X seen as
    ``Z = (X - centre) / scale``, without copying X, in memory.

    ``codes`` are the rows' classes as 0, …, K - 1; rows of weight 0 are left
    out of every constraint. ``indices`` are the rows of the caller's X that X
    holds (None: all of them), as for ``ScaledRows``.
    """

    cheap_passes = True  # in memory: rational decisions may read every row

    def stored_rows(self, indices):
        return self.X[indices]

    def __init__(
        self, X, codes, n_classes, sample_weight=None, indices=None, summaries=None
    ):
        self.X = X
        self.codes = np.asarray(codes, dtype=np.intp)
        self.n_classes = n_classes
        self.indices = indices
        self.weights = (
            np.ones(len(codes)) if sample_weight is None else np.asarray(sample_weight)
        )
        self.active = self.weights > 0
        # The classes' summaries where the caller has them (one pass over X for the
        # centre, the extremes and the class means), else passes of its own.
        statistics = (
            None if summaries is None else summaries.sides(range(n_classes), [])
        )
        self._summaries = None if statistics is None else summaries
        if statistics is not None:
            self.centre, high, low = statistics.centre, statistics.high, statistics.low
        else:
            self.centre = _masked_mean(X, self.active)
            high, low = column_extremes(X if self.active.all() else X[self.active])
        self.scale, self.feature_scale, self.spread = frame_scales(
            self.centre, high, low
        )
        self.magnitude = np.maximum(np.abs(high), np.abs(low))
        self._passes = {"anchors": None, "duplicates": ()}  # shared with its frames

    @property
    def n_samples(self):
        return len(self.codes)

    def worst_margins(self, coef, intercept):
        """``(margin, other)`` of each row's worst pair; inactive rows inf."""
        return block_worst(
            self.X, self.codes, self.active, self.centre, self.scale, coef, intercept
        )

    def violators(self, coef, intercept, threshold, working, batch=None,
                  slack=None, every=True):  # fmt: skip
        """``(violated, inside)`` as :func:`~._working_set.worst_violators`, over
        constraint ids: of each row, only its worst pair can join. A pair
        violates below ``threshold``, less its row's slack where ``slack =
        (sorted rows, values)`` gives one (the soft limit's hinges). (``every``:
        in memory every row is looked at anyway.)"""
        margin, other = self.worst_margins(coef, intercept)
        ids, violation = block_violations(
            margin, other, np.arange(self.n_samples), self.n_classes, threshold,
            slack, working,
        )  # fmt: skip
        violated, _ = worst_violators(violation, np.array([], np.intp), batch)
        return ids[violated], working_violations(
            self, coef, intercept, threshold, working, slack
        )

    def min_margin(self, coef, intercept):
        return float(np.min(self.worst_margins(coef, intercept)[0]))

    def total_hinge(self, coef, intercept):
        """``Σ s_i max(0, 1 - margin_i)``, each row's margin its worst pair's."""
        margin, _ = self.worst_margins(coef, intercept)
        hinge = np.maximum(0.0, 1.0 - margin[self.active])
        return float(self.weights[self.active] @ hinge)

    def row_weights(self, rows):
        return self.weights[rows]

    def proven_min_margin(self, coef, intercept, center=None, intercept_at_center=None):
        """The least margin of an active row on X itself, less a proven bound on
        its rounding (:func:`~._proofs.joint_proven_margins`)."""
        active = self.active
        X = self.X if active.all() else self.X[active]
        margins = joint_proven_margins(
            X, self.codes[active], coef, intercept, center, intercept_at_center
        )
        return float(np.min(margins))

    def seed(self, size):
        """:meth:`nearest_seed`; where the pairs' Gram dual takes most working
        sets (active rows <= ``FACE_ROWS`` K (p + 1): a first set of many pairs,
        each round adding few) a guess of the face instead
        (:func:`~.._kesler.face_guess`; at most K (p + 1) pairs in all, the
        machine's unknowns) and ``nearest_seed(1)`` (the anchors), the pairs it
        holds the subproblem's first held set (:attr:`held_guess`; with the
        anchors on wide rows, or where it holds none): a factorisation or two
        settle it, where the nearest-mean seed took 22 rounds (bench_multiclass.py's
        2 000 x 256, K = 10: 2.44 -> 0.60 s; 3 000 documents of 20 000 words, K =
        4: 3.3 -> 1.0 s; a TF-IDF of 10 684 docstrings, K = 3: 90 -> 11 s). Sparse
        rows are guessed on uncentred (:meth:`uncentred_pairs`' frame)."""
        active = np.flatnonzero(self.active)
        K, width = self.n_classes, self.n_features + 1
        self.held_guess = None
        wide = width >= active.size
        # Wide rows separate unless they depend on each other: a document under two
        # labels, whose conflicting pairs no held set factors (3 000 documents of
        # 20 000 words, 3 of them again under another label: 4.9 s from the
        # nearest-mean seed, over 800 s from the guess).
        if active.size > FACE_ROWS * K * width or (
            wide and self.opposite_duplicates() is not None
        ):
            return self.nearest_seed(size)
        first = self.nearest_seed(1)  # the anchors, in this frame
        rows = self.uncentred_pairs(active * K)[0]  # a pair per row: the row
        near, held = face_guess(rows, self.codes[active], K, K * width - first.size,
                                wide)  # fmt: skip
        if not near.size:
            return self.nearest_seed(size)
        near, held = (active[ids // K] * K + ids % K for ids in (near, held))
        anchors = self._passes["anchors"]  # held too where a loose fit guessed
        self.held_guess = np.union1d(held, anchors) if wide or not held.size else held
        return np.union1d(near, first)

    def opposite_duplicates(self):
        """Two equal active rows of different classes ``(i, j)``, or None: one
        search (a projection of every row and a sort), kept for the frames."""
        if self._passes["duplicates"] == ():
            found = _opposite_duplicates(self.X, self.codes, self.active)
            self._passes["duplicates"] = found
        return self._passes["duplicates"]

    def nearest_seed(self, size):
        """Candidate support pairs (:func:`block_seed`): of each class, the
        ``size`` rows nearest the boundary of the nearest-mean machine, with
        their worst other class; and the :meth:`anchors`."""
        if self._summaries is not None:
            means = np.array([self._summaries.mean(k) for k in range(self.n_classes)])
        else:
            means = np.array(
                [
                    _masked_mean(self.X, self.active & (self.codes == k))
                    for k in range(self.n_classes)
                ]
            )
        means = (means - self.centre) / self.scale
        _, ids, values, groups = block_seed(
            self.X, self.codes, self.active, self.centre, self.scale, means, size
        )
        chosen = select_per_group(values, groups, seed_limits(self.n_classes, size))
        ids, groups = ids[chosen], groups[chosen]
        self._passes["anchors"] = np.unique(ids[groups >= self.n_classes])
        return np.unique(ids)
