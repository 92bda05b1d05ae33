"""BLAS threads in the exact core's loops (sklearn_linsep/_threads.py)."""

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController

from sklearn_linsep import linear_separability
from sklearn_linsep._threads import (
    SMALL_DATA,
    SMALL_MATRIX,
    threads_for_fit,
    threads_for_matrix,
    threads_for_solve,
)

# The BLAS libraries numpy and scipy bring (others a test suite loads, such as
# a solver's own build, may not take a thread limit).
OURS = ("numpy", "scipy")


def blas_threads():
    return {info["num_threads"] for info in ThreadpoolController().info()
            if info["user_api"] == "blas"
            and any(name in info["filepath"] for name in OURS)}  # fmt: skip


@pytest.fixture
def two_blas_threads():
    """Two BLAS threads outside the limits (the machine may default to one),
    restored afterwards."""
    controller = ThreadpoolController().select(user_api="blas")
    with controller.limit(limits=2):
        yield


def test_small_fit_and_matrix_run_on_one_thread(two_blas_threads):
    before = blas_threads()
    assert before == {2}
    with threads_for_fit(100, 10, 11):
        assert blas_threads() == {1}
    with threads_for_matrix(SMALL_MATRIX):
        assert blas_threads() == {1}
    with threads_for_solve(SMALL_MATRIX):
        assert blas_threads() == {1}
    assert blas_threads() == before


def test_one_thread_inside_one_thread_sets_no_limit_of_its_own(
    monkeypatch, two_blas_threads
):
    """BLAS's limit is the process's: a context inside another (a pair's fit
    inside the pairs' threads) asks threadpoolctl for nothing, and the threads
    stay one until the outer context closes."""
    from sklearn_linsep import _threads

    controller, limits = _threads._controller(), []
    limit = controller.limit
    monkeypatch.setattr(
        controller, "limit", lambda **kw: limits.append(kw) or limit(**kw)
    )
    with _threads.one_blas_thread():
        with threads_for_solve(10), threads_for_matrix(10):
            assert blas_threads() == {1}
        assert blas_threads() == {1}
    assert blas_threads() == {2} and len(limits) == 1


def test_large_fit_and_matrix_keep_their_threads(two_blas_threads):
    with threads_for_fit(SMALL_DATA + 1, 1, 2):
        assert blas_threads() == {2}
    with threads_for_fit(100, 10, SMALL_MATRIX + 1):  # K (p + 1) unknowns
        assert blas_threads() == {2}
    with threads_for_matrix(SMALL_MATRIX + 1):
        assert blas_threads() == {2}
    with threads_for_solve(SMALL_MATRIX + 1):
        assert blas_threads() == {2}


def test_subproblems_solve_on_one_thread(monkeypatch, two_blas_threads):
    """On data too large for one thread throughout (here: every size), the
    working-set loop's solves see one BLAS thread and its passes over X the
    default threads."""
    from sklearn_linsep import _working_set

    monkeypatch.setattr("sklearn_linsep._threads.SMALL_DATA", 0)
    solves, passes = [], []
    grow = _working_set.grow

    def recording_grow(seed, solve, violators, *args, **kwargs):
        def recording_solve(working):
            solves.append(blas_threads())
            return solve(working)

        def recording_violators(solution, working):
            passes.append(blas_threads())
            return violators(solution, working)

        return grow(seed, recording_solve, recording_violators, *args, **kwargs)

    monkeypatch.setattr("sklearn_linsep._margin._driver.grow", recording_grow)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.argmax(X @ rng.normal(size=(3, 3)).T, axis=1)
    linear_separability(X, y, multiclass="joint")
    linear_separability(X[y < 2], y[y < 2])
    assert solves and all(threads == {1} for threads in solves)
    assert passes and all(threads == {2} for threads in passes)
    assert blas_threads() == {2}


def test_in_threads_is_the_loop_in_order_with_its_warnings_and_first_error():
    """Items on two threads: the loop's results in order, each item's warnings
    in the items' order from the caller, numpy's error state the caller's, and
    the first failing item's error (a later one's not)."""
    import threading
    import warnings

    from sklearn_linsep._threads import in_threads

    def work(item):
        warnings.warn(f"item {item}", UserWarning)
        if item in (5, 7):
            raise ValueError(f"item {item} failed")
        if item == 9:
            np.ones(1) / np.zeros(1)  # raises in the caller's error state
        return item * item, threading.current_thread()

    def rewarn(message, category):
        warnings.warn(message, category, stacklevel=3)  # from in_threads' caller

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = in_threads(work, iter(range(5)), 2, rewarn)
        with pytest.raises(ValueError, match="item 5 failed"):
            in_threads(work, iter(range(12)), 2, rewarn)
        with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
            in_threads(work, iter([9, 0]), 2, rewarn)
        # One worker: the loop itself, on this thread.
        alone = in_threads(work, range(3), 1, rewarn)
    assert alone[0][1] is threading.main_thread()
    assert [square for square, _ in results] == [0, 1, 4, 9, 16]
    assert threading.main_thread() not in {thread for _, thread in results}
    said = [str(warning.message) for warning in caught]
    assert said[:5] == [f"item {k}" for k in range(5)]
    assert said[5:11] == [f"item {k}" for k in range(6)]  # up to the failure
    assert all(warning.filename == __file__ for warning in caught)
