"""Linear probes: embeddings and TF-IDF text, ours against the peers, each call in a
process of its own under a time and an address-space cap.

Run from the repository root (the ``bench`` extra: threadpoolctl)::

    python benchmarks/bench_probes.py                      # the issue's shapes
    python benchmarks/bench_probes.py --quick              # 20 000 x 256, 2 000 docs
    python benchmarks/bench_probes.py --only text --time-cap 60
    python benchmarks/bench_probes.py --calls Perceptron    # both perceptrons only
    python benchmarks/bench_probes.py --only text --text-docs 1733   # the issue's size
    python benchmarks/bench_probes.py --n 100000 --p 1024 --dtype float32 --classes 5

Workloads (made once, saved to a temporary directory, loaded by every process):

* **embeddings**: ``n × p`` (``--dtype``), a low-rank signal (rank 50, singular values
  decaying as 1/k) plus isotropic noise, as an encoder's layer gives; two classes
  shifted apart along one random direction, by ``--shift-separable`` noise units
  (separable at the default) and by ``--shift-inseparable`` (they overlap);
  with ``--classes K > 2``, K classes along K directions (the separable shift).
* **text**: TF-IDF (scikit-learn's ``TfidfVectorizer``, ``--text-features`` columns,
  CSR) of the docstrings of installed packages, read from their sources with ``ast``
  (nothing is imported), each labelled by its package: scikit-learn against scipy
  (two classes; inseparable, one docstring occurs in both), the same without the
  docstrings that occur more than once (separable), then with numpy and pandas
  (four).

Each call runs in a fresh process with BLAS pinned to one thread, after a warm-up
call on 200 rows (imports are not timed), under ``--time-cap``
seconds and ``--memory-cap`` GB of address space; a call that hits a cap is printed
as "stopped at T s" or "over M GB". Columns: seconds; the process's peak resident
memory during the call (MB, from ``/proc/self/status``'s VmHWM, reset just before
it: interpreter, libraries and X included) and how much above what the process held
when the call started (+MB: what the call allocated at its peak); X's size; the
answer's check:
training accuracy, the separability verdict (S or I, ``verified`` when
``result.verify(X, y)`` holds), the angle. Ratios are ours against the peer named on
the row.
"""

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import machine_line  # noqa: E402

# ------------------------------------------------------------------------ workloads


def embeddings(n, p, dtype, shift, classes=2, seed=0):
    """Low-rank signal plus noise, ``classes`` groups shifted along random unit
    directions by ``shift`` noise units."""
    rng = np.random.default_rng(seed)
    rank = min(50, p)
    factors = rng.standard_normal((n, rank)) / np.arange(1, rank + 1)
    basis = np.linalg.qr(rng.standard_normal((p, rank)))[0].T
    X = 3.0 * factors @ basis + rng.standard_normal((n, p))
    y = rng.integers(0, classes, n)
    directions = np.linalg.qr(rng.standard_normal((p, classes)))[0].T
    X += shift * directions[y]
    return X.astype(dtype), y


