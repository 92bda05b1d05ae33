"""The exact core's cost model, in one place: every choice of a route, a size
or a limit made from the problem's shape and a measured price.

- the working set's seed and batch (:func:`two_class_sizes`,
  :func:`pair_sizes`, capped on tall data: :func:`capped`);
- which route takes a working set's subproblem (:func:`dense_dual_suits`,
  :func:`pair_dual_suits`: the dual on the Gram matrix) and whether two
  classes of sparse text go in the span of their rows (:func:`wide_suits`,
  :func:`dense_fallback_fits`);
- the soft limit's rounds against an interior point over every row
  (:func:`rounds_budget`, on :func:`interior_point_seconds` and
  :func:`round_seconds`);
- the K-class exact finish's limits (:func:`exact_finish_suits`,
  :func:`separator_finish_suits`).

Each price is a measurement, cited where it is set. A wrong price costs time,
never the answer: every route's answer is checked and proved the same way.
"""

import numpy as np
import scipy.sparse as sp

# ---------------------------------------------------------------- working sets

TALL_CAP = 1000  # rows a class in the seed, and rows a round, on tall data

def capped(size, tall):
    """A working set's seed or batch, at most ``TALL_CAP`` on tall data (rows
    or pairs alike).

    Measured on embeddings (bench_probes.py), a pair of classes of 40 000 × 1 024
    with 379 support vectors: the seed of 4 p + 20 = 4 116 rows a class took 1.33 s
    (the nearest points on 8 232 rows), 1 000 took 0.32 s; inseparable, 2.78 s and
    2.17 s. Wide data keep all their rows (the dense dual takes them at once)."""
    return min(size, TALL_CAP) if tall else size


def two_class_sizes(n_features, n_samples, initial_size=None, batch=None):
    """``(seed size, batch)`` of a two-class working set, defaults filled in."""
    # Measured at p = 100 (bench_exact_core.py): twice the seed and four times
    # the batch of before took 1e4 rows from 10 rounds and 64 ms to 3 and
    # 42 ms, 1e5 from 16 rounds and 0.40 s to 6 and 0.25 s; neutral at p = 20.
    p, tall = n_features, n_features < n_samples
    return (initial_size or capped(max(4 * p + 20, 50), tall),
            batch or capped(max(4 * p + 40, 100), tall))  # fmt: skip


