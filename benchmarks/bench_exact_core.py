"""The exact core at every shape a user has, against its peers in the same run.

Run from the repository root (the ``bench`` extra: threadpoolctl, psutil, cvxopt)::

    python benchmarks/bench_exact_core.py            # the whole grid, ~10 minutes
    python benchmarks/bench_exact_core.py --quick    # the small shapes only
    python benchmarks/bench_exact_core.py --only svm # svm | separability | soft | memory

Everything runs with BLAS pinned to one thread (``threadpool_limits(1)``). Each
candidate gets one untimed warm-up call, then the candidates take turns and the
median of ``--repeats`` timings is printed with the ratio peer / ours (above 1: we
are faster). A peer whose warm-up took more than ``--once-above`` seconds is timed
once (marked ``*``); one whose extrapolated time exceeds ``--cap`` is skipped (``-``).

Tables (the targets of the exact-core issue in brackets):

* ``svm``: ``HardMarginSVM().fit`` against ``SVC(kernel="linear", C=1e10)`` and
  cvxopt's primal QP, on separable Gaussian data (``bench_svm.make_separable``) at
  (1e5, 20), (1e6, 20) [≥ 40× SVC, ≥ 10× cvxopt], (1e4, 100), (1e5, 100) [≥ 10× SVC,
  ≥ 5× cvxopt], (200, 2000), (1000, 500) [≥ 2× SVC; within 3× of one ``X @ X.T``].
  The column ``gap`` is |our margin / the peer's attained margin − 1| for the best
  peer that finished (cvxopt's attained margin, else SVC's).
* ``separability``: ``linear_separability`` against the fastest single LP of the
  same grid (HiGHS ``linprog`` on ``c_i(w·x_i + b) ≥ 1``, 120 s limit, skipped from
  n·p = 1e7 on; and cvxopt's LP where p < n), separable and with 20 labels flipped
  [≥ 3× the fastest LP]. The last column lists the verdicts in column order.
* ``soft``: ``HardMarginSVM`` on inseparable 1e5 × 50 (20 flipped labels; pure
  noise) against ``LinearSVC(dual=False)`` [within 10×].
* ``memory``: peak extra memory of one fit at (1e6, 20) beyond X [≤ 100 MB]
  (tracemalloc peak; sampled RSS growth as a check).
"""

import argparse
import gc
import os
import sys
import time
import tracemalloc
import warnings

import cvxopt
import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import (  # noqa: E402
    RSSSampler,
    blas_description,
    machine_line,
    time_round_robin,
)
from bench_separability import decide_cvxopt, decide_linprog, flip_labels  # noqa: E402
from bench_svm import attained_margin, fit_cvxopt, make_separable, signs  # noqa: E402
from sklearn.svm import SVC, LinearSVC  # noqa: E402

from sklearn_linsep import HardMarginSVM, linear_separability  # noqa: E402

cvxopt.solvers.options["show_progress"] = False

SVM_GRID = [(100_000, 20), (1_000_000, 20), (10_000, 100), (100_000, 100), (200, 2000),
            (1000, 500), (2000, 2000)]  # fmt: skip
QUICK_GRID = [(10_000, 20), (10_000, 100), (200, 2000), (1000, 500), (2000, 2000)]
# The hard-margin dual on the n x n Gram matrix through qpsolvers, where n is small
# enough for it: the "dense dual QP" peers of the exact-core issue.
DUAL_SOLVERS = ("piqp", "daqp", "proxqp")


def fit_ours(X, y):
    model = HardMarginSVM().fit(X, y)
    return model.coef_.ravel(), float(model.intercept_[0]), float(model.margin_)


def fit_svc(X, y):
    model = SVC(kernel="linear", C=1e10).fit(X, y)
    return model.coef_.ravel(), float(model.intercept_[0])


def fit_cvxopt_qp(X, y):
    result = fit_cvxopt(X, y)
    return result["coef"], result["intercept"]


