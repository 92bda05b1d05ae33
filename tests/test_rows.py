"""The backend seam (``sklearn_linsep._rows``): which backend serves which arrays,
the protocols every backend keeps, the shared loops, and a new backend added as one
module plus one registration."""

import sys
import types
import typing

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris

import sklearn_linsep._rows as seam
from sklearn_linsep import (
    FisherDiscriminant,
    HardMarginSVM,
    SeparabilityAngle,
    linear_separability,
)
from sklearn_linsep._rows import _memory
from sklearn_linsep._rows._protocol import Rows, TwoClassRows, protocol_members

da = pytest.importorskip("dask.array")


def _members(protocol):
    return protocol_members(protocol)


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def test_each_kind_of_array_goes_to_its_backend():
    X, y = _iris()
    assert seam.backend_of(X, y, None) is _memory
    assert seam.backend_of(sp.csr_matrix(X), y) is _memory
    assert seam.backend_of(X.tolist(), list(y)) is _memory
    dask_backend = seam.backend_of(da.from_array(X), y)
    assert dask_backend is not _memory and dask_backend.__name__.endswith("_dask")
    # One dask array among the three is enough.
    assert seam.backend_of(X, da.from_array(y), None) is dask_backend
    assert seam.in_memory(X, y, None) and not seam.in_memory(X, da.from_array(y))


@pytest.mark.parametrize("kind", ["memory", "dask"])
def test_every_backend_keeps_the_protocols(kind, dask_sync):
    X, y = _iris()
    if kind == "dask":
        X, y = da.from_array(X, chunks=50), da.from_array(y, chunks=50)
    rows = seam.rows_of(X, y, name="test")
    assert rows.in_memory is (kind == "memory")
    missing = {name for name in _members(Rows) if not hasattr(rows, name)}
    assert not missing
    np.testing.assert_array_equal(rows.classes, [0, 1, 2])
    problem = rows.two_class([1], [0])
    missing = {name for name in _members(TwoClassRows) if not hasattr(problem, name)}
    assert not missing
    assert problem.n_samples == (100 if kind == "memory" else 150)
    assert problem.n_features == 4 and not problem.sparse


def test_the_protocols_are_protocols():
    assert issubclass(Rows, typing.Protocol) and issubclass(
        TwoClassRows, typing.Protocol
    )
    assert {"statistics", "two_class", "support_rows", "classes"} <= _members(Rows)
    assert {"seed", "violators", "min_margin", "total_hinge"} <= _members(TwoClassRows)


def test_one_vs_rest_and_pairs_give_the_problems_in_order():
    X, y = _iris()
    rows = seam.rows_of(X, y, name="test")
    problems = list(seam.one_vs_rest(rows))
    assert len(problems) == 3
    for k, problem in enumerate(problems):  # all rows, class k against the rest
        np.testing.assert_array_equal(problem.c, np.where(y == k, 1.0, -1.0))
        assert problem.indices is None
    pairs = list(seam.class_pairs(rows))
    assert [pair for pair, _ in pairs] == [(0, 1), (0, 2), (1, 2)]
    (_, problem) = pairs[2]  # the rows of classes 1 and 2, mapped back to X's
    np.testing.assert_array_equal(problem.indices, np.flatnonzero(y > 0))
    np.testing.assert_array_equal(problem.indices_in_X(np.array([0, 50])), [50, 100])
    two = seam.rows_of(X[y > 0], y[y > 0], name="test")
    (only,) = seam.one_vs_rest(two)
    np.testing.assert_array_equal(only.c, np.where(y[y > 0] == 2, 1.0, -1.0))


class Blocks:
    """A toy array type: rows held as a list of NumPy blocks."""

    def __init__(self, array, size=40):
        array = np.asarray(array)
        self.blocks = [array[i : i + size] for i in range(0, len(array), size)]

    def whole(self):
        return np.concatenate(self.blocks)

    def __len__(self):  # array-like, for validate_params
        return sum(len(block) for block in self.blocks)

    def __array__(self, dtype=None, copy=None):
        return self.whole() if dtype is None else self.whole().astype(dtype)


def _whole(array):
    return array.whole() if isinstance(array, Blocks) else array


