"""Benchmark ``FisherDiscriminant.fit`` against scikit-learn's LDA and a bare X.T @ X.

Run from the repository root::

    python benchmarks/bench_fisher.py              # full run (n = 1e5 and 1e6)
    python benchmarks/bench_fisher.py --quick      # smoke run (n = 1e5 only)
    python benchmarks/bench_fisher.py --repeats 7  # more repetitions per timing
    python benchmarks/bench_fisher.py --threads 1  # only the table pinned to 1 thread
    python benchmarks/bench_fisher.py --only text --threads 1   # sparse text
    python benchmarks/bench_fisher.py --only floor --threads 1  # against X.T @ X
    python benchmarks/bench_fisher.py --only wide --threads 1   # the wide first call
    python benchmarks/bench_fisher.py --only floor --against ../old  # old code too

``--against DIR`` times the ``sklearn_linsep`` of another checkout (a git worktree
of an earlier commit, its kernels built with ``python setup.py build_ext
--inplace``) in the same run: a worker process imports it and fits the same data
(made from the same seed), taking its turn between ours and the floor.

It needs the ``bench`` extra (``pip install threadpoolctl psutil``).

For every data set (two Gaussian classes with different means and a shared covariance,
generated once per (n, p, dtype) and reused by every estimator) it times

* ``FisherDiscriminant().fit(X, y)`` (ours),
* ``LinearDiscriminantAnalysis(solver=s).fit(X, y)`` for s in "svd", "lsqr", "eigen",
* a bare ``X.T @ X`` on the same array: the floor for any method that forms the scatter,

repeating each timing (5 times at n = 1e5, 3 times at n = 1e6 unless ``--repeats`` is
given, the candidates taking turns round-robin after one untimed warm-up call each) and
reporting the median. The ratios are ``sklearn fastest / ours`` (a speed-up,
larger is better) and ``ours / bare X.T@X`` (smaller is better).

The peak extra memory of each fit beyond X is measured in a separate, untimed run: the
tracemalloc peak (numpy reports its data buffers to tracemalloc) is the reliable figure;
the peak RSS growth sampled every 2 ms by a background thread with psutil is a lower
bound (the allocator reuses memory freed by earlier calls, and short peaks can fall
between samples).

The whole table is run twice: with the BLAS thread count left at its default and pinned
to one thread with ``threadpoolctl.threadpool_limits(1)``. The BLAS library, kernel
("architecture") and thread count reported by threadpoolctl are printed with each table.
The environment is used as given: OpenBLAS reads OPENBLAS_CORETYPE and similar variables
at load time, so compare against e.g. ``env -u OPENBLAS_CORETYPE python ...``.
"""

import argparse
import gc
import statistics
import warnings

import numpy as np
import scipy.sparse as sp
import sklearn
from _harness import (
    blas_description,
    peak_memory,
    print_machine,
    time_round_robin,
    timed,
    traced_peak,
)
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_info, threadpool_limits

from sklearn_linsep import FisherDiscriminant, separability_statistics

LDA_SOLVERS = ("svd", "lsqr", "eigen")
MB = 1024.0**2


# --------------------------------------------------------------------------- machine


def blas_threads():
    """The BLAS thread count in force, as a short string."""
    counts = {
        lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"
    }
    return ",".join(str(c) for c in sorted(counts)) or "?"


# ------------------------------------------------------------------------------ data


def make_data(n, p, dtype, seed=0):
    """Two Gaussian classes with different means and one shared covariance.

    The covariance is ``A Aᵀ / p + I`` for a random A (well conditioned, not diagonal);
    class 1 is shifted by a random mean difference of norm 2.
    """
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(np.intp)
    A = rng.standard_normal((p, p))
    chol = np.linalg.cholesky(A @ A.T / p + np.eye(p))
    shift = rng.standard_normal(p)
    shift *= 2.0 / np.linalg.norm(shift)
    X = rng.standard_normal((n, p)) @ chol.T
    X[y == 1] += shift
    X += 5.0  # a common offset, so nothing is accidentally centred
    return np.ascontiguousarray(X, dtype=dtype), y


