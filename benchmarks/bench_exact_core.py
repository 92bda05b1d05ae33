"""The exact core at every shape a user has, against its peers in the same run.

Run from the repository root (the ``bench`` extra: threadpoolctl, psutil, cvxopt)::

    python benchmarks/bench_exact_core.py            # the whole grid, ~10 minutes
    python benchmarks/bench_exact_core.py --quick    # the small shapes only
    python benchmarks/bench_exact_core.py --only soft  # svm separability text memory
    python benchmarks/bench_exact_core.py --threads default  # BLAS's default threads

Everything runs with BLAS pinned to one thread (``threadpool_limits(1)``), or
with the default threads (``--threads default``). Each
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
* ``soft``: ``HardMarginSVM`` on inseparable data: tall 1e6 × 20 with 10 labels
  flipped against ``LinearSVC(dual=False, C=1e3)`` [≤ 2×]; 1e5 × 50 (20 flipped
  labels; pure noise) against ``LinearSVC(dual=False)`` [within 10×]; isotropic
  embeddings 5e4 × 768 against ``LinearSVC()`` [≤ 6×, and ≤ 10× one X.T@X]. Each
  row prints both total hinges and training errors (ours is the least),
  |ours / HiGHS's LP on every row - 1| where HiGHS takes under a minute, and
  the peak extra memory of ours and the peer's (tracemalloc; RSS growth).
* ``routes``: the soft limit's route, instance by instance: 1e5 × 50 with 20 labels
  flipped, classes apart by a margin or labelled by a hyperplane through the data,
  flips spread out, nearest the boundary, farthest from it or clustered; the cost
  model's time against each route forced (the rounds alone; the interior point
  alone) [no instance above 2× its best route].
* ``text``: 4-class sparse text, ``HardMarginSVM`` one-vs-rest against
  ``SVC(kernel="linear", C=1e10)``: time and tracemalloc peak [≤ SVC's time,
  ≤ 2× its peak].
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
    peak_memory,
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
    threads = "pinned to 1 thread" if args.threads == "1" else "default threads"
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; BLAS {threads}; "
          f"median of {args.repeats} turns after a warm-up")  # fmt: skip


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


def isotropic_embeddings(n, p, seed=0):
    """N(0, I_p) rows of two classes whose means are 2 apart on one axis: the
    inseparable embeddings of the exact-core issue (about a sixth of the rows on
    the wrong side of the best plane)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = rng.integers(0, 2, n)
    X[:, 0] += 2.0 * y
    return X, y


def total_hinge(X, y, coef, intercept):
    """The total hinge ``Σ max(0, 1 - c (w·x + b))`` and the training errors."""
    margins = signs(y) * (X @ np.ravel(coef) + float(np.ravel(intercept)[0]))
    return float(np.maximum(0, 1 - margins).sum()), int(np.count_nonzero(margins <= 0))


def highs_least_hinge(X, y):
    """The least total hinge by one HiGHS dual simplex on every row (the dual LP,
    p + 1 equality rows), or None where it is beyond a minute."""
    from sklearn_linsep._margin._solvers import total_hinge_lp

    if X.shape[0] * (X.shape[1] + 1) > 6e6:
        return None
    centred = X - X.mean(axis=0)
    return total_hinge_lp(centred, signs(y)).total


def soft_cases(quick):
    """``(name, X, y, peer name, peer)`` of the soft-limit table."""
    tall_n, wide_n = (100_000, 10_000) if quick else (1_000_000, 50_000)
    X, y, _ = make_separable(tall_n, 20)
    yield (f"tall {tall_n:.0e} x 20, 10 flipped", X, flip_labels(y, 10),
           "LinearSVC(dual=False, C=1e3)",
           lambda X, y: LinearSVC(dual=False, C=1e3).fit(X, y))  # fmt: skip
    X, y, _ = make_separable(100_000, 50)
    noise = np.random.default_rng(3).integers(0, 2, X.shape[0])
    for kind, labels in (("20 flipped", flip_labels(y, 20)), ("pure noise", noise)):
        yield (f"1e5 x 50, {kind}", X, labels, "LinearSVC(dual=False)",
               lambda X, y: LinearSVC(dual=False).fit(X, y))  # fmt: skip
    X, y = isotropic_embeddings(wide_n, 768)
    yield (f"embeddings {wide_n:.0e} x 768", X, y, "LinearSVC()",
           lambda X, y: LinearSVC().fit(X, y))  # fmt: skip


