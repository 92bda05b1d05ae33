"""Optional dependencies, detected without importing them. Imports nothing of ours.

dask is optional: a caller who passes a dask array has imported it already, so
``is_dask_array`` looks the module up in ``sys.modules`` instead of importing it, and
numpy users never pay for it.
"""

import sys


def is_dask_array(X):
    """Whether X is a ``dask.array.Array`` (False, without importing dask, if dask
    was never imported)."""
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(X, module.Array)


def any_dask(*arrays):
    """Whether any of ``arrays`` is a dask array."""
    return any(is_dask_array(array) for array in arrays)
