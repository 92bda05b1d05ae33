"""Two commits of sklearn_linsep timed against each other, nothing else moving.

Run from anywhere in the repository, with the benchmarks' environment
(threadpoolctl, cvxpy; cvxopt, which ``bench_exact_core.py`` imports, may be
missing) and a C compiler (each revision's kernels are built)::

    python benchmarks/bench_compare.py HEAD~1 WORKTREE --only exact
    python benchmarks/bench_compare.py main WORKTREE                 # both tables
    python benchmarks/bench_compare.py HEAD~5 HEAD --only multiclass --repeats 5
    python benchmarks/bench_compare.py HEAD~3 HEAD --only "1e6 x 20"   # named rows
    python benchmarks/bench_compare.py HEAD~1 HEAD --all             # huge rows too
    python benchmarks/bench_compare.py HEAD HEAD --list              # the workloads

``OLD`` and ``NEW`` are git revisions (a commit, a branch, ``HEAD~3``) or the word
``WORKTREE``: the current checkout as it is, uncommitted edits included (its
kernels as last built there: the script warns where a ``.pyx`` is newer than its
extension, and builds nothing in it). A revision is checked out with ``git
worktree add --detach`` under a temporary directory, its kernels built there
(``python setup.py build_ext --inplace``), and the worktree removed at the end,
also on an error or Ctrl-C; two sides at the same commit share one worktree.

Each side runs in its own long-lived worker process (this script with
``--worker``), started with ``PYTHONPATH=<that tree>`` from a directory outside
the repository, so that ``import sklearn_linsep`` is that tree's copy (printed,
and checked). The parent makes no data and imports no sklearn_linsep: it names a
workload over the worker's stdin (JSON lines); the worker builds its data from a
fixed seed with the generators of ``bench_exact_core.py`` and
``bench_multiclass.py`` (imported from this script's directory, so both sides get
the same arrays whatever the commits' own benchmark scripts say), calls our code
once and answers the seconds (``time.perf_counter`` after a garbage collection,
``_harness.timed``) and a fingerprint of the answer.

Per workload: both workers build the data (untimed), each side makes one
warm-up call (old, then new), then ``--repeats`` timed calls per side in ABBA
order (old new, new old, old new, ...), so that a drift of the machine's load
hits both sides alike. Printed: the medians, new / old (below 1: the new commit
is faster), the spread (the larger max / min of a side's timings: the noise), and
whether the answers agree: the verdict (S separable, I not), the margin (or, on
inseparable data, the total hinge) to 6 significant digits; on several answers
(one-vs-rest, a batch of small cases) all of them, shown shortened. Only our
code is timed: the peers of the two tables (SVC, LinearSVC, HiGHS, cvxopt, cvxpy)
are left out.

Workloads (``--list`` prints them with the rough seconds a call takes here):

* ``exact`` (the tables of ``bench_exact_core.py``): ``HardMarginSVM().fit`` on
  separable data at every shape of its grid (``make_separable``) and of its
  ``--quick`` grid; ``linear_separability`` at the same shapes, separable and
  with 20 labels flipped; the C -> inf soft limit (tall 1e6 x 20 with 10 labels
  flipped, 1e5 x 50 with 20 flipped and pure noise, isotropic embeddings 5e4 x
  768, and the ``--quick`` 1e5 x 20 and 1e4 x 768); one-vs-rest on 4-class
  sparse text (600 x 5000, 3000 x 20000); ``linear_separability`` on float rows
  of low rank (``bench_exact.py``'s part 9); ``HardMarginSVM().fit`` on Gaussian
  rows with random labels, p ≫ n (200 x 2000, 500 x 5000: every row a support
  vector).
* ``multiclass`` (the tables of ``bench_multiclass.py``):
  ``linear_separability(multiclass="joint")`` on every data set of its part 1
  (digits, wine, iris, the synthetic shapes) and of its part 4 (against the
  peers), ``HardMarginSVM(multi_class="crammer_singer").fit`` on part 4's data,
  the joint verdict on part 2's 200 random small cases and the Crammer-Singer
  fit on part 3's 100 small cases (one call: all the cases).

By default the rows whose call takes more than ``--skip-above`` seconds (20) on
this 2-core machine are skipped and listed; ``--all`` includes them, and so
does naming them with ``--only TEXT`` (any text: the rows whose name contains
it, case-insensitive; ``exact`` and ``multiclass`` pick a table). BLAS and
OpenMP threads: ``--threads`` (default 1, or ``default``), set with
threadpoolctl in each worker. The output is markdown, ready for RESULTS.md.
"""

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from typing import NamedTuple

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from _harness import ENVIRONMENT, REPOSITORY, cpu_model, timed  # noqa: E402

