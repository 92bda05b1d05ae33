"""Record the exact core's answers before a refactor, and compare them after.

A fixed, seeded set of cases (two classes and K classes; dense, tall, wide,
sparse CSR and dask; the verdicts of ``linear_separability``, the fits of
``HardMarginSVM`` and the bounds of ``minimum_error_separation``) is run with
whatever ``sklearn_linsep`` is first on ``sys.path``, and every answer that is
compared is saved; ``compare`` reruns the cases and compares.

The 72 cases (``--list`` names them; 12 s in all on an idle machine):

* two classes, ``linear_separability(X, y)`` and ``HardMarginSVM().fit``
  (inseparable: the default ``on_inseparable="soft"``, the C -> inf limit):
  synthetic dense (~300 x 5), tall (~2 400 x 10) and wide (~70 x 300, the
  inseparable one of rank 4), each separable and not; iris versicolor against
  virginica; breast cancer (standardised);
* K classes, ``multiclass="joint"`` and ``"pairs"``, ``HardMarginSVM`` with
  ``multi_class="crammer_singer"`` and ``"ovr"``: iris, wine and digits
  (standardised), synthetic K = 3, 4, 5 (labels of a random linear machine,
  some flipped: inseparable), a pinwheel (every pair separates, no machine);
* sparse CSR, text-like (~1% nonzero, l2 rows; inseparable: a few rows
  repeated with another label): 300 x 2 000 with K = 2, 90 x 600 with K = 3
  (the joint problem on wide sparse rows is the slow one);
* dask arrays (``dask.array.from_array``, 500-row blocks, the synchronous
  scheduler): the tall two-class and the K = 5 cases;
* ``minimum_error_separation`` (``effort=200``, machine independent) on two
  and three classes: iris, and small noisy synthetic sets.

BLAS runs on one thread (threadpoolctl) so that the answers do not depend on
the machine's thread count; warnings (the soft limit's among them) are off.

Usage
-----
From the repository root::

    python benchmarks/compare_answers.py record benchmarks/answers_baseline.npz
    python benchmarks/compare_answers.py compare benchmarks/answers_baseline.npz

Record with another checkout's code (a git worktree of the commit before the
refactor, say) by putting it first on the path; the script prints the
``sklearn_linsep`` it imported::

    PYTHONPATH=/path/to/baseline python benchmarks/compare_answers.py record OUT.npz

(``python -c`` run from the repository root would import the repository's own
copy first; a script does not.) Options: ``--only TEXT`` runs the cases whose
name contains TEXT (``compare`` then skips the others), ``--rtol`` changes the
tolerance of the unique answers, ``--list`` lists the cases.

The file is a compressed ``.npz`` (``numpy.load(..., allow_pickle=False)``
reads it): one array per compared field, named ``case/rule/field``, plus
``__meta__/...`` strings saying which code recorded it. A field that is None
is not stored.

Comparison rule
---------------
Each answer's fields follow one of three rules:

``exact``
    Verdicts (``separable``), classes, the pairs of ``multiclass="pairs"``, the
    bounds and status of ``minimum_error_separation``: equal.
``unique``
    What the mathematics makes unique: margins, the hyperplanes and machines
    (``coef``, ``intercept`` and, where given, ``center`` and
    ``intercept_at_center``, as they are returned), and the soft limit's total
    hinge (``hinge_violation_``): equal shapes and
    ``max|new - old| <= rtol * max(max|old|, 1)``, ``rtol = 1e-12`` (nan
    matches nan).
``free``
    Certificates (indices, weights, classes, common point), support sets and
    dual coefficients, and the removal of ``minimum_error_separation``, which
    need not be unique: equal (floats to the rule above) is ``agree``;
    otherwise the new answer is checked on its own data and the case is
    ``differs, verifies`` or ``differs, FAILS``. The coefficients of
    ``minimum_error_separation`` are ``unique`` when the removal agrees, and
    checked with it when it does not.

The checks of a new answer: a result's own ``verify(X, y)``; an estimator's
``certificate_.verify(X, y)`` where it has one, and the conditions a fit of
``HardMarginSVM`` meets whatever its support (margins ``m_i = c_i f(x_i)``,
one-vs-rest per class, the Crammer-Singer least margin over the other classes
for the machine): separable, every ``m_i >= 1 - 1e-7`` and every support row
with nonzero dual weight at ``|m_i - 1| <= 1e-6``; inseparable, every support
row at ``m_i <= 1 + 1e-6`` and ``hinge_violation_`` equal to
``sum max(0, 1 - m_i)`` to 1e-6 relative; the dual coefficients of the sign of
their row (``alpha_i c_i``, where separable: the soft limit's multipliers on
its optimal face are free), balanced (each task's sum, or each Crammer-Singer
class's and each support row's, 0) and ``coef_ = dual_coef_ @
support_vectors_`` to 1e-6 of ``max|coef_|``. For a minimum-error removal: as
many rows as ``upper_bound``, and the hyperplane (or machine) separates the
rows kept. ``record`` runs every check on the answers it records, so a check
that the recorded code itself fails is seen before a refactor.

``compare`` prints a table of every case that is not ``agree`` and the summary
``N cases, A agree`` (with the counts of the others); it exits 1 when a case
disagrees (an exact or unique field differs, a case raises, is missing or
new, or a free field differs and FAILS its check), 0 otherwise ("differs,
verifies" is listed, and passes). Counts of work are not answers and are
neither stored nor compared: ``n_iter_``, the working-set rounds, and
``n_certificates`` and ``rounds`` of ``minimum_error_separation``.
"""

