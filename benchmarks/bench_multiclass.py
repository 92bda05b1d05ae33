"""K classes jointly: ``linear_separability(multiclass="joint")`` against HiGHS on
the explicit Kesler LP, and ``HardMarginSVM(multi_class="crammer_singer")``
against cvxpy (Clarabel), in the same run.

Run from the repository root (the ``bench`` extra)::

    python benchmarks/bench_multiclass.py              # about 5 minutes
    python benchmarks/bench_multiclass.py --quick      # fewer cases, no HiGHS ipm

One BLAS thread (threadpoolctl). Parts:

1. **Shapes**: the joint verdict (answer verified with ``verify``) against
   scipy's HiGHS on the explicit Kesler LP (all n (K - 1) pairs as rows of a
   sparse matrix, ``linprog(0, A_ub=-A, b_ub=-1)``, every method: ``highs``
   chooses, ``highs-ds`` the dual simplex, ``highs-ipm`` the interior point;
   a peer whose verdict differs from ours, which is verified, is marked wrong),
   on standardised digits (the issue's target: >= 10x), raw digits, wine,
   iris, tall synthetic (2e4 x 20, K = 5), p = 100 (2 000 rows, K = 5) and
   embeddings (4 000 x 512, K = 10), separable and not. Medians; the ratio
   is HiGHS's time over ours. Resident memory growth of each, once.
2. **200 random small cases** (K = 3-6, n = 3K-10K, p = 2-5; the labels of a
   random linear machine, random labels, and rotated "pinwheels" that every
   pair separates and no machine does): the verdict against the explicit
   Kesler LP, every certificate and machine verified.
4. **Peers**: the joint verdict and the Crammer-Singer fit against
   ``SVC(kernel="linear", C=1e10)`` and ``LinearSVC(multi_class=
   "crammer_singer", C=1e3)`` on wide dense data (2 000 x 256, K = 10, argmax
   labels; issue 56's, class means 0.6 apart in every feature, K = 10 and 20),
   square data (1 000 x 1 000, K = 4) and sparse text (600 x 5 000 and
   3 000 x 20 000 CSR, K = 4; a TF-IDF of scikit-learn's, scipy's and
   numpy's docstrings, 10 684 x 30 000); the joint answer verified and equal
   to the Crammer-Singer fit's. Each call's peak memory: what Python's allocators
   trace (numpy's arrays) and the resident set's growth (libsvm's cache too).
3. **100 Crammer-Singer margins** against cvxpy (Clarabel at 1e-10, on X
   centred and scaled into [-1, 1], where it is accurate): the largest
   relative difference of W (the target: 1e-6), and the time of each.
5. **Fresh** (``--only fresh``, about 4 minutes): issue 56's text (each class half
   its words from a vocabulary slice of its own, half common Zipf words; 3 000 x
   20 000 with K = 4, 4 000 x 30 000 with K = 5, 3 000 x 20 000 with K = 6, 5 000
   x 20 000 with K = 4) and a TF-IDF of real documents (the docstrings of
   scikit-learn, scipy, numpy and pandas, without repeats: 14 767 x 36 761, K = 4),
   each call in a fresh process under a 4 GB address-space cap: the joint verdict
   (verified), the Crammer-Singer fit and SVC, seconds and the process's peak
   resident set (imports included, as a user's). ``--shape`` picks the cases
   whose names contain it.
6. **Rows under two labels** (``--only copied``, about a minute): classes of
   shifted Gaussians (sparse: nonnegative, a tenth of the entries kept), three
   rows copied under another label, K = 2 and 4, 400 x 100 to 1 000 x 100: the
   verdict (verified) and the fit (its C -> oo limit; Crammer-Singer for K = 4)
   against ``SVC(kernel="linear", C=1e3)`` and, for K = 4, LinearSVC-cs.
"""

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import (  # noqa: E402
    RSSSampler,
    median_seconds,
    peak_memory,
    print_machine,
    timed,
)