# ------------------------------------------------------------------ the workloads


class Workload(NamedTuple):
    name: str  # unique; what --only matches
    group: str  # "exact" or "multiclass"
    kind: str  # how the worker makes its data and what it calls
    args: tuple
    seconds: float  # rough seconds of one call on the 2-core reference machine


def short(n):
    """100000 -> '1e5', 50000 -> '5e4', 2000 -> '2000'."""
    digits = str(n).rstrip("0")
    if n >= 10_000 and len(digits) == 1:
        return f"{digits}e{len(str(n)) - 1}"
    return str(n)


# bench_exact_core.SVM_GRID and QUICK_GRID (the workers report the script's own,
# and the parent warns of any shape missing here).
EXACT_GRID = [(100_000, 20), (1_000_000, 20), (10_000, 100), (100_000, 100),
              (200, 2000), (1000, 500), (2000, 2000)]  # fmt: skip
EXACT_QUICK = [(10_000, 20), (10_000, 100), (200, 2000), (1000, 500), (2000, 2000)]
# bench_multiclass.shapes() and peer_cases() (the worker finds them by name).
MULTICLASS_SHAPES = [
    "digits, standardised (1797 x 64, K=10)",
    "digits, raw",
    "wine, raw (178 x 13, K=3)",
    "iris, raw (150 x 4, K=3), inseparable",
    "tall (2e4 x 20, K=5)",
    "tall, 10 labels changed, inseparable",
    "p = 100 (2000 x 100, K=5)",
    "wide (2000 x 256, K=10)",
]
MULTICLASS_PEERS = [
    "wide dense 2000 x 256, K=10",
    "square 1000 x 1000, K=4",
    "text 600 x 5000 CSR, K=4",
    "text 3000 x 20000 CSR, K=4",
]

# Rough seconds of one call (BLAS on one thread, the other core busy with tests)
# on the 2-core machine the script was written on, at commit 50f32e1: what the
# default skip goes by. The rows not listed took under a second.
ESTIMATES = {
    "low rank 1000 x 500, rank 40, 5 flipped": 160,  # before b6883f6; 5.7 s since
    "low rank 500 x 1000, rank 30, 5 flipped": 4.0,
    "soft: tall 1e6 x 20, 10 flipped": 1.3,
    "soft: 1e5 x 50, 20 flipped": 1.2,
    "soft: 1e5 x 50, pure noise": 2.2,
    "soft: embeddings 5e4 x 768": 24.0,
    "soft: embeddings 1e4 x 768 (quick)": 4.7,
    "one-vs-rest text 3000 x 20000 CSR, K=4": 1.7,
    "joint: wide (2000 x 256, K=10)": 2.6,
    "joint: wide dense 2000 x 256, K=10": 2.5,
    "Crammer-Singer: wide dense 2000 x 256, K=10": 2.6,
    "joint: text 3000 x 20000 CSR, K=4": 4.6,
    "Crammer-Singer: text 3000 x 20000 CSR, K=4": 4.5,
}


