"""Benchmark ``linear_separability`` against single feasibility LPs on the full data.

Run from the repository root::

    python benchmarks/bench_separability.py              # full run, n = 1e4 ... 1e6
    python benchmarks/bench_separability.py --quick      # smoke run, n = 1e4
    python benchmarks/bench_separability.py --repeats 7  # more repetitions per timing
    python benchmarks/bench_separability.py --sizes 10000 --dims 2 20  # any grid
    python benchmarks/bench_separability.py --threads 1  # BLAS pinned to one thread

It needs the ``bench`` extra (``pip install threadpoolctl psutil cvxopt``) and imports
the data generator, the timing loop and the machine report from ``bench_svm.py`` next
to it (so both benchmarks time the same data the same way).

Data, generated once per (n, p) and shared by every candidate:

* ``separable``: the gap data of ``bench_svm.py`` (X ~ N(0, I_p), rows with
  ``|X·u − 0.25| < 0.1`` dropped until exactly n remain, ``y = (X·u > 0.25)``),
* ``flipped``: the same X and y with 10 labels flipped, the rows drawn uniformly
  with ``numpy.random.default_rng(1).choice(n, 10, replace=False)``. With n ≥ 1e4
  the flipped points lie inside the other class, so the data are inseparable
  (every verdict below confirms it and our certificate verifies).

p = 2 and 20 at every n; p = 100 at n ≤ 1e5 only.

Candidates, each timed from the numpy arrays to the verdict (building the constraint
matrix ``−c[X, 1]`` and any conversion included):

* ``ours``: ``linear_separability(X, y)`` (working-set LP on HiGHS; returns a
  certificate either way),
* ``highs``, ``highs-ds``, ``highs-ipm``: ``scipy.optimize.linprog`` with that method on
  the feasibility LP ``min 0 s.t. −c_i(w·x_i + b) ≤ −1``, (w, b) free; status 0 means
  separable, 2 inseparable, anything else no verdict,
* ``cvxopt``: ``cvxopt.solvers.lp`` on the same LP (status "optimal" means separable,
  "primal infeasible" inseparable).

Timing as in ``bench_svm.py``: one untimed warm-up call each, then round-robin repeats
(5 at n ≤ 1e4, 3 above, unless ``--repeats``) and the median; a candidate whose
warm-up took more than ``--once-above`` seconds (default 10) keeps that first call as
its only timing (marked ``*``). Going up in n at fixed (p, data), an LP is skipped when
its previous time extrapolated to n exceeds ``--cap`` seconds (default 60), except at
the target row n = 1e6, p = 20, where the cap is ``--target-cap`` (default 150) so that
the comparison the target asks for is made. Our function is never skipped. HiGHS is
also given a time limit of ``--lp-time-limit`` seconds per call (default 120): a call
that reaches it returns status 1, no verdict (on the inseparable data at n = 1e5,
p = 100, plain "highs" ran for more than 10 minutes without one).

Checks: every verdict of ours is compared with the verdict of the LPs (which must agree
among themselves), and ``result.verify(X, y)`` (the separating hyperplane or the
hull-intersection certificate re-checked on all the data) must be True; both are
untimed.
"""

import argparse
import gc
import time
import warnings

import cvxopt
import numpy as np
from _harness import blas_description, print_machine, time_round_robin
from bench_svm import (
    MORE_ENVIRONMENT,
    CapTracker,
    make_separable,
    package_versions,
    signs,
)
from scipy.optimize import linprog
from threadpoolctl import threadpool_limits

from sklearn_linsep import linear_separability

LP_METHODS = ("highs", "highs-ds", "highs-ipm")
LPS = LP_METHODS + ("cvxopt",)
NAMES = ("ours",) + LPS
SHORT = {
    "ours": "ours",
    "highs": "hs",
    "highs-ds": "hs-ds",
    "highs-ipm": "hs-ipm",
    "cvxopt": "cvxopt",
}
N_FLIPS = 10
TARGET = (1_000_000, 20)

cvxopt.solvers.options["show_progress"] = False


# ------------------------------------------------------------------------------ data


def flip_labels(y, flips=N_FLIPS, seed=1):
    """A copy of 0/1 labels y with ``flips`` labels, drawn uniformly, flipped."""
    rng = np.random.default_rng(seed)
    flipped = y.copy()
    rows = rng.choice(y.size, flips, replace=False)
    flipped[rows] = 1 - flipped[rows]
    return flipped