import argparse
import contextlib
import functools
import os
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

RTOL = 1e-12
FEASIBLE_ATOL = 1e-7  # margins of a separating fit, below 1
ON_MARGIN_ATOL = 1e-6  # support rows of a separating fit, about 1
DUAL_RTOL = 1e-6  # coef_ = dual_coef_ @ support_vectors_, sums of duals
HINGE_RTOL = 1e-6  # hinge_violation_ against the fit's own margins
DASK_CHUNK = 500  # rows of a dask block

STATUSES = AGREE, VERIFIES, FAILS, DIFFERS = (
    "agree",
    "differs, verifies",
    "differs, FAILS",
    "DISAGREES",
)


# ----------------------------------------------------------------------- answers


@dataclass
class Answer:
    """The compared fields of one case, ``{field: (rule, value)}`` (rule
    ``"exact"``, ``"unique"``, ``"free"``, or ``"unique|F"``: unique where the
    free field F agrees, free otherwise), and ``check()``: whether the answer
    holds on its own data (for the free fields)."""

    fields: dict = field(default_factory=dict)
    check: callable = None

    def add(self, rule, prefix="", **values):
        for name, value in values.items():
            self.fields[prefix + name] = (rule, value)


def as_array(value):
    """A field's value as a numpy array (sparse densified, None kept)."""
    if value is None:
        return None
    if sp.issparse(value):
        value = value.toarray()
    array = np.asarray(value)
    return array.astype(str) if array.dtype == object else array


def result_answer(result, X, y, prefix="", answer=None):
    """A SeparabilityResult or JointSeparabilityResult."""
    answer = answer or Answer(check=lambda: bool(result.verify(X, y)))
    answer.add("exact", prefix, separable=result.separable, classes=result.classes)
    if result.separable:
        answer.add(
            "unique",
            prefix,
            margin=result.margin,
            coef=result.coef,
            intercept=result.intercept,
            center=result.center,
            intercept_at_center=result.intercept_at_center,
        )
    else:
        answer.add(
            "free",
            prefix,
            certificate_indices=result.certificate_indices,
            certificate_weights=result.certificate_weights,
            certificate_classes=getattr(result, "certificate_classes", None),
            common_point=getattr(result, "common_point", None),
        )
    return answer