@pytest.fixture
def blocks_backend(monkeypatch):
    """A new backend: one module (here made on the fly) and one registration."""
    module = types.ModuleType("toy_blocks_backend")
    module.calls = []

    def handles(*arrays):
        return any(isinstance(array, Blocks) for array in arrays)

    def rows(X, y, sample_weight, **options):
        module.calls.append("rows")
        return _memory.rows(_whole(X), _whole(y), _whole(sample_weight), **options)

    def map_rows(estimator, X, func, *args, accept_sparse=False):
        module.calls.append("map_rows")
        return _memory.map_rows(
            estimator, _whole(X), func, *args, accept_sparse=accept_sparse
        )

    def verify(result, X, y, rtol, check="proof"):
        module.calls.append("verify")
        return _memory.verify(result, _whole(X), _whole(y), rtol, check)

    module.handles, module.rows = handles, rows
    module.map_rows, module.verify = map_rows, verify
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(seam, "BACKENDS", (*seam.BACKENDS, module.__name__))
    return module


@pytest.mark.filterwarnings("ignore::sklearn_linsep.NotLinearlySeparableWarning")
def test_a_new_backend_is_one_module_and_one_registration(blocks_backend):
    X, y = _iris()
    Xb, yb = Blocks(X), Blocks(y)
    svm = HardMarginSVM().fit(Xb, yb)
    reference = HardMarginSVM().fit(X, y)
    np.testing.assert_array_equal(svm.coef_, reference.coef_)
    np.testing.assert_array_equal(svm.predict(Xb), reference.predict(X))
    pairs = linear_separability(Xb, yb)
    assert [r.separable for r in pairs.values()] == [True, True, False]
    assert pairs[1, 2].verify(Xb, yb)
    fisher = FisherDiscriminant().fit(Xb, yb)
    np.testing.assert_array_equal(
        fisher.predict_proba(Xb), FisherDiscriminant().fit(X, y).predict_proba(X)
    )
    angle = SeparabilityAngle().fit(Xb, yb)
    assert angle.score(Xb, yb) == SeparabilityAngle().fit(X, y).score(X, y)
    assert {"rows", "map_rows", "verify"} <= set(blocks_backend.calls)


@pytest.mark.parametrize("kind", ["float64", "float32", "sparse", "weights"])
def test_pairs_share_one_pass_and_find_what_each_pair_finds_alone(kind):
    # The pairs of K classes take their centre, extremes, seed means and the
    # duplicate search's projection from one pass over X; each equals what the
    # pair's problem finds by its own passes (two_class).
    rng = np.random.default_rng(1)
    y = np.arange(400) % 4
    X = rng.standard_normal((400, 5)) * [1.0, 10.0, 0.1, 1.0, 1e3] + y[:, None]
    X[rng.random(X.shape) < 0.3] = 0.0
    X[10] = X[13]  # classes 2 and 1: opposite duplicates in the pair (1, 2)
    weights = None
    if kind == "float32":
        X = X.astype(np.float32)
    elif kind == "sparse":
        X = sp.csr_matrix(X)
    elif kind == "weights":
        weights = np.where(np.arange(400) % 9 == 0, 0.0, 1.0)
    rows = seam.rows_of(X, y, weights, name="test")
    pairs = list(seam.class_pairs(rows))
    assert [pair for pair, _ in pairs] == [
        (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)
    ]  # fmt: skip
    for (a, b), shared in pairs:
        own = rows.two_class([b], [a])
        np.testing.assert_array_equal(shared.indices, own.indices)
        np.testing.assert_array_equal(shared.c, own.c)
        np.testing.assert_array_equal(shared.active, own.active)
        scale = np.abs(own.centre).max()
        np.testing.assert_allclose(
            shared.centre, own.centre, rtol=0, atol=1e-14 * scale
        )
        np.testing.assert_array_equal(shared.spread, own.spread)  # max, min: exact
        np.testing.assert_array_equal(shared.magnitude, own.magnitude)
        assert shared.scale == pytest.approx(own.scale, rel=1e-14)
        for size in (5, 40):
            np.testing.assert_array_equal(shared.seed(size), own.seed(size))
        assert shared.opposite_duplicates() == own.opposite_duplicates()
    assert dict(pairs)[1, 2].opposite_duplicates() is not None
    # The projection of X is made once, for all the pairs.
    (_, first), (_, second) = pairs[:2]
    assert first._statistics.projection.func.__self__ is (
        second._statistics.projection.func.__self__
    )


def test_two_classes_are_one_problem_on_every_row():
    X, y = _iris()
    keep = y > 0
    rows = seam.rows_of(X[keep], y[keep], name="test")
    ((pair, problem),) = seam.class_pairs(rows)
    assert pair == (0, 1) and problem.indices is None
    assert problem._statistics is not None  # the one summary pass's