def docstrings(package):
    """Every module, class and function docstring in ``package``'s sources."""
    spec = __import__("importlib.util").util.find_spec(package)
    texts = []
    for path in sorted(Path(spec.origin).parent.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
                text = ast.get_docstring(node)
                if text and len(text) > 40:
                    texts.append(text)
    return texts


def corpus(packages, features, limit=None):
    """TF-IDF CSR of the packages' docstrings, labelled by package."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts, labels = [], []
    for label, package in enumerate(packages):
        found = docstrings(package)[:limit]
        texts += found
        labels += [label] * len(found)
    X = TfidfVectorizer(max_features=features, dtype=np.float64).fit_transform(texts)
    return X.tocsr(), np.asarray(labels)


def without_repeats(X, y):
    """The rows of X that occur once (a docstring repeated across packages is what
    makes the two-class corpus inseparable)."""
    keys = [
        (tuple(X.indices[a:b]), X.data[a:b].tobytes())
        for a, b in zip(X.indptr[:-1], X.indptr[1:], strict=True)
    ]
    seen = {}
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
    once = np.array([seen[key] == 1 for key in keys])
    return X[once], y[once]


def save(directory, name, X, y):
    if sp.issparse(X):
        sp.save_npz(directory / f"{name}.X.npz", X)
    else:
        np.save(directory / f"{name}.X.npy", X)
    np.save(directory / f"{name}.y.npy", y)
    return name


# ---------------------------------------------------------------------------- calls

# name -> (code that makes `result` from X and y, check on result, peer to compare)
CALLS = {
    "FisherDiscriminant().fit": (
        "from sklearn_linsep import FisherDiscriminant\n"
        "result = FisherDiscriminant().fit(X, y)",
        "f'acc {result.score(X, y):.4f}'",
        ("LDA(solver='lsqr').fit", "X.T @ X"),
    ),
    "X.T @ X": (  # the statistics' yardstick: one product in X's dtype
        "result = X.T @ X",
        "''",
        None,
    ),
    "LDA(solver='lsqr').fit": (
        "from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as L\n"
        "result = L(solver='lsqr').fit(X, y)",
        "f'acc {result.score(X, y):.4f}'",
        None,
    ),
    "LDA(solver='eigen').fit": (
        "from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as L\n"
        "result = L(solver='eigen').fit(X, y)",
        "f'acc {result.score(X, y):.4f}'",
        None,
    ),
    "separability_statistics": (
        "from sklearn_linsep import separability_statistics\n"
        "result = separability_statistics(X, y)",
        "f'theta {result.degrees:.3f} deg'",
        ("LDA(solver='lsqr').fit", "X.T @ X"),
    ),
    "linear_separability": (
        "from sklearn_linsep import linear_separability\n"
        "result = linear_separability(X, y)",
        "verdicts(result, X, y)",
        "HiGHS LP",
    ),
    "HiGHS LP": (
        "from scipy.optimize import linprog\n"
        "Xc = sp.csr_matrix(X) if sp.issparse(X) else X\n"
        "c = np.where(y == y[0], -1.0, 1.0)\n"
        "ones = np.ones((X.shape[0], 1))\n"
        "A = (sp.hstack([Xc, ones]) if sp.issparse(X) else np.hstack([X, ones]))\n"
        "A = -(sp.diags(c) @ A) if sp.issparse(X) else -(c[:, None] * A)\n"
        "result = linprog(np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(X.shape[0]),\n"
        "                 bounds=(None, None), method='highs')",
        "{0: 'S', 2: 'I'}.get(result.status, f'status {result.status}')",
        None,
    ),
    "HardMarginSVM().fit": (
        "from sklearn_linsep import HardMarginSVM\nresult = HardMarginSVM().fit(X, y)",
        "f'acc {result.score(X, y):.4f}'",
        "SVC(C=1e10).fit",
    ),
    "SVC(C=1e10).fit": (
        "from sklearn.svm import SVC\nresult = SVC(kernel='linear', C=1e10).fit(X, y)",
        "f'acc {result.score(X, y):.4f}'",
        None,
    ),
    "LinearSVC().fit": (
        "from sklearn.svm import LinearSVC\nresult = LinearSVC().fit(X, y)",
        "f'acc {result.score(X, y):.4f}'",
        None,
    ),
    "Perceptron().fit": (
        "from sklearn_linsep import Perceptron\nresult = Perceptron().fit(X, y)",
        "f'acc {result.score(X, y):.4f}, {result.n_iter_} epochs'",
        "sklearn Perceptron().fit",
    ),
    "sklearn Perceptron().fit": (
        "from sklearn.linear_model import Perceptron\nresult = Perceptron().fit(X, y)",
        "f'acc {result.score(X, y):.4f}, {result.n_iter_} epochs'",
        None,
    ),
    "SGDClassifier().fit": (
        "from sklearn.linear_model import SGDClassifier\n"
        "result = SGDClassifier().fit(X, y)",
        "f'acc {result.score(X, y):.4f}'",
        None,
    ),
}
TWO_CLASS_ONLY = {"separability_statistics", "HiGHS LP"}
# K classes: each pair's linear_separability alone (the rows of its two classes),
# timed one by one; the target is the K-class call within 3x the slowest of them.
CALLS["each pair alone"] = (
    "import time\n"
    "from sklearn_linsep import linear_separability\n"
    "result = {}\n"
    "labels = np.unique(y)\n"
    "for i, a in enumerate(labels):\n"
    "    for b in labels[i + 1:]:\n"
    "        rows = (y == a) | (y == b)\n"
    "        Xp, yp = X[rows], y[rows]\n"
    "        start = time.perf_counter()\n"
    "        linear_separability(Xp, yp)\n"
    "        result[a, b] = time.perf_counter() - start",
    "f'slowest pair {max(result.values()):.2f} s'",
    None,
)
MULTI_CLASS_ONLY = {"each pair alone"}

CHILD = """
import json, resource, sys, time, warnings
cap = int({memory_cap} * 2**30)
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
import numpy as np, scipy.sparse as sp
from threadpoolctl import threadpool_limits
threadpool_limits(1)
warnings.simplefilter("ignore")
base = {base!r}
X = sp.load_npz(base + ".X.npz") if {sparse} else np.load(base + ".X.npy")
y = np.load(base + ".y.npy")
def run(X, y):
{code}
    return result
def verdicts(result, X, y):
    if not isinstance(result, dict):  # two classes
        ok = result.verify(X, y)
        return ('S' if result.separable else 'I') + (' verified' if ok else ' FALSE')
    pairs = list(result.values())  # K classes: one result per pair
    separable = sum(pair.separable for pair in pairs)
    return f'{{separable}} of {{len(pairs)}} pairs S' + (
        ' verified' if all(pair.verify(X, y) for pair in pairs) else ' FALSE')
try:
    warm = np.concatenate([np.flatnonzero(y == k)[:200 // len(np.unique(y))]
                           for k in np.unique(y)])
    run(X[warm], y[warm])
except Exception:
    pass
def status(field):  # kB, of this process's memory map (reset by exec, unlike ru_maxrss)
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field))
before = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak resident size starts again from the current one
start = time.perf_counter()
try:
    result = run(X, y)
    seconds = time.perf_counter() - start
    check = {check}