def gram(X, y):
    return X @ X.T


def fit_dual_qp(solver):
    """The hard-margin dual ``min ½ αᵀQα - Σα``, ``Σ α c = 0``, ``α ≥ 0`` with
    ``Q = (c cᵀ) ∘ X Xᵀ`` by one qpsolvers backend; ``(w, b)`` from α (b from
    the support's median)."""

    def fit(X, y):
        import qpsolvers

        c = signs(y)
        centred = X - X.mean(axis=0)
        Q = (c[:, None] * c[None, :]) * (centred @ centred.T)
        n = len(c)
        alpha = qpsolvers.solve_qp(
            Q, -np.ones(n), A=c[None, :], b=np.zeros(1), lb=np.zeros(n),
            solver=solver,
        )  # fmt: skip
        if alpha is None:
            return None
        coef = (alpha * c) @ X
        support = alpha > 1e-6 * alpha.max()
        return coef, float(np.median(c[support] - X[support] @ coef))

    return fit


def timings(funcs, X, y, args, skip=()):
    """The harness's round robin (warm-up first, then turns) over the candidates
    not in ``skip``: ``name -> {"times", "median", "result", "once"}``."""
    funcs = {name: func for name, func in funcs.items() if name not in skip}
    return time_round_robin(funcs, (X, y), args.repeats, args.once_above)


def cell(timed, name, ours):
    if name not in timed:
        return f"{'-':>9} {'':>7}"
    seconds, mark = timed[name]["median"], "*" if timed[name]["once"] else " "
    return f"{seconds:8.4f}{mark} {seconds / ours:6.1f}x"


def print_header(args):
    print(f"# {machine_line()}")
    for line in blas_description():
        print(f"#   {line}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; BLAS pinned to 1 "
          f"thread; median of {args.repeats} turns after a warm-up")  # fmt: skip


def svm_table(grid, args):
    print("\n## HardMarginSVM: seconds (peer / ours)")
    print(f"{'n':>8} {'p':>5} {'ours':>9} {'SVC':>17} {'cvxopt QP':>17} "
          f"{'X @ X.T':>17} {'gap':>8}  dense dual QPs: seconds (peer / ours) "
          "and |margin / ours - 1|")  # fmt: skip
    for n, p in grid:
        X, y, _ = make_separable(n, p)
        skip = set()
        if n > 200_000 or n * p > 5e6:
            skip.add("svc")  # SVC's O(n²) kernel evaluations: minutes to hours
        if n * (p + 1) > 5e7:
            skip.add("cvxopt")  # dense n × (p + 1) KKT products: beyond the cap
        funcs = {"ours": fit_ours, "svc": fit_svc, "cvxopt": fit_cvxopt_qp}
        if n <= 2000:
            funcs["gram"] = gram
            funcs.update({name: fit_dual_qp(name) for name in DUAL_SOLVERS})
        timed = timings(funcs, X, y, args, skip)
        ours = timed["ours"]["median"]
        margin = timed["ours"]["result"][2]
        c = signs(y)
        gap = "-"
        for peer in ("cvxopt", "svc"):
            if peer in timed:
                coef, intercept = timed[peer]["result"]
                gap = f"{abs(margin / attained_margin(X, c, coef, intercept) - 1):.1e}"
                break
        duals = []
        for name in DUAL_SOLVERS:
            if name in timed:
                answer = timed[name]["result"]
                error = (
                    "failed" if answer is None
                    else f"{abs(attained_margin(X, c, *answer) / margin - 1):.0e}"
                )  # fmt: skip
                duals.append(f"{name} {cell(timed, name, ours).strip()} {error}")
        print(f"{n:>8} {p:>5} {ours:9.4f} {cell(timed, 'svc', ours)} "
              f"{cell(timed, 'cvxopt', ours)} {cell(timed, 'gram', ours)} {gap:>8}  "
              + "; ".join(duals), flush=True)  # fmt: skip


