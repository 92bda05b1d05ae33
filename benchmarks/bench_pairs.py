"""K classes, ``linear_separability(multiclass="pairs")`` against its slowest pair.

The K > 2 call answers one two-class problem per pair of classes. Its target is
at most 3x the time of the slowest of those pairs asked alone
(``linear_separability(X[mask], y[mask])`` on the rows of its two classes). Run
from the repository root (the ``bench`` extra: threadpoolctl)::

    python benchmarks/bench_pairs.py                    # about 4 minutes, quiet
    python benchmarks/bench_pairs.py --quick            # 10 000 x 256, 30 s
    python benchmarks/bench_pairs.py --only digits   # or embeddings, (in)separable
    python benchmarks/bench_pairs.py --n 100000 --p 1024 --dtype float32   # RESULTS

Workloads: **embeddings** (``bench_probes.embeddings``: a low-rank signal plus
noise, K = 5 classes shifted along K directions), separable (``--shift-separable``,
12 noise units) and inseparable (``--shift-inseparable``, 2); **digits**
standardised (10 classes, 45 pairs, all separable).

Every call runs in this process with BLAS pinned to one thread, after a warm-up
(imports are not timed). Each repeat times the whole call,
then every pair alone (the pairs taking turns with the whole, so that a burst of
load from elsewhere hits both); ``--cpu`` times the process's CPU time instead of
the wall clock, steadier where other work shares the cores. Printed are the
medians over ``--repeats``: the whole call, the sum of the pairs alone, the
slowest pair alone (the largest of the pairs' medians) and the ratio whole /
slowest. The last column checks the answers: the same verdicts as each pair
alone, margins equal to 1e-12 relative, and every result verified.
"""

import argparse
import gc
import os
import statistics
import sys
import time
from itertools import combinations

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import machine_line  # noqa: E402
from bench_probes import embeddings  # noqa: E402


def digits():
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def agreement(X, y, whole, alone):
    """'ok' where the pairs of the whole call are those of each pair alone."""
    worst = 0.0
    for (a, b), result in whole.items():
        single = alone[a, b]
        if result.separable != single.separable:
            return f"VERDICT DIFFERS at {(a, b)}"
        if result.separable:
            worst = max(worst, abs(result.margin - single.margin) / single.margin)
    if worst > 1e-12:
        return f"MARGINS DIFFER by {worst:.1e}"
    if not all(result.verify(X, y) for result in whole.values()):
        return "NOT VERIFIED"
    return f"ok ({worst:.0e})"


CLOCK = time.perf_counter  # --cpu: time.process_time


def timed(function, *args):
    """``(seconds, result)`` of one call by ``CLOCK``, after a collection."""
    gc.collect()
    start = CLOCK()
    result = function(*args)
    return CLOCK() - start, result


def measure(name, X, y, repeats):
    from sklearn_linsep import linear_separability

    classes = np.unique(y)
    masks = {
        (a, b): np.isin(y, (a, b)) for a, b in combinations(classes.tolist(), 2)
    }
    subsets = {pair: (X[mask], y[mask]) for pair, mask in masks.items()}
    warm = np.concatenate([np.flatnonzero(y == k)[:300] for k in classes])
    linear_separability(X[warm], y[warm])  # imports, kernels
    wholes, pairs = [], {pair: [] for pair in masks}
    for _ in range(repeats):
        seconds, whole = timed(linear_separability, X, y)
        wholes.append(seconds)
        alone = {}
        for pair, (Xp, yp) in subsets.items():
            seconds, alone[pair] = timed(linear_separability, Xp, yp)
            pairs[pair].append(seconds)
    medians = {pair: statistics.median(times) for pair, times in pairs.items()}
    whole_s = statistics.median(wholes)
    slowest = max(medians, key=medians.get)
    separable = sum(result.separable for result in whole.values())
    print(
        f"{name:<44} {whole_s:8.3f} {sum(medians.values()):8.3f} "
        f"{medians[slowest]:8.3f} {whole_s / medians[slowest]:6.2f}  "
        f"{separable:>2} of {len(whole):<2} S  {agreement(X, y, whole, alone)}"
    )
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=50000)
    parser.add_argument("--p", type=int, default=768)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--classes", type=int, default=5)
    parser.add_argument("--shift-separable", type=float, default=12.0)
    parser.add_argument("--shift-inseparable", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--only", choices=("embeddings", "separable", "inseparable", "digits")
    )
    parser.add_argument("--quick", action="store_true", help="10 000 x 256")
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="CPU time of this process, not wall-clock (a busy shared machine)",
    )
    args = parser.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    if args.quick:
        args.n, args.p = 10000, 256
    from threadpoolctl import threadpool_limits

    print(machine_line())
    when = time.strftime("%Y-%m-%d %H:%M")
    clock = "CPU time" if args.cpu else "wall-clock"
    print(f"BLAS at 1 thread; {clock}, medians of {args.repeats}; {when}")
    print()
    print(
        f"{'workload':<44} {'whole s':>8} {'sum s':>8} {'slowest':>8} {'ratio':>6}  "
        "pairs     answers vs alone"
    )
    with threadpool_limits(1):
        for kind, shift in (
            ("separable", args.shift_separable),
            ("inseparable", args.shift_inseparable),
        ):
            if args.only in (None, "embeddings", kind):
                X, y = embeddings(args.n, args.p, args.dtype, shift, args.classes)
                name = (
                    f"embeddings {args.n}x{args.p} {args.dtype} K={args.classes} "
                    f"{kind}"
                )
                measure(name, X, y, args.repeats)
        if args.only in (None, "digits"):
            X, y = digits()
            measure("digits standardised 1797x64 K=10", X, y, args.repeats)


if __name__ == "__main__":
    main()