def _own_passes(X, c, weights):
    """A two-class problem's centre, extremes and side means by numpy on its
    active rows: what each problem found by passes of its own before."""
    active = weights > 0
    rows = X[active]
    return (
        rows.mean(axis=0),
        rows.max(axis=0),
        rows.min(axis=0),
        X[active & (c > 0)].mean(axis=0),
        X[active & (c < 0)].mean(axis=0),
    )


@pytest.mark.parametrize("layout", ["C", "F", "float32", "csr"])
@pytest.mark.parametrize("weighted", [False, True])
def test_every_problem_of_a_fit_takes_its_statistics_from_one_pass(
    layout, weighted, count_calls
):
    """Two classes, one-vs-rest's tasks and the joint machine read the centre,
    the extremes and the class means of one pass over X (made once, at first
    use), and they are those of each problem's own rows: to rounding, weights
    of 0 left out. X that the pass cannot read in place (sparse, Fortran order)
    keeps each problem's own passes."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 5)) * [1, 10, 1e-3, 1e4, 1] + [0, 5, 0, -3e4, 1e3]
    y = rng.integers(0, 3, 90)
    weights = rng.integers(0, 3, 90).astype(float) if weighted else None
    data = {
        "C": X,
        "F": np.asfortranarray(X),
        "float32": X.astype(np.float32),
        "csr": sp.csr_matrix(X),
    }[layout]
    passes = count_calls(_memory, "class_summaries")
    rows = seam.rows_of(data, y, weights, name="test")
    in_place = layout in ("C", "float32")
    dense = np.asarray(data.toarray() if sp.issparse(data) else data, dtype=float)
    w = np.ones(90) if weights is None else weights
    for k in range(3):
        problem = rows.two_class([k], [j for j in range(3) if j != k])
        stats = problem._statistics
        assert (stats is not None) == in_place
        if stats is None:
            continue
        c = np.where(y == k, 1.0, -1.0)
        centre, high, low, positive, negative = _own_passes(dense, c, w)
        np.testing.assert_allclose(stats.centre, centre, rtol=1e-12, atol=1e-9)
        np.testing.assert_array_equal(stats.high, high)
        np.testing.assert_array_equal(stats.low, low)
        np.testing.assert_allclose(stats.side_means[0], positive, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(stats.side_means[1], negative, rtol=1e-12, atol=1e-9)
    joint = rows.joint()
    assert (joint._summaries is not None) == in_place
    centre = dense[w > 0].mean(axis=0)
    np.testing.assert_allclose(joint.centre, centre, rtol=1e-12, atol=1e-9)
    assert passes == ([1] if in_place else [])


def test_answers_from_the_shared_pass_are_those_of_own_passes(monkeypatch):
    """One-vs-rest, Crammer-Singer, the pairs and the joint verdict answer as
    they did from their own passes (margins and hinges to 1e-9, the same
    verdicts and supports)."""
    X, y = _iris()

    def answers():
        ovr = HardMarginSVM(on_inseparable="soft").fit(X, y)
        cs = HardMarginSVM(multi_class="crammer_singer", on_inseparable="soft")
        cs.fit(X, y)
        pairs = linear_separability(X, y)
        joint = linear_separability(X, y, multiclass="joint")
        return ovr, cs, pairs, joint

    shared = answers()
    real = _memory.MemoryRows.summaries  # the pairs' (theirs before this pass too)
    monkeypatch.setattr(
        _memory.MemoryRows,
        "summaries",
        lambda self, in_place_only=False: None if in_place_only else real(self),
    )
    own = answers()
    for mine, theirs in zip(shared[:2], own[:2]):
        np.testing.assert_allclose(mine.margin_, theirs.margin_, rtol=1e-9)
        np.testing.assert_allclose(
            mine.hinge_violation_, theirs.hinge_violation_, rtol=1e-9, atol=1e-12
        )
        np.testing.assert_array_equal(mine.support_, theirs.support_)
    for pair, result in shared[2].items():
        assert result.separable == own[2][pair].separable == (pair != (1, 2))
        assert result.verify(X, y)
        if result.separable:
            assert result.margin == pytest.approx(own[2][pair].margin, rel=1e-9)
    assert not shared[3].separable and not own[3].separable
    assert shared[3].verify(X, y)


def test_every_two_class_backend_declares_what_the_core_asks():
    """The core asks the two-class rows only what ``TwoClassRows`` declares
    (no ``in_memory`` flag): each backend has every attribute and method."""
    from sklearn_linsep._rows._dask._two_class import DaskScaledRows
    from sklearn_linsep._rows._protocol import TwoClassRows
    from sklearn_linsep._rows._memory_two_class import ScaledRows

    declared = protocol_members(TwoClassRows)
    assert "cheap_passes" in declared and "in_memory" not in declared
    X = np.random.default_rng(0).normal(size=(20, 3))
    c = np.repeat([-1.0, 1.0], 10)
    in_memory = ScaledRows(X, c)
    for name in declared:
        assert hasattr(in_memory, name), name
        assert hasattr(DaskScaledRows, name) or name in (
            "centre",
            "scale",
            "n_samples",
            "n_features",
            "feature_scale",
            "spread",
            "magnitude",
            "rounding",
        ), name  # instance attributes of the dask rows, set in __init__
    assert ScaledRows.cheap_passes and not DaskScaledRows.cheap_passes


def test_every_backend_provides_what_the_core_asks(dask_sync):
    """The protocols the exact core checks at its entry (``check_rows``) hold
    for every backend's two-class rows and pairs, and their equilibrated
    copies; a rows object without a member is refused, naming it."""
    import copy

    from sklearn_linsep._rows._protocol import (
        InMemoryPairRows,
        InMemoryTwoClassRows,
        PairRows,
        TwoClassRows,
        check_protocol,
    )

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), np.arange(60) % 3
    for arrays, two, pairs in (
        ((X, y), InMemoryTwoClassRows, InMemoryPairRows),
        ((da.from_array(X, chunks=20), da.from_array(y, chunks=20)), TwoClassRows,
         PairRows),
    ):  # fmt: skip
        rows = seam.rows_of(*arrays, name="test")
        two_class = rows.two_class(np.array([1]), np.array([0, 2]))
        for problem, protocol in ((two_class, two), (rows.joint(), pairs)):
            check_protocol(problem, protocol)
            check_protocol(problem.equilibrated(), protocol)
    broken = copy.copy(seam.rows_of(X, y, name="test").two_class([1], [0]))
    broken.__class__ = type("Broken", (), {})
    with pytest.raises(TypeError, match="does not provide .*violators"):
        check_protocol(broken, TwoClassRows)


def test_violators_take_one_signature_and_the_same_slack(dask_sync):
    """Two-class rows and pairs, in memory and on dask, answer ``violators``
    with the same arguments; a row's slack lowers its threshold alike."""
    import inspect

    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(60, 3)), (np.arange(60) % 2)
    for arrays in ((X, y), (da.from_array(X, chunks=20), da.from_array(y, chunks=20))):
        rows = seam.rows_of(*arrays, name="test")
        two_class = rows.two_class([1], [0])
        signatures = {str(inspect.signature(problem.violators))
                      for problem in (two_class, rows.joint())}  # fmt: skip
        assert len(signatures) == 1
        coef, intercept = np.array([1.0, 0.0, 0.0]), 0.0
        plain, _ = two_class.violators(coef, intercept, 1.0, np.array([], np.intp))
        everyone = np.arange(60)
        slack = (everyone, np.full(60, 1e6))  # no row below 1 - 1e6
        none, inside = two_class.violators(coef, intercept, 1.0, plain[:1], slack=slack)
        assert plain.size and not none.size and np.all(inside < 0)


