"""Compiled per-row loops (numba). Plain arrays in and out: no estimator ever here.

Each kernel is serial and releases the GIL (``nogil``): the BLAS call that follows it
uses the cores, and numba threads competing with BLAS threads on a small machine make
both slower.

- ``_records``: the kernels' argument records and constants (no numba);
- ``_jit``: the ``kernel`` decorator and where compiled code is cached;
- ``_rows``: a row of X, dense or CSR, against a weight row (compiled code only);
- ``_random``: seeded orders of the samples;
- ``_stats``: passes over X (the centring of the class statistics, the centred
  margins, the largest magnitude);
- ``_online``: the epochs of the perceptron family, on named argument records;
- ``_nearest``: the nearest points of two convex hulls.

The names are imported on first use (PEP 562): importing an estimator imports
neither numba nor a kernel, and a kernel's module is loaded (and numba with it) when
a fit first calls it. Callers therefore write ``_kernels.name(...)`` at call time.
"""

from .._compat import lazy_attributes

_MODULE_OF = {
    **dict.fromkeys(
        [
            "NEAREST_CONVERGED",
            "NEAREST_ITERATIONS",
            "NEAREST_STALLED",
            "RATE_CONSTANT",
            "RATE_HYPERBOLIC",
            "RATE_INVSCALING",
            "RATE_TABLE",
            "STORED_ORDER",
            "Average",
            "NearestWorkspace",
            "Pocket",
            "Rates",
            "Samples",
            "nearest_workspace",
        ],
        "._records",
    ),
    "nearest_points_kernel": "._nearest",
    "say_before_compiling": "._jit",
    **dict.fromkeys(
        [
            "beats_pocket",
            "lms_epoch",
            "perceptron_epoch",
            "pocket_end_of_epoch",
            "weighted_correct",
        ],
        "._online",
    ),
    **dict.fromkeys(["block_shuffled_order", "shuffled_order"], "._random"),
    **dict.fromkeys(
        [
            "centre_rows",
            "centre_with_indicator",
            "centre_with_indicator_weighted",
            "centred_margins",
            "largest_magnitude",
            "shifted_class_sums",
            "shifted_means",
        ],
        "._stats",
    ),
}

__all__ = sorted(_MODULE_OF)

__getattr__, __dir__ = lazy_attributes(__name__, _MODULE_OF)
