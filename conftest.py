"""Test-session set-up shared by tests/ and the doctests in sklearn_linsep/."""

import os

# scikit-learn's check_array_api_input (numpy namespace) is skipped unless scipy's
# array-API mode is on, and scipy reads this flag once, at its first import.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

# CI runs the property tests on a fixed sequence of examples (derandomize), so that a
# red build always means a change, never a newly drawn example; locally they explore.
from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_configure(config):
    """Under pytest-xdist, each worker's BLAS (numpy's and scipy's) gets the CPUs
    divided among the workers, as scikit-learn's own test suite does: two workers
    of two BLAS threads each on two cores made the threads of one wait on the
    other's (tests that need a thread count set it themselves)."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers is None:
        return
    import numpy  # noqa: F401 - their BLAS loaded, for the limit to reach it
    import scipy.linalg  # noqa: F401
    from joblib import cpu_count
    from threadpoolctl import threadpool_limits

    threadpool_limits(max(1, cpu_count() // int(workers)))
