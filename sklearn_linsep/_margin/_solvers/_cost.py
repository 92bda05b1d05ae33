"""The exact core's cost model: each choice of a route, a size or a limit (working
sets' seed and batch, a working set's route, the soft limit's rounds against an
interior point over every row, the K-class exact finish), made from the problem's
shape and a measured price cited where it is set. A wrong price costs time, never the
answer: every route's answer is checked and proved the same way.
"""

import numpy as np
import scipy.sparse as sp

from ... import _working_set  # DENSE_FALLBACK_ENTRIES, read where used (settable)
from ...exceptions import SolverError

# ---------------------------------------------------------------- working sets

TALL_CAP = 1000  # rows a class in the seed, and rows a round, on tall data

def capped(size, tall):
    """``size`` (rows or pairs), at most ``TALL_CAP`` on tall data; wide data keep
    all rows (the dense dual takes them at once). bench_probes.py, 40 000 x 1 024,
    379 SVs: seed 4 116 a class 1.33 s, 1 000 0.32 s (inseparable: 2.78, 2.17 s)."""
    return min(size, TALL_CAP) if tall else size


# Where a seed of 4p + 20 rows a side would take more than 40% of each class, it is
# cut to this share of the rows, but never below 2p + 20, and only where the cut
# seed leaves out at least half of each side: the nearest points on much of a class
# then cost more than the rounds a smaller seed adds. A pair of 10 000 x 256 float32
# embeddings (K = 5, 2 000 rows a class, 80 support vectors): 1 000 a side 29.6 ms,
# 532 23.4 ms (inseparable 58 -> 49 ms); bench_pairs.py: 0.72x. Where the seed is a
# smaller share, rounds cost more than the seed saves: make_separable's 3 000 x 100
# (420 of 1 500 a side) took 30 ms with 250, 27 ms with 420; digits' pairs (180 rows a
# side, p = 64) keep every row, 18% faster than 148 a side.
SEED_ROWS_SHARE = 1 / 12


def two_class_sizes(n_features, n_samples, initial_size=None, batch=None):
    """``(seed size, batch)`` of a two-class working set, defaults filled in."""
    # p = 100 (bench_exact_core.py): 2x seed, 4x batch took 1e4 rows 64->42 ms, 1e5
    # 0.40->0.25 s; neutral at p = 20.
    p, tall = n_features, n_features < n_samples
    seed, cut = 4 * p + 20, max(int(SEED_ROWS_SHARE * n_samples), 2 * p + 20)
    if seed > n_samples / 5 and cut <= n_samples // 4:
        seed = min(seed, cut)
    return (initial_size or capped(max(seed, 50), tall),
            batch or capped(max(4 * p + 40, 100), tall))  # fmt: skip