def soft_table(args):
    print("\n## The C → ∞ soft limit: seconds; total hinge and training errors")
    print(f"{'data':>34} {'ours':>9} {'peer':>30} {'peer s':>8} {'ratio':>6} "
          f"{'X.T@X':>7} {'ours/XtX':>8}  hinge ours / peer (errors)")  # fmt: skip
    for name, X, y, peer_name, peer in soft_cases(args.quick):

        def ours(X, y):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return HardMarginSVM().fit(X, y)

        def floor(X, y):
            return X.T @ X

        timed = timings({"ours": ours, "peer": peer, "floor": floor}, X, y, args)
        mine, theirs = timed["ours"]["median"], timed["peer"]["median"]
        gram = timed["floor"]["median"]
        mark = "*" if timed["ours"]["once"] else " "
        model, other = timed["ours"]["result"], timed["peer"]["result"]
        hinge, errors = total_hinge(X, y, model.coef_, model.intercept_)
        their_hinge, their_errors = total_hinge(X, y, other.coef_, other.intercept_)
        least = highs_least_hinge(X, y)
        gap = None if least is None else abs(model.hinge_violation_ / least - 1)
        check = "-" if gap is None else f"{gap:.0e}"
        print(f"{name:>34} {mine:8.3f}{mark} {peer_name:>30} {theirs:8.3f} "
              f"{mine / theirs:5.1f}x {gram:7.3f} {mine / gram:7.1f}x  "
              f"{hinge:.6g} ({errors}) / {their_hinge:.6g} ({their_errors}); "
              f"|ours / HiGHS - 1| {check}", flush=True)  # fmt: skip
        print(f"{'':>34} peak extra memory, MB (traced; RSS growth): ours "
              f"{memory(ours, X, y)}, peer {memory(peer, X, y)}; X itself "
              f"{X.nbytes / 2**20:.0f}", flush=True)  # fmt: skip


def memory(function, X, y):
    """``traced; RSS`` of one call, in MB: liblinear's copy of X is not traced."""
    traced, rss = peak_memory(function, X, y)
    return f"{traced / 2**20:.0f}; {rss / 2**20:.0f}"


def route_cases(n=100_000, p=50, flips=20):
    """``(name, X, y)``: one shape, the flips placed in different ways."""
    margin, y_margin, u = make_separable(n, p)
    through = np.random.default_rng(5).standard_normal((n, p))
    y_through = (through @ np.random.default_rng(6).standard_normal(p) > 0).astype(int)
    for kind, X, y, score in (("margin", margin, y_margin, margin @ u),
                              ("no margin", through, y_through, None)):  # fmt: skip
        score = through @ np.linalg.lstsq(through, 2.0 * y - 1, rcond=None)[0] \
            if score is None else score  # fmt: skip
        placed = {
            "spread out": np.random.default_rng(1).choice(n, flips, replace=False),
            "near the boundary": np.argsort(np.abs(score))[:flips],
            "far from it": np.argsort(-np.abs(score))[:flips],
            "clustered": np.argsort(np.linalg.norm(X - X[0], axis=1))[:flips],
        }
        for where, rows in placed.items():
            flipped = y.copy()
            flipped[rows] = 1 - flipped[rows]
            yield f"{kind}, flips {where}", X, flipped