def constraints(X, y):
    """``A = −c[X, 1]`` and ``h = −1``: the LP ``A (w, b) ≤ h``."""
    n, p = X.shape
    c = signs(y)
    A = np.empty((n, p + 1))
    np.multiply(X, -c[:, None], out=A[:, :p])
    A[:, p] = -c
    return A, -np.ones(n)


# ------------------------------------------------------------------------ candidates


def decide_ours(X, y):
    result = linear_separability(X, y)
    return {"verdict": "S" if result.separable else "I", "result": result}


def decide_linprog(X, y, method, time_limit):
    A, h = constraints(X, y)
    solution = linprog(
        np.zeros(A.shape[1]),
        A_ub=A,
        b_ub=h,
        bounds=(None, None),
        method=method,
        options={"time_limit": time_limit},
    )
    verdict = {0: "S", 2: "I"}.get(solution.status, f"?{solution.status}")
    return {"verdict": verdict}


def decide_cvxopt(X, y):
    A, h = constraints(X, y)
    solution = cvxopt.solvers.lp(
        cvxopt.matrix(np.zeros(A.shape[1])), cvxopt.matrix(A), cvxopt.matrix(h)
    )
    status = solution["status"]
    verdict = {"optimal": "S", "primal infeasible": "I"}.get(status, f"?{status}")
    return {"verdict": verdict}


def candidates(time_limit):
    """``name -> f(X, y)``; HiGHS stops after ``time_limit`` seconds (status 1)."""
    funcs = {"ours": decide_ours}
    for method in LP_METHODS:
        funcs[method] = lambda X, y, m=method: decide_linprog(X, y, m, time_limit)
    funcs["cvxopt"] = decide_cvxopt
    return funcs


# ---------------------------------------------------------------------------- tables


def default_repeats(n, args):
    if args.repeats is not None:
        return args.repeats
    return 5 if n <= 10_000 else 3


def run_case(X, y, kind, args, caps):
    n, p = X.shape
    key = f"p={p} {kind}"
    cap = args.target_cap if (n, p) == TARGET else args.cap
    funcs = {
        name: func
        for name, func in candidates(args.lp_time_limit).items()
        if name == "ours" or caps.allowed(name, key, n, cap=cap)
    }
    repeats = default_repeats(n, args)
    started = time.perf_counter()
    row = time_round_robin(funcs, (X, y), repeats, args.once_above)
    for name, entry in row.items():
        if name != "ours":
            caps.record(name, key, n, entry["median"])
    ours = row["ours"]["result"]
    verified = bool(ours["result"].verify(X, y))
    lp_verdicts = {
        row[name]["result"]["verdict"]
        for name in LPS
        if name in row and row[name]["result"]["verdict"] in ("S", "I")
    }
    if not lp_verdicts:
        agree = "no LP"
    elif len(lp_verdicts) > 1:
        agree = "LPs differ"
    else:
        agree = "yes" if lp_verdicts == {ours["verdict"]} else "NO"
    certificate = ours["result"].certificate_indices
    print(
        f"   done n={n:.0e} p={p} {kind}: {time.perf_counter() - started:.1f} s "
        + " ".join(f"{k}={v['median']:.3g}s" for k, v in row.items()),
        flush=True,
    )
    return {
        "n": n,
        "p": p,
        "kind": kind,
        "repeats": repeats,
        "row": row,
        "verified": verified,
        "agree": agree,
        "cert": "-" if certificate is None else str(len(certificate)),
    }


def print_header():
    """The BLAS libraries and the column heads of the table."""
    for line in blas_description():
        print(f"   {line}")
    head = (
        f"{'n':>7} {'p':>4} {'data':>9} {'rep':>3} | "
        + " ".join(f"{name:>10}" for name in NAMES)
        + f" | {'fastest LP':>10} {'LP/ours':>8} | "
        + " ".join(f"{SHORT[name]:>6}" for name in NAMES)
        + f" | {'agree':>5} {'verify':>6} {'cert':>4} | {'spread':>6}"
    )
    print(head)
    print("-" * len(head), flush=True)