def separability_table(grid, args):
    print("\n## linear_separability: seconds (peer / ours); verdicts S/I")
    print(f"{'n':>8} {'p':>5} {'data':>9} {'ours':>9} {'HiGHS':>17} {'HiGHS-ds':>17} "
          f"{'cvxopt LP':>17}")  # fmt: skip
    for n, p in grid:
        X, y, _ = make_separable(n, p)
        for kind, labels in (("separable", y), ("flipped", flip_labels(y, 20))):
            funcs = {
                "ours": lambda X, y: linear_separability(X, y).separable,
                "highs": lambda X, y: decide_linprog(X, y, "highs", 120)["verdict"],
                "highs-ds": lambda X, y: decide_linprog(X, y, "highs-ds", 120)[
                    "verdict"
                ],
                "cvxopt": lambda X, y: decide_cvxopt(X, y)["verdict"],
            }
            skip = {"cvxopt"} if p >= n or n * (p + 1) > 5e7 else set()
            if n * p >= 1e7:  # HiGHS took 60 s on 1e4 x 100 with flipped labels
                skip |= {"highs", "highs-ds"}
            timed = timings(funcs, X, labels, args, skip)
            ours = timed["ours"]["median"]
            verdicts = "".join(
                ("S" if v["result"] is True else "I" if v["result"] is False
                 else str(v["result"])[:1]) for v in timed.values()
            )  # fmt: skip
            print(f"{n:>8} {p:>5} {kind:>9} {ours:9.4f} {cell(timed, 'highs', ours)} "
                  f"{cell(timed, 'highs-ds', ours)} {cell(timed, 'cvxopt', ours)} "
                  f"{verdicts}", flush=True)  # fmt: skip


def soft_table(args):
    print("\n## The C → ∞ soft limit: seconds (ours / LinearSVC(dual=False))")
    n, p = 100_000, 50
    X, y, _ = make_separable(n, p)
    noise = np.random.default_rng(3).integers(0, 2, n)
    for kind, labels in (("20 flipped", flip_labels(y, 20)), ("pure noise", noise)):

        def ours(X, y):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return HardMarginSVM().fit(X, y).hinge_violation_

        def lsvc(X, y):
            return LinearSVC(dual=False).fit(X, y)

        timed = timings({"ours": ours, "lsvc": lsvc}, X, labels, args)
        mine, theirs = timed["ours"]["median"], timed["lsvc"]["median"]
        mark = "*" if timed["ours"]["once"] else " "
        print(f"{n:>8} {p:>5} {kind:>11}: ours {mine:8.3f}{mark} "
              f"LinearSVC {theirs:7.3f}  ours / LinearSVC = {mine / theirs:5.1f}",
              flush=True)  # fmt: skip


def memory_table(args):
    print("\n## Peak extra memory of one HardMarginSVM fit beyond X (MB)")
    n, p = 1_000_000, 20
    X, y, _ = make_separable(n, p)
    fit_ours(X, y)  # compile and warm up
    gc.collect()
    tracemalloc.start()
    with RSSSampler() as sampler:
        fit_ours(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"{n:>8} {p:>5}: tracemalloc peak {peak / 2**20:7.1f}, sampled RSS growth "
        f"{sampler.extra / 2**20:7.1f} (X itself: {X.nbytes / 2**20:.0f})"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["svm", "separability", "soft", "memory"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--once-above", type=float, default=5.0)
    args = parser.parse_args()
    grid = QUICK_GRID if args.quick else SVM_GRID
    with threadpool_limits(1):
        print_header(args)
        if args.only in (None, "svm"):
            svm_table(grid, args)
        if args.only in (None, "separability"):
            separability_table(grid, args)
        if args.only in (None, "soft") and not args.quick:
            soft_table(args)
        if args.only in (None, "memory") and not args.quick:
            memory_table(args)


if __name__ == "__main__":
    main()