except MemoryError:
    print(json.dumps({{"error": "memory"}})); sys.exit(0)
except Exception as error:
    print(json.dumps({{"error": f"{{type(error).__name__}}: {{error}}"[:70]}}))
    sys.exit(0)
peak = status("VmHWM:")
print(json.dumps({{"seconds": seconds, "peak_mb": peak / 1024,
                  "grew_mb": (peak - before) / 1024,
                  "x_mb": (X.data.nbytes + X.indices.nbytes if sp.issparse(X)
                           else X.nbytes) / 2**20, "check": check}}))
"""


def run_call(name, base, sparse, args):
    code, check, _ = CALLS[name]
    indented = "\n".join("    " + line for line in code.splitlines())
    child = CHILD.format(memory_cap=args.memory_cap, base=str(base), sparse=sparse,
                         code=indented, check=check)  # fmt: skip
    try:
        done = subprocess.run([sys.executable, "-c", child], capture_output=True,
                              text=True, timeout=args.time_cap)  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"error": f"stopped at {args.time_cap:g} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        killed = done.returncode < 0 or "MemoryError" in done.stderr
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"error": f"over {args.memory_cap:g} GB" if killed else tail[0][:70]}
    answer = json.loads(lines[-1])
    if answer.get("error") == "memory":
        answer["error"] = f"over {args.memory_cap:g} GB"
    return answer


def _ratio(answer, peer, answers):
    if "seconds" in answers[peer]:
        return f"{answer['seconds'] / answers[peer]['seconds']:.2f}x {peer}"
    return f"({peer}: {answers[peer]['error']})"


def table(title, base, sparse, names, args):
    print(f"## {title}")
    print(f"{'call':<28} {'seconds':>9} {'peak MB':>9} {'+MB':>7} {'X MB':>7}  "
          f"{'check':<34} vs peer")  # fmt: skip
    answers = {}
    for name in names:
        answers[name] = answer = run_call(name, base, sparse, args)
        peers = CALLS[name][2]
        peers = (peers,) if isinstance(peers, str) or peers is None else peers
        if "error" in answer:
            print(f"{name:<28} {answer['error']}")
            continue
        ratio = ", ".join(_ratio(answer, peer, answers) for peer in peers
                          if peer in answers)  # fmt: skip
        print(f"{name:<28} {answer['seconds']:9.2f} {answer['peak_mb']:9.0f} "
              f"{answer['grew_mb']:7.0f} {answer['x_mb']:7.0f}  "
              f"{answer['check']:<34} {ratio}")  # fmt: skip
    print()


ORDER = [  # peers first, so that each of ours prints its ratio
    "X.T @ X",
    "LDA(solver='lsqr').fit",
    "LDA(solver='eigen').fit",
    "FisherDiscriminant().fit",
    "separability_statistics",
    "HiGHS LP",
    "each pair alone",
    "linear_separability",
    "SVC(C=1e10).fit",
    "LinearSVC().fit",
    "HardMarginSVM().fit",
    "sklearn Perceptron().fit",
    "SGDClassifier().fit",
    "Perceptron().fit",
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["embeddings", "text"])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--p", type=int, default=768)
    parser.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    parser.add_argument("--classes", type=int, default=2)
    parser.add_argument("--shift-separable", type=float, default=12.0)
    parser.add_argument("--shift-inseparable", type=float, default=2.0)
    parser.add_argument("--text-features", type=int, default=40_000)
    parser.add_argument(
        "--text-docs", type=int, metavar="N",
        help="the first N docstrings of each package (the issue's corpus had "
        "about 1 733 per package: 3 466 x 40 000 for two classes)",
    )  # fmt: skip
    parser.add_argument("--time-cap", type=float, default=150.0)
    parser.add_argument("--memory-cap", type=float, default=10.0, help="GB")
    parser.add_argument(
        "--calls", nargs="+", metavar="TEXT",
        help="only the calls whose name contains one of these (peers included "
        "only when named), e.g. --calls Perceptron",
    )  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.n, args.p, args.text_features = 20_000, 256, 10_000
    print(machine_line())
    print(
        f"caps: {args.time_cap:g} s and {args.memory_cap:g} GB per call; "
        "BLAS at 1 thread; one process per call\n"
    )
    names = [name for name in ORDER
             if (args.classes == 2 or name not in TWO_CLASS_ONLY)
             and (args.classes > 2 or name not in MULTI_CLASS_ONLY)]  # fmt: skip
    if args.calls:
        names = [name for name in names if any(text in name for text in args.calls)]
    with tempfile.TemporaryDirectory(prefix="probes-") as temporary:
        directory = Path(temporary)
        if args.only in (None, "embeddings"):
            for kind, shift in (("separable", args.shift_separable),
                                ("inseparable", args.shift_inseparable)):  # fmt: skip
                X, y = embeddings(args.n, args.p, args.dtype, shift, args.classes)
                base = directory / save(directory, kind.replace(" ", "-"), X, y)
                title = (
                    f"embeddings {args.n} x {args.p} {args.dtype}, "
                    f"{args.classes} classes, {kind} (shift {shift:g})"
                )
                table(title, base, False, names, args)
        if args.only in (None, "text"):
            limit = 1000 if args.quick else args.text_docs
            for packages in (("sklearn", "scipy"),
                             ("sklearn", "scipy", "numpy", "pandas")):  # fmt: skip
                X, y = corpus(packages, args.text_features, limit)
                base = directory / save(directory, f"text-{len(packages)}", X, y)
                title = (
                    f"text: TF-IDF of the docstrings of {', '.join(packages)}, "
                    f"{X.shape[0]} x {X.shape[1]} CSR, {X.nnz} non-zeros"
                )
                two = len(packages) == 2
                chosen = [name for name in names if name != "X.T @ X"
                          and (two or name not in TWO_CLASS_ONLY)
                          and not (two and name in MULTI_CLASS_ONLY)]  # fmt: skip
                table(title, base, True, chosen, args)
                if two:  # and separable: the maximal margin of text
                    X, y = without_repeats(X, y)
                    base = directory / save(directory, "text-2-once", X, y)
                    title = (
                        f"text: the same without the repeated docstrings, "
                        f"{X.shape[0]} x {X.shape[1]} CSR, {X.nnz} non-zeros"
                    )
                    table(title, base, True, chosen, args)


if __name__ == "__main__":
    main()