def print_row(case):
    """One row of the table: times, the speed-up, verdicts and checks."""
    row = case["row"]
    cells = []
    for name in NAMES:
        if name not in row:
            cells.append(f"{'skipped':>10}")
        else:
            flag = "*" if row[name]["once"] else " "
            cells.append(f"{row[name]['median']:>8.3f}s{flag}")
    decided = [
        name
        for name in LPS
        if name in row and row[name]["result"]["verdict"] in ("S", "I")
    ]
    if decided:
        fastest = min(decided, key=lambda name: row[name]["median"])
        ratio = f"{row[fastest]['median'] / row['ours']['median']:>7.1f}x"
    else:
        fastest, ratio = "-", f"{'-':>8}"
    verdicts = " ".join(
        f"{row[name]['result']['verdict'] if name in row else '-':>6}" for name in NAMES
    )
    spread = max(
        (max(e["times"]) / min(e["times"]) for e in row.values() if not e["once"]),
        default=1.0,
    )
    print(
        f"{case['n']:>7.0e} {case['p']:>4} {case['kind']:>9} "
        f"{case['repeats']:>3} | "
        + " ".join(cells)
        + f" | {fastest:>10} {ratio:>8} | {verdicts}"
        + f" | {case['agree']:>5} {case['verified']!s:>6} {case['cert']:>4}"
        + f" | {spread:>5.2f}x",
        flush=True,
    )


def print_legend(args):
    print()
    print("LP/ours  = fastest LP that reached a verdict / ours (speed-up; target >= 5x")
    print("           at n=1e6, p=20, both verdicts)")
    print(
        "verdicts = S separable, I inseparable, ?k no verdict (linprog status k, e.g."
    )
    print(f"           ?1 = HiGHS stopped at its {args.lp_time_limit:g} s time limit,")
    print("           ?4 = numerical difficulties; or cvxopt's status)")
    print("agree    = ours' verdict equals the LPs' (which agree among themselves)")
    print("verify   = result.verify(X, y) of ours; cert = samples in the certificate")
    print("spread   = largest max/min ratio of the repeated timings in the row (noise)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="n = 1e4 and p = 2, 20 (smoke run)"
    )
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=None, help="values of n (override)"
    )
    parser.add_argument(
        "--dims", type=int, nargs="+", default=None, help="values of p (override)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="timings per candidate (default 5 at n <= 1e4, 3 above)",
    )
    parser.add_argument(
        "--once-above",
        type=float,
        default=10.0,
        help="a call slower than this (s) is timed once only (default 10)",
    )
    parser.add_argument(
        "--cap",
        type=float,
        default=60.0,
        help="skip an LP whose extrapolated time exceeds this (s, default 60)",
    )
    parser.add_argument(
        "--target-cap",
        type=float,
        default=150.0,
        help="the cap at the target row n=1e6, p=20 (s, default 150)",
    )
    parser.add_argument(
        "--lp-time-limit",
        type=float,
        default=120.0,
        help="HiGHS time limit per LP (s, default 120; then no verdict, status 1)",
    )
    parser.add_argument(
        "--threads",
        choices=("default", "1"),
        default="default",
        help="BLAS threads: as given (default) or pinned to 1",
    )
    args = parser.parse_args()
    sizes = args.sizes or ([10_000] if args.quick else [10_000, 100_000, 1_000_000])
    dims = args.dims or ([2, 20] if args.quick else [2, 20, 100])
    warnings.simplefilter("ignore", category=UserWarning)

    started = time.perf_counter()
    print_machine(versions=package_versions(), environment=MORE_ENVIRONMENT)
    limit = None if args.threads == "default" else 1
    caps = CapTracker(args.cap)
    cases = []
    with threadpool_limits(limits=limit):
        # Each row is printed as soon as it is measured (progress lines start with
        # three spaces), and the whole table again at the end.
        print("## Median time to decide (seconds; * = single call, see --once-above)")
        print_header()
        for p in dims:
            for n in sizes:
                if p >= 100 and n > 100_000:
                    continue
                X, y, _ = make_separable(n, p)
                for kind, labels in (("separable", y), ("flipped", flip_labels(y))):
                    cases.append(run_case(X, labels, kind, args, caps))
                    print_row(cases[-1])
                del X, y
                gc.collect()
        print()
        print("## Median time to decide (seconds; * = single call, see --once-above)")
        print_header()
        for case in cases:
            print_row(case)
        print_legend(args)
    print(f"\ntotal wall time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
