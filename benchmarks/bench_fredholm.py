"""Benchmark the proof that the class means' difference d lies in the range of S
(``_fredholm.decide_mean_range``: a finite or an infinite Mahalanobis distance,
proved on the rows as given) against the peers in the same run.

Run from the repository root::

    python benchmarks/bench_fredholm.py               # every shape, 1 BLAS thread
    python benchmarks/bench_fredholm.py --threads 2   # the default threads here
    python benchmarks/bench_fredholm.py --repeats 5

Peers, on the same two classes:

* ``FLINT ranks``: the exact referee, FLINT's rank of the exactly centred rows C
  and of ``[C; d]`` (``sklearn_linsep._testing.exact_mean_in_range``), as anyone
  deciding the question exactly would; a proof, without a certificate;
* ``numpy rank``: ``numpy.linalg.matrix_rank`` of C and of ``[C; d]`` in float64
  (what the claim rested on before: a tolerance, no proof), for the price.

Shapes: digits' 45 class pairs (pixels constant within classes, a few exact
dependencies), a tall full-rank pair (1e5 x 100), integer rows of rank 150 at
5 000 x 200 (the exact step, finite and infinite), 53-bit rows with a duplicated
column (5 000 x 200), and wide rows (50 x 5 000). "peak" is the tracemalloc
peak beyond X. The exact step's limits are ``EXACT_SPAN_ENTRIES`` and
``EXACT_SPAN_RANK`` (the script prints them).
"""

import argparse
import statistics

import numpy as np
from _harness import print_machine, timed, traced_peak
from sklearn.datasets import load_digits
from threadpoolctl import threadpool_limits

from sklearn_linsep import _fredholm
from sklearn_linsep._fredholm import decide_mean_range
from sklearn_linsep._testing import exact_mean_in_range


def numpy_ranks(X, y):
    """The float decision: rank of [C; d] against rank of C (a tolerance)."""
    C = np.vstack([X[y == k] - X[y == k].mean(axis=0) for k in (0, 1)])
    d = X[y == 1].mean(axis=0) - X[y == 0].mean(axis=0)
    return np.linalg.matrix_rank(np.vstack([C, d])) == np.linalg.matrix_rank(C)


def integer_rank_case(rng, n, p, rank, inside):
    """Integer rows of rank ``rank`` (exact in float64), the classes apart
    within their span (finite) or not (infinite)."""
    basis = rng.integers(-(2**20), 2**20, size=(rank, p))
    X = rng.integers(-(2**20), 2**20, size=(n, rank)) @ basis
    y = np.arange(n) % 2
    shift = rng.integers(-(2**20), 2**20, size=rank) @ basis if inside else (
        rng.integers(-(2**20), 2**20, size=p))  # fmt: skip
    return (X + np.outer(y, shift)).astype(float), y


def cases():
    rng = np.random.default_rng(0)
    X, y = load_digits(return_X_y=True)
    digits = [(X[np.isin(y, [a, b])], (y[np.isin(y, [a, b])] == b).astype(int))
              for a in range(10) for b in range(a + 1, 10)]  # fmt: skip
    yield "digits, 45 pairs (~360 x 64 each)", digits
    tall = rng.normal(size=(100_000, 100))
    yield "tall 1e5 x 100, full rank", [(tall, np.arange(100_000) % 2)]
    yield "integers 5000 x 200 rank 150, finite", [
        integer_rank_case(rng, 5000, 200, 150, True)
    ]
    yield "integers 5000 x 200 rank 150, infinite", [
        integer_rank_case(rng, 5000, 200, 150, False)
    ]
    dup = rng.normal(size=(5000, 200)) * 10.0 ** rng.integers(-3, 4, size=200)
    dup[:, -1] = dup[:, 0]
    yield "53-bit 5000 x 200, a duplicated column", [(dup, np.arange(5000) % 2)]
    yield "wide 50 x 5000", [(rng.normal(size=(50, 5000)), np.arange(50) % 2)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print_machine(versions=[f"python-flint {__import__('flint').__version__}"])
    print(f"limits: EXACT_SPAN_ENTRIES = {_fredholm.EXACT_SPAN_ENTRIES:,}, "
          f"EXACT_SPAN_RANK = {_fredholm.EXACT_SPAN_RANK}")  # fmt: skip
    print(f"BLAS threads: {args.threads}; medians of {args.repeats}\n")
    head = (f"{'case':<42} {'ours':>9} {'proofs':<24} {'peak/X':>6} "
            f"{'FLINT ranks':>11} {'ratio':>6} {'numpy rank':>10} {'ratio':>6}")  # fmt: skip
    print(head)
    print("-" * len(head))
    peers = {"FLINT ranks": lambda X, y: exact_mean_in_range(X, y, 0, 1),
             "numpy rank": numpy_ranks}  # fmt: skip
    with threadpool_limits(args.threads):
        for name, pairs in cases():
            def ours(pairs=pairs):
                return [decide_mean_range(X, y) for X, y in pairs]
            times = {"ours": [], **{peer: [] for peer in peers}}
            for _ in range(args.repeats):
                seconds, decisions = timed(ours)
                times["ours"].append(seconds)
                for peer, function in peers.items():
                    seconds, answers = timed(
                        lambda f=function: [f(X, y) for X, y in pairs]
                    )
                    times[peer].append(seconds)
                    if peer == "FLINT ranks":  # the referee: the same answers
                        assert [d.finite for d in decisions] == answers, name
            medians = {key: statistics.median(value) for key, value in times.items()}
            peak = max(traced_peak(decide_mean_range, X, y) / X.nbytes
                       for X, y in pairs[:3])  # fmt: skip
            proofs = ", ".join(sorted({d.proof for d in decisions}))
            flint, float_rank = medians["FLINT ranks"], medians["numpy rank"]
            print(f"{name:<42} {medians['ours']:>8.3f}s {proofs[:24]:<24} "
                  f"{peak:>6.2f} {flint:>10.3f}s {flint / medians['ours']:>5.1f}x "
                  f"{float_rank:>9.3f}s {float_rank / medians['ours']:>5.1f}x")  # fmt: skip
    print("\nratio = peer / ours (above 1: ours is faster); every answer of ours "
          "equals the FLINT referee's")


if __name__ == "__main__":
    main()