def catalogue():
    """Every workload, in the order of the two tables."""
    out = []
    grid = EXACT_GRID + [shape for shape in EXACT_QUICK if shape not in EXACT_GRID]
    for n, p in grid:
        quick = " (quick grid)" if (n, p) not in EXACT_GRID else ""
        out.append(Workload(f"HardMarginSVM {short(n)} x {p}{quick}", "exact", "svm",
                            (n, p), 0))  # fmt: skip
    for n, p in grid:
        quick = " (quick grid)" if (n, p) not in EXACT_GRID else ""
        for kind in ("separable", "20 flipped"):
            out.append(Workload(f"linear_separability {short(n)} x {p}, {kind}{quick}",
                                "exact", "separability", (n, p, kind), 0))  # fmt: skip
    for name, args in (
        ("soft: tall 1e6 x 20, 10 flipped", ("tall", 1_000_000)),
        ("soft: tall 1e5 x 20, 10 flipped (quick)", ("tall", 100_000)),
        ("soft: 1e5 x 50, 20 flipped", ("flipped", 100_000)),
        ("soft: 1e5 x 50, pure noise", ("noise", 100_000)),
        ("soft: embeddings 5e4 x 768", ("embeddings", 50_000)),
        ("soft: embeddings 1e4 x 768 (quick)", ("embeddings", 10_000)),
    ):
        out.append(Workload(name, "exact", "soft", args, 0))
    for n, p in ((600, 5000), (3000, 20000)):
        out.append(Workload(f"one-vs-rest text {n} x {p} CSR, K=4", "exact", "text",
                            (n, p), 0))  # fmt: skip
    for n, p, rank, flips in ((1_000, 500, 40, 5), (1_000, 100, 8, 3),
                              (500, 1_000, 30, 5)):  # fmt: skip
        out.append(Workload(f"low rank {short(n)} x {p}, rank {rank}, {flips} flipped",
                            "exact", "low rank", (n, p, rank, flips), 0))  # fmt: skip
    for n, p in ((200, 2000), (500, 5000)):
        out.append(Workload(f"HardMarginSVM {n} x {p}, random labels", "exact",
                            "random labels", (n, p), 0))  # fmt: skip
    for kind, shift in (("separable", 12.0), ("inseparable", 2.0)):  # bench_pairs.py
        out.append(Workload(f"pairs: embeddings 1e4 x 256 float32, K=5, {kind}",
                            "exact", "pairs", ("embeddings", shift), 0))  # fmt: skip
    out.append(Workload("pairs: digits, standardised (45 pairs)", "exact", "pairs",
                        ("digits",), 0))  # fmt: skip
    for name in MULTICLASS_SHAPES:
        out.append(Workload(f"joint: {name}", "multiclass", "joint", (name,), 0))
    out.append(Workload("joint: 200 random small cases (one call: all)", "multiclass",
                        "random", (200,), 0))  # fmt: skip
    out.append(Workload("Crammer-Singer: 100 small cases (one call: all)",
                        "multiclass", "margins", (100,), 0))  # fmt: skip
    for name in MULTICLASS_PEERS:
        out.append(Workload(f"joint: {name}", "multiclass", "peers-joint", (name,), 0))
        out.append(Workload(f"Crammer-Singer: {name}", "multiclass", "peers-cs",
                            (name,), 0))  # fmt: skip
    return [w._replace(seconds=ESTIMATES.get(w.name, 0.0)) for w in out]


# --------------------------------------------------------------------- the worker


