"""Fixtures shared by several test modules."""

import numpy as np
import pytest


@pytest.fixture(scope="session")
def dask_client():
    """A dask.distributed cluster of 2 worker processes, started inside the test
    session (no outside service), and a client connected to it; dask's computations
    in the tests that use it run there."""
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            memory_limit="2GiB",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _random_chunks(rng, y, mode):
    """Row indices of the chunks: one row each, sorted by class (so most chunks
    hold one class only), or cut at random; always in a random order."""
    n = len(y)
    if mode == "one row":
        chunks = [np.array([i]) for i in range(n)]
    elif mode == "by class":
        chunks = np.array_split(np.argsort(y, kind="stable"), rng.randint(1, n + 1))
    else:
        cuts = rng.choice(np.arange(1, n), size=rng.randint(0, n - 1), replace=False)
        chunks = np.split(np.arange(n), np.sort(cuts))
    chunks = [chunk for chunk in chunks if chunk.size]
    rng.shuffle(chunks)
    return chunks


def _assert_close(actual, expected, rtol=1e-10):
    """Equal to ``rtol`` relative to the largest entry of ``expected``."""
    expected = np.asarray(expected)
    np.testing.assert_allclose(
        actual, expected, rtol=rtol, atol=rtol * np.abs(expected).max()
    )


# Session-scoped, so that hypothesis tests may take them: helpers shared by the
# streaming tests of several modules (test modules cannot import each other here).
@pytest.fixture(scope="session")
def random_chunks():
    """``random_chunks(rng, y, mode)``: row indices of chunks for partial_fit."""
    return _random_chunks


@pytest.fixture(scope="session")
def assert_close():
    """``assert_close(actual, expected, rtol=1e-10)``, relative to the largest
    entry of ``expected``."""
    return _assert_close


def _iris_setosa(nudged=False):
    """SPEC §6: setosa against the rest on sepal length and width; ``nudged``
    moves the versicolor point (4.5, 2.3) to (4.5, 2.8)."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X = X[:, :2].copy()
    if nudged:
        X[(X[:, 0] == 4.5) & (X[:, 1] == 2.3), 1] = 2.8
    return X, (y == 0).astype(int)


@pytest.fixture(scope="session")
def iris_setosa():
    """``iris_setosa(nudged=False)``: the data of SPEC §6, as ``(X, y)``."""
    return _iris_setosa
