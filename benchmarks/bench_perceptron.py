"""Benchmark the perceptron family (Perceptron, PocketPerceptron, Adaline) against
scikit-learn's SGD-based peers.

Run from the repository root::

    python benchmarks/bench_perceptron.py               # full run (about 10 minutes)
    python benchmarks/bench_perceptron.py --quick       # smoke run (n = 1e5, p = 10)
    python benchmarks/bench_perceptron.py --repeats 7   # more repetitions per timing
    python benchmarks/bench_perceptron.py --skip-compile  # no compile-time runs
    python benchmarks/bench_perceptron.py --steady-memory  # see the last paragraph

It needs the ``bench`` extra (``pip install threadpoolctl psutil``). The package is
imported as Python finds it (its path and git commit are printed); to measure a fixed
commit while the checkout is being edited, put a clone of it first on the path::

    git clone --shared . /tmp/snap && git -C /tmp/snap checkout COMMIT
    PYTHONPATH=/tmp/snap python benchmarks/bench_perceptron.py

Data (generated once per case and shared by every candidate): X standard normal,
float64, C-ordered (dense: n = 1e5 and 1e6, p = 10 and 100) or CSR with 1% non-zero
standard normal entries (n = 1e5, p = 1000: 10 non-zeros a row); labels ±1 =
``sign(s + 0.3 * noise)`` with ``s = X @ w`` standardised to unit variance for a random
w and standard normal noise. About 10% of the labels disagree with the best
hyperplane, so the data are not linearly separable and every perceptron fit runs all
``max_iter`` epochs (checked: ``n_iter_ == max_iter`` for every fit, ours and
scikit-learn's; a mismatch is printed).

Candidates (each fitted with ``max_iter = E`` for E = 1, 10 and 11):

* ours: ``Perceptron`` with ``shuffle=False``, ``True`` and ``"blocks"``;
  ``PocketPerceptron(shuffle=False)``; ``Adaline(tol=None, shuffle=False,
  learning_rate="constant", eta0=eta)``,
* scikit-learn: ``Perceptron(tol=None, shuffle=False / True)``;
  ``SGDClassifier(loss="perceptron", penalty=None, learning_rate="constant", eta0=1,
  tol=None, shuffle=False)``; ``SGDClassifier(loss="squared_error", penalty=None,
  learning_rate="constant", eta0=eta, tol=None, shuffle=False)``,

with ``eta = 1 / max_i (||x_i||² + 1)`` (Adaline's automatic rate): with the same
constant rate and order, Adaline's Widrow-Hoff step and SGD's squared-error step are
the same update, so the two should reach the same accuracy. All use ``random_state=0``.
Plus, timed once per repeat, ``Adaline(solver="lstsq")`` against
``numpy.linalg.lstsq`` on the augmented data ``[X, 1]`` (building that copy is inside
the timing; dense cases only).

Each timing is repeated (``--repeats``; default 7 at n = 1e5, 5 at n = 1e6), the
candidates taking turns round-robin after one untimed warm-up fit each (with E = 1),
and the median is reported. The cost of one epoch is
``(median t(E=11) - median t(E=1)) / 10``, which removes the set-up (validation, label
encoding, the copy of ``"blocks"``); the set-up is ``median t(E=1)`` minus one epoch.
Every fit's training accuracy (``score(X, y)`` of the estimator from the last repeat)
is printed beside its time, as a check that the peers solve the same problem.

First fits: the kernels are C extension modules compiled at install. The first fits
in a fresh interpreter (``python -c`` in a subprocess, tiny data) are timed against a
second fit in the same process. The floor (``_floor.pyx``) is compiled by
``pyximport`` (Cython, from the ``test`` extra) when the script starts.

BLAS threads are left at their default; the BLAS libraries and their thread counts
are printed with every table (the kernels are serial). The machine this was written
for is a shared 2-core VM: read single figures with care (the ``spread`` column is
the largest max/min over the repeats among the timings of a row).

``--steady-memory`` re-runs the script with glibc's malloc told never to return memory
to the kernel (``MALLOC_MMAP_MAX_=0``, ``MALLOC_TRIM_THRESHOLD_=2**40``), so a freed
buffer is reused by the next large allocation. On the Firecracker VM this was written
on, memory the process frees goes back to the host within about 3 s, and touching it
again costs about 2-3 ms per MB (a fresh 800 MB array: 1.5-2.5 s instead of 0.06 s).
Fits that allocate an X-sized buffer (``shuffle="blocks"``'s copy, the lstsq solvers'
augmented copy) then take a random extra 0-2.5 s at n = 1e6, p = 100, which swamps
the difference t(E=11) - t(E=1). With the flag they pay for the copy but not for the
host's page faults (a slight advantage over a bare-metal machine, where fresh pages
are zeroed by the kernel: about 0.06 s per 800 MB here).
"""

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np
import pyximport
import scipy
import scipy.sparse as sp
import sklearn
from _harness import blas_description, median_seconds, print_machine
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.linear_model import SGDClassifier