class Data:
    """What a worker builds a workload's data with (the benchmark scripts'
    generators, imported from this directory), and caches of the multiclass
    data sets, which are made all at once from one random stream."""

    def __init__(self):
        try:
            import cvxopt  # noqa: F401
        except ImportError:
            # bench_exact_core imports the peers' cvxopt (and sets an option of
            # it) at import. No peer is called here: where the bench extra is
            # not installed, a stand-in serves for that import only (cvxpy is
            # imported before, so that it does not take it for cvxopt).
            import types

            import cvxpy  # noqa: F401

            stand_in = types.ModuleType("cvxopt")
            stand_in.solvers = types.SimpleNamespace(options={})
            sys.modules["cvxopt"] = stand_in
            try:
                import bench_exact_core  # noqa: F401
            finally:
                del sys.modules["cvxopt"]
        import bench_exact_core
        import bench_multiclass

        self.core = bench_exact_core
        self.multiclass = bench_multiclass
        self._shapes = self._peers = None

    def shapes(self):
        if self._shapes is None:
            self._shapes = self.multiclass.shapes(False)
        return self._shapes

    def peers(self):
        if self._peers is None:
            self._peers = self.multiclass.peer_cases(False)
        return self._peers

    def make(self, workload):
        """``function()``: one call of our code on the workload's data."""
        import warnings

        import numpy as np

        from sklearn_linsep import HardMarginSVM, linear_separability

        core, kind, args = self.core, workload.kind, workload.args
        if kind in ("svm", "separability"):
            X, y, _ = core.make_separable(*args[:2])
            if kind == "svm":
                return lambda: HardMarginSVM().fit(X, y)
            labels = y if args[2] == "separable" else core.flip_labels(y, 20)
            return lambda: linear_separability(X, labels)
        if kind in ("soft", "text"):
            if kind == "text":
                X, y = self.multiclass.text_like(*args, 4)
            elif args[0] == "tall":  # as bench_exact_core.soft_cases
                X, y, _ = core.make_separable(args[1], 20)
                y = core.flip_labels(y, 10)
            elif args[0] == "embeddings":
                X, y = core.isotropic_embeddings(args[1], 768)
            else:
                X, y, _ = core.make_separable(args[1], 50)
                noise = np.random.default_rng(3).integers(0, 2, X.shape[0])
                y = core.flip_labels(y, 20) if args[0] == "flipped" else noise

            def fit():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return HardMarginSVM().fit(X, y)

            return fit
        if kind == "low rank":  # bench_exact.py's part 9
            import bench_exact

            X, y = bench_exact.low_rank_case(*args)
            return lambda: linear_separability(X, y)
        if kind == "random labels":  # p ≫ n: every row a support vector
            rng = np.random.default_rng(0)
            X, y = rng.standard_normal(args), rng.integers(0, 2, args[0])
            return lambda: HardMarginSVM().fit(X, y)
        if kind == "pairs":  # bench_pairs.py's workloads, every pair's answer
            import bench_pairs

            if args[0] == "digits":
                X, y = bench_pairs.digits()
            else:
                X, y = bench_pairs.embeddings(10_000, 256, "float32", args[1], 5)
            return lambda: list(linear_separability(X, y).values())
        joint = self.multiclass.joint
        if kind == "joint":
            X, y = self.shapes()[args[0]]
            return lambda: joint(X, y)
        if kind in ("peers-joint", "peers-cs"):
            X, y = self.peers()[args[0]]
            if kind == "peers-joint":
                return lambda: joint(X, y)
            return lambda: HardMarginSVM(multi_class="crammer_singer").fit(X, y)
        if kind == "random":
            cases = self.multiclass.random_cases(args[0])
            return lambda: [joint(X, y) for _, X, y in cases]
        if kind == "margins":
            cases = crammer_singer_cases(args[0])
            return lambda: [
                HardMarginSVM(multi_class="crammer_singer").fit(X, y) for X, y in cases
            ]
        raise ValueError(f"unknown workload kind {kind!r}")


def crammer_singer_cases(count, seed=1):
    """The small cases of ``bench_multiclass.part_crammer_singer`` (its loop
    draws them inline): K = 3-6 classes of a random linear machine, n = 3K-10K,
    p = 2-5, scaled by 1e-3, 1 or 1e3."""
    import numpy as np

    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        K, p = int(rng.integers(3, 7)), int(rng.integers(2, 6))
        n = int(rng.integers(3 * K, 10 * K))
        X = rng.normal(size=(n, p)) * rng.choice([1e-3, 1.0, 1e3])
        y = np.argmax(X @ rng.normal(size=(K, p)).T + rng.normal(size=K), axis=1)
        if np.unique(y).size == K:
            cases.append((X, y))
    return cases


def g6(value):
    return f"{float(value):.6g}"


