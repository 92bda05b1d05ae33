"""A separability result checked on dask arrays, block by block."""

import numpy as np

from ._rows import DaskRows


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