def pairs_answer(results, X, y):
    """The dict of ``linear_separability(multiclass="pairs")``."""
    checks = [functools.partial(r.verify, X, y) for r in results.values()]
    answer = Answer(check=lambda: all(bool(c()) for c in checks))
    keys = [f"{a}|{b}" for a, b in results]
    answer.add("exact", pairs=np.array(keys))
    for key, result in zip(keys, results.values(), strict=True):
        result_answer(result, X, y, prefix=f"{key}:", answer=answer)
    return answer


def estimator_answer(svm, X, y):
    """A fitted HardMarginSVM."""
    answer = Answer(check=lambda: estimator_holds(svm, X, y))
    answer.add("exact", classes_=svm.classes_, separable_=svm.separable_)
    answer.add(
        "unique",
        coef_=svm.coef_,
        intercept_=svm.intercept_,
        margin_=svm.margin_,
        hinge_violation_=svm.hinge_violation_,
        center_=svm.center_,
        intercept_at_center_=svm.intercept_at_center_,
    )
    answer.add("free", support_=svm.support_, dual_coef_=svm.dual_coef_)
    if svm.certificate_ is not None:
        result_answer(svm.certificate_, X, y, prefix="certificate_:", answer=answer)
    return answer


def min_error_answer(result, X, y):
    """A MinimumErrorResult."""
    answer = Answer(check=lambda: removal_holds(result, X, y))
    answer.add(
        "exact",
        lower_bound=result.lower_bound,
        upper_bound=result.upper_bound,
        optimal=result.optimal,
        stopped_by=result.stopped_by,
        n_samples=result.n_samples,
        classes=result.classes,
    )
    answer.add("free", removed=result.removed)
    answer.add("unique|removed", coef=result.coef, intercept=result.intercept)
    return answer


# ------------------------------------------------------------------------ checks


def decision_margins(svm, X, y):
    """``(m, c)``: each row's margin per task (n, T) and its sign c = ±1 per
    task; for the Crammer-Singer machine one task, the least margin over the
    other classes."""
    scores = np.asarray(svm.decision_function(X))
    y = np.asarray(y)
    if scores.ndim == 1:
        c = np.where(y == svm.classes_[1], 1.0, -1.0)[:, None]
        return c * scores[:, None], c
    own = np.searchsorted(svm.classes_, y)
    if svm.multi_class == "crammer_singer":
        mine = scores[np.arange(len(y)), own]
        scores[np.arange(len(y)), own] = -np.inf
        return (mine - scores.max(axis=1))[:, None], np.ones((len(y), 1))
    c = np.where(own[:, None] == np.arange(len(svm.classes_)), 1.0, -1.0)
    return c * scores, c


def estimator_holds(svm, X, y):
    """The conditions of a HardMarginSVM fit (module docstring), and its
    certificate's verify; a fit given in rationals (``exact_coef_``: its float
    roundings need not separate) checked in rationals."""
    if getattr(svm, "exact_coef_", None) is not None:
        return exact_fit_holds(svm, X, y)
    if svm.certificate_ is not None and not svm.certificate_.verify(X, y):
        return False
    margins, signs = decision_margins(svm, X, y)
    dual = np.atleast_2d(svm.dual_coef_)
    separable = np.atleast_1d(svm.separable_)
    hinge = np.atleast_1d(svm.hinge_violation_)
    for task in range(margins.shape[1]):
        m, on = margins[:, task], dual[task] != 0
        if separable[task]:
            ok = m.min() >= 1 - FEASIBLE_ATOL and np.all(
                np.abs(m[svm.support_[on]] - 1) <= ON_MARGIN_ATOL
            )
        else:
            total = np.maximum(0.0, 1 - m).sum()
            ok = np.all(m[svm.support_[on]] <= 1 + ON_MARGIN_ATOL) and abs(
                total - hinge[task]
            ) <= HINGE_RTOL * max(hinge[task], 1)
        if not ok:
            return False
    return dual_holds(svm, signs)


