"""How the kernels are compiled, and where their machine code is cached.

numba's default cache sits beside the source, in the installed package's
``__pycache__``: pip does not know those files, so an uninstall leaves the folder
behind, and it then shadows the next (editable) install as a namespace package. The
kernels are therefore cached under
``sklearn-linsep/<version>/numba-<version>/<install>`` (``<install>`` a hash of
where the package is, as numba keys its own user-wide cache) in ``NUMBA_CACHE_DIR``
when the user set it, else in the platform's per-user cache directory
(``XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
``%LOCALAPPDATA%`` on Windows, as ``platformdirs`` reads them). Other
packages' numba caches are left where numba puts them: only this package's kernels
use the locator here.

A cache must never fail a fit. Where the directory cannot be written (a read-only
home in a container), the kernels compile in every process after one warning; a
cache file that cannot be written or read is skipped the same way.
"""

import hashlib
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
    """The directory this installation's compiled kernels go to (it may not exist
    yet): one per version of this package and of numba, and per installation."""
    if config.CACHE_DIR:
        base = config.CACHE_DIR
    else:
        import platformdirs

        base = platformdirs.user_cache_dir(appauthor=False)
    installation = hashlib.sha1(PACKAGE_DIRECTORY.encode()).hexdigest()[:12]
    return os.path.join(
        base,
        "sklearn-linsep",
        __version__,
        f"numba-{numba.__version__}",
        installation,
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


CACHE_ROOT = cache_root()
if not _writable(CACHE_ROOT):
    CACHE_ROOT = None
_said = {}  # the warnings given, in order (a dict as an ordered set)


def _warn_once(message, detail=None):
    """One RuntimeWarning per message and process, with ``detail`` (the error, the
    file) after it. Marked as said before it is raised: under ``-W error`` the first
    kernel import fails once, not every fit."""
    if message not in _said:
        _said[message] = None
        shown = message if detail is None else f"{message} ({detail})"
        warnings.warn(shown + ".", RuntimeWarning, stacklevel=2)


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
    """numba's function cache at this package's locator, whose failures cost a
    compilation, never a fit."""

    _impl_class = _PackageCacheImpl

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except Exception as error:  # noqa: BLE001 - a damaged file: compile instead
            _warn_once(
                "sklearn-linsep could not read a cached kernel: it is compiled again",
                error,
            )
            return None

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except OSError as error:
            _warn_once(
                "sklearn-linsep could not cache a compiled kernel: the kernels "
                "will compile again in the next process",
                error,
            )


def _cache_for(function):
    """The function's cache, or None (after one warning) where none can be used."""
    if CACHE_ROOT is None:
        _warn_once(_unwritable_cache_message(cache_root()))
        return None
    try:
        return _PackageFunctionCache(function)
    except RuntimeError:  # numba found no usable directory for this file
        _warn_once(_unwritable_cache_message(CACHE_ROOT))
        return None


def kernel(function=None, *, inline="never"):
    """``numba.njit(nogil=True)``, cached under :func:`cache_root`.

    Serial and GIL-free: the BLAS call that follows a kernel uses the cores. Used
    bare (``@kernel``) or with numba's ``inline`` option (``@kernel(inline=...)``).
    """

    def decorate(function):
        dispatcher = numba.njit(nogil=True, inline=inline)(function)
        cache = _cache_for(function)
        if cache is not None:
            # What Dispatcher.enable_caching does, with this package's locator.
            dispatcher._cache = cache
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
            if _said:  # what went wrong with the cache, in the notice's words
                say(f"compiling kernels: {next(iter(_said))}")
            else:
                say(f"compiling kernels, first run only (cached in {CACHE_ROOT})")

    def on_end(self, ev):
        pass


def say_before_compiling(say):
    """Have ``say(message)`` called once, just before this process first compiles
    one of this package's kernels; never where every kernel comes from the cache."""
    event.register("numba:compile", _FirstCompile(say))