# ------------------------------------------------------------------------ candidates


def candidates():
    """``name -> f(X, y)``: what is timed. The bare Gram product is the floor."""
    cands = {"ours": lambda X, y: FisherDiscriminant().fit(X, y)}
    for solver in LDA_SOLVERS:
        cands[f"lda-{solver}"] = lambda X, y, s=solver: LinearDiscriminantAnalysis(
            solver=s
        ).fit(X, y)
    cands["X.T@X"] = lambda X, y: X.T @ X
    return cands


# ------------------------------------------------------------------------- measuring


def coef_cosine(X, y):
    """Cosine between our direction and LDA-eigen's, a sanity check that they agree."""
    ours = FisherDiscriminant().fit(X, y).coef_.ravel().astype(np.float64)
    theirs = LinearDiscriminantAnalysis(solver="eigen").fit(X, y).coef_.ravel()
    return float(ours @ theirs / (np.linalg.norm(ours) * np.linalg.norm(theirs)))


# ---------------------------------------------------------------------------- tables


def default_repeats(n, args):
    if args.repeats is not None:
        return args.repeats
    return 5 if n <= 100_000 else 3


def run_case(X, y, repeats, measure_memory):
    """Time (and optionally measure memory of) every candidate on one data set."""
    funcs = candidates()
    # The memory run (two untimed calls each) comes first; the round robin then
    # makes one untimed warm-up call each before its timings, so that first-touch
    # and lazy-import costs stay out of them.
    memory = (
        {name: peak_memory(func, X, y) for name, func in funcs.items()}
        if measure_memory
        else {}
    )
    row = time_round_robin(funcs, (X, y), repeats)
    for name, entry in row.items():
        # The fitted models are not printed: drop them rather than keep them alive.
        del entry["result"]
        if name in memory:
            entry["traced"], entry["rss"] = memory[name]
    return row


def print_table(title, results):
    """Print one table of medians, ratios and memory."""
    names = list(candidates())
    print(f"## {title}")
    for line in blas_description():
        print(f"   {line}")
    head = (
        f"{'n':>9} {'p':>4} {'dtype':>7} {'thr':>3} {'rep':>3} | "
        + " ".join(f"{name:>9}" for name in names)
        + f" | {'skl/ours':>8} {'ours/XtX':>8} | {'cos':>8} {'spread':>6}"
    )
    print(head)
    print("-" * len(head))
    for (n, p, dtype), (threads, repeats, row, cosine) in results.items():
        ours = row["ours"]["median"]
        fastest = min(row[f"lda-{s}"]["median"] for s in LDA_SOLVERS)
        floor = row["X.T@X"]["median"]
        spread = max(max(e["times"]) / min(e["times"]) for e in row.values())
        print(
            f"{n:>9.0e} {p:>4} {dtype:>7} {threads:>3} {repeats:>3} | "
            + " ".join(f"{row[name]['median']:>8.4f}s" for name in names)
            + f" | {fastest / ours:>7.2f}x {ours / floor:>7.2f}x"
            + f" | {cosine:>8.5f} {spread:>5.2f}x"
        )
    print()
    mem_rows = [(k, v) for k, v in results.items() if "traced" in v[2]["ours"]]
    if mem_rows:
        print(
            "Peak extra memory beyond X, MB (tracemalloc / RSS growth); "
            "X itself in brackets"
        )
        print(
            f"{'n':>9} {'p':>4} {'dtype':>7} {'[X]':>7} | "
            + " ".join(f"{name:>15}" for name in names)
        )
        for (n, p, dtype), (_, _, row, _) in mem_rows:
            x_mb = n * p * np.dtype(dtype).itemsize / MB
            cells = " ".join(
                f"{row[name]['traced'] / MB:>7.1f}/{row[name]['rss'] / MB:<7.1f}"
                for name in names
            )
            print(f"{n:>9.0e} {p:>4} {dtype:>7} {x_mb:>7.1f} | {cells}")
        print()