def exact_fit_holds(svm, X, y):
    """A fit in rationals: every margin ``c (w·x + b)`` at least 1 and the
    support's exactly 1, in Fractions (two classes, or a machine's pairs)."""
    from fractions import Fraction

    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    codes = np.searchsorted(svm.classes_, y)
    W, b = svm.exact_coef_, svm.exact_intercept_
    if np.ndim(W) == 1:  # two classes: the machine (-w/2, w/2)
        W = [[-v / 2 for v in W], [v / 2 for v in W]]
        b = [-b / 2, b / 2]
    rows = [[Fraction(float(v)) for v in x] for x in X]
    scores = [[sum((w_f * x_f for w_f, x_f in zip(w, x) if x_f), Fraction(0)) + b_k
               for w, b_k in zip(W, b)] for x in rows]  # fmt: skip
    margins = [min(s[own] - s[k] for k in range(len(W)) if k != own)
               for s, own in zip(scores, codes)]  # fmt: skip
    return min(margins) >= 1 and all(margins[i] == 1 for i in svm.support_)


def dual_holds(svm, signs):
    """Signs, balance and stationarity of ``dual_coef_``."""
    dual = np.atleast_2d(svm.dual_coef_)
    scale = max(np.abs(dual).max(initial=0.0), 1e-300)
    rows = svm.support_vectors_
    product = np.asarray((rows.T @ dual.T).T) if sp.issparse(rows) else dual @ rows
    coef = np.atleast_2d(svm.coef_)
    stationary = np.abs(product - coef).max() <= DUAL_RTOL * max(np.abs(coef).max(), 1)
    if svm.multi_class == "crammer_singer" and len(svm.classes_) > 2:
        balanced = (
            np.abs(dual.sum(axis=0)).max() <= DUAL_RTOL * scale
            and np.abs(dual.sum(axis=1)).max() <= DUAL_RTOL * scale * dual.shape[1]
        )
        return bool(stationary and balanced)
    # α ≥ 0 where separable; the soft limit's multipliers on its optimal
    # face (equalities) are free.
    separable = np.atleast_1d(svm.separable_)[:, None]
    signed = np.all((dual * signs[svm.support_].T >= 0) | ~separable)
    balanced = np.abs(dual.sum(axis=1)).max() <= DUAL_RTOL * scale * dual.shape[1]
    return bool(stationary and signed and balanced)


def removal_holds(result, X, y):
    """A minimum-error removal of ``upper_bound`` rows whose hyperplane (or
    machine) separates the rows kept."""
    removed = np.asarray(result.removed, dtype=int)
    if len(np.unique(removed)) != result.upper_bound:
        return False
    keep = np.setdiff1d(np.arange(len(y)), removed)
    X, y = np.asarray(X)[keep], np.asarray(y)[keep]
    coef, intercept = np.asarray(result.coef), np.asarray(result.intercept)
    if coef.ndim == 1:
        c = np.where(y == result.classes[1], 1.0, -1.0)
        return bool(np.all(c * (X @ coef + intercept) >= 1 - FEASIBLE_ATOL))
    scores = X @ coef.T + intercept
    own = np.searchsorted(result.classes, y)
    mine = scores[np.arange(len(y)), own]
    scores[np.arange(len(y)), own] = -np.inf
    return bool(np.all(mine - scores.max(axis=1) >= 1 - FEASIBLE_ATOL))


# -------------------------------------------------------------------------- data


def linear_labels(X, rng, n_classes, gap):
    """Rows of X whose random linear machine's top score leads by ``gap`` (of
    the scores' spread), and their labels: jointly separable."""
    W = rng.normal(size=(n_classes, X.shape[1]))
    scores = X @ W.T + rng.normal(size=n_classes)
    top = np.sort(scores, axis=1)
    lead = top[:, -1] - top[:, -2]
    keep = lead > gap * np.std(scores)
    return X[keep], np.argmax(scores[keep], axis=1)