def test_a_pairs_backend_is_read_by_its_protocol_not_its_class():
    """A backend of pairs that gives what ``PairRows`` declares but does not derive
    from ``_kesler.Pairs`` gets the K-class certificate, as ``KeslerRows`` does."""
    from sklearn_linsep._kesler import Pairs
    from sklearn_linsep._margin._multiclass import joint_margin_of
    from sklearn_linsep._rows._memory_pairs import KeslerRows

    members = {}
    for klass in reversed(KeslerRows.__mro__[:-1]):
        members.update(
            (name, value)
            for name, value in vars(klass).items()
            if name not in ("__dict__", "__weakref__")
        )
    Independent = type("IndependentPairRows", (), members)
    assert not issubclass(Independent, Pairs)
    rng = np.random.default_rng(0)
    X, codes = rng.normal(size=(30, 2)), rng.integers(0, 3, 30)  # inseparable
    answers = [
        joint_margin_of(make(X, codes, 3), soft=False)
        for make in (KeslerRows, Independent)
    ]
    for answer in answers:
        assert not answer.separable
        assert type(answer.certificate).__name__ == "JointSeparabilityResult"
    np.testing.assert_array_equal(
        answers[0].certificate.certificate_indices,
        answers[1].certificate.certificate_indices,
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_centred_rows_are_made_in_a_copy_never_in_x(dtype):
    """Z's rows by index or by a slice (a view of X): ``(x - centre) / scale``
    to the bit, X unchanged, through the two-class rows and the pairs' rows."""
    rng = np.random.default_rng(11)
    X = (rng.normal(size=(60, 5)) * [1, 10, 100, 1e3, 1e4] + 7).astype(dtype)
    before = X.copy()
    two = seam.rows_of(X, np.arange(60) % 2, name="test").two_class([1], [0])
    joint = seam.rows_of(X, np.arange(60) % 3, name="test").joint()
    for frame in (two, joint):
        for indices in (np.array([3, 0, 3, 59]), slice(10, 20)):
            expected = (np.asarray(X[indices], float) - frame.centre) / frame.scale
            np.testing.assert_array_equal(frame.centred_rows(indices), expected)
            np.testing.assert_array_equal(X, before)


def test_the_last_hyperplanes_margins_are_kept_not_recomputed(count_calls):
    """The working-set loop's last look for violators and its optimality check ask
    for the margins of one hyperplane: one pass over X answers both (read-only,
    so that neither caller changes the other's); another hyperplane, or another
    intercept, is computed afresh."""
    from sklearn_linsep._rows._memory_two_class import ScaledRows

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4)) + 100.0
    c = np.where(rng.random(50) > 0.5, 1.0, -1.0)
    rows = ScaledRows(X, c)
    passes = count_calls(rows, "scores")
    coef = rng.normal(size=4)
    first = rows.margins(coef, 0.5)
    assert rows.margins(coef.copy(), 0.5) is first and len(passes) == 1
    assert not first.flags.writeable
    expected = c * (((X - rows.centre) / rows.scale) @ coef + 0.5)
    np.testing.assert_allclose(first, expected, rtol=1e-12, atol=1e-12)
    assert rows.min_margin(coef, 0.25) == pytest.approx(np.min(expected - 0.25 * c))
    assert len(passes) == 2
    rows.margins(-coef, 0.25)
    assert len(passes) == 3


