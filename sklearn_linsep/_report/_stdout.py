"""fd 1 silenced for the report, a process owning its stdout: scipy's HiGHS MIP
(the fewest rows to remove, :func:`~sklearn_linsep._margin.minimum_errors`) may
print there whatever its options."""

import contextlib
import ctypes
import os
import sys
import threading

_SILENCED = {"depth": 0, "saved": None}
_SILENCE_LOCK = threading.Lock()


@contextlib.contextmanager
def native_stdout_silenced():
    """fd 1 to /dev/null for the duration, for a process owning its stdout
    (``linsep report``): scipy 1.17's HiGHS MIP sometimes prints a debugging line there
    ("HighsMipSolverData::transformNewIntegerFeasibleSolution ...") whatever its
    options. Every thread's fd 1 output is then lost: never from a library call alone.
    Nested and concurrent uses count in, the last out restores; no valid fd 1: no-op."""
    with _SILENCE_LOCK:
        if _SILENCED["depth"] == 0:
            try:
                if sys.stdout is not None:
                    sys.stdout.flush()
                saved = os.dup(1)
            except (OSError, ValueError):  # no usable fd 1: nothing to silence
                saved = None
            if saved is not None:
                with open(os.devnull, "w") as devnull:
                    os.dup2(devnull.fileno(), 1)
            _SILENCED["saved"] = saved
        _SILENCED["depth"] += 1
    try:
        yield
    finally:
        with _SILENCE_LOCK:
            _SILENCED["depth"] -= 1
            if _SILENCED["depth"] == 0 and _SILENCED["saved"] is not None:
                try:  # C's stdio (HiGHS prints with printf), before fd 1 returns
                    ctypes.CDLL(None).fflush(None)
                except (OSError, AttributeError, TypeError):  # pragma: no cover
                    pass
                os.dup2(_SILENCED["saved"], 1)
                os.close(_SILENCED["saved"])
                _SILENCED["saved"] = None
