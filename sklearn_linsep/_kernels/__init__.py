"""Compiled per-row loops (numba). Plain arrays in and out: no estimator ever here.

Each kernel is serial and releases the GIL (``nogil``): the BLAS call that follows it
uses the cores, and numba threads competing with BLAS threads on a small machine make
both slower.

- ``_rows``: a row of X, dense or CSR, against a weight row (compiled code only);
- ``_random``: seeded orders of the samples;
- ``_stats``: passes over X (the centring of the class statistics, the centred
  margins, the largest magnitude);
- ``_online``: the epochs of the perceptron family, on named argument records;
- ``_nearest``: the nearest points of two convex hulls.
"""

from ._nearest import NEAREST_ITERATIONS, nearest_points_kernel
from ._online import (
    RATE_CONSTANT,
    RATE_HYPERBOLIC,
    RATE_INVSCALING,
    RATE_TABLE,
    STORED_ORDER,
    Average,
    Pocket,
    Rates,
    Samples,
    beats_pocket,
    lms_epoch,
    perceptron_epoch,
    pocket_end_of_epoch,
    weighted_correct,
)
from ._random import block_shuffled_order, shuffled_order
from ._stats import (
    centre_rows,
    centre_with_indicator,
    centre_with_indicator_weighted,
    centred_margins,
    largest_magnitude,
    shifted_class_sums,
    shifted_means,
)

__all__ = [
    "NEAREST_ITERATIONS",
    "RATE_CONSTANT",
    "RATE_HYPERBOLIC",
    "RATE_INVSCALING",
    "RATE_TABLE",
    "STORED_ORDER",
    "Average",
    "Pocket",
    "Rates",
    "Samples",
    "beats_pocket",
    "block_shuffled_order",
    "centre_rows",
    "centre_with_indicator",
    "centre_with_indicator_weighted",
    "centred_margins",
    "largest_magnitude",
    "lms_epoch",
    "nearest_points_kernel",
    "perceptron_epoch",
    "pocket_end_of_epoch",
    "shifted_class_sums",
    "shifted_means",
    "shuffled_order",
    "weighted_correct",
]