_FITS = {
    "two classes": lambda X, y: HardMarginSVM(on_inseparable="soft").fit(
        X[y < 2], y[y < 2]
    ),
    "one-vs-rest": lambda X, y: HardMarginSVM(on_inseparable="soft").fit(X, y),
    "Crammer-Singer": lambda X, y: HardMarginSVM(
        multi_class="crammer_singer", on_inseparable="soft"
    ).fit(X, y),
    "verdict": lambda X, y: linear_separability(X[y < 2], y[y < 2]),
    "pairs": lambda X, y: linear_separability(X, y),
    "joint": lambda X, y: linear_separability(X, y, multiclass="joint"),
    "weight 0 on the bad row": lambda X, y: HardMarginSVM(on_inseparable="soft").fit(
        X[y < 2], y[y < 2], sample_weight=(np.arange(20) != 7).astype(float)
    ),
}


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("layout", ["C", "F", "float32"])
@pytest.mark.parametrize("fit", list(_FITS))
def test_non_finite_x_is_refused_by_the_first_pass(bad, layout, fit):
    """The margin's fits leave X's finiteness to the problems' first pass over
    it: NaN or infinity anywhere (in a row of weight 0 too) is validation's
    error, in every layout."""
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.repeat([0, 1, 2, 3], 10)
    X[7, 1] = bad
    X = {"C": X, "F": np.asfortranarray(X), "float32": X.astype(np.float32)}[layout]
    with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
        _FITS[fit](X, y)


def test_finite_x_is_proven_by_the_summary_pass(count_calls):
    """Finite X in C order is checked by no pass of its own (its class sums are
    finite); with rows of weight 0, which the pass does not read, X is checked."""
    from sklearn_linsep import _validation

    checks = count_calls(_validation, "_assert_all_finite")
    X, y = _iris()
    linear_separability(X, y)
    HardMarginSVM(on_inseparable="soft").fit(X, y)
    assert checks == []
    HardMarginSVM(on_inseparable="soft").fit(
        X, y, sample_weight=np.where(np.arange(150) == 3, 0.0, 1.0)
    )
    assert checks == [1]