def kesler_lp(X, y, method, time_limit=None):
    """HiGHS on the explicit Kesler LP: ``True`` separable, ``False`` not, None
    when ``time_limit`` (seconds) came first."""
    from scipy.optimize import linprog

    from sklearn_linsep._kesler import kesler_matrix

    classes, codes = np.unique(y, return_inverse=True)
    K = len(classes)
    rows = np.repeat(np.arange(len(y)), K)
    others = np.tile(np.arange(K), len(y))
    keep = others != codes[rows]
    A = kesler_matrix(X[rows[keep]], codes[rows[keep]], others[keep], K)
    result = linprog(
        np.zeros(A.shape[1]),
        A_ub=-sp.csc_matrix(A),
        b_ub=-np.ones(A.shape[0]),
        bounds=(None, None),
        method=method,
        options={} if time_limit is None else {"time_limit": time_limit},
    )
    if result.status == 1 and time_limit is not None:
        return None
    if result.status not in (0, 2):
        raise RuntimeError(result.message)
    return result.status == 0


def joint(X, y):
    from sklearn_linsep import linear_separability

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return linear_separability(X, y, multiclass="joint")


def shapes(quick, only=None):
    from sklearn.datasets import load_digits, load_iris, load_wine
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    digits = load_digits(return_X_y=True)
    out = {
        "digits, standardised (1797 x 64, K=10)": (
            StandardScaler().fit_transform(digits[0]),
            digits[1],
        ),
        "digits, raw": (digits[0].astype(float), digits[1]),
        "wine, raw (178 x 13, K=3)": load_wine(return_X_y=True),
        "iris, raw (150 x 4, K=3), inseparable": load_iris(return_X_y=True),
    }
    for name, (n, p, K, flips) in {
        "tall (2e4 x 20, K=5)": (20000, 20, 5, 0),
        "tall, 10 labels changed, inseparable": (20000, 20, 5, 10),
        "p = 100 (2000 x 100, K=5)": (2000, 100, 5, 0),
        "wide (2000 x 256, K=10)": (2000, 256, 10, 0),
    }.items():
        if quick and n * p > 1e6 or only and only not in name:
            continue
        X = rng.normal(size=(n, p))
        y = np.argmax(X @ rng.normal(size=(K, p)).T, axis=1)
        changed = rng.choice(n, flips, replace=False)
        y[changed] = (y[changed] + 1) % K
        out[name] = (X, y)
    return {name: data for name, data in out.items() if not only or only in name}


def part_shapes(args):
    print("## 1. The joint verdict against HiGHS on the explicit Kesler LP")
    methods = ["highs", "highs-ds"] + ([] if args.quick else ["highs-ipm"])
    header = "| data | ours (s) | verdict | " + " | ".join(
        f"{m} (s) | ratio" for m in methods
    )
    print(header + " | ours RSS (MB) | highs RSS (MB) |")
    print("|" + "---|" * (3 + 2 * len(methods) + 2))
    targets = []
    for name, (X, y) in shapes(args.quick, args.shape).items():
        times = []
        for _ in range(args.repeats):
            seconds, result = timed(joint, X, y)
            times.append(seconds)
        ours = statistics.median(times)
        assert result.verify(X, y), name
        with RSSSampler() as ours_memory:
            joint(X, y)
        cells = [f"{ours:.3f}", "separable" if result.separable else "not"]
        highs_memory = None
        for method in methods:
            limit = args.highs_limit
            if highs_memory is None:
                with RSSSampler() as sampler:
                    seconds, verdict = timed(kesler_lp, X, y, method, limit)
                highs_memory = sampler.extra
            else:
                seconds, verdict = timed(kesler_lp, X, y, method, limit)
            if verdict is None:
                cells += [f"> {limit:g}", f"> {limit / ours:.1f}x"]
                continue
            # Ours is verified above; a peer that disagrees is wrong, and said so.
            wrong = "" if verdict == result.separable else " (wrong verdict)"
            cells += [f"{seconds:.2f}{wrong}", f"{seconds / ours:.1f}x"]
        memory = [f"{ours_memory.extra / 2**20:.0f}", f"{highs_memory / 2**20:.0f}"]
        print(f"| {name} | " + " | ".join(cells + memory) + " |", flush=True)
        if name.startswith("digits, standardised"):
            targets.append(f"{cells[3]} against highs (target >= 10x)")
    for target in targets:
        print(f"- standardised digits: {target}")
    print()