import sklearn_linsep
from sklearn_linsep import Adaline, Perceptron, PocketPerceptron

# glibc: serve every allocation from the heap and never trim it (``--steady-memory``).
STEADY_MALLOC = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(2**40)}
EPOCHS = (1, 10, 11)  # max_iter values timed for every iterative candidate
# Where the package under test is imported from (this checkout when installed in
# editable mode, or whatever PYTHONPATH puts first): its commit is reported, and the
# compile-time subprocesses import the same copy.
PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(sklearn_linsep.__file__)))


# --------------------------------------------------------------------------- machine


def thread_lines():
    """BLAS/OpenMP libraries as threadpoolctl sees them now."""
    return blas_description()


def print_mlxtend():
    """Whether the peers left out are installed (printed under the machine)."""
    try:
        import mlxtend  # noqa: F401
    except ImportError:
        print("mlxtend not installed: its Perceptron/Adaline are skipped")
    else:
        print("mlxtend is installed but not benchmarked (not part of this script)")
    print()


# ------------------------------------------------------------------------------ data


def make_data(n, p, sparse=False, density=0.01, noise=0.3, seed=0):
    """``(X, y)``: labels ``sign(s + noise * e)``, s = X @ w scaled to unit variance."""
    rng = np.random.default_rng(seed)
    if sparse:
        X = sp.random(
            n,
            p,
            density=density,
            format="csr",
            dtype=np.float64,
            random_state=rng,
            data_rvs=rng.standard_normal,
        )
    else:
        X = rng.standard_normal((n, p))
    w = rng.standard_normal(p)
    signal = np.asarray(X @ w).ravel()
    signal /= signal.std()
    y = np.where(signal + noise * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def constant_rate(X):
    """Adaline's automatic rate ``1 / max_i ||(x_i, 1)||²``."""
    if sp.issparse(X):
        squared = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        squared = np.einsum("ij,ij->i", X, X)
    return 1.0 / (float(squared.max()) + 1.0)


# ------------------------------------------------------------------------ candidates


class LstsqSolution:
    """``numpy.linalg.lstsq``'s weights on ``[X, 1]``, with a model's ``score``."""

    def __init__(self, X, y):
        augmented = np.empty((X.shape[0], X.shape[1] + 1))
        augmented[:, :-1] = X
        augmented[:, -1] = 1.0
        targets = np.where(y == y.max(), 1.0, -1.0)
        self.weights = np.linalg.lstsq(augmented, targets, rcond=None)[0]

    def score(self, X, y):
        positive = (X @ self.weights[:-1] + self.weights[-1]) > 0
        return float(np.mean(positive == (y == y.max())))


def iterative_candidates(eta):
    """``name -> (make(E) -> unfitted estimator)``; every one is fitted with E = 1, 10,
    11 epochs and must run all of them."""
    return {
        "ours": lambda E: Perceptron(
            max_iter=E, tol=None, shuffle=False, random_state=0
        ),
        "skl-perc": lambda E: SkPerceptron(
            max_iter=E, tol=None, shuffle=False, random_state=0
        ),
        "sgd-perc": lambda E: SGDClassifier(
            loss="perceptron",
            penalty=None,
            learning_rate="constant",
            eta0=1.0,
            max_iter=E,
            tol=None,
            shuffle=False,
            random_state=0,
        ),
        "ours-shuf": lambda E: Perceptron(
            max_iter=E, tol=None, shuffle=True, random_state=0
        ),
        "ours-blocks": lambda E: Perceptron(
            max_iter=E, tol=None, shuffle="blocks", random_state=0
        ),
        "skl-shuf": lambda E: SkPerceptron(
            max_iter=E, tol=None, shuffle=True, random_state=0
        ),
        "pocket": lambda E: PocketPerceptron(max_iter=E, shuffle=False, random_state=0),
        "adaline": lambda E: Adaline(
            max_iter=E,
            tol=None,
            shuffle=False,
            learning_rate="constant",
            eta0=eta,
            random_state=0,
        ),
        "sgd-sq": lambda E: SGDClassifier(
            loss="squared_error",
            penalty=None,
            learning_rate="constant",
            eta0=eta,
            max_iter=E,
            tol=None,
            shuffle=False,
            random_state=0,
        ),
    }


def candidates(X):
    """``(name, E) -> f(X, y)`` returning the fitted model; E is None for a one-shot
    solver."""
    funcs = {}
    for name, make in iterative_candidates(constant_rate(X)).items():
        for epochs in EPOCHS:
            funcs[(name, epochs)] = lambda X, y, m=make, e=epochs: m(e).fit(X, y)
    funcs[("adaline-lstsq", None)] = lambda X, y: Adaline(solver="lstsq").fit(X, y)
    if not sp.issparse(X):
        funcs[("np-lstsq", None)] = LstsqSolution
    return funcs


# ----------------------------------------------------------------------------- floor


pyximport.install(
    setup_args={"script_args": ["--quiet"]}, language_level=3, inplace=False
)
from _floor import bare_epoch, bare_epoch_csr  # noqa: E402


def floor_epoch(X, y, repeats):
    """Median seconds of :func:`bare_epoch` from zero weights."""
    c = np.where(y == y.max(), 1.0, -1.0)

    def one():
        w = np.zeros(X.shape[1] + 1)
        if sp.issparse(X):
            bare_epoch_csr(X.data, X.indices, X.indptr, c, w)
        else:
            bare_epoch(X, c, w)

    one()  # compile
    return median_seconds(one, repeats)[0]


# ------------------------------------------------------------------------- measuring


def run_case(X, y, repeats):
    """Time every candidate on one data set; ``key -> dict(times, median, acc)``."""
    funcs = candidates(X)
    # One untimed warm-up per candidate (its smallest E): compilation, first touch of
    # X's pages, lazy imports.
    warmed = set()
    for name, epochs in funcs:
        if name not in warmed:
            funcs[(name, epochs)](X, y)
            warmed.add(name)
    row = {key: {"times": []} for key in funcs}
    mismatches = []
    last = {}
    for _ in range(repeats):
        for key, func in funcs.items():
            gc.collect()
            start = time.perf_counter()
            model = func(X, y)
            row[key]["times"].append(time.perf_counter() - start)
            epochs = key[1]
            if epochs is not None and model.n_iter_ != epochs:
                mismatches.append(
                    f"{key[0]} max_iter={epochs}: n_iter_={model.n_iter_}"
                )
            last[key] = model
            del model
    for key, entry in row.items():
        entry["median"] = statistics.median(entry["times"])
        entry["acc"] = last[key].score(X, y)
    name_epochs = {}
    for name, epochs in row:
        name_epochs.setdefault(name, []).append(epochs)
    for name, epochs in name_epochs.items():
        if epochs == [None]:
            continue
        t1, t11 = row[(name, 1)]["median"], row[(name, 11)]["median"]
        epoch = (t11 - t1) / 10.0
        row[name] = {"epoch": epoch, "setup": t1 - epoch}
    row["floor"] = floor_epoch(X, y, repeats)
    if "np-lstsq" in name_epochs:
        ours = last[("adaline-lstsq", None)]
        theirs = last[("np-lstsq", None)].weights
        ours_w = np.append(ours.coef_.ravel(), ours.intercept_)
        row["lstsq-diff"] = float(np.max(np.abs(ours_w - theirs)))
    return row, sorted(set(mismatches))


# ---------------------------------------------------------------------------- tables


def spread(row, keys):
    """Largest max/min of the repeated timings among ``keys``."""
    return max(max(row[k]["times"]) / min(row[k]["times"]) for k in keys)


def fmt_time(seconds):
    return f"{seconds * 1e3:.1f} ms" if seconds < 1.0 else f"{seconds:.3f} s"


def time_cell(row, key):
    """A timing and its training accuracy, side by side."""
    return f"{fmt_time(row[key]['median'])} ({row[key]['acc']:.4f})"


def print_threads():
    for line in thread_lines():
        print(f"    {line}")
    print()


def print_table(title, head, lines, notes=()):
    print(f"## {title}")
    print()
    print_threads()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for cells in lines:
        print("| " + " | ".join(cells) + " |")
    print()
    for note in notes:
        print(note)
    if notes:
        print()


def case_label(case, row):
    n, p, sparse = case
    kind = "CSR 1%" if sparse else "dense"
    return [f"{n:.0e}".replace("+0", ""), str(p), kind, str(row["repeats"])]


def print_targets(results):
    """Each target of the family with the ratio measured, met or not."""
    lines = []

    def check(name, case, value, limit, at_most=True):
        if case not in results:
            return
        met = value <= limit if at_most else value >= limit
        bound = f"{'<=' if at_most else '>='} {limit:g}"
        label = " ".join(case_label(case, results[case])[:3])
        lines.append([name, label, f"{value:.2f}", bound, "met" if met else "MISSED"])

    for case, row in results.items():
        n, p, sparse = case
        ours10, skl10 = row[("ours", 10)]["median"], row[("skl-perc", 10)]["median"]
        if not sparse and n == 1_000_000 and p == 10:
            check("10-epoch fit, ours/skl", case, ours10 / skl10, 0.5)
        if not sparse:
            check("epoch, ours/floor", case, row["ours"]["epoch"] / row["floor"], 1.3)
        else:
            epoch = row["ours"]["epoch"] / row["skl-perc"]["epoch"]
            check("CSR epoch, ours/skl", case, epoch, 1.0)
        shuffled = row["skl-shuf"]["epoch"] / row["ours-shuf"]["epoch"]
        check("shuffled epoch, skl/ours", case, shuffled, 2.0, at_most=False)
        if not sparse and n == 100_000 and p == 10:
            pocket = row["pocket"]["epoch"] / row["ours"]["epoch"]
            check("pocket/perceptron epoch", case, pocket, 1.5)
    print_table(
        "Targets",
        ["target", "case", "measured", "bound", ""],
        lines,
    )


def print_tables(results):
    cases = list(results)
    lines = []
    for case in cases:
        row = results[case]
        keys = [(name, 10) for name in ("ours", "skl-perc", "sgd-perc")]
        ours, skl, sgd = (row[k]["median"] for k in keys)
        lines.append(
            case_label(case, row)
            + [time_cell(row, k) for k in keys]
            + [f"{ours / skl:.2f}", f"{ours / sgd:.2f}", f"{spread(row, keys):.2f}x"]
        )
    print_table(
        "1. Perceptron, 10-epoch fit, shuffle=False (medians; training accuracy "
        "in brackets)",
        ["n", "p", "X", "rep", "ours", "skl Perceptron", "SGD perceptron", "ours/skl",
         "ours/SGD", "spread"],
        lines,
        ["Target: ours/skl <= 0.5 at n = 1e6, p = 10."],
    )  # fmt: skip

    lines = []
    for case in cases:
        row = results[case]
        names = ("ours", "skl-perc", "sgd-perc")
        keys = [(name, e) for name in names for e in (1, 11)]
        lines.append(
            case_label(case, row)
            + [fmt_time(row[name]["epoch"]) for name in names]
            + [f"{row['ours']['epoch'] / row['skl-perc']['epoch']:.2f}"]
            + [fmt_time(row["floor"]), f"{row['ours']['epoch'] / row['floor']:.2f}"]
            + [fmt_time(row[name]["setup"]) for name in names]
            + [f"{spread(row, keys):.2f}x"]
        )
    print_table(
        "2. Perceptron, cost of one epoch = (t(E=11) - t(E=1)) / 10, and set-up = "
        "t(E=1) - one epoch; shuffle=False; the floor is a bare C epoch",
        ["n", "p", "X", "rep", "ours epoch", "skl epoch", "SGD-perc epoch", "ours/skl",
         "floor epoch", "ours/floor", "ours set-up", "skl set-up", "SGD-perc set-up",
         "spread"],
        lines,
        ["Targets: ours/floor <= 1.3 (dense); ours/skl <= 1 per epoch on CSR."],
    )  # fmt: skip

    lines = []
    for case in cases:
        row = results[case]
        names = ("ours-shuf", "ours-blocks", "skl-shuf")
        keys = [(name, e) for name in names for e in EPOCHS]
        skl_epoch = row["skl-shuf"]["epoch"]
        skl_fit = row[("skl-shuf", 10)]["median"]
        lines.append(
            case_label(case, row)
            + [time_cell(row, (name, 10)) for name in names]
            + [f"{skl_fit / row[(name, 10)]['median']:.2f}" for name in names[:2]]
            + [fmt_time(row[name]["epoch"]) for name in names]
            + [f"{skl_epoch / row[name]['epoch']:.2f}" for name in names[:2]]
            + [fmt_time(row["ours-blocks"]["setup"]), f"{spread(row, keys):.2f}x"]
        )
    print_table(
        "3. Perceptron, shuffled: 10-epoch fits and the cost of one epoch",
        ["n", "p", "X", "rep", "ours True 10 ep", "ours blocks 10 ep", "skl True 10 ep",
         "fit skl/True", "fit skl/blocks", "ours True epoch", "ours blocks epoch",
         "skl True epoch", "epoch skl/True", "epoch skl/blocks", "blocks set-up",
         "spread"],
        lines,
        ["Target: skl/ours >= 2 per epoch (ours faster than scikit-learn, both "
         "shuffled). The blocks epoch is a small difference of two times that both "
         "hold the copy of X: see --steady-memory."],
    )  # fmt: skip

    lines = []
    for case in cases:
        row = results[case]
        keys = [(name, e) for name in ("pocket", "ours") for e in (1, 11)]
        lines.append(
            case_label(case, row)
            + [fmt_time(row["pocket"]["epoch"]), fmt_time(row["ours"]["epoch"])]
            + [f"{row['pocket']['epoch'] / row['ours']['epoch']:.2f}"]
            + [time_cell(row, ("pocket", 10)), time_cell(row, ("ours", 10))]
            + [fmt_time(row["pocket"]["setup"]), f"{spread(row, keys):.2f}x"]
        )
    print_table(
        "4. PocketPerceptron epoch vs Perceptron epoch (ours, shuffle=False)",
        ["n", "p", "X", "rep", "pocket epoch", "perceptron epoch", "pocket/perceptron",
         "pocket 10 ep", "perceptron 10 ep", "pocket set-up", "spread"],
        lines,
        ["Target: pocket/perceptron <= 1.5."],
    )  # fmt: skip

    lines = []
    for case in cases:
        row = results[case]
        keys = [(name, e) for name in ("adaline", "sgd-sq") for e in (1, 11)]
        keys.append(("adaline-lstsq", None))
        ada, sgd = row["adaline"]["epoch"], row["sgd-sq"]["epoch"]
        if ("np-lstsq", None) in row:
            keys.append(("np-lstsq", None))
            ours_l = row[("adaline-lstsq", None)]["median"]
            np_l = row[("np-lstsq", None)]["median"]
            lstsq = [
                time_cell(row, ("np-lstsq", None)),
                f"{ours_l / np_l:.2f}",
                f"{row['lstsq-diff']:.1e}",
            ]
        else:
            lstsq = ["n/a (sparse)", "", ""]
        lines.append(
            case_label(case, row)
            + [fmt_time(ada), fmt_time(sgd), f"{ada / sgd:.2f}"]
            + [time_cell(row, ("adaline", 10)), time_cell(row, ("sgd-sq", 10))]
            + [time_cell(row, ("adaline-lstsq", None))]
            + lstsq
            + [f"{spread(row, keys):.2f}x"]
        )
    print_table(
        "5. Adaline (online, constant rate eta = 1/max||x~||^2, shuffle=False) vs "
        "SGDClassifier(squared_error, learning_rate='constant', same eta0); "
        "Adaline(solver='lstsq') vs numpy.linalg.lstsq on [X, 1]",
        ["n", "p", "X", "rep", "Adaline epoch", "SGD-sq epoch", "Adaline/SGD",
         "Adaline 10 ep", "SGD-sq 10 ep", "Adaline lstsq", "numpy lstsq",
         "lstsq ours/numpy", "max abs dw", "spread"],
        lines,
        ["max abs dw: largest difference between Adaline(solver='lstsq')'s "
         "(coef_, intercept_) and numpy's solution."],
    )  # fmt: skip


# ---------------------------------------------------------------------- compile time

COMPILE_SNIPPET = r"""
import json, time, warnings
start = time.perf_counter()
import numpy as np
import scipy.sparse as sp
import sklearn_linsep as sl
out = {"import sklearn_linsep": time.perf_counter() - start}
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
X = rng.standard_normal((200, 5))
y = np.where(X[:, 0] + 0.5 * rng.standard_normal(200) > 0, 1, -1)
Xs = sp.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
steps = [
    ("Perceptron dense, shuffle=True",
     lambda: sl.Perceptron(max_iter=5, tol=None, random_state=0).fit(X, y)),
    ("PocketPerceptron dense",
     lambda: sl.PocketPerceptron(max_iter=5, random_state=0).fit(X, y)),
    ("Adaline online dense",
     lambda: sl.Adaline(max_iter=5, tol=None, random_state=0).fit(X, y)),
    ("Perceptron dense, shuffle='blocks'",
     lambda: sl.Perceptron(max_iter=5, shuffle="blocks", random_state=0).fit(X, y)),
    ("Perceptron CSR", lambda: sl.Perceptron(max_iter=5, random_state=0).fit(Xs, y)),
    ("Perceptron dense again (compiled)",
     lambda: sl.Perceptron(max_iter=5, tol=None, random_state=0).fit(X, y)),
]
for name, fit in steps:
    start = time.perf_counter()
    fit()
    out[name] = time.perf_counter() - start
print(json.dumps(out))
"""


def first_fit_times():
    """Run the snippet in a fresh interpreter."""
    path = os.pathsep.join(filter(None, [PKG_ROOT, os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", COMPILE_SNIPPET],
        cwd=PKG_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["whole subprocess"] = time.perf_counter() - start
    return out


def measure_compile(repeats):
    """Median first-fit times in fresh interpreters."""
    runs = [first_fit_times() for _ in range(repeats)]
    lines = [
        [step, fmt_time(statistics.median(run[step] for run in runs))]
        for step in runs[0]
    ]
    print_table(
        f"0. First fits in a fresh interpreter, tiny data (200 x 5), median of "
        f"{repeats} subprocesses",
        ["step (in this order)", "seconds"],
        lines,
        ["Each step's first fit pays for the imports it is the first to need; "
         "the last row is the steady-state cost of such a fit."],
    )  # fmt: skip


# ------------------------------------------------------------------------------ main


def cases(args):
    if args.quick:
        return [(100_000, 10, False)]
    return [
        (100_000, 10, False),
        (100_000, 100, False),
        (1_000_000, 10, False),
        (1_000_000, 100, False),
        (100_000, 1000, True),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="n = 1e5, p = 10 only (smoke run)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="timings per candidate (default 7 at n=1e5, 5 at n=1e6)",
    )
    parser.add_argument(
        "--compile-repeats",
        type=int,
        default=3,
        help="fresh interpreters for the first-fit times (default 3)",
    )
    parser.add_argument(
        "--skip-compile", action="store_true", help="skip the compile-time runs"
    )
    parser.add_argument(
        "--steady-memory",
        action="store_true",
        help="re-run with glibc malloc never returning memory to the kernel",
    )
    args = parser.parse_args()
    if args.steady_memory and any(
        os.environ.get(key) != value for key, value in STEADY_MALLOC.items()
    ):
        # glibc reads these at start-up: start afresh with them set.
        sys.stdout.flush()
        env = {**os.environ, **STEADY_MALLOC}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    warnings.simplefilter("ignore")  # ConvergenceWarning at every fit: expected here

    started = time.perf_counter()
    print_machine(
        versions=(
            f"numpy {np.__version__}",
            f"scipy {scipy.__version__}",
            f"sklearn {sklearn.__version__}",
        ),
        environment=tuple(STEADY_MALLOC),
        root=PKG_ROOT,
    )
    print_mlxtend()
    if not args.skip_compile:
        measure_compile(args.compile_repeats)

    results = {}
    all_mismatches = []
    for case in cases(args):
        n, p, sparse = case
        case_start = time.perf_counter()
        X, y = make_data(n, p, sparse=sparse)
        repeats = args.repeats or (7 if n <= 100_000 else 5)
        results[case], mismatches = run_case(X, y, repeats)
        results[case]["repeats"] = repeats
        all_mismatches += [f"n={n:.0e} p={p}: {m}" for m in mismatches]
        print(
            f"(case n={n:.0e}, p={p}, {'CSR' if sparse else 'dense'} done in "
            f"{time.perf_counter() - case_start:.0f} s)",
            flush=True,
        )
        del X, y
        gc.collect()
    print()

    print_tables(results)
    print_targets(results)
    if all_mismatches:
        print("n_iter_ != max_iter (the fit stopped early):")
        for line in all_mismatches:
            print(f"    {line}")
    else:
        print("n_iter_ == max_iter for every timed fit (ours and scikit-learn's).")
    print(f"total run time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