def flipped(y, rng, fraction, n_classes):
    """y with a ``fraction`` of its labels moved to another class."""
    y = y.copy()
    rows = rng.choice(len(y), size=max(1, int(fraction * len(y))), replace=False)
    y[rows] = (y[rows] + rng.integers(1, n_classes, size=len(rows))) % n_classes
    return y


@functools.cache
def synthetic(n, p, n_classes, noise, seed, rank=None):
    """Gaussian rows (of ``rank`` if given), labelled by a random linear
    machine with a gap, a ``noise`` fraction of the labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, rank or p))
    if rank is not None:
        X = X @ rng.normal(size=(rank, p))
    X, y = linear_labels(X, rng, n_classes, gap=0.05)
    return X, flipped(y, rng, noise, n_classes) if noise else y


@functools.cache
def standardised(name):
    """iris, wine or digits from sklearn.datasets, standardised (iris raw)."""
    from sklearn import datasets
    from sklearn.preprocessing import StandardScaler

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    return (X, y) if name == "iris" else (StandardScaler().fit_transform(X), y)


@functools.cache
def iris_pair():
    """Versicolor and virginica: one row to remove."""
    X, y = standardised("iris")
    return X[y > 0], y[y > 0]


@functools.cache
def pinwheel():
    """Three copies of a stick turned by 120 degrees: every pair of classes
    separates, no linear machine does."""
    stick = np.array([[-4.0, 4.0], [0.0, -1.0]])
    turns = [2 * np.pi * k / 3 for k in range(3)]
    rotations = [
        np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) for a in turns
    ]
    X = np.vstack([stick @ r.T for r in rotations])
    X += 1e-3 * np.random.default_rng(7).normal(size=X.shape)
    return X, np.repeat([0, 1, 2], 2)


@functools.cache
def text(n, p, n_classes, duplicates, seed):
    """Text-like CSR rows (tf-idf-ish: ~1% nonzero, l2-normalised), each
    class drawing most words from its own part of the vocabulary;
    ``duplicates`` rows repeated with another label (inseparable)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(n_classes, size=n)
    words = p // 100
    rows, cols = np.repeat(np.arange(n), words), rng.integers(p, size=n * words)
    own = rng.random(n * words) < 0.5
    part = p // n_classes
    cols[own] = rows[own] % part + y[rows[own]] * part
    X = sp.csr_matrix((rng.exponential(size=n * words), (rows, cols)), shape=(n, p))
    X.sum_duplicates()
    X = sp.csr_matrix(X.multiply(1 / np.sqrt(X.multiply(X).sum(axis=1))))
    if duplicates:
        again = rng.choice(n, size=duplicates, replace=False)
        X = sp.vstack([X, X[again]]).tocsr()
        y = np.concatenate([y, flipped(y[again], rng, 1.0, n_classes)])
    return X, y


def on_dask(X, y):
    """X and y as dask arrays of DASK_CHUNK rows a block."""
    import dask.array as da

    return (
        da.from_array(X, chunks=(DASK_CHUNK, X.shape[1])),
        da.from_array(y, chunks=DASK_CHUNK),
    )


# ------------------------------------------------------------------------- cases

