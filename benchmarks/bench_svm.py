"""Benchmark ``HardMarginSVM.fit`` against SVC, LinearSVC and two full primal QPs.

Run from the repository root::

    python benchmarks/bench_svm.py              # full run, n = 1e3 ... 1e6
    python benchmarks/bench_svm.py --quick      # smoke run (n = 1e3, 1e4; p = 2, 20)
    python benchmarks/bench_svm.py --repeats 7  # more repetitions per timing
    python benchmarks/bench_svm.py --sizes 1000 10000 --dims 2  # any grid
    python benchmarks/bench_svm.py --threads 1  # BLAS pinned to one thread

It needs the ``bench`` extra (``pip install threadpoolctl psutil cvxopt``); cvxpy and
Clarabel come with the package.

Data: separable Gaussian data with a guaranteed gap. X ~ N(0, I) in p dimensions, a
random unit normal u; rows with ``|X·u − offset| < gap`` (offset 0.25, gap 0.1) are
dropped, rows are drawn until exactly n remain, and ``y = (X·u > offset)``. The
maximal margin is therefore at least 0.1 (gap) and in practice slightly above. Each
data set is generated once per (n, p) and every candidate fits the same array.

Candidates, each timed from the numpy arrays to the solution (conversions, cvxpy's
canonicalisation and solver set-up included):

* ``ours``: ``HardMarginSVM().fit(X, y)`` (working-set QP on Clarabel),
* ``svc``: ``sklearn.svm.SVC(kernel="linear", C=1e10)`` (libsvm, SMO),
* ``lsvc``: ``sklearn.svm.LinearSVC(C=1e6, loss="hinge", dual=True,
  max_iter=100000)`` (liblinear, dual coordinate descent; regularises the intercept),
* ``cvxpy``: the full primal QP ``min ½‖w‖² s.t. c_i(w·x_i + b) ≥ 1`` in cvxpy, solved
  by Clarabel (default tolerances),
* ``cvxopt``: the same QP with ``cvxopt.solvers.qp(P, q, G, h)``, ``P = diag(1, …, 1,
  0)``, ``q = 0``, ``G = −c[X, 1]``, ``h = −1`` (default tolerances, no progress).

Timing: after one untimed warm-up call each, the candidates take turns (round-robin)
and the median is reported (5 repeats at n ≤ 1e4, 3 above, unless ``--repeats``). A
candidate whose warm-up call took more than ``--once-above`` seconds (default 10) is
not repeated: that first call is its only timing (marked ``*``). Per-candidate time
cap: going up in n at fixed p, a peer is skipped when its time at the previous n,
extrapolated as ``t · (n / n_prev)^e``, exceeds ``--cap`` seconds (default 60); e is
the exponent fitted to the peer's last two timings (clamped to [1, 2.5]; 2 for SVC and
1.2 for the others while fewer than two timings above 0.05 s exist). Once skipped, a
peer stays skipped at larger n for that p. Our estimator is never skipped.

Accuracy: for every solution ``(w, b)`` the geometric margin it attains on the data,
``min_i c_i(w·x_i + b) / ‖w‖`` (negative when a sample is misclassified), is compared
with the reference: the attained margin of the cvxpy/Clarabel solution, else of
cvxopt's, else our ``margin_`` (column ``ref``). For ours the column is our published
``margin_``; ``att`` is |attained / margin_ − 1| of our own hyperplane (a consistency
check). Both QP references are themselves accurate only to their solver tolerances
(about 1e-8 relative for Clarabel, 1e-6 for cvxopt), so an error of that size in our
column is the reference's. ``lsvc`` marked ``!`` stopped at ``max_iter``; a QP marked
``!`` did not report an optimal status.

Also printed for ours: ``n_iter_`` (working-set rounds), the number of support vectors
(``support_``) and the peak extra memory of one untimed fit beyond X: the tracemalloc
peak (numpy's buffers are traced; the kernels allocate none) and the peak RSS growth sampled
every 2 ms by a thread with psutil (a lower bound). The BLAS libraries, kernels and
thread counts reported by threadpoolctl are printed with each table. The environment
is used as given (OpenBLAS reads OPENBLAS_CORETYPE and similar variables at load time).
"""

import argparse
import gc
import math
import time
import warnings

