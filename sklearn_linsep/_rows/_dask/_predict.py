"""Prediction on dask arrays: a function of the rows, mapped over X's row blocks."""

import numpy as np
from sklearn.utils.validation import (
    _check_feature_names,
    _check_n_features,
    check_array,
)

from ..._validation import working_dtype


def _apply_to_block(block, func, dtype, accept_sparse, *args):
    # Validated where the block lives: a NaN is reported by the task that meets it.
    block = check_array(
        block,
        accept_sparse=accept_sparse,
        dtype=dtype,
        ensure_min_samples=0,
        input_name="X",
    )
    return func(block, *args)


def map_row_blocks(estimator, X, func, *args, accept_sparse=False):
    """``func(X_block, *args)`` on every row block of a dask array X, lazily.

    X is checked against the fitted ``n_features_in_`` (and feature names, which a
    dask array has none of) as ``validate_data(reset=False)`` does, and each block
    is validated as the in-memory path validates X (finite; float32 kept, the rest
    float64). ``func`` maps an ``(n, p)`` block to ``(n,)`` or ``(n, q)`` rows; its
    output on an empty block gives the result's dtype and width, so that the lazy
    result declares what the computed one will be.

    Returns
    -------
    result : dask.array.Array
        Row blocks aligned with those of X.
    """
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2-D dask array X; got {X.ndim} dimension(s). Reshape a "
            "single feature with X.reshape(-1, 1)."
        )
    _check_n_features(estimator, X, reset=False)
    _check_feature_names(estimator, X, reset=False)
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    dtype = working_dtype(X)
    accept_sparse = accept_sparse and "csr"
    probe = func(np.zeros((0, X.shape[1]), dtype=dtype), *args)
    if probe.ndim == 1:
        options = dict(drop_axis=1, chunks=(X.chunks[0],))
    else:
        options = dict(chunks=(X.chunks[0], (probe.shape[1],)))
    return X.map_blocks(
        _apply_to_block,
        func,
        dtype,
        accept_sparse,
        *args,
        dtype=probe.dtype,
        meta=probe,
        **options,
    )
