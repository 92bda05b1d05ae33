"""What every benchmark script shares: where it ran (machine, BLAS, code version),
timing (medians, candidates taking turns) and memory (traced and resident peaks).

Machines are shared and noisy: every script quotes medians, and candidates compared
in one table take turns so that a burst of load from elsewhere hits all of them.
"""

import ctypes
import gc
import os
import platform
import statistics
import subprocess
import threading
import time
import tracemalloc

from threadpoolctl import threadpool_info

try:
    import psutil
except ImportError:  # psutil only adds the memory figures
    psutil = None

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENVIRONMENT = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


# --------------------------------------------------------------------------- machine


def cpu_model():
    """The CPU model name from /proc/cpuinfo (or platform's guess elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def blas_description():
    """One line per BLAS/OpenMP library loaded, as threadpoolctl sees it now."""
    lines = []
    for lib in threadpool_info():
        # The directory tells whose copy it is (numpy.libs, scipy.libs, cvxopt...).
        owner = os.path.basename(os.path.dirname(lib["filepath"]))
        lines.append(
            f"{lib['user_api']}: {lib['internal_api']} {lib.get('version')} "
            f"kernel={lib.get('architecture')} threads={lib['num_threads']} "
            f"layer={lib.get('threading_layer')} ({owner})"
        )
    return lines or ["(no BLAS library seen by threadpoolctl)"]


def code_version(root=REPOSITORY):
    """The git commit of the package under test at ``root``, and whether its
    sources are edited."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "sklearn_linsep"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    edited = [line[3:] for line in dirty if line.strip()]
    return commit + (f" + uncommitted edits to {', '.join(edited)}" if edited else "")


def machine_line():
    """One line for the scripts that print a short header."""
    return f"{cpu_model()}, {os.cpu_count()} logical CPUs; code {code_version()}"


def print_machine(versions=(), environment=(), threads=(), root=REPOSITORY):
    """The ``# Machine`` block every table is printed under.

    Parameters
    ----------
    versions : sequence of str
        ``"name version"`` of the packages the script times.
    environment : sequence of str
        Environment variables to show beyond the BLAS thread settings.
    threads : sequence of str
        More lines on threads.
    root : str
        The checkout whose commit is printed.
    """
    print("# Machine")
    print(f"platform : {platform.platform()}")
    print(f"cpu      : {cpu_model()} ({os.cpu_count()} logical CPUs)")
    if psutil is not None:
        print(f"memory   : {psutil.virtual_memory().total / 1024**3:.1f} GiB")
    print(f"python   : {platform.python_version()}")
    if versions:
        print(f"versions : {', '.join(versions)}")
    print(f"code     : sklearn_linsep at {code_version(root)}, from {root}")
    print(f"date     : {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    for var in (*ENVIRONMENT, *environment):
        print(f"{var:<22}= {os.environ.get(var, '(unset)')}")
    for line in (*blas_description(), *threads):
        print(f"threads  : {line}")
    print()


# ---------------------------------------------------------------------------- timing


def timed(function, *args):
    """``(seconds, result)`` of one call, after a garbage collection."""
    gc.collect()
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def median_seconds(function, repeats, *args):
    """``(median seconds, last result)`` of ``repeats`` calls."""
    times, result = [], None
    for _ in range(repeats):
        seconds, result = timed(function, *args)
        times.append(seconds)
    return statistics.median(times), result


def time_round_robin(funcs, args, repeats, once_above=float("inf")):
    """``name -> {"times", "median", "result", "once"}`` of ``funcs[name](*args)``.

    One warm-up call each; a candidate whose warm-up took more than ``once_above``
    seconds keeps that time as its only timing. The others then take turns, one
    call each per round, ``repeats`` rounds.
    """
    out = {}
    for name, func in funcs.items():
        seconds, result = timed(func, *args)
        once = seconds > once_above
        out[name] = {"times": [seconds] if once else [], "result": result, "once": once}
    again = [name for name in funcs if not out[name]["once"]]
    for _ in range(repeats):
        for name in again:
            seconds, out[name]["result"] = timed(funcs[name], *args)
            out[name]["times"].append(seconds)
    for entry in out.values():
        entry["median"] = statistics.median(entry["times"])
    return out


# ---------------------------------------------------------------------------- memory


class RSSSampler:
    """Peak resident set size growth while active, sampled every ``interval`` s by
    a background thread (a lower bound: a peak between samples is missed)."""

    def __init__(self, interval=0.002):
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()

    def _run(self):
        proc = psutil.Process()
        while not self._stop.is_set():
            self.peak = max(self.peak, proc.memory_info().rss)
            time.sleep(self.interval)

    def __enter__(self):
        self.base = psutil.Process().memory_info().rss
        self.peak = self.base
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, psutil.Process().memory_info().rss)

    @property
    def extra(self):
        """Bytes above the level at entry."""
        return self.peak - self.base


def traced_peak(function, *args):
    """Peak bytes Python's allocators (numpy's included) hold during one call,
    above what they held before it."""
    gc.collect()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        function(*args)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _return_freed_memory():
    """Hand the heap's freed pages back to the system (glibc's malloc_trim), so
    that an RSS growth starts from what is in use, not from what an earlier call
    freed and the allocator kept."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def peak_memory(function, *args):
    """``(traced peak, RSS peak growth)`` in bytes of two untimed calls: the data
    already exist, so both count only what the call allocates beyond them."""
    traced = traced_peak(function, *args)
    rss = float("nan")
    if psutil is not None:
        gc.collect()
        _return_freed_memory()
        with RSSSampler() as sampler:
            function(*args)
        rss = sampler.extra
    return traced, rss
