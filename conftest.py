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
