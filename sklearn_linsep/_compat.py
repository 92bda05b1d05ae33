"""Optional and lazily imported dependencies, and lazily loaded names. Imports
nothing of ours.

dask is optional: a caller who passes a dask array has imported it already, so
``is_dask_array`` looks the module up in ``sys.modules`` instead of importing it, and
numpy users never pay for it.
"""

import importlib
import importlib.util
import sys
import threading


def is_dask_array(X):
    """Whether X is a ``dask.array.Array`` (False, without importing dask, if dask
    was never imported)."""
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(X, module.Array)


def any_dask(*arrays):
    """Whether any of ``arrays`` is a dask array."""
    return any(is_dask_array(array) for array in arrays)


class _Deferred:
    """A module imported on its first attribute access. Through ``import_module``,
    so concurrent first uses are as safe as ``import`` (the standard library's
    ``LazyLoader`` is not, on Python 3.11)."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attribute):
        return getattr(importlib.import_module(self._name), attribute)


def lazy_import(name):
    """The module ``name``, imported on its first attribute access: a dependency
    that only some calls use (a solver) costs nothing at import."""
    return _Deferred(name)


def lazy_attributes(package, module_of):
    """``(__getattr__, __dir__)`` for a package whose public names load on first
    use (PEP 562): ``module_of`` maps each name to the module, relative to
    ``package``, that defines it; other names are tried as submodules.

    The imports are serialised by one lock: threads asking for different names at
    once would otherwise import scikit-learn concurrently, which Python's import
    locks can report as a deadlock.
    """
    lock = threading.RLock()
    namespace = sys.modules[package].__dict__

    def __getattr__(name):
        with lock:
            if name in namespace:  # loaded by another thread meanwhile
                return namespace[name]
            if name in module_of:
                module = importlib.import_module(module_of[name], package)
                value = getattr(module, name)
            elif not name.startswith("__") and importlib.util.find_spec(
                f"{package}.{name}"
            ):
                value = importlib.import_module(f"{package}.{name}")
            else:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            namespace[name] = value
            return value

    def __dir__():
        return sorted({*module_of, *namespace})

    return __getattr__, __dir__
