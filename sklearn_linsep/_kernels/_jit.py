"""How the kernels are compiled, and where their machine code is cached.

numba's default cache sits beside the source, in the installed package's
``__pycache__``: pip does not know those files, so an uninstall leaves the folder
behind, and it then shadows the next (editable) install as a namespace package. The
kernels are therefore cached in the user's cache directory instead, keyed by this
package's version and numba's: ``NUMBA_CACHE_DIR`` when the user set it, else the
platform's per-user cache (``XDG_CACHE_HOME`` or ``~/.cache`` on Linux,
``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows, as ``platformdirs``
reads them). Other packages' numba caches are left where numba puts them: only this
package's kernels use the locator here. Where no cache directory is writable (a
read-only home in a container), the kernels compile in every process, after one
warning.
"""

import os
import warnings

import numba
from numba.core import config, event
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    UserProvidedCacheLocator,
)

from .._version import __version__

PACKAGE_DIRECTORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cache_root():
    """The directory this package's compiled kernels go to (it may not exist yet)."""
    if config.CACHE_DIR:
        return config.CACHE_DIR
    import platformdirs

    return os.path.join(
        platformdirs.user_cache_dir("sklearn-linsep", appauthor=False),
        __version__,
        f"numba-{numba.__version__}",
    )


def _writable(directory):
    try:
        os.makedirs(directory, exist_ok=True)
        probe = os.path.join(directory, f".probe-{os.getpid()}")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError:
        return False
    return True


def _unwritable_cache_message(root):
    where = "NUMBA_CACHE_DIR" if config.CACHE_DIR else "the per-user cache directory"
    return (
        f"sklearn-linsep cannot write its compiled kernels to {where}, {root!r}: "
        "they will compile in every process (set NUMBA_CACHE_DIR to a writable "
        "directory to keep them)"
    )


def _usable_cache_root():
    """:func:`cache_root` if it can be written, else None after one warning."""
    root = cache_root()
    if _writable(root):
        return root
    # Said where it is decided, here, once per process: an import has no caller
    # worth pointing at.
    warnings.warn(_unwritable_cache_message(root) + ".", RuntimeWarning, stacklevel=1)
    return None


CACHE_ROOT = _usable_cache_root()


class _PackageCacheLocator(UserProvidedCacheLocator):
    """numba's locator for a user-provided directory, rooted at :data:`CACHE_ROOT`
    and only for this package's files."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        relative = os.path.relpath(os.path.dirname(py_file), PACKAGE_DIRECTORY)
        self._cache_path = os.path.join(CACHE_ROOT, relative)

    @classmethod
    def from_function(cls, py_func, py_file):
        inside = os.path.abspath(py_file).startswith(PACKAGE_DIRECTORY + os.sep)
        if CACHE_ROOT is None or not inside:
            return None
        # UserProvidedCacheLocator.from_function checks numba's own CACHE_DIR.
        return super(UserProvidedCacheLocator, cls).from_function(py_func, py_file)


class _PackageCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_PackageCacheLocator]


class _PackageFunctionCache(FunctionCache):
    _impl_class = _PackageCacheImpl


def kernel(function=None, *, inline="never"):
    """``numba.njit(nogil=True)``, cached under :func:`cache_root`.

    Serial and GIL-free: the BLAS call that follows a kernel uses the cores. Used
    bare (``@kernel``) or with numba's ``inline`` option (``@kernel(inline=...)``).
    """

    def decorate(function):
        dispatcher = numba.njit(nogil=True, inline=inline)(function)
        if CACHE_ROOT is not None:
            # What Dispatcher.enable_caching does, with this package's locator.
            dispatcher._cache = _PackageFunctionCache(function)
        return dispatcher

    return decorate if function is None else decorate(function)


def _is_ours(dispatcher):
    return getattr(dispatcher.py_func, "__module__", "").startswith("sklearn_linsep.")


class _FirstCompile(event.Listener):
    """Calls ``say`` once, as the first of this package's kernels starts compiling."""

    def __init__(self, say):
        self._say = say

    def on_start(self, ev):
        if self._say is not None and _is_ours(ev.data["dispatcher"]):
            say, self._say = self._say, None
            if CACHE_ROOT is not None:
                say(f"compiling kernels, first run only (cached in {CACHE_ROOT})")
            else:
                say(f"compiling kernels: {_unwritable_cache_message(cache_root())}")

    def on_end(self, ev):
        pass


def say_before_compiling(say):
    """Have ``say(message)`` called once, just before this process first compiles
    one of this package's kernels; never where every kernel comes from the cache."""
    event.register("numba:compile", _FirstCompile(say))