import cvxopt
import cvxpy as cp
import numpy as np
import scipy
import sklearn
from _harness import (
    blas_description,
    peak_memory,
    print_machine,
    time_round_robin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, LinearSVC
from threadpoolctl import threadpool_limits

from sklearn_linsep import HardMarginSVM

MB = 1024.0**2
GAP = 0.1
OFFSET = 0.25
PEERS = ("svc", "lsvc", "cvxpy", "cvxopt")
NAMES = ("ours",) + PEERS
# Exponent of the time in n assumed before two timings are known (see docstring).
PRIOR_EXPONENT = {"svc": 2.0}
DEFAULT_EXPONENT = 1.2
# Read by OpenBLAS at load time, printed beyond the harness's BLAS thread settings.
MORE_ENVIRONMENT = ("OPENBLAS_L2_SIZE",)

cvxopt.solvers.options["show_progress"] = False


# --------------------------------------------------------------------------- machine


def package_versions():
    """Versions of everything timed here, as ``name version`` strings."""
    import clarabel

    return [
        f"numpy {np.__version__}",
        f"scipy {scipy.__version__}",
        f"sklearn {sklearn.__version__}",
        f"cvxpy {cp.__version__}",
        f"clarabel {clarabel.__version__}",
        f"cvxopt {cvxopt.__version__}",
    ]


# ------------------------------------------------------------------------------ data


def make_separable(n, p, gap=GAP, offset=OFFSET, seed=0):
    """Exactly n rows of N(0, I_p) at distance ≥ gap from the plane u·x = offset.

    Rows are drawn in blocks (so that no temporary much larger than X is needed) and
    those with ``|x·u − offset| < gap`` dropped until n remain; ``y = (x·u > offset)``
    as 0/1 integers. Returns ``X, y, u``.
    """
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(p)
    u /= np.linalg.norm(u)
    X = np.empty((n, p))
    y = np.empty(n, dtype=np.intp)
    filled = 0
    while filled < n:
        block = rng.standard_normal((min(max(n - filled, 1000) * 11 // 10, 200_000), p))
        s = block @ u - offset
        keep = np.abs(s) >= gap
        take = min(int(keep.sum()), n - filled)
        X[filled : filled + take] = block[keep][:take]
        y[filled : filled + take] = s[keep][:take] > 0
        filled += take
    return X, y, u


def signs(y):
    """c = +1 for the larger label (the positive class of scikit-learn), else -1."""
    return np.where(y == y.max(), 1.0, -1.0)


def attained_margin(X, c, coef, intercept):
    """``min_i c_i (w·x_i + b) / ‖w‖``: the geometric margin of a hyperplane."""
    coef = np.asarray(coef, dtype=float).ravel()
    return float(np.min(c * (X @ coef + intercept)) / np.linalg.norm(coef))


# ------------------------------------------------------------------------ candidates


def fit_ours(X, y):
    model = HardMarginSVM().fit(X, y)
    return {
        "coef": model.coef_.ravel(),
        "intercept": float(model.intercept_[0]),
        "margin": float(model.margin_),
        "n_iter": int(model.n_iter_),
        "n_sv": int(model.support_.size),
        "ok": bool(model.separable_),
    }


def fit_svc(X, y):
    model = SVC(kernel="linear", C=1e10).fit(X, y)
    return {"coef": model.coef_.ravel(), "intercept": float(model.intercept_[0])}


def fit_lsvc(X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model = LinearSVC(C=1e6, loss="hinge", dual=True, max_iter=100000).fit(X, y)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return {
        "coef": model.coef_.ravel(),
        "intercept": float(model.intercept_[0]),
        "ok": converged,
    }


def fit_cvxpy(X, y):
    c = signs(y)
    w = cp.Variable(X.shape[1])
    b = cp.Variable()
    problem = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(w)), [cp.multiply(c, X @ w + b) >= 1]
    )
    problem.solve(solver=cp.CLARABEL)
    ok = problem.status == cp.OPTIMAL
    return {"coef": np.asarray(w.value), "intercept": float(b.value), "ok": ok}


def fit_cvxopt(X, y):
    n, p = X.shape
    c = signs(y)
    G = np.empty((n, p + 1))
    np.multiply(X, -c[:, None], out=G[:, :p])
    G[:, p] = -c
    P = np.eye(p + 1)
    P[p, p] = 0.0
    solution = cvxopt.solvers.qp(
        cvxopt.matrix(P),
        cvxopt.matrix(np.zeros(p + 1)),
        cvxopt.matrix(G),
        cvxopt.matrix(-np.ones(n)),
    )
    z = np.asarray(solution["x"]).ravel()
    return {
        "coef": z[:p],
        "intercept": float(z[p]),
        "ok": solution["status"] == "optimal",
    }


CANDIDATES = {
    "ours": fit_ours,
    "svc": fit_svc,
    "lsvc": fit_lsvc,
    "cvxpy": fit_cvxpy,
    "cvxopt": fit_cvxopt,
}


# ------------------------------------------------------------------------- measuring


def extrapolate(history, n, name):
    """Predicted seconds of one call at n from ``history``: [(n, seconds), ...]."""
    n_last, t_last = history[-1]
    exponent = PRIOR_EXPONENT.get(name, DEFAULT_EXPONENT)
    if len(history) >= 2:
        (n0, t0), (n1, t1) = history[-2:]
        if min(t0, t1) > 0.05 and n1 > n0:
            exponent = min(max(math.log(t1 / t0) / math.log(n1 / n0), 1.0), 2.5)
    return t_last * (n / n_last) ** exponent


class CapTracker:
    """Which peers to run at (n, p, ...): skip when the extrapolation exceeds a cap."""

    def __init__(self, cap):
        self.cap = cap
        self.history = {}  # (name, key) -> [(n, seconds)]
        self.skipped = {}  # (name, key) -> predicted seconds when first skipped

    def allowed(self, name, key, n, cap=None):
        cap = self.cap if cap is None else cap
        if (name, key) in self.skipped:
            return False
        history = self.history.get((name, key))
        if history:
            predicted = extrapolate(history, n, name)
            if predicted > cap:
                self.skipped[name, key] = predicted
                print(
                    f"   {name} at n={n:.0e} {key}: skipped (extrapolated > {cap:g} s:"
                    f" {predicted:.0f} s)",
                    flush=True,
                )
                return False
        return True

    def record(self, name, key, n, seconds):
        self.history.setdefault((name, key), []).append((n, seconds))


# ---------------------------------------------------------------------------- tables


def default_repeats(n, args):
    if args.repeats is not None:
        return args.repeats
    return 5 if n <= 10_000 else 3


def run_case(n, p, args, caps):
    """Time every candidate that the caps allow on one data set; margins, memory."""
    X, y, _ = make_separable(n, p)
    c = signs(y)
    funcs = {
        name: func
        for name, func in CANDIDATES.items()
        if name == "ours" or caps.allowed(name, f"p={p}", n)
    }
    repeats = default_repeats(n, args)
    started = time.perf_counter()
    row = time_round_robin(funcs, (X, y), repeats, args.once_above)
    for name, entry in row.items():
        if name != "ours":
            caps.record(name, f"p={p}", n, entry["median"])
        result = entry["result"]
        entry["attained"] = attained_margin(X, c, result["coef"], result["intercept"])
    ours = row["ours"]["result"]
    if "cvxpy" in row:
        ref, ref_name = row["cvxpy"]["attained"], "cvxpy"
    elif "cvxopt" in row:
        ref, ref_name = row["cvxopt"]["attained"], "cvxopt"
    else:
        ref, ref_name = ours["margin"], "ours"
    traced, rss = peak_memory(CANDIDATES["ours"], X, y)
    elapsed = time.perf_counter() - started
    print(
        f"   done n={n:.0e} p={p}: {elapsed:.1f} s "
        + " ".join(f"{k}={v['median']:.3g}s" for k, v in row.items()),
        flush=True,
    )
    return {
        "n": n,
        "p": p,
        "repeats": repeats,
        "row": row,
        "ref": ref,
        "ref_name": ref_name,
        "traced": traced,
        "rss": rss,
        "x_mb": X.nbytes / MB,
    }


def time_cell(row, name):
    if name not in row:
        return f"{'skipped':>10}"
    entry = row[name]
    flag = "*" if entry["once"] else " "
    return f"{entry['median']:>8.3f}s{flag}"


def ratio_cell(row, name):
    if name not in row:
        return f"{'-':>7}"
    return f"{row[name]['median'] / row['ours']['median']:>6.1f}x"


def error_cell(case, name):
    row = case["row"]
    if name not in row:
        return f"{'-':>9}"
    entry = row[name]
    if name == case["ref_name"]:
        return f"{'ref':>9}"
    value = entry["result"]["margin"] if name == "ours" else entry["attained"]
    flag = " " if entry["result"].get("ok", True) else "!"
    return f"{abs(value - case['ref']) / case['ref']:>8.1e}{flag}"


def print_tables(cases):
    print("## Median fit time (seconds; * = single call, see --once-above)")
    for line in blas_description():
        print(f"   {line}")
    head = (
        f"{'n':>7} {'p':>4} {'rep':>3} | "
        + " ".join(f"{name:>10}" for name in NAMES)
        + " | "
        + " ".join(f"{name + '/ours':>11}" for name in PEERS)
        + f" | {'spread':>6}"
    )
    print(head)
    print("-" * len(head))
    for case in cases:
        row = case["row"]
        spread = max(
            (max(e["times"]) / min(e["times"]) for e in row.values() if not e["once"]),
            default=1.0,
        )
        print(
            f"{case['n']:>7.0e} {case['p']:>4} {case['repeats']:>3} | "
            + " ".join(time_cell(row, name) for name in NAMES)
            + " | "
            + " ".join(f"{ratio_cell(row, name):>11}" for name in PEERS)
            + f" | {spread:>5.2f}x"
        )
    print()
    print(
        "## Margin: |margin − ref| / ref (ours: margin_; peers: attained geometric "
        "margin); ours' fit"
    )
    head = (
        f"{'n':>7} {'p':>4} | {'ref margin':>11} {'ref':>6} | "
        + " ".join(f"{name:>9}" for name in NAMES)
        + f" | {'att':>7} {'n_iter_':>7} {'n_SV':>5} | {'[X] MB':>8} "
        f"{'traced MB':>9} {'RSS MB':>7}"
    )
    print(head)
    print("-" * len(head))
    for case in cases:
        ours = case["row"]["ours"]
        consistency = abs(ours["attained"] / ours["result"]["margin"] - 1.0)
        print(
            f"{case['n']:>7.0e} {case['p']:>4} | {case['ref']:>11.8f} "
            f"{case['ref_name']:>6} | "
            + " ".join(error_cell(case, name) for name in NAMES)
            + f" | {consistency:>7.0e} {ours['result']['n_iter']:>7} "
            f"{ours['result']['n_sv']:>5} | {case['x_mb']:>8.1f} "
            f"{case['traced'] / MB:>9.1f} {case['rss'] / MB:>7.1f}"
        )
    print()
    print("peer/ours = median time of the peer / ours (a speed-up, larger is better)")
    print("            targets: svc/ours >= 40x at n=1e5, p=20; cvxopt/ours >= 10x for")
    print("            every n >= 1e4")
    print("! = LinearSVC stopped at max_iter, or a QP did not report an optimal status")
    print("att = |attained margin of our hyperplane / margin_ - 1| (consistency check)")
    print("spread = largest max/min ratio of the repeated timings in the row (noise)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="n = 1e3, 1e4 and p = 2, 20 (smoke run)"
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
        help="skip a peer whose extrapolated time exceeds this (s, default 60)",
    )
    parser.add_argument(
        "--threads",
        choices=("default", "1"),
        default="default",
        help="BLAS threads: as given (default) or pinned to 1",
    )
    args = parser.parse_args()
    sizes = args.sizes or (
        [1_000, 10_000] if args.quick else [10**k for k in (3, 4, 5, 6)]
    )
    dims = args.dims or ([2, 20] if args.quick else [2, 20, 100])
    warnings.simplefilter("ignore", category=UserWarning)

    started = time.perf_counter()
    print_machine(versions=package_versions(), environment=MORE_ENVIRONMENT)
    limit = None if args.threads == "default" else 1
    caps = CapTracker(args.cap)
    cases = []
    with threadpool_limits(limits=limit):
        for p in dims:
            for n in sizes:
                cases.append(run_case(n, p, args, caps))
                gc.collect()
        print()
        print_tables(cases)
    print(f"\ntotal wall time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