DATA = {
    # two classes
    "dense_sep": lambda: synthetic(300, 5, 2, 0.0, 1),
    "dense_insep": lambda: synthetic(300, 5, 2, 0.05, 2),
    "tall_sep": lambda: synthetic(2400, 10, 2, 0.0, 3),
    "tall_insep": lambda: synthetic(2400, 10, 2, 0.05, 4),
    "wide_sep": lambda: synthetic(70, 300, 2, 0.0, 5),
    "wide_insep": lambda: synthetic(70, 300, 2, 0.1, 6, rank=4),
    "iris_pair": iris_pair,
    "breast_cancer": lambda: standardised("breast_cancer"),
    # K classes
    "iris": lambda: standardised("iris"),
    "wine": lambda: standardised("wine"),
    "digits": lambda: standardised("digits"),
    "k3_sep": lambda: synthetic(400, 4, 3, 0.0, 11),
    "k4_insep": lambda: synthetic(500, 6, 4, 0.03, 12),
    "k5_sep": lambda: synthetic(700, 8, 5, 0.0, 13),
    "k5_insep": lambda: synthetic(700, 8, 5, 0.02, 14),
    "pinwheel": pinwheel,
    # sparse CSR
    "text2_sep": lambda: text(300, 2000, 2, 0, 21),
    "text2_insep": lambda: text(300, 2000, 2, 3, 22),
    "text3_sep": lambda: text(90, 600, 3, 0, 23),
    "text3_insep": lambda: text(90, 600, 3, 3, 24),
    # minimum error
    "small2_noisy": lambda: synthetic(80, 3, 2, 0.05, 31),
    "small3_noisy": lambda: synthetic(90, 3, 3, 0.04, 32),
}


def separability(**params):
    """A case: linear_separability(X, y, **params)."""

    def run(X, y):
        from sklearn_linsep import linear_separability

        result = linear_separability(X, y, **params)
        make = pairs_answer if isinstance(result, dict) else result_answer
        return make(result, X, y)

    return run


def svm(**params):
    """A case: HardMarginSVM(**params).fit(X, y)."""

    def run(X, y):
        from sklearn_linsep import HardMarginSVM

        return estimator_answer(HardMarginSVM(**params).fit(X, y), X, y)

    return run


def min_error(X, y):
    """A case: minimum_error_separation, bounded by effort (machine
    independent), with a generous time limit."""
    from sklearn_linsep import minimum_error_separation

    result = minimum_error_separation(X, y, effort=200, time_limit=600.0)
    return min_error_answer(result, X, y)


TWO = ["dense_sep", "dense_insep", "tall_sep", "tall_insep", "wide_sep"]
TWO += ["wide_insep", "iris_pair", "breast_cancer"]
MANY = ["iris", "wine", "digits", "k3_sep", "k4_insep", "k5_sep", "k5_insep"]
MANY += ["pinwheel"]
SPARSE = ["text2_sep", "text2_insep", "text3_sep", "text3_insep"]
DASK = ["tall_sep", "tall_insep", "k5_sep", "k5_insep"]


def cases():
    """``{name: (data, run, on_dask)}``, in order."""
    table = {}
    for data in TWO + SPARSE[:2]:
        table[f"separability/{data}"] = (data, separability(), False)
        table[f"svm/{data}"] = (data, svm(), False)
    for data in MANY + SPARSE[2:]:
        table[f"joint/{data}"] = (data, separability(multiclass="joint"), False)
        table[f"pairs/{data}"] = (data, separability(multiclass="pairs"), False)
        table[f"svm_cs/{data}"] = (data, svm(multi_class="crammer_singer"), False)
        table[f"svm_ovr/{data}"] = (data, svm(multi_class="ovr"), False)
    for data in DASK:
        joint = data.startswith("k")
        table[f"dask_separability/{data}"] = (
            data,
            separability(multiclass="joint") if joint else separability(),
            True,
        )
        table[f"dask_svm/{data}"] = (
            data,
            svm(multi_class="crammer_singer") if joint else svm(),
            True,
        )
    for data in ["iris_pair", "small2_noisy", "iris", "small3_noisy"]:
        table[f"min_error/{data}"] = (data, min_error, False)
    return table