def route_table(args):
    """The cost model's route against each route forced, per instance."""
    from sklearn_linsep._margin import _soft

    def forced(answer):
        def fit(X, y):
            chosen, _soft.rounds_budget = _soft.rounds_budget, answer
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return HardMarginSVM().fit(X, y)
            finally:
                _soft.rounds_budget = chosen
        return fit

    print("\n## The soft limit's route, 1e5 × 50, 20 flips: seconds (x its best route)")
    print(f"{'instance':>34} {'cost model':>17} {'rounds alone':>17} "
          f"{'interior point':>17} {'LinearSVC':>9}  hinge")  # fmt: skip
    always, never = (lambda *a, **k: lambda w: True), (lambda *a, **k: lambda w: False)
    for name, X, y in route_cases():
        timed = timings({"model": forced(_soft.rounds_budget), "rounds": forced(always),
                         "interior": forced(never),
                         "peer": lambda X, y: LinearSVC(dual=False).fit(X, y)},
                        X, y, args)  # fmt: skip
        best = min(timed[k]["median"] for k in ("rounds", "interior"))
        cells = " ".join(
            f"{timed[k]['median']:8.3f} ({timed[k]['median'] / best:4.2f}x)"
            for k in ("model", "rounds", "interior")
        )
        hinge = timed["model"]["result"].hinge_violation_
        print(f"{name:>34} {cells} {timed['peer']['median']:9.3f}  {hinge:.6g}",
              flush=True)


def text_table(args):
    """4-class TF-IDF-like text: HardMarginSVM one-vs-rest against SVC, time
    and tracemalloc peak (beyond X) of one fit each."""
    from bench_multiclass import text_like

    print("\n## 4-class sparse text, one-vs-rest: seconds; peak MB beyond X "
          "(tracemalloc / sampled RSS growth)")  # fmt: skip
    shapes = [(600, 5000)] if args.quick else [(600, 5000), (3000, 20000)]
    for n, p in shapes:
        X, y = text_like(n, p, 4)
        funcs = {
            "ours": lambda X, y: HardMarginSVM().fit(X, y),
            "svc": lambda X, y: SVC(kernel="linear", C=1e10).fit(X, y),
        }
        timed = timings(funcs, X, y, args)
        peaks = {}
        for name, func in funcs.items():
            # tracemalloc sees numpy's buffers, not libsvm's C kernel cache:
            # the sampled RSS growth is the comparable figure.
            gc.collect()
            tracemalloc.start()
            with RSSSampler() as sampler:
                func(X, y)
            traced = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            peaks[name] = f"{traced:6.1f} / {sampler.extra / 2**20:6.1f} MB"
        agree = np.mean(timed["ours"]["result"].predict(X) == y)
        mine, theirs = timed["ours"]["median"], timed["svc"]["median"]
        print(f"{n:>6} x {p:>6} CSR: ours {mine:7.3f} s {peaks['ours']}; "
              f"SVC {theirs:7.3f} s {peaks['svc']}; SVC / ours "
              f"{theirs / mine:4.1f}x; ours' training accuracy {agree:.3f}",
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
    parser.add_argument(
        "--only", choices=["svm", "separability", "soft", "routes", "text", "memory"]
    )
    parser.add_argument(
        "--threads", choices=["1", "default"], default="1",
        help="BLAS threads: pinned to one (the targets' setting) or the default",
    )  # fmt: skip
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--once-above", type=float, default=5.0)
    args = parser.parse_args()
    grid = QUICK_GRID if args.quick else SVM_GRID
    limit = 1 if args.threads == "1" else None
    with threadpool_limits(limit):
        print_header(args)
        if args.only in (None, "svm"):
            svm_table(grid, args)
        if args.only in (None, "separability"):
            separability_table(grid, args)
        if args.only in (None, "soft"):
            soft_table(args)
        if args.only in (None, "routes") and not args.quick:
            route_table(args)
        if args.only in (None, "text"):
            text_table(args)
        if args.only in (None, "memory") and not args.quick:
            memory_table(args)


if __name__ == "__main__":
    main()
