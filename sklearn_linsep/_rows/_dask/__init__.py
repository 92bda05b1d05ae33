"""The dask backend: dask arrays, walked block by block.

dask is optional. Nothing here imports it unless the caller already passed a dask
array (which means dask is installed and imported; ``_compat.is_dask_array`` tells
without importing it).

Each row block is validated and reduced where it lives, as a dask task; what comes
back to the client is O(p²) (class statistics) or the few rows a caller asks for,
never anything of size n.
"""

from ..._compat import any_dask
from ._blocks import DaskRows
from ._predict import map_row_blocks
from ._verify import verify_on_blocks


def handles(*arrays):
    """Whether any of the arrays is a dask array."""
    return any_dask(*arrays)


def rows(
    X, y, sample_weight, *, name, estimator=None, reset=True, accept_sparse=True,
    finite=True,
):  # fmt: skip
    """:class:`DaskRows` of X, y and weights (blocks validated by the passes,
    whatever ``finite`` says);
    with an estimator, ``n_features_in_`` recorded or checked, and its feature
    names dropped or checked (a dask array has none)."""
    rows = DaskRows(X, y, sample_weight, name=name)
    if estimator is not None:
        rows.check_estimator_features(estimator, reset)
    return rows


def map_rows(estimator, X, func, *args, accept_sparse=False):
    """``func`` on every row block of X, lazily (:func:`map_row_blocks`)."""
    return map_row_blocks(estimator, X, func, *args, accept_sparse=accept_sparse)


def verify(result, X, y, rtol, check="proof"):
    """``result`` checked block by block (:func:`verify_on_blocks`)."""
    return verify_on_blocks(result, X, y, rtol, check)
