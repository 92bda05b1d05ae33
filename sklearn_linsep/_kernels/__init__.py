"""Compiled per-row loops (C extension modules, from Cython, built by ``pip install``).
Plain arrays in and out: no estimator ever here.

Each kernel is serial and releases the GIL (``nogil``): the BLAS call that follows it
uses the cores, and dask's threaded scheduler runs kernels on several blocks at once.
Read-only arrays come in through ``const`` memoryviews, so read-only X (a memory map,
a dask block) is read in place. A two-dimensional X must be C-ordered: the kernels
walk along rows, and the callers copy an F-ordered X once (``np.ascontiguousarray``)
rather than read it through strided views, whose row walk touches one cache line per
entry. The 32- and 64-bit variants (X's dtype, a CSR matrix's index dtype) are
Cython fused types, compiled once each at install. The C is compiled with
``-ffp-contract=off`` (``setup.py``): no multiply and add fused into one rounding,
so that a fit gives the same numbers on every machine. (The nearest points' products
and rotations go through BLAS, rounded as the machine's BLAS rounds; what they find
is checked and proven after, in the exact layer.)

- ``_records``: the kernels' argument records and constants (plain Python);
- ``_random``: seeded orders of the samples (splitmix64);
- ``_stats``: passes over X (the centring of the class statistics, the centred
  margins, a dask block's class summaries, the columns' extremes and the weight
  outside an interval, the largest magnitude);
- ``_online``: the epochs of the perceptron family, on named argument records, over
  a row of X dense or CSR;
- ``_nearest``: the nearest points of two convex hulls;
- ``_dual``: coordinate descent on the margin's dual over a Gram matrix or the
  rows (a guess of its face).

The names are imported on first use (PEP 562): ``import sklearn_linsep`` loads no
kernel. Callers write ``_kernels.name(...)`` at call time.
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
    **dict.fromkeys(["JOIN_BATCH", "nearest_points_kernel"], "._nearest"),
    **dict.fromkeys(
        [
            "margin_dual_passes",
            "margin_row_passes",
            "pair_dual_passes",
            "sparse_pair_dual_passes",
        ],
        "._dual",
    ),
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
            "class_summaries",
            "column_extremes",
            "centre_with_indicator_weighted",
            "centred_margins",
            "centred_scores",
            "largest_magnitude",
            "outside_weights",
            "shifted_class_sums",
            "shifted_means",
        ],
        "._stats",
    ),
}


def reads_rows(X):
    """Whether the compiled passes over rows read X as it is: a C-ordered
    float32 or float64 ndarray (anything else goes to numpy's passes)."""
    import numpy as np

    return (
        isinstance(X, np.ndarray)
        and X.flags.c_contiguous
        and X.dtype in (np.float32, np.float64)
    )


__all__ = sorted(_MODULE_OF)

__getattr__, __dir__ = lazy_attributes(__name__, _MODULE_OF)