def fingerprint(answer):
    """``(shown, key)``: a short text of the answer for the table, and the full
    text the two sides' answers are compared by (verdicts; margins, or total
    hinges where inseparable, to 6 significant digits)."""
    import numpy as np

    if isinstance(answer, list):  # a batch of small cases
        keys = [fingerprint(one)[1] for one in answer]
        key = "|".join(keys)
        digest = hashlib.sha1(key.encode()).hexdigest()[:6]
        separable = sum(k.startswith("S") for k in keys)
        return f"{separable}/{len(keys)} S #{digest}", key
    if hasattr(answer, "separable_"):  # a fitted HardMarginSVM
        separable = np.atleast_1d(answer.separable_)
        margin = np.atleast_1d(answer.margin_)
        hinge = np.atleast_1d(getattr(answer, "hinge_violation_", np.nan))
    else:  # a linear_separability result
        separable = np.atleast_1d(answer.separable)
        margin = np.atleast_1d(answer.margin if answer.separable else np.nan)
        hinge = np.full(separable.shape, np.nan)
    parts = []
    for i, ok in enumerate(separable):
        if ok:
            parts.append(f"S m={g6(margin[min(i, margin.size - 1)])}")
        else:
            h = hinge[min(i, hinge.size - 1)]
            known = h is not None and np.isfinite(float(h))
            parts.append(f"I h={g6(h)}" if known else "I")
    key = "; ".join(parts)
    if len(parts) == 1:
        return key, key
    digest = hashlib.sha1(key.encode()).hexdigest()[:6]
    verdicts = "".join(part[0] for part in parts)
    return f"{verdicts} #{digest}", key


def worker(threads):
    """Answer the parent's JSON lines on stdin, one JSON line each on stdout."""
    # Our replies go to a private copy of stdout; anything else printed goes to
    # stderr, so that no stray print breaks the protocol.
    reply_to = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)

    def reply(**message):
        reply_to.write(json.dumps(message) + "\n")

    try:
        import warnings

        warnings.simplefilter("ignore")
        import numpy
        import scipy
        import sklearn
        from threadpoolctl import threadpool_limits

        import sklearn_linsep
        from _harness import blas_description

        data = Data()
        limits = None if threads == "default" else int(threads)
        threadpool_limits(limits=limits)
    except BaseException:  # noqa: BLE001 - reported to the parent
        reply(error=traceback.format_exc())
        return
    reply(
        file=sklearn_linsep.__file__,
        versions=[f"numpy {numpy.__version__}", f"scipy {scipy.__version__}",
                  f"scikit-learn {sklearn.__version__}"],  # fmt: skip
        blas=blas_description(),
        grids=[data.core.SVM_GRID, data.core.QUICK_GRID],
    )
    workloads = {w.name: w for w in catalogue()}
    call = None
    for line in sys.stdin:
        message = json.loads(line)
        try:
            if message["op"] == "prepare":
                call = None
                import gc

                gc.collect()
                start = time.perf_counter()
                call = data.make(workloads[message["name"]])
                # Libraries loaded since (by a lazy import) get the limit too.
                threadpool_limits(limits=limits)
                reply(seconds=time.perf_counter() - start)
            elif message["op"] == "run":
                seconds, answer = timed(call)
                shown, key = fingerprint(answer)
                del answer
                reply(seconds=seconds, shown=shown, key=key)
        except Exception as error:  # noqa: BLE001 - reported, the next one goes on
            reply(error=f"{type(error).__name__}: {error}",
                  traceback=traceback.format_exc())  # fmt: skip


# --------------------------------------------------------------------- the parent


def git(*args, cwd=REPOSITORY):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