def run_case(data, run, dask):
    """The Answer of one case (warnings, the soft limit's among them, off)."""
    X, y = DATA[data]()
    inputs = on_dask(X, y) if dask else (X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(*inputs)  # dask: checked on the dask arrays too


# ------------------------------------------------------------------ the file


def flatten(name, answer):
    """``{"name/rule/field": array}`` (None fields left out)."""
    out = {}
    for key, (rule, value) in answer.fields.items():
        if value is not None:
            out[f"{name}/{rule}/{key}"] = as_array(value)
    return out


def unflatten(stored):
    """``{case: {field: (rule, array)}}`` from the file's arrays."""
    table = {}
    for key, value in stored.items():
        if key.startswith("__meta__/"):
            continue
        name, rule, field_name = key.rsplit("/", 2)
        table.setdefault(name, {})[field_name] = (rule, value)
    return table


def metadata():
    """Which code answers: the package's file, version and git commit."""
    import sklearn_linsep

    root = os.path.dirname(os.path.dirname(sklearn_linsep.__file__))
    try:
        commit = subprocess.run(
            ["git", "-C", root, "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "package": sklearn_linsep.__file__,
        "version": sklearn_linsep.__version__,
        "commit": commit,
        "numpy": np.__version__,
    }


# ------------------------------------------------------------------ comparing


def same(old, new, rtol, exact):
    """Whether two stored values agree (None: absent)."""
    if old is None or new is None:
        return old is None and new is None
    old, new = np.asarray(old), np.asarray(new)
    if old.shape != new.shape:
        return False
    if exact or old.dtype.kind not in "fc" or new.dtype.kind not in "fc":
        return bool(np.array_equal(old, new))
    if not np.array_equal(np.isnan(old), np.isnan(new)):
        return False
    finite = ~np.isnan(old)
    if not finite.any():
        return True
    gap = np.abs(old[finite] - new[finite]).max()
    return bool(gap <= rtol * max(np.abs(old[finite]).max(), 1.0))


def gap_of(old, new):
    """A short description of how two values differ."""
    if old is None or new is None:
        return f"{'absent' if old is None else 'present'} -> " + (
            "absent" if new is None else "present"
        )
    old, new = np.asarray(old), np.asarray(new)
    if old.shape != new.shape:
        return f"shape {old.shape} -> {new.shape}"
    if old.dtype.kind in "fc" and new.dtype.kind in "fc":
        gap = np.nanmax(np.abs(old - new)) if old.size else 0.0
        scale = max(np.nanmax(np.abs(old), initial=0.0), 1.0)
        return f"max|diff| {gap:.3g} (rel {gap / scale:.3g})"
    if old.size == 1:
        return f"{old.item()!r} -> {new.item()!r}"
    return f"{int(np.sum(old != new))} of {old.size} entries"


def compare_case(old, answer, rtol):
    """``(status, [(field, how)])`` of one case: the old fields against the
    new Answer."""
    new = {key: (rule, as_array(v)) for key, (rule, v) in answer.fields.items()}
    problems, loose = [], []
    for key in sorted(set(old) | set(new)):
        rule = (old.get(key) or new.get(key))[0]
        a, b = old.get(key, (rule, None))[1], new.get(key, (rule, None))[1]
        if rule.startswith("unique|"):
            given = rule.split("|", 1)[1]
            agreed = same(
                old.get(given, (0, None))[1], new.get(given, (0, None))[1], rtol, False
            )
            rule = "unique" if agreed else "free"
        if same(a, b, rtol, exact=rule == "exact"):
            continue
        (loose if rule == "free" else problems).append((key, gap_of(a, b)))
    if problems:
        return DIFFERS, problems + loose
    if not loose:
        return AGREE, []
    return (VERIFIES if answer.check() else FAILS), loose


# ---------------------------------------------------------------------- commands


def announce():
    """Print which sklearn_linsep answers."""
    meta = metadata()
    print(f"sklearn_linsep {meta['version']} ({meta['commit']}) from {meta['package']}")
    return meta


def run_all(selected, catch):
    """``{name: (Answer, seconds)}`` of the selected cases, in order; with
    ``catch``, a case that raises is ``(exception, seconds)``."""
    answers = {}
    for name, (data, run, dask_arrays) in selected.items():
        start = time.perf_counter()
        try:
            answer = run_case(data, run, dask_arrays)
        except Exception as error:
            if not catch:
                raise
            answer = error
        answers[name] = (answer, time.perf_counter() - start)
    return answers


def select(only):
    """The cases whose name contains ``only`` (all when None)."""
    return {k: v for k, v in cases().items() if only is None or only in k}


def record(path, only):
    """Run the cases, check every answer, save the compared fields."""
    meta = announce()
    answers = run_all(select(only), catch=False)
    stored = {f"__meta__/{k}": np.array(v) for k, v in meta.items()}
    failing = []
    for name, (answer, seconds) in answers.items():
        stored.update(flatten(name, answer))
        if not answer.check():
            failing.append(name)
        print(f"  {name:<36} {seconds:7.2f} s")
    np.savez_compressed(path, **stored)
    size = os.path.getsize(path)
    print(f"{len(answers)} cases recorded in {path} ({size / 1024:.0f} KiB)")
    for name in failing:
        print(f"WARNING: the recorded answer of {name} fails its own check")
    return 0


def compare(path, only, rtol):
    """Rerun the cases and compare with the file; 1 if any disagrees."""
    announce()
    with np.load(path, allow_pickle=False) as npz:
        stored = {key: npz[key] for key in npz.files}
    print(
        f"recorded by sklearn_linsep {stored['__meta__/version']} "
        f"({stored['__meta__/commit']}) from {stored['__meta__/package']}"
    )
    old = {k: v for k, v in unflatten(stored).items() if only is None or only in k}
    answers = run_all(select(only), catch=True)
    names = list(answers) + [name for name in old if name not in answers]
    rows = [status_of(n, old.get(n), answers.get(n), rtol) for n in names]
    print_table([row for row in rows if row[2]])
    counts = {s: sum(row[1] == s for row in rows) for s in STATUSES}
    print(
        f"{len(rows)} cases, {counts[AGREE]} agree"
        + "".join(f", {counts[s]} {s}" for s in (VERIFIES, FAILS, DIFFERS) if counts[s])
    )
    return 1 if counts[FAILS] or counts[DIFFERS] else 0


def status_of(name, old, run, rtol):
    """``(name, status, [(field, how)])`` of one case, from its recorded
    fields (None: not recorded) and its ``(Answer or exception, seconds)``
    (None: not run)."""
    if run is None:
        return name, DIFFERS, [("(case)", "recorded, not run")]
    answer = run[0]
    if isinstance(answer, Exception):
        return name, DIFFERS, [("(case)", f"raised {type(answer).__name__}: {answer}")]
    if old is None:
        return name, DIFFERS, [("(case)", "not in the record")]
    try:
        return name, *compare_case(old, answer, rtol)
    except Exception as error:  # noqa: BLE001 (a check that raises fails)
        return name, FAILS, [("(check)", f"raised {type(error).__name__}: {error}")]


def print_table(rows):
    """The cases that are not ``agree``: case, status, field, how."""
    if not rows:
        return
    print(f"{'case':<36} {'status':<18} {'field':<32} difference")
    for name, status, details in rows:
        for key, how in details:
            print(f"{name:<36} {status:<18} {key:<32} {how}")
            name, status = "", ""


@contextlib.contextmanager
def fixed_settings():
    """One BLAS thread, dask's synchronous scheduler, while the cases run and
    their answers are checked."""
    import dask
    from threadpoolctl import threadpool_limits

    with dask.config.set(scheduler="synchronous"), threadpool_limits(1):
        yield


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["record", "compare"], nargs="?")
    parser.add_argument("path", nargs="?", help="the .npz file")
    parser.add_argument("--only", help="run only the cases whose name contains this")
    parser.add_argument("--rtol", type=float, default=RTOL, help="of unique answers")
    parser.add_argument("--list", action="store_true", help="list the cases")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(select(args.only)))
        return 0
    if args.command is None or args.path is None:
        parser.error("give a command and a path")
    start = time.perf_counter()
    with fixed_settings():
        if args.command == "record":
            code = record(args.path, args.only)
        else:
            code = compare(args.path, args.only, args.rtol)
    print(f"{args.command}: {time.perf_counter() - start:.1f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