def cases(args):
    sizes = [100_000] if args.quick else [100_000, 1_000_000]
    out = []
    for n in sizes:
        for p in (10, 100):
            out.append((n, p, "float64"))
            if p == 100 and (n == max(sizes) or args.quick):
                out.append((n, p, "float32"))
    return out


# ------------------------------------------------------- the floor, text, wide rows


def make_text(n, p, seed=0, words=(20, 60)):
    """Bag of words, log-scaled, L2-normalised rows, two classes, 20-60 words a
    document drawn from a Zipf-like vocabulary; class 1 shifts 30% of its draws
    to a permuted vocabulary."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(np.intp)
    base = 1.0 / np.arange(1, p + 1) ** 1.1
    permuted = base[rng.permutation(p)]
    lengths = rng.integers(words[0], words[1] + 1, size=n)
    rows, columns = [], []
    for label, chance in ((0, base), (1, 0.7 * base + 0.3 * permuted)):
        members = np.flatnonzero(y == label)
        rows.append(np.repeat(members, lengths[members]))
        columns.append(
            rng.choice(p, size=lengths[members].sum(), p=chance / chance.sum())
        )
    rows, columns = np.concatenate(rows), np.concatenate(columns)
    X = sp.csr_matrix((np.ones(rows.size), (rows, columns)), shape=(n, p))
    X.sum_duplicates()
    X.data = np.log1p(X.data)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1.0 / norms) @ X), y


def fit_and_statistics(X, y):
    """What a user runs: the discriminant, then the statistics of its fit."""
    fisher = FisherDiscriminant().fit(X, y)
    return fisher, separability_statistics(fisher)


def sparse_bytes(X):
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


def text_table(repeats):
    """Fisher plus the statistics on sparse text against LinearSVC().fit, and the
    direction's error against the dense definition (the span route) where the
    (n, n) matrix fits."""
    print("## Sparse text: FisherDiscriminant().fit + separability_statistics(fit)")
    for line in blas_description():
        print(f"   {line}")
    head = (
        f"{'n':>6} {'p':>6} {'nnz':>8} | {'ours':>8} {'LinearSVC':>9} {'ratio':>7} "
        f"| {'peak-X MB':>9} {'X MB':>6} {'(n+p)*8':>8} | {'err vs dense':>12}"
    )
    print(head)
    print("-" * len(head))
    for n, p in ((3_000, 20_000), (8_000, 30_000), (20_000, 50_000)):
        X, y = make_text(n, p)
        row = time_round_robin(
            {
                "ours": fit_and_statistics,
                "svc": lambda X, y: LinearSVC().fit(X, y),
            },
            (X, y),
            repeats,
            once_above=30.0,
        )
        fisher = row["ours"]["result"][0]
        peak = traced_peak(fit_and_statistics, X, y)
        error = float("nan")
        if n <= 3_000:
            stats = fisher.statistics_
            span = stats.regularized_inverse(fisher.kappa, route="span")
            dense = span.solve(stats.mean_difference(1, 0), stats.mean_noise)
            error = np.linalg.norm(fisher.coef_[0] - dense) / np.linalg.norm(dense)
        ours, svc = row["ours"]["median"], row["svc"]["median"]
        print(
            f"{n:>6} {p:>6} {X.nnz:>8} | {ours:>7.3f}s {svc:>8.4f}s {ours / svc:>6.0f}x"
            f" | {(peak - 0) / MB:>9.1f} {sparse_bytes(X) / MB:>6.1f} "
            f"{(n + p) * 8 / MB:>8.2f} | {error:>12.1e}"
        )
    print("ratio = ours / LinearSVC().fit (target <= 100x); peak = tracemalloc peak")
    print("of the call (copies of X included); err = ‖u - u_dense‖ / ‖u_dense‖")
    print()


FLOOR_CASES = (  # n, p, dtype, order, classes
    (100_000, 1024, "float32", "C", 2),
    (100_000, 1024, "float32", "F", 2),
    (100_000, 1024, "float32", "C", 5),
    (100_000, 768, "float64", "C", 2),
    (1_000_000, 100, "float64", "C", 2),
)


def floor_data(n, p, dtype, order, classes):
    X, y = make_data(n, p, dtype)
    if order == "F":
        X = np.asfortranarray(X)
    if classes > 2:  # a linear probe's: K groups, labels at random
        y = np.random.default_rng(1).integers(0, classes, n)
    return X, y


WORKER = """
import sys, time, warnings
sys.path.insert(0, {bench!r})
warnings.simplefilter("ignore")
from threadpoolctl import threadpool_limits
from bench_fisher import floor_data
from sklearn_linsep import FisherDiscriminant
print("ready", FisherDiscriminant.__module__, flush=True)
data, limit = None, None
for line in sys.stdin:
    case, threads = line.split(";")
    if data is None or case != data[0]:
        data = (case, floor_data(*eval(case)))
    with threadpool_limits(limits=None if threads.strip() == "None" else 1):
        start = time.perf_counter()
        FisherDiscriminant().fit(*data[1])
        print(time.perf_counter() - start, flush=True)