class Side:
    """One side of the comparison: its tree and its worker process."""

    def __init__(self, label, revision):
        self.label, self.revision = label, revision
        self.process = None
        if revision == "WORKTREE":
            self.commit, self.tree = None, REPOSITORY
            head = git("rev-parse", "HEAD")
            edited = git("status", "--porcelain", "--", "sklearn_linsep")
            count = len(edited.splitlines())
            self.describe = f"WORKTREE = {head[:10]}" + (
                f" + uncommitted edits ({count} path{'s' * (count != 1)} under "
                "sklearn_linsep)" if edited else " (no edits under sklearn_linsep)"
            )  # fmt: skip
        else:
            try:
                self.commit = git("rev-parse", "--verify", "--quiet",
                                  f"{revision}^{{commit}}")  # fmt: skip
            except subprocess.CalledProcessError:
                raise SystemExit(f"{label}: {revision!r} is not a git revision "
                                 "(nor WORKTREE)") from None  # fmt: skip
            subject = git("log", "-1", "--format=%cs %s", self.commit)
            self.describe = f"{revision} = {self.commit[:10]} ({subject[:70]})"
            self.tree = None

    def start(self, threads, cwd):
        env = dict(os.environ, PYTHONPATH=self.tree)
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", "--threads",
             threads], env=env, cwd=cwd, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip

    def send(self, **message):
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def receive(self):
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            raise SystemExit(f"the {self.label} worker died (exit {code}); its "
                             "stderr is above")  # fmt: skip
        return json.loads(line)

    def ask(self, **message):
        self.send(**message)
        return self.receive()

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        try:
            self.process.stdin.close()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def stale_kernels(tree):
    """The ``.pyx`` of ``tree`` newer than their built extension (or unbuilt)."""
    kernels = os.path.join(tree, "sklearn_linsep", "_kernels")
    stale = []
    for source in sorted(os.listdir(kernels)) if os.path.isdir(kernels) else ():
        if not source.endswith(".pyx"):
            continue
        stem = source[:-4]
        built = [os.path.join(kernels, name) for name in os.listdir(kernels)
                 if name.startswith(stem + ".")
                 and name.endswith((".so", ".pyd"))]  # fmt: skip
        mtime = os.path.getmtime(os.path.join(kernels, source))
        if not built or max(map(os.path.getmtime, built)) < mtime:
            stale.append(source)
    return stale


