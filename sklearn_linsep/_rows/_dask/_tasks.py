"""What every dask pass does in its tasks: validate a block, reduce in a tree."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from ..._validation import (
    check_exact_integers,
    chunk_weights,
    encode_labels,
    label_codes,
)

# The share of a dask.distributed cluster's memory (its workers' limits summed) that
# rows read by a pass may fill, kept there for the passes after it: a block kept is
# read from memory, not generated or read from its files again.
KEEP_SHARE = 0.25


def refuse_sparse_blocks(block, name):
    """A TypeError where a block of X (or a dask array's ``_meta``) is a sparse
    matrix: the dask passes read dense blocks (scikit-learn's own message said
    only "dense data is required", though sparse X is taken in memory)."""
    if sp.issparse(block):
        raise TypeError(
            f"{name}: X is a dask array of sparse blocks, which the dask passes do "
            "not read. Pass the sparse matrix itself (scipy.sparse, in memory), or "
            "dense blocks: X.map_blocks(lambda block: block.toarray())."
        )


def validate_block(X, y, sample_weight, classes, name):
    """One block's ``(X, y_encoded, weights, classes)``: finite floats, known
    labels, rows that agree. ``classes=None`` takes the block's own labels (and
    returns them). Runs in a dask task; an error there reaches the client as is."""
    refuse_sparse_blocks(X, name)
    check_exact_integers(X)
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


def fetched_field(fetched, indices, field):
    """Field ``field`` (0 the row, 1 the weight, 2 the class code) of the rows
    ``indices`` the client holds in ``fetched`` (index to those three)."""
    return np.array([fetched[int(i)][field] for i in indices])


def fetched_rows(fetched, indices, n_features):
    """The rows ``indices`` the client holds, as an array (n, n_features)."""
    if len(indices) == 0:
        return np.empty((0, n_features))
    return fetched_field(fetched, indices, 0).reshape(len(indices), n_features)


def cluster_memory():
    """The bytes of memory of the dask.distributed cluster that this process's dask
    computations go to (its workers' memory limits summed); 0 where they go to a
    local scheduler, or a worker has no limit (nothing is kept then)."""
    import dask.base

    client = getattr(dask.base.get_scheduler(), "__self__", None)
    info = getattr(client, "scheduler_info", None)
    if info is None:
        return 0
    limits = [worker.get("memory_limit") or 0 for worker in info()["workers"].values()]
    return sum(limits) if limits and all(limits) else 0
