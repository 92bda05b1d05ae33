"""X, y and sample weights of one fit as aligned dask arrays: the dask ``Rows``."""

import numpy as np
from sklearn.utils.validation import _check_feature_names, _check_n_features

from ..._compat import is_dask_array
from ..._fredholm import MeanRange
from ..._validation import working_dtype
from ._kesler import DaskKeslerRows
from ._statistics import dask_class_statistics
from ._summary import class_summary
from ._tasks import KEEP_SHARE, cluster_memory, refuse_sparse_blocks
from ._two_class import POOL_BYTES, DaskScaledRows, early_pool_rows


class DaskRows:
    """X, y (and sample weights) of one fit as aligned dask arrays, rows in blocks.

    X is rechunked to whole rows (one chunk across the features). y and the weights
    may be dask arrays or in-memory arrays; in-memory ones are cut along X's row
    chunks. Chunk sizes must be known for that, and for every row index the
    working-set algorithms use.

    It is the dask :class:`~sklearn_linsep._rows.Rows`: the classes are known
    after a pass (:meth:`statistics` makes one anyway; else ``classes`` makes
    its own), and the rows the two-class problems bring to the client are kept
    in ``fetched`` (index to row, weight and class code), where
    :meth:`support_rows` finds them.
    """

    in_memory = False

    def __init__(self, X, y=None, sample_weight=None, name="estimator"):
        import dask.array as da

        if not is_dask_array(X):
            X = da.asarray(X)
        if X.ndim != 2:
            raise ValueError(
                f"{name} expects a 2-D dask array X; got {X.ndim} dimension(s)."
            )
        refuse_sparse_blocks(getattr(X, "_meta", None), name)
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        self.X = X
        self.name = name
        self.fetched = {}
        self._classes = None
        self._summary = None
        self._kept = {}  # block index -> its (X, y, w), persisted on the workers
        self.early_pools = None  # the class summary's (two classes' seed)
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

    @property
    def largest_block(self):
        """Rows of the largest block (known chunks only): the pools' share."""
        return int(max(self.X.chunks[0], default=0))

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
        blocks = list(zip(X_blocks, y_blocks, w_blocks, strict=True))
        for index, kept in self._kept.items():
            blocks[index] = kept
        return blocks

    def blocks_to_keep(self):
        """The first blocks that fit in ``KEEP_SHARE`` of a dask.distributed
        cluster's memory less the pools' ``POOL_BYTES`` (none on a local
        scheduler): the class summary's pass keeps them on their workers for every
        pass of this fit after it (:func:`~._summary.class_summary`), which reads
        them from memory, not generates them again. They go with these rows, at the
        end of the fit."""
        budget = KEEP_SHARE * cluster_memory() - POOL_BYTES
        if budget <= 0:
            return np.array([], dtype=np.intp)
        itemsizes = sum(array.dtype.itemsize for array in (self.y, self.sample_weight)
                        if array is not None)  # fmt: skip
        row_bytes = self.n_features * self.X.dtype.itemsize + itemsizes
        return np.flatnonzero(np.cumsum(self.X.chunks[0]) * row_bytes <= budget)

    @property
    def dtype(self):
        """The dtype the blocks are validated to (float32 stays, the rest is
        float64)."""
        return working_dtype(self.X)

    @property
    def classes(self):
        """The sorted distinct labels of y: from the statistics where they were
        computed, else from the class summary (one pass, once)."""
        if self._classes is None:
            self._classes = self.class_summary().classes
        return self._classes

    def class_summary(self):
        """The :class:`ClassSummary` of the rows (one pass, once): every
        two-class problem of these rows takes its sides' means and extremes
        from it."""
        if self._summary is None:
            # Only the working-set methods need it, and they address rows by
            # index: refused before the pass, not after.
            self.require_known_chunks()
            pool_rows = early_pool_rows(self.n_features, len(self.X.chunks[0]),
                                        self.largest_block)  # fmt: skip
            self._summary, self.early_pools, self._kept = class_summary(
                self, pool_rows, self.blocks_to_keep()
            )
            if len(self._summary.classes) != 2:  # the pools serve two classes only
                self.early_pools = None
        return self._summary

    def check_estimator_features(self, estimator, reset):
        """``n_features_in_`` and feature names as ``validate_data`` records
        (``reset``) or checks them: a dask array has no feature names."""
        _check_n_features(estimator, self.X, reset=reset)
        _check_feature_names(estimator, self.X, reset=reset)

    def statistics(self, per_class):
        """One pass: the statistics of each block merged in a tree. The classes
        are known only after it, so the scatter of each class is kept if some
        number of classes would need it, and dropped after if these do not."""
        wanted = per_class(2) or per_class(3)
        self._classes, stats = dask_class_statistics(self, per_class=wanted)
        if wanted and not per_class(len(self._classes)):
            stats = stats.without_per_class()
        return stats

    def two_class(self, positive, negative):
        return DaskScaledRows(self, positive, negative)

    def joint(self):
        return DaskKeslerRows(self)

    def mean_range(self, positive, negative, numerical_rank=None, exact_rank=False):
        """Undecided: the proof reads every row at once, in memory."""
        return MeanRange(
            None, "the rows are dask blocks; the exact step needs them in memory"
        )

    def support_rows(self, indices):
        """Every support vector was a working-set member of its problem, so it
        is among the rows that problem brought to the client."""
        vectors = [self.fetched[int(i)][0] for i in indices]
        codes = [self.fetched[int(i)][2] for i in indices]
        return (
            np.asarray(vectors, dtype=self.dtype).reshape(
                len(indices), self.n_features
            ),
            np.asarray(codes, dtype=np.intp),
        )