def pair_sizes(n_features, n_classes, n_samples, initial_size=None, batch=None):
    """``(seed size, batch)`` of a working set of pairs, defaults filled in."""
    p, tall = n_features, n_features < n_samples
    return (initial_size or capped(max(p // 2, 20), tall),
            batch or _joint_batch(p, n_classes, n_samples))  # fmt: skip


# The most pairs the exact finish takes, all at once: Clarabel stalled on a
# working set grown by the pairs the exact machine violated (362 of 874,
# K = 16), where on all 874 it found the support; grown rounds on 7 600 pairs
# (400 rows, K = 20) spent 35 s before refusing.
EXACT_FINISH_PAIRS = 5_000

# The largest machine, in unknowns K (p + 1), decided that way: an exact solve
# of its support's system took 0.06 s at 100 unknowns, 0.5 s at 200 (entries
# 1e6 apart), growing with the cube; a failed finish makes up to 27 a round.
EXACT_FINISH_UNKNOWNS = 200

# Beyond this many unknowns K (p + 1) a QP of Clarabel's costs 0.3-0.6 s (the
# pairs' columns fill its factorisation), so a round adds few pairs: the active
# set from the last support then settles the next working set without it.
# Measured (bench_multiclass.py's shapes): 2 000 x 100, K = 5 took 8.3 s with
# 440 pairs a round, 1.7 s with 50; standardised digits 0.32 s and 0.20 s; tall
# data (2e4 x 20, K = 5: 105 unknowns) 1.0 s with 120, 1.7 s with 50.
SMALL_MACHINE = 256

WIDE_MACHINE_BATCH = 50

# Where the machine's unknowns K (p + 1) reach the rows, the working sets go by
# the pairs' dual on the Gram (an update of its factor a round): twice the
# pairs a round took 2 000 x 256, K = 10 from 4.2 s to 3.2 s, 1 000 x 300, K = 10
# from 1.8 s to 1.4 s, 3 000 x 400, K = 8 from 7.7 s to 6.3 s; four times gained
# nothing more (a working set beyond K (p + 1) pairs leaves that route).
GRAM_MACHINE_BATCH = 2 * WIDE_MACHINE_BATCH

def _joint_batch(p, n_classes, n_samples):
    """Pairs that join a round: as many as the two-class loop takes rows, or
    ``WIDE_MACHINE_BATCH`` where the machine has many unknowns and the rows
    outnumber the features (Clarabel and the primal active set solve those
    working sets), ``GRAM_MACHINE_BATCH`` where they number at most the
    machine's unknowns. Where every row may be a support vector (p + 1 >= n) the
    dual on the rows' Gram matrix takes every violator at once: 3 000 x 20 000
    sparse text with K = 4 went from 41 s to 6.5 s (SVC: 4.6 s)."""
    if p + 1 >= n_samples:
        return max(4 * p + 40, 100)
    if n_classes * (p + 1) >= n_samples:
        return GRAM_MACHINE_BATCH
    if n_classes * (p + 1) > SMALL_MACHINE:
        return WIDE_MACHINE_BATCH
    return capped(max(4 * p + 40, 100), True)


# ------------------------------------------------------------ the routes' choice

# The dense dual route: rows that may all be support vectors (as many features as
# rows, or more: then every held set is nonsingular), and few enough for their
# Gram matrix (4000 rows: 128 MB). With fewer features than rows a held set beyond
# p + 1 rows is singular; capped there, the active set cycled at 1000 x 500 (40
# steps, no answer), so the nearest points serve those shapes.
DENSE_DUAL_MAX_ROWS = 4000

# Pairs of K classes on their rows' Gram matrix: the held system's factor of
# 8 000 pairs is 512 MB (3 000 documents of 4 classes hold about 4 000).
PAIR_DUAL_MAX_PAIRS = 8000

def dense_dual_suits(m, q):
    """Whether :func:`dense_dual_margin` is tried first on ``m`` rows of ``q``
    features."""
    return m <= DENSE_DUAL_MAX_ROWS and q + 1 >= m

def pair_dual_suits(m, rows, features, n_classes):
    """Whether :func:`pair_active_set` is tried first on ``m`` pairs over
    ``rows`` distinct rows of ``features`` features and ``n_classes`` classes:
    where every pair may hold at margin 1 (as many features as rows, or more:
    wide data, text), or the pairs number at most the machine's unknowns
    K (p + 1) (as the two-class dense dual takes rows up to p + 1), and few
    enough pairs for their held system. Tall working sets, with more pairs than
    unknowns, cycle on singular held sets: they keep the primal route.
    Measured (bench_multiclass.py), against the primal route: 1 000 x 1 000
    with K = 4, 31.9 s and 1.1 s; 2 000 x 256 with K = 10, 23.7 s and 4.0 s;
    600 x 5 000 sparse text with K = 4, 90 s and 0.3 s."""
    wide = features + 1 >= rows
    return m <= PAIR_DUAL_MAX_PAIRS and (wide or n_classes * (features + 1) >= m)


# The first working set of the wide route, rows per class nearest the hyperplane
# halfway between the class means. TF-IDF text has a few hundred to two thousand
# support vectors (SVC: 990 of 3 013 documents, 1 935 of 8 543).
WIDE_SEED = 1000

# Where the wide route's answer fails its checks (features on scales 1e3 apart and
# more, or classes within 1e-3 of touching, cost the Gram matrix the digits the
# checks need), X of at most this many entries (64 MB dense) goes the dense
# route, which decides in the equilibrated frame; larger X gets the SolverError.
DENSE_FALLBACK_ENTRIES = 1 << 23

def wide_suits(two_class):
    """Whether the problem goes by :func:`~.._wide.wide_maximal_margin`: sparse X in
    memory with at least as many features as active rows (every held set of the
    Gram dual can then be nonsingular)."""
    X = getattr(two_class, "X", None)
    return (
        two_class.cheap_passes
        and sp.issparse(X)
        and two_class.n_features >= np.count_nonzero(two_class.active)
    )

def dense_fallback_fits(two_class):
    """Whether X is small enough (``DENSE_FALLBACK_ENTRIES``) for the dense
    route to take it where this route's answer fails its checks."""
    return two_class.n_samples * two_class.n_features <= DENSE_FALLBACK_ENTRIES


def exact_finish_suits(pairs, unknowns):
    """Whether the K-class maximal margin is finished in rationals on every
    pair (``EXACT_FINISH_PAIRS``, ``EXACT_FINISH_UNKNOWNS``)."""
    return pairs <= EXACT_FINISH_PAIRS and unknowns <= EXACT_FINISH_UNKNOWNS


def separator_finish_suits(pairs):
    """Whether the K-class maximal margin is sought in rationals from a
    machine decided in rationals: each exchange checks every pair where
    float64 cannot bound it (95 000 pairs, K = 20: 3 s an exchange, 107 s to
    refuse), so within ``EXACT_FINISH_PAIRS``; its guess is small (p + 1
    pairs), so no limit on the unknowns (K = 3, 303 unknowns of rounded rank-4
    rows: 0.25 s)."""
    return pairs <= EXACT_FINISH_PAIRS


# --------------------------------------------------------------- the soft limit

# The cost model that chooses the soft limit's route, in seconds on one core of
# CI's kind of machine (2 cores of an AMD EPYC, OpenBLAS's Haswell kernels pinned
# to one thread).
# Fitted by relative least squares with `python benchmarks/calibrate_soft.py`
# on 2026-11-28: passes at 1e5-1e6 x 20, 1e5 x 100, 5e4 x 768; interior-point
# iterations at 200 x 5 to 2e4 x 768; HiGHS on 300-10 000 rows of p = 10-768
# (within 0.5-2x of the model but for 2 000 x 768: 42 s against 15). It only
# picks the faster of two exact routes: a wrong price costs time, never the
# answer.
PASS_SECONDS = 1.4e-9  # one pass over the rows (every margin), per entry n·p

GRAM_SECONDS = 2.1e-11  # the interior point's weighted Gram, per entry n·(p + 1)²

IPM_PASS_SECONDS = 1.6e-8  # its other passes (centring where Z is not kept,

# products), per entry n·p and iteration
IPM_STEP_SECONDS = 6.4e-4  # its Python, per iteration

IPM_ITERATIONS = 30  # measured 20 (2e4 x 768) to 51 (1e6 x 20, 10 labels flipped)

# HiGHS's dual simplex on w rows of the least-hinge LP: per w·(p + 1)², per
# w²·(p + 1) (more rows, more steps), per w·(p + 1) and per call.
LP_SECONDS = 1.2e-8

LP_SQUARE_SECONDS = 9.6e-11

LP_ROW_SECONDS = 7.1e-7

LP_CALL_SECONDS = 4.3e-3

# The rounds' share of the interior point's price, in all and per round. Rounds
# that finish cost a fraction of it, each a small one (1e5 x 50 with 20 labels
# flipped: 13 rounds of modelled 0.03-0.16 s, 0.98 s in all, against the
# interior point's 2.6 s; 1e6 x 20 with 10 flipped: 14 rounds, 0.7 s against
# 8 s). Rounds on labels near random double their working set and their price
# without end (1e5 x 50 of noise: 0.05, 0.09, 0.15, 0.22, 0.33 s, ...), and a
# round of thousands of dense rows is a gamble (HiGHS on 2 000 x 768 took 42 s
# where the model says 15).
ROUNDS_SHARE = 0.5

ROUND_SHARE = 0.125

def interior_point_seconds(n, p):
    """The modelled time of the interior point over n rows of p features."""
    step = GRAM_SECONDS * n * (p + 1) ** 2 + IPM_PASS_SECONDS * n * p + IPM_STEP_SECONDS
    return IPM_ITERATIONS * step

def round_seconds(n, p, working):
    """The modelled time of one round of the least-hinge LP on ``working`` rows
    of n: the LP, then the pass that finds the violators."""
    lp = (
        LP_SECONDS * working * (p + 1) ** 2
        + LP_SQUARE_SECONDS * working**2 * (p + 1)
        + LP_ROW_SECONDS * working * (p + 1)
        + LP_CALL_SECONDS
    )
    return lp + PASS_SECONDS * n * p

def rounds_budget(n, p):
    """``affordable(working)`` for :func:`~sklearn_linsep._working_set.grow`: the
    rounds may spend ``ROUNDS_SHARE`` of the interior point's modelled time,
    each round at most ``ROUND_SHARE`` of it (ski rental: where the rounds do
    not finish, the soft limit pays at most 1 + ``ROUNDS_SHARE`` times the
    interior point's price)."""
    price = interior_point_seconds(n, p)
    left = ROUNDS_SHARE * price

    def affordable(working):
        nonlocal left
        cost = round_seconds(n, p, working.size)
        if cost > min(left, ROUND_SHARE * price):
            return False
        left -= cost
        return True

    return affordable