def pair_sizes(n_features, n_classes, n_samples, initial_size=None, batch=None):
    """``(seed size, batch)`` of a working set of pairs, defaults filled in."""
    p, tall = n_features, n_features < n_samples
    return (initial_size or capped(max(p // 2, 20), tall),
            batch or _joint_batch(p, n_classes, n_samples))  # fmt: skip


# The most pairs the exact finish takes, all at once: Clarabel stalled on a set grown
# by violators (362 of 874, K = 16), not on all 874; rounds on 7 600 spent 35 s.
EXACT_FINISH_PAIRS = 5_000

# The largest machine (K (p + 1) unknowns) finished so: an exact solve took 0.06 s at
# 100, 0.5 s at 200 (entries 1e6 apart; ~cube); a failed finish makes 27 a round.
EXACT_FINISH_UNKNOWNS = 200

# Beyond this many unknowns K (p + 1) a Clarabel QP costs 0.3-0.6 s (pairs' columns
# fill its factor): rounds add few pairs, the last support's active set settles the
# next. 2 000 x 100, K = 5: 8.3 s (440 a round) vs 1.7 s (50); digits 0.32 vs 0.20 s;
# tall 2e4 x 20, K = 5 (105 unknowns): 1.0 s with 120, 1.7 s with 50.
SMALL_MACHINE = 256
WIDE_MACHINE_BATCH = 50

# Where K (p + 1) reaches the rows, sets go by the pairs' Gram dual (a factor update
# a round). 2x pairs: 2 000 x 256 K=10 4.2->3.2 s, 1 000 x 300 K=10 1.8->1.4 s,
# 3 000 x 400 K=8 7.7->6.3 s; 4x: no gain (past K (p + 1) pairs a set leaves it).
GRAM_MACHINE_BATCH = 2 * WIDE_MACHINE_BATCH

def _joint_batch(p, n_classes, n_samples):
    """Pairs joining a round. Where every row may be a support vector (p + 1 >= n)
    the Gram dual takes every violator at once (3 000 x 20 000 text, K = 4: 41 s ->
    6.5 s; SVC 4.6 s); large machines on more rows take small batches."""
    if p + 1 >= n_samples:
        return max(4 * p + 40, 100)
    if n_classes * (p + 1) >= n_samples:
        return GRAM_MACHINE_BATCH
    if n_classes * (p + 1) > SMALL_MACHINE:
        return WIDE_MACHINE_BATCH
    return capped(max(4 * p + 40, 100), True)


# ------------------------------------------------------------ the routes' choice

# The dense dual: rows that may all be support vectors (q + 1 >= m: every held set
# nonsingular), Gram <= 128 MB. With fewer features a held set past p + 1 rows is
# singular; capped there it cycled (1000 x 500, 40 steps): nearest points serve.
DENSE_DUAL_MAX_ROWS = 4000

# The pairs' Gram dual: its held factor takes 8 k² bytes, the one k x k array it
# makes (1.15 GB at 12 000 pairs; 3 000 documents of 20 000 words, K = 4: 8 700),
# 4 k² from HeldSystem.SINGLE_FROM pairs on, where its float32 factor settles.
PAIR_DUAL_MAX_PAIRS = 12000

def dense_dual_suits(m, q):
    """Whether :func:`dense_dual_margin` is tried first on ``m`` rows of ``q``."""
    return m <= DENSE_DUAL_MAX_ROWS and q + 1 >= m

def pair_dual_suits(m, rows, features, n_classes):
    """Whether :func:`pair_active_set` is tried first on ``m`` pairs over ``rows`` rows:
    where every pair may hold at margin 1 (features + 1 >= rows) or the pairs number at
    most K (p + 1), within ``PAIR_DUAL_MAX_PAIRS``; taller sets cycle on singular held
    sets. bench_multiclass.py, primal vs this: 1 000 x 1 000, K = 4: 31.9 vs 1.1 s;
    2 000 x 256, K = 10: 23.7 vs 4.0 s; 600 x 5 000 text, K = 4: 90 vs 0.3 s. More
    pairs over at most that many rows: the rows' inverse may serve (4 n² bytes and S;
    the held system refuses a larger factor; 3 000 documents, K = 6: 14 970 pairs,
    1.8 s at 356 MB, SVC 4.6 s)."""
    wide, within = features + 1 >= rows, min(m, rows) <= PAIR_DUAL_MAX_PAIRS
    return within and (wide or n_classes * (features + 1) >= m)


def wide_pairs_suits(m, rows, features, n_classes):
    """Whether the certificate's LP is tried on ``m`` pairs over at most p + 1 rows
    (:meth:`~._machine.WarmMachine.no_machine_answer`)."""
    return rows <= features + 1


# The wide route's first working set, rows per class nearest the mid-hyperplane of
# the class means. TF-IDF text: SVC has 990 SVs of 3 013 documents, 1 935 of 8 543.
WIDE_SEED = 1000


def wide_suits(two_class):
    """Whether :class:`~.._hard.WideProblem` takes it: sparse X in memory,
    features >= active rows (every held set of the Gram dual can be nonsingular)."""
    X = getattr(two_class, "X", None)
    return (
        two_class.cheap_passes
        and sp.issparse(X)
        and two_class.n_features >= np.count_nonzero(two_class.active)
    )

def dense_fallback_fits(two_class):
    """Whether X fits the dense route (``DENSE_FALLBACK_ENTRIES``): where the wide
    route fails its checks (features 1e3 apart, classes within 1e-3 of touching:
    the Gram loses digits); else SolverError."""
    entries = two_class.n_samples * two_class.n_features
    return entries <= _working_set.DENSE_FALLBACK_ENTRIES


# Why a route would make sparse pairs dense, and what the user can do instead.
SUBPROBLEM_DENSE = (
    "The pairs' Gram dual did not answer this working set (sklearn_linsep._margin."
    "_solvers._cost.PAIR_DUAL_MAX_PAIRS = {limit} pairs; its factor takes up to 8 k² "
    "bytes: {factor:.2g} GiB here), and the primal route",
    "Raise PAIR_DUAL_MAX_PAIRS where that memory is free.",
)
SOFT_LIMIT_DENSE = (
    "The C -> inf limit of the Crammer-Singer soft margin (the classes are not "
    "jointly separable) over the least-hinge face",
    "on_inseparable='raise' (or linear_separability(X, y, multiclass='joint')) "
    "gives the verdict with its certificate without it, and multi_class='ovr' fits "
    "each class against the rest on sparse rows; or raise DENSE_FALLBACK_ENTRIES "
    "where that memory is free.",
)


def refuse_dense_pairs(frame, ids, reason=SUBPROBLEM_DENSE):
    """Nothing where the pairs ``ids`` of ``frame`` may be made dense (dense X, or
    within ``DENSE_FALLBACK_ENTRIES``), else a SolverError that says why
    (``reason``: what would densify them, and what to do instead), the limits
    and what raising them costs."""
    m, p = len(ids), frame.n_features
    limit = _working_set.DENSE_FALLBACK_ENTRIES
    if not frame.sparse or m * p <= limit:
        return
    why, remedy = reason
    why = why.format(limit=PAIR_DUAL_MAX_PAIRS, factor=8 * m * m / 2**30)
    raise SolverError(
        f"{why} would make the rows of {m} (row, other class) pairs of sparse X "
        f"dense: {8 * m * p / 2**30:.2g} GiB for {p} features, beyond sklearn_linsep."
        f"_working_set.DENSE_FALLBACK_ENTRIES = {limit} entries. {remedy}"
    )


def exact_finish_suits(pairs, unknowns=0):
    """Whether the K-class maximal margin is finished in rationals on every pair of a
    machine of K (p + 1) ``unknowns``, or (none given) sought from a machine decided in
    rationals: each exchange checks every pair float64 cannot bound (95 000 pairs,
    K = 20: 3 s each, 107 s to refuse); a guess of p + 1 pairs needs no limit on
    unknowns (K = 3, 303 unknowns of rank-4 rows: 0.25 s)."""
    return pairs <= EXACT_FINISH_PAIRS and unknowns <= EXACT_FINISH_UNKNOWNS


# --------------------------------------------------------------- the soft limit

# Prices choosing the soft limit's route, in seconds on one core of CI's machine (AMD
# EPYC, OpenBLAS Haswell kernels, one thread). Fitted by relative least squares with
# `python benchmarks/calibrate_soft.py` on 2026-11-28: passes at 1e5-1e6 x 20,
# 1e5 x 100, 5e4 x 768; IPM iterations at 200 x 5 to 2e4 x 768; HiGHS on 300-10 000
# rows, p = 10-768 (within 0.5-2x, but 2 000 x 768: 42 s against 15).
PASS_SECONDS = 1.4e-9  # one pass over the rows (every margin), per entry n·p
GRAM_SECONDS = 2.1e-11  # the interior point's weighted Gram, per entry n·(p + 1)²
# its other passes (centring where Z is not kept, products), per n·p and iteration
IPM_PASS_SECONDS = 1.6e-8
IPM_STEP_SECONDS = 6.4e-4  # its Python, per iteration
IPM_ITERATIONS = 30  # measured 20 (2e4 x 768) to 51 (1e6 x 20, 10 labels flipped)
# HiGHS's dual simplex on w rows of the least-hinge LP: per w·(p + 1)², per
# w²·(p + 1) (more rows, more steps), per w·(p + 1) and per call.
LP_SECONDS = 1.2e-8
LP_SQUARE_SECONDS = 9.6e-11
LP_ROW_SECONDS = 7.1e-7
LP_CALL_SECONDS = 4.3e-3

# The rounds' share of the interior point's price, in all and per round. Rounds that
# finish cost a fraction (1e5 x 50, 20 flipped: 13 rounds, 0.98 s vs 2.6 s; 1e6 x 20,
# 10 flipped: 14, 0.7 vs 8 s); on near-random labels they double working set and
# price without end (1e5 x 50 noise: 0.05, 0.09, 0.15, 0.22, 0.33 s, ...); a round of
# thousands of dense rows is a gamble (HiGHS, 2 000 x 768: 42 s, modelled 15).
ROUNDS_SHARE = 0.5
ROUND_SHARE = 0.125

def interior_point_seconds(n, p):
    """The modelled time of the interior point over n rows of p features."""
    step = GRAM_SECONDS * n * (p + 1) ** 2 + IPM_PASS_SECONDS * n * p + IPM_STEP_SECONDS
    return IPM_ITERATIONS * step

def round_seconds(n, p, working):
    """Modelled time of an LP round on ``working`` of n rows and the violators' pass."""
    lp = (
        LP_SECONDS * working * (p + 1) ** 2
        + LP_SQUARE_SECONDS * working**2 * (p + 1)
        + LP_ROW_SECONDS * working * (p + 1)
        + LP_CALL_SECONDS
    )
    return lp + PASS_SECONDS * n * p

# The guard on the model: rounds it would stop whose last answer leaves at most
# CONVERGING_VIOLATORS x the working set's rows violated are about to finish (their
# violators fall by 2-5x a round at the end; on noise they stay ~30x), and run on
# within ROUNDS_SHARE + GUARD_SHARE of the interior point's price, each within
# GUARD_ROUND_SHARE (a round priced far off, HiGHS on 2e4 x 768, stays refused).
# 1e5 x 50, 20 flipped, labels of a hyperplane with no margin: stopped after 15 of
# the 20 rounds it needed (3.3 s, rounds alone 1.6 s, the interior point 2.3 s);
# flips near the boundary: stopped before the last of 20 (2.2 s against 0.8 s).
CONVERGING_VIOLATORS = 8
GUARD_SHARE = 0.5
# With SOFT_DROP_ABOVE = 1.0 the working set doubles a round near the end: 1e5 x 50,
# no margin, 20 flips far from it, refused a round of 8 191 rows (modelled 0.89 s,
# 2 x ROUND_SHARE 0.65 s) and paid the interior point too (4.0 s; rounds alone 1.9 s).
GUARD_ROUND_SHARE = 4 * ROUND_SHARE

def rounds_budget(n, p, violated=None):
    """``affordable(working)`` for :func:`~sklearn_linsep._working_set.grow`: rounds
    spend ``ROUNDS_SHARE`` of the interior point's modelled time, each at most
    ``ROUND_SHARE`` (ski rental: unfinished rounds cost 1 + ``ROUNDS_SHARE`` of it).
    Where that stops them, ``violated()`` (the rows the last round's answer violates,
    one pass) says whether they converge: then they go on, each round within
    ``GUARD_ROUND_SHARE``, while their whole spend stays within ``ROUNDS_SHARE +
    GUARD_SHARE`` of it (rounds and the interior point after them: at most 2x it)."""
    affordable = _budget(n, p, ROUNDS_SHARE, ROUND_SHARE, violated)
    return lambda working: affordable(working.size)


def _budget(n, p, share, round_share, violated=None):
    """``affordable(rows)``: LP rounds of ``rows`` rows within ``share`` of the
    interior point's modelled price, each within ``round_share`` of it, then the
    guard's (:func:`rounds_budget`) where ``violated`` is given."""
    price = interior_point_seconds(n, p)
    left, guard_left, converging = share * price, GUARD_SHARE * price, False

    def affordable(rows):
        nonlocal left, guard_left, converging
        cost = round_seconds(n, p, rows)
        if cost <= min(left, round_share * price):
            left -= cost
            return True
        if violated is None or cost > min(left + guard_left, GUARD_ROUND_SHARE * price):
            return False
        if not converging:  # one pass, once: noise never comes near
            converging = violated() <= CONVERGING_VIOLATORS * rows
            if not converging:
                return False
        spent = min(cost, max(left, 0.0))
        left, guard_left = left - spent, guard_left - (cost - spent)
        return True

    return affordable


def band_budget(n, p):
    """``affordable(rows)``: whether the least-hinge LP on a band of ``rows`` about
    the interior point's guess is worth a try, all bands together within the interior
    point's own modelled price. A guess it ran 80 iterations without settling (1e5 x
    50, labels of a hyperplane through the data, 20 flipped nearest it) widened to
    every row: 18.8 s, where the rounds decide in 0.7 s; a band of 80 rows proved
    another guess (0.01 s)."""
    return _budget(n, p, 1.0, np.inf)
