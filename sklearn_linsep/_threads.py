"""BLAS threads for the exact core's loops of small solves.

A working-set loop solves a small dense system every round (a 50 × 50 Cholesky
takes microseconds); with the default threads each of those pays for waking and
spinning BLAS's threads, and on a shared 2-core machine whose other core is
busy, for waiting on it: the digits report took 5-7x longer with the default
threads than with one. So a fit limits BLAS to one thread:

* around its whole loop where the data are small (:func:`threads_for_fit`: no
  product over all rows is large enough for a second thread to pay);
* otherwise around each small subproblem only (:func:`threads_for_solve`),
  leaving the large products over all rows (``X @ w``, ``X.T @ X``) threaded.

The soft limit's interior point factors its normal matrix on one thread whatever
its order (``_margin/_solvers/_ipm.py``): between numpy's threaded Gram passes,
scipy's second thread made a factor of order 769 14x slower.

A fit whose machine has more than ``SMALL_MATRIX`` unknowns, or a subproblem of
more rows or pairs, keeps its threads even on small data: K = 10 classes of
2 000 × 256 factor working sets of 2 000 pairs, whose LU took 93 ms on one
thread and 52 ms on two (the whole fit: 30 s against 24 s).

One :class:`threadpoolctl.ThreadpoolController`, made at first use (after numpy's
and scipy's BLAS are loaded), serves every limit: its ``limit`` costs tens of
microseconds, where ``threadpool_limits(1)`` inspects every loaded library again
(about 2 ms).
"""

import contextlib
import contextvars
import functools
import threading
import warnings

# Dense decompositions (eigh, Cholesky) of matrices of at most this order run on
# one thread: a 64 x 64 eigh took 95 ms with two threads beside a busy core,
# against well under 1 ms on one (the digits report makes 135 of them).
SMALL_MATRIX = 512
# Entries of X at or below which every product of a fit runs on one thread
# (4 Mi entries: 32 MB of float64; the largest pass over them, one X @ w, takes
# about 2 ms on one core).
SMALL_DATA = 1 << 22
# Stored entries of X per problem from which independent problems (the pairs of
# K classes) run side by side, one thread each (:func:`workers_for`). Below it
# a problem's compiled and BLAS steps are too short to pay for the hand-overs
# of the GIL between its Python steps: digits' 45 pairs (about 23 000 entries
# each) took twice the CPU time on two threads as on one.
SIDE_BY_SIDE = 1 << 18


@functools.lru_cache(maxsize=None)
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


# Contexts of one_blas_thread open, in any thread: BLAS's limit is the process's,
# so one inside another needs no limit of its own (threadpoolctl's costs about
# 60 us: two a pair of K classes inside in_threads', a tenth of digits' 45 pairs).
_one_thread = {"open": 0, "lock": threading.Lock()}


@contextlib.contextmanager
def one_blas_thread():
    """A context in which BLAS runs on one thread."""
    with _one_thread["lock"]:
        nested = _one_thread["open"] > 0
        _one_thread["open"] += 1
    try:
        if nested:
            yield
        else:
            with _controller().limit(limits=1, user_api="blas"):
                yield
    finally:
        with _one_thread["lock"]:
            _one_thread["open"] -= 1


def threads_for_fit(n_samples, n_features, unknowns):
    """One BLAS thread for a whole fit on data of at most ``SMALL_DATA``
    entries whose subproblems stay small (a machine of at most
    ``SMALL_MATRIX`` ``unknowns``: p + 1 for two classes, K (p + 1) for K);
    no limit otherwise (see :func:`threads_for_solve`)."""
    if n_samples * n_features <= SMALL_DATA and unknowns <= SMALL_MATRIX:
        return one_blas_thread()
    return contextlib.nullcontext()


def threads_for_solve(size):
    """One BLAS thread for a working set's subproblem of at most
    ``SMALL_MATRIX`` rows or pairs; a larger one keeps the threads it has
    (its factorisations pay for them)."""
    if size <= SMALL_MATRIX:
        return one_blas_thread()
    return contextlib.nullcontext()


def threads_for_matrix(order):
    """One BLAS thread for a dense decomposition of a matrix of at most
    ``SMALL_MATRIX`` rows; no limit on a larger one (its threads pay)."""
    if order <= SMALL_MATRIX:
        return one_blas_thread()
    return contextlib.nullcontext()


def worker_count():
    """Threads for independent problems run side by side (the pairs of K
    classes): the CPUs this process may use, as scikit-learn's ``n_jobs=-1``
    counts them (joblib's count: affinity and container quotas)."""
    from joblib import cpu_count

    return max(1, cpu_count())


def workers_for(problems, entries):
    """Threads for ``problems`` independent problems of about ``entries``
    stored entries of X each (:func:`in_threads`): one where they are smaller
    than ``SIDE_BY_SIDE``, else one per CPU, at most one per problem."""
    if entries < SIDE_BY_SIDE:
        return 1
    return max(1, min(worker_count(), problems))


_DRAWN = object()  # the end of the items


def in_threads(function, items, workers, rewarn):
    """``[function(item) for item in items]``, the items shared among
    ``workers`` threads, BLAS on one thread in each: the loop's results, in the
    items' order, whatever the schedule (``function`` reads nothing another
    item writes). One worker: the loop itself.

    ``items`` is drawn one at a time as a worker comes free (a generator that
    makes each item, a pair's copy of its rows, holds at most ``workers`` of
    them at once). Each item runs in a copy of the caller's context (numpy's
    error state). The warnings an item raises are recorded and handed, in the
    items' order, to ``rewarn(message, category)`` in the calling thread when
    all are done (its filters, its frame); then the error of the first item
    that failed is raised, as the loop would (none is started once one failed).
    """
    if workers < 2:  # map holds no item past its call: one at a time
        return list(map(function, items))
    items = iter(items)
    draw, current, stop = threading.Lock(), threading.local(), threading.Event()
    slots = []  # per item drawn: [result, error, warnings]

    def record(message, category, filename, lineno, file=None, line=None):
        caught = getattr(current, "caught", None)
        if caught is None:  # a thread not ours: shown as before
            return shown(message, category, filename, lineno, file, line)
        caught.append((message, category))

    def work(context):
        while not stop.is_set():
            with draw:
                slot = [None, None, []]
                current.caught = slot[2]  # the making of the item's too
                try:
                    item = next(items, _DRAWN)
                except BaseException as error:  # noqa: BLE001 - raised below
                    slot[1], item = error, None
                if item is _DRAWN or stop.is_set():
                    return
                slots.append(slot)
            try:
                if slot[1] is None:
                    slot[0] = context.run(function, item)
            except BaseException as error:  # noqa: BLE001 - raised below
                slot[1] = error
            finally:
                current.caught = None
                del item  # before the next is made: one item per worker
            if slot[1] is not None:
                stop.set()

    with warnings.catch_warnings(), one_blas_thread():
        warnings.simplefilter("always")  # the caller's filters apply at rewarn
        shown = warnings.showwarning
        warnings.showwarning = record
        threads = [
            threading.Thread(target=work, args=(contextvars.copy_context(),))
            for _ in range(workers)
        ]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                thread.join()
        except BaseException:  # an interrupt: the workers start no more items
            stop.set()
            raise
    for _, error, caught in slots:
        for message, category in caught:
            rewarn(message, category)
        if error is not None:
            raise error
    return [slot[0] for slot in slots]
