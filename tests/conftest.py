"""Fixtures shared by several test modules."""

import pytest


def pytest_itemcollected(item):
    """A test on ``dask_client``'s cluster starts its worker processes (8-13 s of
    imports on their first use): ``slow``, as the marker's rule says."""
    if "dask_client" in getattr(item, "fixturenames", ()):
        item.add_marker(pytest.mark.slow)


@pytest.fixture
def count_calls(monkeypatch):
    """``count_calls(owner, name)``: a list that gains an entry at each call of
    ``owner.name``, which still runs (a spy, undone after the test)."""

    def count(owner, name):
        calls, real = [], getattr(owner, name)
        monkeypatch.setattr(
            owner, name, lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs)
        )
        return calls

    return count


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


@pytest.fixture
def dask_sync():
    """dask's computations in the test run in the test's own thread (the
    synchronous scheduler): the same graphs and block functions as on a cluster,
    without the pickling and the process hops. A few tests keep ``dask_client``
    to check those."""
    import dask

    with dask.config.set(scheduler="synchronous"):
        yield