def pinwheel(rng):
    """Three copies of a random stick turned by 120°, with small noise."""
    stick = rng.integers(-4, 5, size=(2, 2)).astype(float)
    turns = [2 * np.pi * k / 3 for k in range(3)]
    X = np.vstack(
        [
            stick @ np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]).T
            for a in turns
        ]
    )
    return X + 1e-3 * rng.normal(size=X.shape), np.repeat([0, 1, 2], 2)


def random_cases(count, seed=0):
    """``(kind, X, y)``: a third separable machines, a third random labels, a
    third pinwheels (kept only where every pair separates)."""
    from sklearn_linsep import linear_separability

    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        kind = ("machine", "random", "pinwheel")[len(cases) % 3]
        if kind == "pinwheel":
            X, y = pinwheel(rng)
            if len(np.unique(X, axis=0)) < len(X) or not all(
                r.separable for r in linear_separability(X, y).values()
            ):
                continue
        else:
            K, p = int(rng.integers(3, 7)), int(rng.integers(2, 6))
            n = int(rng.integers(3 * K, 10 * K))
            X = rng.normal(size=(n, p))
            y = (
                np.argmax(X @ rng.normal(size=(K, p)).T + rng.normal(size=K), axis=1)
                if kind == "machine"
                else rng.integers(0, K, n)
            )
            if np.unique(y).size != K:
                continue
        cases.append((kind, X, y))
    return cases


def part_random(args):
    from sklearn_linsep import linear_separability

    print(f"## 2. {args.cases} random small cases against the explicit Kesler LP")
    agree, verified, ours, highs = 0, 0, [], []
    kinds = {}
    for kind, X, y in random_cases(args.cases):
        seconds, result = timed(joint, X, y)
        ours.append(seconds)
        lp_seconds, expected = timed(kesler_lp, X, y, "highs")
        highs.append(lp_seconds)
        agree += result.separable == expected
        verified += bool(result.verify(X, y))
        pairwise = all(r.separable for r in linear_separability(X, y).values())
        key = (kind, "jointly" if result.separable else "not jointly")
        if pairwise and not result.separable:
            key = (kind, "pairwise yes, jointly not")
        kinds[key] = kinds.get(key, 0) + 1
    print(f"- the verdict equals the Kesler LP's on {agree}/{args.cases} cases;")
    print(f"- {verified}/{args.cases} answers verified (machine or certificate);")
    for (kind, verdict), count in sorted(kinds.items()):
        print(f"  - {kind}: {count} {verdict}")
    print(
        f"- median time: ours {1e3 * statistics.median(ours):.1f} ms, HiGHS "
        f"{1e3 * statistics.median(highs):.1f} ms"
    )
    print()


def crammer_singer_cvxpy(X, y):
    import cvxpy as cp

    centre = X.mean(axis=0)
    scale = np.abs(X - centre).max()
    Z = (X - centre) / scale
    classes, codes = np.unique(y, return_inverse=True)
    K, (n, p) = len(classes), Z.shape
    W, b = cp.Variable((K, p)), cp.Variable(K)
    constraints = [
        (W[codes[i]] - W[k]) @ Z[i] + b[codes[i]] - b[k] >= 1
        for i in range(n)
        for k in range(K)
        if k != codes[i]
    ] + [cp.sum(b) == 0]
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(W)), constraints)
    problem.solve(
        solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10
    )
    return W.value / scale, problem.status


def part_crammer_singer(args):
    from sklearn_linsep import HardMarginSVM

    print(f"## 3. {args.margins} Crammer-Singer margins against cvxpy (Clarabel)")
    rng = np.random.default_rng(1)
    worst, ours, theirs, done = 0.0, [], [], 0
    while done < args.margins:
        K, p = int(rng.integers(3, 7)), int(rng.integers(2, 6))
        n = int(rng.integers(3 * K, 10 * K))
        X = rng.normal(size=(n, p)) * rng.choice([1e-3, 1.0, 1e3])
        y = np.argmax(X @ rng.normal(size=(K, p)).T + rng.normal(size=K), axis=1)
        if np.unique(y).size != K:
            continue
        done += 1
        model = HardMarginSVM(multi_class="crammer_singer")
        seconds, model = timed(model.fit, X, y)
        ours.append(seconds)
        seconds, (W, status) = timed(crammer_singer_cvxpy, X, y)
        theirs.append(seconds)
        assert status == "optimal", status
        worst = max(worst, np.abs(model.coef_ - W).max() / np.abs(W).max())
    print(f"- largest relative difference of W: {worst:.2e} (target 1e-6)")
    print(
        f"- median time: ours {1e3 * statistics.median(ours):.1f} ms, cvxpy "
        f"{1e3 * statistics.median(theirs):.1f} ms "
        f"({statistics.median(theirs) / statistics.median(ours):.1f}x)"
    )
    print()


