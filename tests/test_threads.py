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
