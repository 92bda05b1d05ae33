"""Optional and lazily imported dependencies. Imports nothing of ours.

dask is optional: a caller who passes a dask array has imported it already, so
``is_dask_array`` looks the module up in ``sys.modules`` instead of importing it, and
numpy users never pay for it.
"""

import importlib.util
import sys


def is_dask_array(X):
    """Whether X is a ``dask.array.Array`` (False, without importing dask, if dask
    was never imported)."""
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(X, module.Array)


def any_dask(*arrays):
    """Whether any of ``arrays`` is a dask array."""
    return any(is_dask_array(array) for array in arrays)


def lazy_import(name):
    """The module ``name``, executed on its first attribute access (the standard
    library's ``LazyLoader`` recipe): a dependency that only some calls use (a
    solver, a file reader) costs nothing at ``import sklearn_linsep``."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.find_spec(name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