def prepare_trees(sides, scratch, made):
    """A worktree with built kernels for each commit (one per commit), each
    added to the list ``made`` (to remove, even if a later step fails)."""
    commits = {}
    for side in sides:
        if side.commit is None:
            stale = stale_kernels(side.tree)
            if stale:
                print(f"> warning: WORKTREE's kernels look stale ({', '.join(stale)} "
                      "newer than the built extension): run `python setup.py "
                      "build_ext --inplace` there first", file=sys.stderr)  # fmt: skip
            continue
        if side.commit in commits:
            side.tree = commits[side.commit]
            continue
        tree = os.path.join(scratch, side.commit[:10])
        made.append(tree)
        git("worktree", "add", "--detach", "--quiet", tree, side.commit)
        commits[side.commit] = side.tree = tree
        print(f"building the kernels of {side.label} ({side.commit[:10]}) in {tree}",
              file=sys.stderr, flush=True)  # fmt: skip
        start = time.perf_counter()
        build = subprocess.run(
            [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
            cwd=tree, capture_output=True, text=True,
        )  # fmt: skip
        if build.returncode:
            tail = "\n".join((build.stdout + build.stderr).strip().splitlines()[-15:])
            raise SystemExit(f"the kernels of {side.label} ({side.revision}, "
                             f"{side.commit[:10]}) failed to build (exit "
                             f"{build.returncode}):\n{tail}")  # fmt: skip
        print(f"  built in {time.perf_counter() - start:.0f} s", file=sys.stderr)


def remove_trees(trees):
    for tree in trees:
        if not os.path.isdir(tree):  # its `git worktree add` failed
            continue
        try:
            git("worktree", "remove", "--force", tree)
        except subprocess.CalledProcessError as error:
            print(f"> could not remove the worktree {tree}: {error.stderr.strip()}",
                  file=sys.stderr)  # fmt: skip
    if trees:
        subprocess.run(["git", "worktree", "prune"], cwd=REPOSITORY)


def select(args):
    """``(chosen, skipped)`` workloads."""
    every = catalogue()
    if args.only in (None, "exact", "multiclass"):
        chosen = [w for w in every if args.only in (None, w.group)]
        if args.all:
            return chosen, []
        return ([w for w in chosen if w.seconds <= args.skip_above],
                [w for w in chosen if w.seconds > args.skip_above])  # fmt: skip
    chosen = [w for w in every if args.only.lower() in w.name.lower()]
    if not chosen:
        raise SystemExit(f"no workload's name contains {args.only!r}; --list "
                         "lists them")  # fmt: skip
    return chosen, []


def seconds_cell(seconds):
    return f"{seconds:.4f}" if seconds < 10 else f"{seconds:.2f}"


def failed(workload, error):
    """The row of a workload whose data or call raised (its traceback is on
    stderr)."""
    text = " ".join(error.split()).replace("|", "\\|")[:160]
    return f"| {workload.name} | failed: {text} | | | | | |"


def compare(workload, old, new, repeats):
    """One markdown row: medians, new / old, spread, agreement, the answer."""
    old.send(op="prepare", name=workload.name)  # both build at once (untimed)
    new.send(op="prepare", name=workload.name)
    replies = [old.receive(), new.receive()]
    for reply in replies:
        print(reply.get("traceback", ""), end="", file=sys.stderr)
    errors = [f"{side.label}: {r['error']}" for side, r in zip((old, new), replies)
              if "error" in r]  # fmt: skip
    if errors:
        return failed(workload, errors[0])
    times = {old.label: [], new.label: []}
    answers = {old.label: set(), new.label: set()}
    shown = {}
    # The warm-ups (old, new), then ABBA: old new, new old, old new, ...
    turns = [(old, new), (new, old)]
    order = [old, new] + [side for r in range(repeats) for side in turns[r % 2]]
    for i, side in enumerate(order):
        reply = side.ask(op="run")
        if "error" in reply:
            print(reply.get("traceback", ""), end="", file=sys.stderr)
            return failed(workload, f"{side.label}: {reply['error']}")
        if i >= 2:  # the first two are the warm-ups
            times[side.label].append(reply["seconds"])
        answers[side.label].add(reply["key"])
        shown[side.label] = reply["shown"]
    before, after = (statistics.median(times[s.label]) for s in (old, new))
    spread = max(max(t) / min(t) for t in times.values())
    a, b = answers[old.label], answers[new.label]
    if len(a) > 1 or len(b) > 1:
        agree = "no (varies between calls)"
    else:
        agree = "yes" if a == b else "no"
    answer = shown[new.label] if a == b else f"{shown[old.label]} / {shown[new.label]}"
    return (f"| {workload.name} | {seconds_cell(before)} | {seconds_cell(after)} | "
            f"{after / before:.3f} | {spread:.2f} | {agree} | {answer} |")  # fmt: skip


TABLES = {
    "exact": "The exact core (bench_exact_core.py's workloads)",
    "multiclass": "K classes (bench_multiclass.py's workloads)",
}


def print_header(args, sides, handshakes):
    print(f"# bench_compare: {args.old} against {args.new}")
    print()
    print(f"- machine: {cpu_model()} ({os.cpu_count()} logical CPUs); "
          f"{platform.platform()}; python {platform.python_version()}")  # fmt: skip
    try:
        import psutil

        print(f"- memory: {psutil.virtual_memory().total / 1024**3:.1f} GiB")
    except ImportError:
        pass
    print(f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    for side, hello in zip(sides, handshakes):
        print(f"- {side.label}: {side.describe}; sklearn_linsep from {hello['file']}")
    print(f"- versions: {', '.join(handshakes[0]['versions'])}")
    print(f"- threads: --threads {args.threads} (threadpoolctl in each worker)")
    for line in handshakes[0]["blas"]:
        print(f"  - {line}")
    for var in ENVIRONMENT:
        print(f"- {var} = {os.environ.get(var, '(unset)')}")
    print(f"- timing: one warm-up call a side, then {args.repeats} a side in ABBA "
          "order; medians; new/old below 1: new is faster; spread: the larger "
          "max/min of a side's timings")  # fmt: skip
    print()


def check_grids(handshake):
    """Warn where bench_exact_core's grids have shapes this script lacks."""
    grid, quick = ([tuple(shape) for shape in g] for g in handshake["grids"])
    missing = [s for s in grid + quick if s not in EXACT_GRID + EXACT_QUICK]
    if missing:
        print(f"> warning: bench_exact_core's grids have shapes this script does not "
              f"time: {missing} (add them to EXACT_GRID / EXACT_QUICK)",
              file=sys.stderr)  # fmt: skip


def run(args):
    chosen, skipped = select(args)
    if args.list:
        for w in catalogue():
            mark = ("" if w in chosen else " (skipped)" if w in skipped
                    else " (not chosen)")  # fmt: skip
            rough = f"~{w.seconds:4.1f} s" if w.seconds else "  < 1 s"
            print(f"{w.group:>10}  {rough}  {w.name}{mark}")
        return
    old, new = Side("old", args.old), Side("new", args.new)
    sides = [old, new]
    scratch = tempfile.mkdtemp(prefix="bench_compare.")
    trees = []
    try:
        prepare_trees(sides, scratch, trees)
        outside = os.path.join(scratch, "cwd")  # the workers' cwd: outside the repo
        os.mkdir(outside)
        for side in sides:
            side.start(args.threads, outside)
        handshakes = []
        for side in sides:
            hello = side.receive()
            if "error" in hello:
                raise SystemExit(f"the {side.label} worker could not start:\n"
                                 f"{hello['error']}")  # fmt: skip
            imported = os.path.realpath(hello["file"])
            if not imported.startswith(os.path.realpath(side.tree) + os.sep):
                raise SystemExit(f"the {side.label} worker imported {imported}, not "
                                 f"the copy in {side.tree}")  # fmt: skip
            handshakes.append(hello)
        check_grids(handshakes[0])
        print_header(args, sides, handshakes)
        if skipped:
            print(f"Skipped, a call taking over {args.skip_above:g} s here (include "
                  "them with --all, or name them with --only TEXT):")  # fmt: skip
            for w in skipped:
                print(f"- {w.name} (~{w.seconds:.0f} s a call)")
            print()
        started = time.perf_counter()
        group = None
        for i, workload in enumerate(chosen):
            if workload.group != group:
                group = workload.group
                print(f"## {TABLES[group]}")
                print()
                print("| workload | old (s) | new (s) | new/old | spread | "
                      "answers agree | answer |")  # fmt: skip
                print("|---|---:|---:|---:|---:|---|---|")
            if sys.stderr.isatty():
                print(f"[{i + 1}/{len(chosen)}] {workload.name}", file=sys.stderr)
            print(compare(workload, old, new, args.repeats), flush=True)
            if i + 1 == len(chosen) or chosen[i + 1].group != group:
                print()
        print(f"({time.perf_counter() - started:.0f} s in all)")
    finally:
        for number in (signal.SIGINT, signal.SIGTERM):  # clean up, whatever comes
            signal.signal(number, signal.SIG_IGN)
        for side in sides:
            side.stop()
        remove_trees(trees)
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        usage="python benchmarks/bench_compare.py OLD NEW [--repeats 5] "
        "[--only exact|multiclass|TEXT] [--threads 1] [--all] [--list]",
    )
    parser.add_argument("old", nargs="?", metavar="OLD",
                        help="git revision, or WORKTREE (the checkout as it is)")
    parser.add_argument("new", nargs="?", metavar="NEW", help="likewise")
    parser.add_argument("--repeats", type=int, default=5,
                        help="timed calls a side per workload (after one warm-up)")
    parser.add_argument("--only", metavar="exact|multiclass|TEXT",
                        help="one table, or the workloads whose name contains TEXT")
    parser.add_argument("--threads", default="1",
                        help="BLAS/OpenMP threads in the workers: a number or "
                        "'default' (default 1)")
    parser.add_argument("--all", action="store_true",
                        help="include the workloads of over --skip-above seconds")
    parser.add_argument("--skip-above", type=float, default=20.0, metavar="SECONDS",
                        help="skip the workloads whose call takes longer here "
                        "(default 20)")
    parser.add_argument("--list", action="store_true",
                        help="list the workloads and exit")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.threads != "default" and not re.fullmatch(r"[1-9][0-9]*", args.threads):
        parser.error("--threads: a positive number or 'default'")
    if args.worker:
        worker(args.threads)
        return
    if not args.list and (args.old is None or args.new is None):
        parser.error("OLD and NEW are needed")
    if args.repeats < 1:
        parser.error("--repeats: at least 1")
    # A kill (SIGTERM) unwinds like Ctrl-C, so that the worktrees are removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        run(args)
    except KeyboardInterrupt:
        sys.exit("interrupted (the worktrees made are removed)")


if __name__ == "__main__":
    main()
