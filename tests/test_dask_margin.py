"""HardMarginSVM and linear_separability on dask arrays, against the in-memory fits.

The tests run on dask's synchronous scheduler (the ``dask_sync`` fixture); the soft
limit and multiclass test runs on the 2-process LocalCluster of ``dask_client``, so
that there the block tasks really run in other processes and only what they return
travels.
"""

import itertools
import warnings

import dask.array as da
import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError

from sklearn_linsep import (
    HardMarginSVM,
    NotLinearlySeparableError,
    NotLinearlySeparableWarning,
    SolverError,
    linear_separability,
)
from sklearn_linsep._margin import maximal_margin_of
from sklearn_linsep._rows import rows_of

pytestmark = pytest.mark.usefixtures("dask_sync")


def _separable(n=6000, p=5, gap=0.3, seed=0, offset=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    w = rng.normal(size=p)
    scores = X @ w
    keep = np.abs(scores) > gap
    return X[keep] + offset, (scores[keep] > 0).astype(int)


def _iris():
    return load_iris(return_X_y=True)


@pytest.mark.parametrize("chunks", [500, 1777, 10_000])
@pytest.mark.parametrize("dask_y", [True, False])
def test_hard_margin_on_blocks_equals_in_memory(chunks, dask_y):
    X, y = _separable(offset=50.0)  # an offset the centring must absorb
    reference = HardMarginSVM().fit(X, y)
    y_in = da.from_array(y, chunks=chunks) if dask_y else y
    svm = HardMarginSVM().fit(da.from_array(X, chunks=(chunks, X.shape[1])), y_in)
    assert svm.separable_
    assert svm.margin_ == pytest.approx(reference.margin_, rel=1e-9)
    np.testing.assert_allclose(svm.coef_, reference.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(svm.intercept_, reference.intercept_, rtol=1e-7)
    np.testing.assert_array_equal(svm.support_, reference.support_)
    np.testing.assert_array_equal(svm.support_vectors_, X[svm.support_])
    np.testing.assert_allclose(
        svm.dual_coef_ @ svm.support_vectors_, svm.coef_, rtol=1e-6, atol=1e-9
    )
    np.testing.assert_array_equal(svm.n_support_, reference.n_support_)
    assert svm.n_features_in_ == X.shape[1]


@pytest.mark.parametrize("block_rows", [100, 10_000])
def test_only_the_working_set_travels(block_rows):
    X, y = _separable(n=20_000, p=4)
    rows = rows_of(da.from_array(X, chunks=(block_rows, 4)), y, name="test")
    problem = rows.two_class([1], [0])
    seed_size, batch = 50, 100
    result = maximal_margin_of(problem, initial_size=seed_size, batch=batch)
    reference = HardMarginSVM().fit(X, y)
    assert result.margin == pytest.approx(reference.margin_, rel=1e-9)
    # The client receives the seed and each round's worst violators, chosen on
    # the workers: however small the blocks (here up to 200 of them).
    assert 0 < len(rows.fetched) <= 2 * seed_size + result.rounds * batch


def test_sample_weights_on_blocks_leave_out_zero_weights():
    X, y = _separable(n=3000, p=3)
    rng = np.random.default_rng(1)
    weights = rng.integers(0, 3, size=len(y)).astype(float)
    reference = HardMarginSVM().fit(X, y, sample_weight=weights)
    svm = HardMarginSVM().fit(
        da.from_array(X, chunks=(700, 3)), y, sample_weight=da.from_array(weights, 700)
    )
    assert svm.margin_ == pytest.approx(reference.margin_, rel=1e-9)
    assert np.all(weights[svm.support_] > 0)


def test_soft_limit_and_multiclass_on_blocks(dask_client):
    import dask

    with dask.config.set(scheduler=dask_client):  # on the cluster
        X, y = _iris()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotLinearlySeparableWarning)
            reference = HardMarginSVM().fit(X, y)
        with pytest.warns(NotLinearlySeparableWarning):
            svm = HardMarginSVM(on_inseparable="warn").fit(da.from_array(X, chunks=(40, 4)), y)
        np.testing.assert_allclose(svm.margin_, reference.margin_, rtol=1e-9)
        np.testing.assert_allclose(svm.hinge_violation_, reference.hinge_violation_)
        np.testing.assert_array_equal(svm.separable_, reference.separable_)
        np.testing.assert_array_equal(svm.n_support_, reference.n_support_)
        predicted = svm.predict(da.from_array(X, chunks=(40, 4)))
        np.testing.assert_array_equal(np.asarray(predicted), reference.predict(X))


def test_raise_gives_a_certificate_valid_on_the_whole_data():
    X, y = _iris()
    keep = y > 0
    X, y = X[keep], y[keep]
    with pytest.raises(NotLinearlySeparableError) as error:
        HardMarginSVM(on_inseparable="raise").fit(da.from_array(X, chunks=30), y)
    certificate = error.value.certificate
    assert certificate.verify(X, y)
    blocks, labels = da.from_array(X, chunks=30), da.from_array(y, 30)
    assert certificate.verify(blocks, labels)
    # In rationals on the blocks: only the certificate's rows come over.
    assert certificate.verify(blocks, labels, check="exact")
    assert certificate.exact_weights(blocks, labels) == certificate.exact_weights(X, y)


def test_verify_on_blocks_judges_the_float_hyperplane_alone():
    """XOR rows: a float hyperplane that proves two rows and exact coefficients that
    prove the other two are no proof (found by review: a block's rows in doubt were
    decided on ``exact_coef``, the rest on ``coef``). False on blocks as in memory;
    near-touching rows of one feature at 1e6, whose rounding bound alone falls
    short, are proved on blocks too."""
    from dataclasses import replace
    from fractions import Fraction

    from sklearn_linsep._testing import near_touching_case

    result = linear_separability(np.array([[0.0, 0.0], [3.0, 3.0]]), [0, 1])
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    y = np.array([0, 0, 1, 1])
    mixed = replace(result, coef=np.array([4.0, 4.0]), intercept=-2.0,
                    exact_coef=[Fraction(-4), Fraction(-4)],
                    exact_intercept=Fraction(6))  # fmt: skip
    assert not mixed.verify(X, y)
    assert not mixed.verify(da.from_array(X, chunks=2), da.from_array(y, chunks=2))
    X, y, _ = near_touching_case(81)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the hyperplane is also given about a centre
        proved = linear_separability(X, y)
    assert proved.verify(da.from_array(X, chunks=7), da.from_array(y, chunks=7))


@pytest.mark.parametrize("chunks", [17, 40, 150])
def test_linear_separability_on_blocks_matches_in_memory(chunks):
    X, y = _iris()
    reference = linear_separability(X, y)
    results = linear_separability(da.from_array(X, chunks=(chunks, 4)), y)
    assert results.keys() == reference.keys()
    for pair, result in results.items():
        assert result.separable == reference[pair].separable
        assert result.verify(X, y)
        assert result.verify(da.from_array(X, chunks=33), da.from_array(y, 33))
        if not result.separable:  # indices are rows of the whole X
            assert set(y[result.certificate_indices]) == set(pair)


def test_linear_separability_two_classes_on_blocks():
    X, y = _separable(n=20_000, p=6, gap=0.05)
    result = linear_separability(da.from_array(X, chunks=(3000, 6)), y)
    assert result.separable and result.verify(X, y)
    margins = np.where(y == 1, 1, -1) * (X @ result.coef + result.intercept)
    assert margins.min() == pytest.approx(1.0, rel=1e-9)
    y_flipped = y.copy()
    y_flipped[:2] = 1 - y_flipped[:2]  # two mislabelled rows: inseparable
    result = linear_separability(da.from_array(X, chunks=(3000, 6)), y_flipped)
    assert not result.separable and result.verify(X, y_flipped)
    wrong = type(result)(**{**vars(result), "common_point": result.common_point + 1})
    assert not wrong.verify(da.from_array(X, chunks=3000), y_flipped)


def test_a_block_with_no_rows_changes_nothing():
    X, y = _separable(n=2000, p=3)
    n = len(y)
    chunks = ((n // 2, 0, n - n // 2), (3,))
    svm = HardMarginSVM().fit(da.from_array(X, chunks=chunks), y)
    assert svm.margin_ == pytest.approx(HardMarginSVM().fit(X, y).margin_, rel=1e-9)
    assert linear_separability(da.from_array(X, chunks=chunks), y).separable


def test_bad_dask_input_gives_clear_errors():
    X, y = _separable(n=2000, p=3)
    X_dask = da.from_array(X, chunks=(500, 3))
    unknown = X_dask[X_dask[:, 0] > -np.inf]  # same rows, unknown chunk sizes
    y_unknown = da.from_array(y, chunks=500)[X_dask[:, 0] > -np.inf]
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        HardMarginSVM().fit(unknown, y)
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        linear_separability(unknown, y_unknown)
    with_nan = X.copy()
    with_nan[1234, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        HardMarginSVM().fit(da.from_array(with_nan, chunks=(500, 3)), y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        linear_separability(X_dask, np.zeros(len(y)))
    with pytest.raises(ValueError, match="rows"):
        HardMarginSVM().fit(X_dask, y[:-1])


def test_a_failed_fit_leaves_no_earlier_model_behind():
    X, y = _separable(n=1000, p=3)
    svm = HardMarginSVM().fit(X, y)
    with_nan = X.copy()
    with_nan[10, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        svm.fit(da.from_array(with_nan, chunks=(300, 3)), np.where(y == 1, "yes", "no"))
    with pytest.raises(NotFittedError):
        svm.predict(X)


def test_string_labels_and_three_classes_on_blocks():
    X, y = _iris()
    labels = np.array(["setosa", "versicolor", "virginica"], dtype=object)[y]
    results = linear_separability(da.from_array(X, chunks=(50, 4)), labels)
    assert set(results) == {
        ("setosa", "versicolor"),
        ("setosa", "virginica"),
        ("versicolor", "virginica"),
    }
    assert not results["versicolor", "virginica"].separable
    assert results["versicolor", "virginica"].verify(X, labels)


@pytest.mark.parametrize("seed", [9, 10, 17])
def test_units_far_apart_and_offsets_on_blocks_equal_in_memory(seed):
    """The issue's families on blocks: a gap in a feature of units 1e10 smaller
    than the others, and data 1e12 from the origin (the hyperplane about a
    centre); verify on blocks measures each feature in its own units."""
    rng = np.random.default_rng(seed)
    n = 200
    y = np.arange(n) % 2
    small = 1e-5 * (
        np.where(y == 1, 1.0, -1.0) + 0.25 * rng.normal(size=n).clip(-1.5, 1.5)
    )
    X = np.column_stack([1e5 * rng.normal(size=n), 1e5 * rng.normal(size=n), small])
    X_dask, y_dask = da.from_array(X, chunks=70), da.from_array(y, chunks=70)
    on_blocks, in_memory = (
        linear_separability(X_dask, y_dask),
        linear_separability(X, y),
    )
    assert on_blocks.separable and in_memory.separable
    assert on_blocks.margin == pytest.approx(in_memory.margin, rel=1e-9)
    assert on_blocks.verify(X_dask, y_dask) and on_blocks.verify(X, y)
    Z = rng.normal(size=(n, 3))
    Z[:, 0] = np.where(y == 1, 0.3 + np.abs(Z[:, 0]), -0.3 - np.abs(Z[:, 0]))
    far = 1e12 + 1e-3 * Z
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = linear_separability(da.from_array(far, chunks=70), y_dask)
    assert result.separable and result.verify(da.from_array(far, chunks=70), y_dask)
    # A certificate that coincides in the large features only is refused.
    forged = type(in_memory)(
        separable=False,
        classes=np.array([0, 1]),
        certificate_indices=np.array([0, 1]),
        certificate_weights=np.array([1.0, 1.0]),
        common_point=X[1],
        certificate_signs=np.array([-1.0, 1.0]),
    )
    X_forged = X.copy()
    X_forged[0, :2] = X[1, :2]
    assert not forged.verify(da.from_array(X_forged, chunks=70), y_dask)
    X_forged[0, 2] = X[1, 2]
    assert forged.verify(da.from_array(X_forged, chunks=70), y_dask)


class _PassCounter:
    """Counts the block tasks of each kind a dask fit runs (the synchronous
    scheduler runs them in this process)."""

    def __init__(self, monkeypatch):
        from sklearn_linsep._rows._dask import _summary, _two_class

        self.calls = {}
        for module, name in [
            (_summary, "_block_summary"),
            (_two_class, "_seed_block"),
            (_two_class, "_full_pass_block"),
            (_two_class, "_reduce_block"),
            (_two_class, "_pool_violators"),
        ]:
            counted = self._counted(name, getattr(module, name))
            monkeypatch.setattr(module, name, counted)

    def _counted(self, name, function):
        def counted(*args, **kwargs):
            self.calls[name] = self.calls.get(name, 0) + 1
            return function(*args, **kwargs)

        return counted

    def passes(self, name, blocks):
        return self.calls.get(name, 0) / blocks


def _small_pools(monkeypatch, early=300, rounds=200):
    """Pools of a few hundred rows a side, for blocks of thousands (the defaults
    would hold these test blocks whole)."""
    from sklearn_linsep._rows._dask import _two_class

    monkeypatch.setattr(_two_class, "EARLY_POOL_ROWS", early)
    monkeypatch.setattr(_two_class, "POOL_ROWS", rounds)


@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_a_separable_fit_reads_the_blocks_once_where_their_bounds_hold(
    monkeypatch, offset
):  # fmt: skip
    # One pass for the labels, means and extremes, which also leaves on the workers
    # each block's early pool (its rows nearest its own pool's hyperplane) and the
    # bound of its other rows; rounds in the pools; the answer confirmed by the
    # early pools and the bounds, with no second pass over the blocks.
    _small_pools(monkeypatch)
    X, y = _separable(n=40_000, p=4, gap=0.05, seed=3, offset=offset)
    counter = _PassCounter(monkeypatch)
    blocks = 10
    svm = HardMarginSVM().fit(da.from_array(X, chunks=(len(X) // blocks + 1, 4)), y)
    reference = HardMarginSVM().fit(X, y)
    assert svm.margin_ == pytest.approx(reference.margin_, rel=1e-9)
    assert np.array_equal(np.sort(svm.support_), np.sort(reference.support_))
    assert counter.passes("_block_summary", blocks) == 1
    assert counter.passes("_seed_block", blocks) == 0
    assert counter.calls.get("_full_pass_block", 0) == 0
    assert counter.calls.get("_reduce_block", 0) == 0
    assert svm.n_iter_ > 1 and counter.calls["_pool_violators"] >= 1


def test_a_bound_that_falls_short_reads_the_blocks_again(monkeypatch):
    # Blocks whose pools' hulls meet (labels flipped in each) keep the class means'
    # hyperplane, whose bound does not reach the margin: full passes confirm, and
    # the soft limit's answer is the one in memory.
    _small_pools(monkeypatch)
    X, y = _separable(n=40_000, p=4, gap=0.05, seed=3)
    y = y.copy()
    y[::4000] = 1 - y[::4000]  # one flipped label a block
    counter = _PassCounter(monkeypatch)
    blocks = 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        svm = HardMarginSVM().fit(
            da.from_array(X, chunks=(len(X) // blocks + 1, 4)), y
        )
        reference = HardMarginSVM().fit(X, y)
    assert svm.hinge_violation_ == pytest.approx(reference.hinge_violation_, rel=1e-9)
    assert svm.margin_ == pytest.approx(reference.margin_, rel=1e-9)
    assert counter.passes("_block_summary", blocks) == 1
    assert counter.passes("_full_pass_block", blocks) >= 1


def _generated_blocks(X, y, blocks, made):
    """X and y as a dask array of ``blocks`` blocks, each made by a task that counts
    in ``made`` how often it runs (a never-persisted array: a pass makes it again)."""
    import dask

    def make(index, rows):
        made[index] = made.get(index, 0) + 1
        return X[rows], y[rows]

    bounds = np.linspace(0, len(y), blocks + 1).astype(int)
    parts = [dask.delayed(make, pure=True, nout=2)(i, slice(a, b))
             for i, (a, b) in enumerate(itertools.pairwise(bounds))]  # fmt: skip
    X_parts = [da.from_delayed(part[0], shape=(b - a, X.shape[1]), dtype=X.dtype)
               for part, a, b in zip(parts, bounds[:-1], bounds[1:])]  # fmt: skip
    y_parts = [da.from_delayed(part[1], shape=(b - a,), dtype=y.dtype)
               for part, a, b in zip(parts, bounds[:-1], bounds[1:])]  # fmt: skip
    return da.concatenate(X_parts), da.concatenate(y_parts), bounds


@pytest.mark.filterwarnings("ignore::sklearn_linsep.NotLinearlySeparableWarning")
@pytest.mark.parametrize("kept", [0, 3, 8])
def test_blocks_kept_on_a_cluster_are_made_once(monkeypatch, kept):
    # On a dask.distributed cluster the first blocks that fit in KEEP_SHARE of its
    # memory (less the pools' budget) stay on the workers for the fit: where the
    # blocks' bounds do not spare the full passes (a label flipped in each: the soft
    # limit), those read them, and make only the others again. The answer is the
    # same.
    from sklearn_linsep._rows._dask import _blocks

    X, y = _separable(n=40_000, p=4, gap=0.05, seed=3)
    made = {}
    bounds = np.linspace(0, len(y), 9).astype(int)
    y = y.copy()
    y[bounds[:-1]] = 1 - y[bounds[:-1]]
    X_dask, y_dask, bounds = _generated_blocks(X, y, 8, made)
    row_bytes = X.shape[1] * X.itemsize + y.itemsize
    budget = int(bounds[kept] * row_bytes) + 1
    memory = 0 if kept == 0 else (budget + _blocks.POOL_BYTES) / _blocks.KEEP_SHARE
    monkeypatch.setattr(_blocks, "cluster_memory", lambda: memory)
    svm = HardMarginSVM().fit(X_dask, y_dask)
    reference = HardMarginSVM().fit(X, y)
    assert svm.hinge_violation_ == pytest.approx(reference.hinge_violation_, rel=1e-9)
    assert svm.margin_ == pytest.approx(reference.margin_, rel=1e-9)
    assert all(made[index] == 1 for index in range(kept))
    assert all(made[index] >= 2 for index in range(kept, 8))


@pytest.mark.parametrize("cut", ["between the classes", "inside each class"])
def test_blocks_of_one_class_each_take_a_seed_pass(monkeypatch, cut):
    # Rows sorted by class, blocks cut between the classes: no block holds both,
    # so the summary left no pools; the seed's own pass makes them. Cut inside a
    # class, the one block of both is enough.
    X, y = _separable(n=4000, p=3, gap=0.1, seed=5)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    first = int(np.sum(y == 0)) + (0 if cut == "between the classes" else 7)
    counter = _PassCounter(monkeypatch)
    X_dask = da.from_array(X, chunks=((first, len(y) - first), (3,)))
    svm = HardMarginSVM().fit(X_dask, y)
    assert svm.margin_ == pytest.approx(HardMarginSVM().fit(X, y).margin_, rel=1e-9)
    seed_passes = 1 if cut == "between the classes" else 0
    assert counter.passes("_seed_block", 2) == seed_passes


@pytest.mark.filterwarnings("ignore::sklearn_linsep.NotLinearlySeparableWarning")
@pytest.mark.parametrize("flip", [0, 5])
def test_tiny_pools_change_the_passes_not_the_answer(monkeypatch, flip):
    # Pools of a few rows miss most support vectors: the full passes find them,
    # and the answer is the same (the hard margin, and the soft limit).
    from sklearn_linsep._rows._dask import _two_class

    X, y = _separable(n=8000, p=3, gap=0.05, seed=4)
    y = y.copy()
    y[:flip] = 1 - y[:flip]
    monkeypatch.setattr(_two_class, "POOL_ROWS", 1)
    monkeypatch.setattr(_two_class, "EARLY_POOL_ROWS", 1)
    monkeypatch.setattr(_two_class, "OWN_POOL_ROWS", 0)
    counter = _PassCounter(monkeypatch)
    X_dask = da.from_array(X, chunks=(1000, 3))
    svm = HardMarginSVM(initial_size=2, batch=3).fit(X_dask, y)
    reference = HardMarginSVM().fit(X, y)
    assert svm.separable_ == (flip == 0)
    assert svm.margin_ == pytest.approx(reference.margin_, rel=1e-8)
    assert svm.hinge_violation_ == pytest.approx(reference.hinge_violation_, rel=1e-8)
    assert counter.passes("_full_pass_block", 8) >= 2
    verdict = linear_separability(X_dask, y)
    assert verdict.separable == (flip == 0) and verdict.verify(X, y)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_tasks_centred_ulps_apart_keep_their_margins_about_one_centre():
    # On blocks each one-vs-rest task's centre is a sum of other class sums, a
    # few ulps apart; moved to one centre, each hyperplane must keep margin 1
    # (the sign of the move was wrong: 0.9996 on task 2).
    rng = np.random.default_rng(1)
    n = 3000
    y = rng.integers(0, 3, n)
    X = np.column_stack(
        [
            1e6 + 1e-6 * (0.4 * rng.uniform(-1, 1, n) + 2 * y),
            1e6 + rng.normal(size=n),
            1e6 + 1e3 * rng.normal(size=n),
        ]
    )
    svm = HardMarginSVM().fit(da.from_array(X, chunks=(317, 3)), y)
    reference = HardMarginSVM().fit(X, y)
    assert svm.center_ is not None
    np.testing.assert_array_equal(svm.separable_, [True, False, True])
    scores = svm.decision_function(X)
    for k in (0, 2):  # the middle class cannot be split from both others
        margins = np.where(y == k, 1.0, -1.0) * scores[:, k]
        assert margins.min() >= 1 - 1e-9
    np.testing.assert_array_equal(svm.predict(X), reference.predict(X))
    np.testing.assert_allclose(scores, reference.decision_function(X), atol=1e-6)


def test_float32_support_vectors_keep_their_dtype_on_blocks():
    X, y = _separable(n=2000, p=3)
    X = X.astype(np.float32)
    svm = HardMarginSVM().fit(da.from_array(X, chunks=(500, 3)), y)
    assert svm.support_vectors_.dtype == np.float32  # rows of X, as given
    assert svm.coef_.dtype == np.float64  # the margins' hyperplane, unrounded
    np.testing.assert_array_equal(svm.support_vectors_, X[svm.support_])


@pytest.mark.parametrize("make", ["FisherDiscriminant", "SeparabilityAngle", "svm"])
def test_a_failed_fit_on_blocks_leaves_nothing(make):
    import sklearn_linsep

    X, y = _separable(n=600, p=3)
    X[5, 1] = np.nan
    estimator = HardMarginSVM() if make == "svm" else getattr(sklearn_linsep, make)()
    with pytest.raises(ValueError, match="NaN"):
        estimator.fit(da.from_array(X, chunks=(200, 3)), y)
    assert not [name for name in vars(estimator) if name.endswith("_")]


def test_unknown_chunk_sizes_are_refused_before_any_pass():
    X, y = _separable(n=600, p=3)
    X_dask = da.from_array(X, chunks=(200, 3))
    keep = X_dask[:, 0] > -np.inf
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        HardMarginSVM().fit(X_dask[keep], da.from_array(y, chunks=200)[keep])


class _JointPassCounter(_PassCounter):
    """Counts the block tasks of a joint (Kesler) dask fit, and the rounds it
    answers from the candidate pools (on the client, no task)."""

    def __init__(self, monkeypatch):
        from sklearn_linsep._rows._dask import _kesler, _summary

        self.calls = {}
        for module, name in [
            (_summary, "_block_summary"),
            (_kesler, "_seed_block"),
            (_kesler, "_pass_block"),
            (_kesler, "_proven_block"),
            (_kesler, "_pool_violators"),
        ]:
            counted = self._counted(name, getattr(module, name))
            monkeypatch.setattr(module, name, counted)

    def all_passes(self, blocks):
        tasks = ("_block_summary", "_seed_block", "_pass_block", "_proven_block")
        return sum(self.calls.get(name, 0) for name in tasks) / blocks


def _digits(grid=True):
    """Standardised digits; with ``grid``, on the dyadic grid of 2⁻²⁰, where
    every sum of rows is exact: the centre, and so the frame's Z, is then the
    same whatever order a backend adds the rows in (the answers of the two
    backends, otherwise an ulp apart in the centre, then agree to the last
    digit)."""
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return (np.round(X * 2.0**20) / 2.0**20 if grid else X), y


def test_a_joint_fit_reads_the_blocks_at_most_four_times(monkeypatch):
    # Thirteen rounds on digits made thirteen passes; now one for the summary,
    # one for the seed (which sends the pools), the rounds in the pools, and a
    # full pass to confirm, whose least margin the optimality check takes.
    X, y = _digits()
    memory = linear_separability(X, y, multiclass="joint")
    counter = _JointPassCounter(monkeypatch)
    chunks = 500
    blocks = -(-len(X) // chunks)
    X_dask, y_dask = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks)
    blocks_result = linear_separability(X_dask, y_dask, multiclass="joint")
    assert blocks_result.separable == memory.separable
    assert blocks_result.margin == pytest.approx(memory.margin, rel=1e-12, abs=0)
    assert counter.all_passes(blocks) <= 4
    assert counter.passes("_block_summary", blocks) == 1
    assert counter.passes("_seed_block", blocks) == 1
    assert counter.calls["_pool_violators"] > 5  # the rounds: in the pools
    counter.calls.clear()
    svm = HardMarginSVM(multi_class="crammer_singer").fit(X_dask, y_dask)
    assert counter.all_passes(blocks) <= 4
    assert svm.separable_ and svm.margin_ == pytest.approx(memory.margin, rel=1e-12)
    assert svm.score(X, y) == 1.0


@pytest.mark.filterwarnings("ignore::sklearn_linsep.NotLinearlySeparableWarning")
@pytest.mark.parametrize("flip", [0, 7])
def test_tiny_joint_pools_change_the_passes_not_the_answer(monkeypatch, flip):
    # Pools of one row a class and block miss most support pairs: the full
    # passes find them, new pools follow each, and the answer is the same (the
    # hard margin; the soft limit, whose rounds carry the rows' slacks).
    from sklearn_linsep._rows._dask import _kesler

    rng = np.random.default_rng(5)
    X = rng.normal(size=(6000, 3))
    scores = X @ rng.normal(size=(3, 4))
    y = np.argmax(scores, axis=1)
    top = np.sort(scores, axis=1)
    keep = top[:, -1] - top[:, -2] > 0.02
    X, y = X[keep], y[keep].copy()
    y[:flip] = (y[:flip] + 1) % 4
    monkeypatch.setattr(_kesler, "POOL_BYTES", 0)  # one row of a class a block
    counter = _JointPassCounter(monkeypatch)
    X_dask = da.from_array(X, chunks=(800, 3))
    svm = HardMarginSVM(multi_class="crammer_singer").fit(X_dask, y)
    reference = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert svm.separable_ == reference.separable_ == (flip == 0)
    np.testing.assert_allclose(svm.coef_, reference.coef_, rtol=1e-8, atol=1e-10)
    assert svm.hinge_violation_ == pytest.approx(reference.hinge_violation_, rel=1e-8)
    assert counter.passes("_pass_block", X_dask.numblocks[0]) >= 2
    verdict = linear_separability(X_dask, y, multiclass="joint")
    assert verdict.separable == (flip == 0) and verdict.verify(X, y)


def test_a_machine_of_features_1e6_apart_is_refused_clearly_on_blocks():
    """K = 16 classes with features 10^-6 to 10^6 apart: in memory the margin
    in X's units is finished in rationals on every pair; on blocks no exact
    step reads every row, and the fit says why it cannot be finished (it raised
    AttributeError: the exact finish read the rows' in-memory mask)."""
    from sklearn_linsep._testing import far_apart_case

    X, y = far_apart_case(0)
    svm = HardMarginSVM(multi_class="crammer_singer")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(SolverError, match="could not be finished"):
            svm.fit(da.from_array(X, chunks=20), da.from_array(y, chunks=20))


def _on_the_fly(n, p, chunks, gap=0.05, seed=0):
    """``(X, y)`` generated on the workers, never persisted: rows of N(0, I) moved
    ``gap`` off the plane ``w·x = 0`` on the side of their label (separable)."""
    rng = da.random.default_rng(seed)
    X = rng.standard_normal((n, p), chunks=(chunks, p))
    w = np.random.default_rng(seed).standard_normal(p)
    w /= np.linalg.norm(w)
    scores = X @ w
    return X + gap * da.where(scores > 0, 1.0, -1.0)[:, None] * w, scores > 0


@pytest.mark.slow  # LocalClusters of its own, whose workers it kills
def test_a_worker_killed_during_a_fit_ends_in_the_right_answer_or_one_error():
    """A worker process killed mid-fit (its nanny restarts it): dask recomputes
    the lost blocks and the fit gives the answer of an undisturbed one. The cluster
    restarted mid-fit: dask's one error, no answer. Never a wrong verdict or a
    hang. Each disturbance on a cluster of its own: after a restart on a loaded
    machine a nanny once never brought its worker back (240 s, twice in one day's
    CI), and the next case had a cluster of one worker, not what it is about."""
    import os
    import signal
    import threading
    import time

    import distributed

    def cluster():
        return distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                        processes=True, dashboard_address=None,
                                        memory_limit="2GiB")  # fmt: skip

    X, y = _on_the_fly(4_000_000, 10, 250_000)
    fits = {
        "linear_separability": lambda: linear_separability(X, y).margin,
        "HardMarginSVM": lambda: HardMarginSVM().fit(X, y).margin_,
    }
    with cluster() as local, distributed.Client(local):
        expected = {name: fit() for name, fit in fits.items()}
    assert expected["linear_separability"] == pytest.approx(0.05, rel=1e-3)
    for disturb in ("restart", "kill a worker"):
        for name, fit in fits.items():
            with cluster() as local, distributed.Client(local) as client, \
                    warnings.catch_warnings():  # fmt: skip
                warnings.simplefilter("ignore")  # distributed's about the lost worker
                client.wait_for_workers(2, timeout=120)
                box = {}
                worker = threading.Thread(target=_outcome, args=(fit, box))
                worker.start()
                time.sleep(0.8)
                assert worker.is_alive()  # the fit is under way
                if disturb == "restart":
                    # Not waiting for the workers inside restart (120 s there; on a
                    # loaded machine one took longer): the fit's outcome is the test.
                    client.restart(wait_for_workers=False)
                else:
                    pid = next(iter(client.run(os.getpid).values()))
                    os.kill(pid, signal.SIGKILL)
                worker.join(180)
                assert not worker.is_alive(), f"{name} hangs after: {disturb}"
                if disturb == "restart":
                    assert "restart" in str(box["error"]), box
                else:
                    assert box["answer"] == pytest.approx(expected[name], rel=1e-9)


def _outcome(fit, box):
    try:
        box["answer"] = fit()
    except Exception as error:  # noqa: BLE001 - the test says which it was
        box["error"] = error


def test_the_rounds_pools_hold_a_share_of_their_blocks_within_the_budget():
    """A block's pool per side: ``POOL_ROWS`` for blocks of up to 512 of them
    (5e5 rows, where it was measured), a ``POOL_SHARE`` of larger blocks' rows (1e7
    x 20 in blocks of 1e6: 1 024 a side missed rows near the support and cost a
    third full pass; bench_scale.py), at least the seed, all blocks' within
    ``POOL_BYTES``."""
    from sklearn_linsep._rows._dask import _two_class

    rows = _two_class.pool_rows_for
    assert rows(0, 20, 20, 500_000) == _two_class.POOL_ROWS == rows(0, 20, 20)
    assert rows(0, 20, 10, 1_000_000) == 1_000_000 // 512
    assert rows(0, 20, 5, 2_000_000) == 2_000_000 // 512
    assert rows(3000, 20, 10, 1_000_000) == 12_000  # four seeds
    for p, blocks, block_rows in ((20, 10, 10**7), (768, 100, 10**6), (1000, 10**4, 10**5)):
        assert rows(0, p, blocks, block_rows) * 16 * p * blocks <= _two_class.POOL_BYTES
    assert rows(5000, 1000, 10**4, 10**5) == 5000  # never fewer than the seed
    # The summary's early pools hold the rounds' (the seed needs no pass of its
    # own): dask's 128 MiB chunks of 3 float64 features are 5 592 405 rows.
    for block_rows in (500_000, 5_592_405, 8_388_608):
        early = _two_class.early_pool_rows(3, 4, block_rows)
        assert early >= rows(512, 3, 4, block_rows)


def test_the_summary_s_early_pools_stay_within_their_budget_and_serve_two_classes():
    """Early pools of every block together within ``POOL_BYTES`` (16 bytes a value:
    a row and its copy), the more blocks and features the fewer rows; rows of three
    classes keep none, and a two-class problem reads them once."""
    from sklearn_linsep._rows._dask import _two_class

    for p, blocks in ((20, 40), (100, 200), (1000, 1000)):
        rows = _two_class.early_pool_rows(p, blocks) - _two_class.OWN_POOL_ROWS
        assert rows * 16 * p * blocks <= _two_class.POOL_BYTES
    assert _two_class.early_pool_rows(20, 40) == (
        _two_class.EARLY_POOL_ROWS + _two_class.OWN_POOL_ROWS
    )
    X, y = _separable(n=3000, p=3, gap=0.1, seed=6)
    labels = np.where(X[:, 0] > 1, 2, y)
    three = rows_of(da.from_array(X, chunks=(500, 3)), labels, name="test")
    three.class_summary()
    assert three.early_pools is None
    two = rows_of(da.from_array(X, chunks=(500, 3)), y, name="test")
    two.class_summary()
    assert two.early_pools is not None
    problem = two.two_class([1], [0])
    assert two.early_pools is None  # handed to the problem
    problem.seed(10)
    assert problem._early is None  # read once


def _exact_margin(x, c, w, intercept, centre):
    from fractions import Fraction

    total = Fraction(intercept)
    for xj, wj, mj in zip(x.tolist(), w.tolist(), centre.tolist(), strict=True):
        total += Fraction(wj) * (Fraction(xj) - Fraction(mj))
    return c * total


@pytest.mark.parametrize("seed", range(6))
def test_a_blocks_bound_is_below_every_margin_outside_its_pool(seed):
    # The bound a block records of its rows outside its pool, for hyperplanes near
    # its own: never above the exact margin of a row outside the pool (scales and
    # offsets far from 1 included), and close to the least one where the hyperplane
    # is the block's own.
    from sklearn_linsep._rows._dask._bounds import (
        block_bound,
        least_margins,
        refined_plane,
    )
    from sklearn_linsep._working_set import nearest_per_side

    rng = np.random.default_rng(seed)
    p = [2, 5, 20][seed % 3]
    X, y = _separable(n=3000, p=p, gap=0.2, seed=seed)
    X = X * 10.0 ** rng.uniform(-3, 3) + rng.normal(size=p) * 10.0 ** rng.uniform(0, 6)
    c = np.where(y == 1, 1.0, -1.0)
    means = X[c > 0].mean(axis=0) - X[c < 0].mean(axis=0)
    first = nearest_per_side(c * (X @ means), c, True, 100)
    d, h = refined_plane(X, c, first)
    signed = c * (X @ d + h)
    pool = nearest_per_side(signed, c, True, 200)
    sides = (c > 0, c < 0)
    bound = block_bound(signed, c, True, pool, d, h,
                        [X[side].max(axis=0) for side in sides],
                        [X[side].min(axis=0) for side in sides])  # fmt: skip
    outside = np.setdiff1d(np.arange(len(c)), pool)
    centre = X.mean(axis=0)
    for _ in range(20):
        kappa = rng.uniform(0.5, 2.0)
        tilt = rng.normal(size=p) * 10.0 ** rng.uniform(-9, -2) * np.linalg.norm(d)
        w = kappa * d + tilt
        intercept = kappa * h + w @ centre + rng.normal() * 1e-3 * abs(kappa * h)
        least = least_margins([bound], w, intercept, centre)[0]
        margins = c[outside] * ((X[outside] - centre) @ w + intercept)
        worst = outside[np.argsort(margins)[:5]]
        exact = min(_exact_margin(X[i], c[i], w, intercept, centre) for i in worst)
        assert least <= exact
    own = least_margins([bound], d, h + d @ centre, centre)[0]
    assert 0 < own <= np.min(signed[outside]) and own >= 0.999 * np.min(signed[outside])
