"""A separability result checked on dask arrays, block by block."""

import numpy as np

from ..._proofs import certificate_holds, refuse_unverifiable
from ._blocks import DaskRows


def _extremes_block(X, y, classes):
    X = np.asarray(X, dtype=np.float64)[np.isin(np.asarray(y).ravel(), classes)]
    p = X.shape[1]
    if not len(X):
        return np.full(p, -np.inf), np.full(p, np.inf)
    return X.max(axis=0), X.min(axis=0)


def _least_margin_block(X, y, result, rtol):
    X = np.asarray(X, dtype=np.float64)
    return result._least_margin(X, np.asarray(y).ravel(), rtol)


def verify_on_blocks(result, X, y, rtol, check="proof"):
    """:meth:`SeparabilityResult.verify` on dask arrays: a separating hyperplane
    is checked block by block (one number per block comes back); an
    inseparability certificate reads its own rows and each feature's extremes.
    The same for a :class:`JointSeparabilityResult` of K classes. ``check`` as
    :meth:`SeparabilityResult.verify`'s (a hyperplane's proof on blocks is that of
    its float form whatever it is: rounding-bounded margins, and the few rows that
    bound leaves in doubt in rationals, block by block)."""
    import dask

    import dask.array as da

    rows = DaskRows(X, y, name=f"{type(result).__name__}.verify")
    labels = da.unique(rows.y).compute().tolist()  # a pass over y alone
    refuse_unverifiable(result, rows.n_features, labels)
    if result.separable:
        task = dask.delayed(_least_margin_block, pure=True)
        least = dask.compute(
            *[task(X_block, y_block, result, rtol)
              for X_block, y_block, _ in rows.blocks()]
        )
        return bool(min(least) >= 1 - rtol)
    rows.require_known_chunks()
    indices = np.asarray(result.certificate_indices)
    order = np.argsort(indices)
    task = dask.delayed(_extremes_block, pure=True)
    extremes = [
        task(X_block, y_block, result.classes) for X_block, y_block, _ in rows.blocks()
    ]
    points, labels, extremes = dask.compute(
        rows.X[indices[order]], rows.y[indices[order]], extremes
    )
    high = np.max([part[0] for part in extremes], axis=0)
    low = np.min([part[1] for part in extremes], axis=0)
    restore = np.empty_like(order)
    restore[order] = np.arange(len(order))
    points, labels = (
        np.asarray(points, dtype=float)[restore],
        np.asarray(labels)[restore],
    )
    return certificate_holds(result, points, labels, high - low, rtol, check=check)
