"""Test-session set-up shared by tests/ and the doctests in sklearn_linsep/."""

import os

# scikit-learn's check_array_api_input (numpy namespace) is skipped unless scipy's
# array-API mode is on, and scipy reads this flag once, at its first import.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