def text_like(n, p, n_classes, seed=0):
    """Bag-of-words rows (20-60 words, half from the class's topic), log-scaled
    and L2-normalised, as CSR."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    topics = rng.dirichlet(np.full(p, 0.05), size=n_classes)
    common = rng.dirichlet(np.full(p, 0.5))
    rows, columns, values = [], [], []
    for i in range(n):
        length = int(rng.integers(20, 61))
        words = np.r_[rng.choice(p, length // 2, p=topics[y[i]]),
                      rng.choice(p, length - length // 2, p=common)]  # fmt: skip
        word, count = np.unique(words, return_counts=True)
        value = np.log1p(count)
        rows.append(np.full(word.size, i))
        columns.append(word)
        values.append(value / np.linalg.norm(value))
    X = sp.csr_matrix(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
        shape=(n, p),
    )
    return X, y


def text_own_vocabulary(n, p, n_classes, words=60, seed=0):
    """Bag-of-words rows as issue 56 describes them: each class draws half its
    words from a vocabulary slice of its own and half from common Zipf-distributed
    words (the first half of the vocabulary); log-scaled counts, unit rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    common, own = p // 2, (p - p // 2) // n_classes
    zipf = 1.0 / np.arange(1, common + 1)
    rows, columns = [], []
    for i in range(n):
        start = common + y[i] * own
        words_of_row = np.r_[rng.integers(start, start + own, words // 2),
                             rng.choice(common, words // 2, p=zipf / zipf.sum())]
        rows.append(np.full(words_of_row.size, i))
        columns.append(words_of_row)
    X = sp.csr_matrix(
        (np.ones(sum(map(len, rows))), (np.concatenate(rows), np.concatenate(columns))),
        shape=(n, p),
    )
    X.sum_duplicates()
    X.data = np.log1p(X.data)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return (sp.diags(1 / norms) @ X).tocsr(), y


def peer_cases(quick):
    rng = np.random.default_rng(0)
    cases = {}
    for name, (n, p, K) in {
        "wide dense 2000 x 256, K=10": (2000, 256, 10),
        "square 1000 x 1000, K=4": (1000, 1000, 4),
    }.items():
        X = rng.normal(size=(n, p))
        cases[name] = (X, np.argmax(X @ rng.normal(size=(K, p)).T, axis=1))
    for K in (10, 20):  # issue 56's: class means 0.6 apart in every feature
        means = np.random.default_rng(0).choice([-0.3, 0.3], size=(K, 256))
        y = np.random.default_rng(1).integers(K, size=2000)
        noise = np.random.default_rng(2).normal(size=(2000, 256))
        cases[f"wide dense 2000 x 256, K={K}, class means 0.6 apart"] = (
            means[y] + noise, y
        )
    cases["text 600 x 5000 CSR, K=4"] = text_like(600, 5000, 4)
    if not quick:
        cases["text 3000 x 20000 CSR, K=4"] = text_like(3000, 20000, 4)
        cases["text 3000 x 20000 CSR, K=4, own + common words"] = (
            text_own_vocabulary(3000, 20000, 4)
        )
        from bench_probes import corpus, without_repeats  # real documents

        cases["TF-IDF of 3 packages' docstrings without repeats, K=3"] = (
            without_repeats(*corpus(["sklearn", "scipy", "numpy"], 30000))
        )
    return cases


def part_peers(args):
    """The joint verdict and Crammer-Singer against what a user runs instead:
    SVC(kernel="linear", C=1e10) (one-vs-one) and LinearSVC(crammer_singer)."""
    from sklearn.svm import SVC, LinearSVC

    from sklearn_linsep import HardMarginSVM

    print("## 4. K classes against scikit-learn's peers (median of --repeats)")
    print("| data | joint (s) | verified | CS fit (s) | SVC (s) | LinearSVC-cs (s) "
          "| joint / SVC | CS / LinearSVC-cs | peak MB, traced / RSS growth: joint "
          "| CS | SVC | LinearSVC-cs |")  # fmt: skip
    print("|" + "---|" * 12)
    for name, (X, y) in peer_cases(args.quick).items():
        def linear_svc(X=X, y=y):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return LinearSVC(multi_class="crammer_singer", C=1e3).fit(X, y)

        def svc(X=X, y=y):
            return SVC(kernel="linear", C=1e10).fit(X, y)

        def crammer_singer(X=X, y=y):
            return HardMarginSVM(multi_class="crammer_singer").fit(X, y)

        figures = {}
        for label, function in (("joint", lambda: joint(X, y)), ("cs", crammer_singer),
                                ("svc", svc), ("lsvc", linear_svc)):  # fmt: skip
            times = []
            for _ in range(args.repeats):
                seconds, answer = timed(function)
                times.append(seconds)
            figures[label] = (statistics.median(times), answer)
        result = figures["joint"][1]
        # libsvm's and liblinear's buffers are not traced: RSS growth compares them.
        memory = {label: peak_memory(function) for label, function in (
            ("joint", lambda X=X, y=y: joint(X, y)), ("cs", crammer_singer),
            ("svc", svc),
            ("lsvc", linear_svc))}  # fmt: skip
        verified = result.verify(X, y) and np.allclose(
            figures["cs"][1].coef_, result.coef, rtol=1e-7,
            atol=1e-9 * np.abs(result.coef).max(),
        )  # fmt: skip
        seconds = {label: value[0] for label, value in figures.items()}
        print(f"| {name} | {seconds['joint']:.2f} | {verified} | {seconds['cs']:.2f} | "
              f"{seconds['svc']:.2f} | {seconds['lsvc']:.2f} | "
              f"{seconds['joint'] / seconds['svc']:.1f}x | "
              f"{seconds['cs'] / seconds['lsvc']:.1f}x | "
              + " | ".join(f"{traced / 2**20:.0f} / {rss / 2**20:.0f}"
                           for traced, rss in memory.values()) + " |",
              flush=True)  # fmt: skip
    print()


def tfidf_of_four_packages():
    """The docstrings of four packages, TF-IDF, rows that occur once."""
    from bench_probes import corpus, without_repeats

    return without_repeats(*corpus(["sklearn", "scipy", "numpy", "pandas"], 40000))


# Issue 56's text, (n, p, K, words a document), and real documents.
FRESH_CASES = {
    "3000 x 20000, K=4": lambda: text_own_vocabulary(3000, 20000, 4, 40),
    "4000 x 30000, K=5": lambda: text_own_vocabulary(4000, 30000, 5, 30),
    "3000 x 20000, K=6": lambda: text_own_vocabulary(3000, 20000, 6, 60),
    "5000 x 20000, K=4": lambda: text_own_vocabulary(5000, 20000, 4, 40),
    "TF-IDF of 4 packages, K=4": tfidf_of_four_packages,
}


def fresh_call(name, what):
    """In a child process: one call on ``FRESH_CASES[name]`` under a 4 GB cap;
    prints ``seconds peak_MB verified``."""
    import resource

    from sklearn.svm import SVC
    from threadpoolctl import threadpool_limits

    from sklearn_linsep import HardMarginSVM, linear_separability

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    X, y = FRESH_CASES[name]()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seconds, answer = timed(
            {"joint": lambda: linear_separability(X, y, multiclass="joint"),
             "cs": lambda: HardMarginSVM(multi_class="crammer_singer").fit(X, y),
             "svc": lambda: SVC(kernel="linear", C=1e10).fit(X, y)}[what]
        )  # fmt: skip
    verified = answer.verify(X, y) if what == "joint" else ""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{seconds:.2f} {peak:.0f} {verified}")


def part_fresh(args):
    """Issue 56's text, each call in a fresh process (peak RSS as a user's)."""
    import subprocess

    print("## 5. Issue 56's text, a fresh process a call (4 GB cap, one BLAS thread)")
    print("| data | joint s, peak MB, verified | CS s, peak MB | SVC s, peak MB "
          "| joint / SVC: time, peak |")  # fmt: skip
    print("|" + "---|" * 5)
    for name in FRESH_CASES:
        if args.shape and args.shape not in name:
            continue
        figures = {}
        for what in ("joint", "cs", "svc"):
            out = subprocess.run(
                [sys.executable, __file__, "--fresh-child", name, what],
                capture_output=True, text=True, check=False,
            ).stdout.split()  # fmt: skip
            figures[what] = out if len(out) >= 2 else ["failed", "-", ""]
        joint, cs, svc = (figures[what] for what in ("joint", "cs", "svc"))
        ratio = ("-" if "failed" in (joint[0], svc[0]) else
                 f"{float(joint[0]) / float(svc[0]):.1f}x, "
                 f"{float(joint[1]) / float(svc[1]):.2f}x")  # fmt: skip
        print(f"| {name} | {' '.join(joint)} | {' '.join(cs[:2])} | "
              f"{' '.join(svc[:2])} | {ratio} |", flush=True)
    print()


def part_copied(args):
    """Rows under two labels: our verdict and fit against SVC (C = 1e3)."""
    print("## 6. Rows under two labels (three copied), one BLAS thread, medians")
    print("| data | verdict s (verified) | fit s | SVC C=1e3 s | LinearSVC-cs s "
          "| fit / SVC |")  # fmt: skip
    from sklearn_linsep._testing import filed_twice

    print("|" + "---|" * 6)
    for K, n, p, sparse in ((2, 500, 50, False), (2, 1000, 100, False),
                            (2, 1000, 100, True), (4, 400, 100, False),
                            (4, 400, 100, True), (4, 1000, 100, False)):  # fmt: skip
        X, y = filed_twice(n, p, K, sparse)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            verdict, fit, svc, cs, verified = copied_row(X, y, K, args.repeats)
        name = f"{n} x {p}{' CSR' if sparse else ''}, K={K}"
        print(f"| {name} | {verdict:.3f} ({verified}) | {fit:.3f} | {svc:.3f} | "
              f"{cs} | {fit / svc:.1f}x |", flush=True)
    print()


def copied_row(X, y, K, repeats):
    """``(verdict s, fit s, SVC s, LinearSVC-cs s or "-", verified)``."""
    from sklearn.svm import SVC, LinearSVC

    from sklearn_linsep import HardMarginSVM, linear_separability

    joint = {"multiclass": "joint"} if K > 2 else {}
    machine = {"multi_class": "crammer_singer"} if K > 2 else {}
    fewer = max(1, repeats // 2)
    verdict, result = median_seconds(
        lambda: linear_separability(X, y, **joint), repeats
    )
    fit = median_seconds(lambda: HardMarginSVM(**machine).fit(X, y), fewer)[0]
    svc = median_seconds(lambda: SVC(kernel="linear", C=1e3).fit(X, y), fewer)[0]
    cs = "-"
    if K > 2:
        peer = LinearSVC(multi_class="crammer_singer", C=1e3, max_iter=20000)
        cs = f"{median_seconds(lambda: peer.fit(X, y), fewer)[0]:.3f}"
    return verdict, fit, svc, cs, result.verify(X, y)


def main():
    import scipy

    if sys.argv[1:2] == ["--fresh-child"]:
        return fresh_call(*sys.argv[2:4])
    from threadpoolctl import threadpool_limits

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--highs-limit", type=float, default=300.0, help="seconds per HiGHS call"
    )
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--margins", type=int, default=100)
    parser.add_argument("--only",
                        choices=["shapes", "random", "margins", "peers", "fresh",
                                 "copied"])  # fmt: skip
    parser.add_argument("--shape", help="only the synthetic shapes named so")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.cases, args.margins = 3, 60, 30
    print_machine(versions=[f"scipy {scipy.__version__}"])
    started = time.perf_counter()
    with threadpool_limits(1):
        if args.only in (None, "shapes"):
            part_shapes(args)
        if args.only in (None, "random"):
            part_random(args)
        if args.only in (None, "margins"):
            part_crammer_singer(args)
        if args.only in (None, "peers"):
            part_peers(args)
        if args.only in (None, "copied"):
            part_copied(args)
    if args.only in (None, "fresh"):
        part_fresh(args)
    print(f"({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