"""


class OldCode:
    """A worker process fitting with another checkout's ``sklearn_linsep``."""

    def __init__(self, checkout):
        import os
        import subprocess
        import sys

        bench = os.path.dirname(os.path.abspath(__file__))
        env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER.format(bench=bench)], env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=checkout,
        )  # fmt: skip
        print(f"   old code: {self.process.stdout.readline().strip()} from {checkout}")

    def fit(self, case, limit):
        self.process.stdin.write(f"{case!r};{limit}\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())


def floor_table(repeats, against=None, limit=None):
    """Fisher against one X.T @ X in X's dtype (the floor of any scatter), and
    the old code's fit where ``against`` names its checkout."""
    print("## Dense Fisher against one X.T @ X in X's dtype")
    for line in blas_description():
        print(f"   {line}")
    old = OldCode(against) if against else None
    head = (f"{'n':>9} {'p':>5} {'dtype':>7} order K   | {'ours':>8} {'X.T@X':>8} "
            f"{'ratio':>6}" + (f" | {'old':>8} {'ratio':>6}" if old else ""))  # fmt: skip
    print(head)
    print("-" * len(head))
    for case in FLOOR_CASES:
        n, p, dtype, order, classes = case
        X, y = floor_data(*case)
        candidates = {
            "ours": lambda X, y: FisherDiscriminant().fit(X, y),
            "floor": lambda X, y: X.T @ X,
        }
        if old:
            old.fit(case, limit)  # its warm-up (and its data)
            candidates["old"] = lambda X, y: old.fit(case, limit)
        row = time_round_robin(candidates, (X, y), repeats)
        ours, floor = row["ours"]["median"], row["floor"]["median"]
        line = (f"{n:>9.0e} {p:>5} {dtype:>7} {order} K={classes} | {ours:>7.3f}s "
                f"{floor:>7.3f}s {ours / floor:>5.2f}x")  # fmt: skip
        if old:  # timed across the pipe: its overhead is microseconds
            before = row["old"]["median"]
            line += f" | {before:>7.3f}s {before / floor:>5.2f}x"
        print(line)
        del X, y, row
        gc.collect()
    print("ratio = ours / X.T @ X (target <= 1.3x)")
    print()



def wide_table(repeats):
    """The first fit on new wide data plus its statistics (a fresh array each
    time, the kernels already loaded) against one X @ X.T, and its memory
    beyond X."""
    print("## Wide: the first fit on new data plus its statistics, 50 x 1e5 float64")

    def fit_and_angle(X, y):
        separability_statistics(FisherDiscriminant().fit(X, y))

    rng = np.random.default_rng(0)
    y = np.arange(50) % 2
    fit_and_angle(rng.standard_normal((50, 100_000)), y)  # kernels loaded
    first, later, floor = [], [], []
    for _ in range(repeats):
        X = rng.standard_normal((50, 100_000))
        first.append(timed(lambda: fit_and_angle(X, y))[0])
        later.append(timed(lambda: fit_and_angle(X, y))[0])
        floor.append(timed(lambda: X @ X.T)[0])
    peak = traced_peak(lambda: fit_and_angle(X, y))
    first, later, floor = (statistics.median(t) for t in (first, later, floor))
    print(
        f"first {first:.4f}s ({first / floor:.1f}x X@X.T), second {later:.4f}s "
        f"({later / floor:.1f}x), X@X.T {floor:.4f}s; peak beyond X "
        f"{peak / X.nbytes:.2f} x X (targets: first <= 10x, memory <= 2x X)"
    )
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only",
        choices=("lda", "floor", "text", "wide"),
        help="one table: against LDA (the default run's), the X.T @ X floor at "
        "1e5 x 1024 float32, 1e5 x 768 and 1e6 x 100, sparse text against "
        "LinearSVC, or the wide first call",
    )
    parser.add_argument("--quick", action="store_true", help="n = 1e5 only (smoke run)")
    parser.add_argument(
        "--against",
        metavar="DIR",
        help="with --only floor: also time the checkout in DIR (old code)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="timings per candidate (default 5 at n=1e5, 3 at n=1e6)",
    )
    parser.add_argument(
        "--threads",
        choices=("default", "1", "both"),
        default="both",
        help="BLAS thread settings to run (default: both)",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore", category=UserWarning)

    print_machine(
        versions=(f"numpy {np.__version__}", f"sklearn {sklearn.__version__}"),
        environment=("OPENBLAS_L2_SIZE",),
    )
    tables = {"floor": floor_table, "text": text_table, "wide": wide_table}
    if args.only in tables:
        settings = {"default": [None], "1": [1], "both": [None, 1]}[args.threads]
        for limit in settings:
            with threadpool_limits(limits=limit):
                print(f"# BLAS threads: {blas_threads()}")
                if args.only == "floor":
                    floor_table(args.repeats or 3, args.against, limit)
                else:
                    tables[args.only](args.repeats or 3)
        return
    settings = {"default": [None], "1": [1], "both": [None, 1]}[args.threads]
    results = {limit: {} for limit in settings}
    for n, p, dtype in cases(args):
        X, y = make_data(n, p, dtype)
        cosine = coef_cosine(X, y)
        for limit in settings:
            with threadpool_limits(limits=limit):
                repeats = default_repeats(n, args)
                # Memory does not depend on the thread count: measure it once.
                row = run_case(
                    X, y, repeats, measure_memory=limit is None or len(settings) == 1
                )
                results[limit][(n, p, dtype)] = (blas_threads(), repeats, row, cosine)
        del X, y
        gc.collect()

    for limit in settings:
        with threadpool_limits(limits=limit):
            label = (
                "default BLAS threads" if limit is None else f"BLAS pinned to {limit}"
            )
            print_table(f"Median fit time, {label}", results[limit])
    print(
        "skl/ours = fastest sklearn LDA solver / ours (speed-up, target >= 4x at "
        "n=1e6, p=100)"
    )
    print("ours/XtX = ours / bare X.T @ X on the same array (target <= 2x)")
    print("cos      = cosine between our coef_ and LDA(solver='eigen').coef_")
    print("spread   = largest max/min ratio of the repeated timings in the row (noise)")


if __name__ == "__main__":
    main()
