"""X, y and sample weights of one fit as aligned dask arrays, and the tree reduction."""

import numpy as np
from sklearn.utils.validation import check_array

from .._compat import is_dask_array
from .._validation import (
    check_labels,
    chunk_weights,
    encode_labels,
    label_codes,
    working_dtype,
)


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
