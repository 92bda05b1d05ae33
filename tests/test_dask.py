"""FisherDiscriminant, SeparabilityAngle and the angle functions on dask arrays.

The fits run on dask's synchronous scheduler (the ``dask_sync`` fixture of
conftest.py), two of them on a LocalCluster of two worker processes (``dask_client``:
pickling, no rows to the client) and must equal the in-memory results to rounding; predictions and
transforms must stay lazy. The last test checks that numpy users never import dask.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from sklearn_linsep import (
    FisherDiscriminant,
    SeparabilityAngle,
    separability_angle,
    separability_statistics,
)
from sklearn_linsep._testing import assert_close

try:
    import dask.array as da
except ImportError:  # the subprocess test below needs no dask
    da = None

needs_dask = pytest.mark.skipif(da is None, reason="dask is not installed")


def _data(n_classes=2, n=100, p=4, seed=0):
    rng = np.random.RandomState(seed)
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    shifts = rng.normal(size=(n_classes, p)) * 2.0
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + 50.0 + shifts[y]
    weights = rng.uniform(0.2, 3.0, size=n)
    return X, y, weights


@pytest.fixture
def no_rows_to_the_client(monkeypatch):
    """Turning a dask array into numpy on the client (what would bring n rows
    there) fails the test; tasks on the workers are not affected."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("a dask array was converted to numpy on the client")

    monkeypatch.setattr(da.Array, "__array__", refuse)


CHUNKINGS = [(100, 4), (17, 4), ((30, 0, 70), (4,)), (25, (1, 3))]


@needs_dask
@pytest.mark.parametrize("chunks", CHUNKINGS, ids=str)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize(
    "y_kind, weighted",
    [("numpy", False), ("numpy", True), ("dask", True), ("dask other chunks", False)],
)
def test_fits_on_dask_equal_fits_in_memory(
    dask_sync, no_rows_to_the_client, chunks, n_classes, y_kind, weighted
):
    X, y, w = _data(n_classes)
    w = w if weighted else None
    X_dask = da.from_array(X, chunks=chunks)
    if y_kind == "numpy":
        y_in, w_in = y, w
    else:
        row_chunks = X_dask.chunks[0] if y_kind == "dask" else 40
        y_in = da.from_array(y, chunks=row_chunks)
        w_in = None if w is None else da.from_array(w, chunks=row_chunks)

    fisher = FisherDiscriminant(kappa=0.5).fit(X_dask, y_in, sample_weight=w_in)
    reference = FisherDiscriminant(kappa=0.5).fit(X, y, sample_weight=w)
    assert_close(fisher.coef_, reference.coef_)
    assert_close(fisher.intercept_, reference.intercept_)
    assert_close(fisher.scalings_, reference.scalings_, rtol=1e-9)
    np.testing.assert_array_equal(fisher.classes_, reference.classes_)
    assert fisher.n_features_in_ == 4 and fisher.rank_ == reference.rank_
    assert fisher.statistics_.n_samples == 100

    angle = SeparabilityAngle().fit(X_dask, y_in, sample_weight=w_in)
    reference = SeparabilityAngle().fit(X, y, sample_weight=w)
    assert angle.angle_ == pytest.approx(reference.angle_, rel=1e-10)
    assert_close(angle.normal_, reference.normal_)
    assert_close(angle.pairwise_angles_, reference.pairwise_angles_)

    if n_classes == 2:
        result = separability_statistics(X_dask, y_in, sample_weight=w_in)
        expected = separability_statistics(X, y, sample_weight=w)
        assert result.angle == pytest.approx(expected.angle, rel=1e-10)
        assert result.scaled_distance == pytest.approx(
            expected.scaled_distance, rel=1e-10
        )
        assert result.hotelling.statistic == pytest.approx(
            expected.hotelling.statistic, rel=1e-10
        )
        assert separability_angle(
            X_dask, y_in, metric="mahalanobis", sample_weight=w_in
        ) == pytest.approx(
            separability_angle(X, y, metric="mahalanobis", sample_weight=w),
            rel=1e-10,
        )


@needs_dask
@pytest.mark.parametrize("n_classes", [2, 3])
def test_predictions_and_transforms_on_dask_are_lazy_and_equal(dask_sync, n_classes):
    X, y, _ = _data(n_classes)
    labels = np.array(["low", "mid", "top"])[y]
    X_dask = da.from_array(X, chunks=((30, 0, 70), (2, 2)))
    fisher = FisherDiscriminant().fit(X, labels)
    angle = SeparabilityAngle().fit(X, labels)
    outputs = {
        "decision_function": (fisher.decision_function, 1e-10),
        "predict": (fisher.predict, 0),
        "fisher transform": (fisher.transform, 1e-10),
        "angle transform": (angle.transform, 1e-10),
    }
    for name, (method, rtol) in outputs.items():
        lazy = method(X_dask)
        assert isinstance(lazy, da.Array), name
        assert lazy.chunks[0] == (30, 0, 70), name
        computed, expected = lazy.compute(), method(X)
        assert computed.shape == expected.shape and computed.dtype == expected.dtype
        if rtol:
            assert_close(computed, expected, rtol)
        else:
            np.testing.assert_array_equal(computed, expected)
    with pytest.raises(ValueError, match="X has 3 features, but FisherDiscriminant"):
        fisher.predict(X_dask[:, :3])
    y_dask = da.from_array(labels, chunks=((30, 0, 70),))
    assert angle.score(X_dask, y_dask) == pytest.approx(angle.score(X, labels), 1e-10)
    with pytest.raises(ValueError, match="X has 3 features, but SeparabilityAngle"):
        angle.score(X_dask[:, :3], y_dask)


@needs_dask
def test_float32_dask_data_give_the_float32_fit(dask_sync):
    X, y, _ = _data()
    X32 = X.astype(np.float32)
    fitted = FisherDiscriminant().fit(da.from_array(X32, chunks=33), y)
    reference = FisherDiscriminant().fit(X32, y)
    assert fitted.coef_.dtype == np.float32
    assert_close(fitted.coef_, reference.coef_, rtol=1e-6)
    assert fitted.rank_ == reference.rank_
    assert fitted.transform(da.from_array(X32, chunks=33)).dtype == np.float32


@needs_dask
def test_dask_fit_drops_the_feature_names_of_an_earlier_fit(dask_sync):
    pd = pytest.importorskip("pandas")
    X, y, _ = _data()
    clf = FisherDiscriminant().fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert hasattr(clf, "feature_names_in_")
    clf.fit(da.from_array(X, chunks=50), y)
    assert not hasattr(clf, "feature_names_in_") and clf.n_features_in_ == 4


@needs_dask
def test_unknown_chunk_sizes(dask_sync):
    X, y, w = _data()
    X_dask = da.from_array(X, chunks=30)
    keep = X_dask[:, 0] > -np.inf  # all rows, but dask cannot know how many
    X_unknown = X_dask[keep]
    assert np.isnan(X_unknown.chunks[0][0])
    with pytest.raises(ValueError, match="unknown chunk sizes.*compute_chunk_sizes"):
        FisherDiscriminant().fit(X_unknown, y)
    y_unknown = da.from_array(y, chunks=30)[keep]
    w_unknown = da.from_array(w, chunks=30)[keep]
    fitted = FisherDiscriminant().fit(X_unknown, y_unknown, sample_weight=w_unknown)
    reference = FisherDiscriminant().fit(X, y, sample_weight=w)
    assert_close(fitted.coef_, reference.coef_)
    assert separability_angle(X_unknown, y_unknown) == pytest.approx(
        separability_angle(X, y), rel=1e-10
    )
    np.testing.assert_array_equal(
        fitted.predict(X_unknown).compute(), reference.predict(X)
    )


@needs_dask
def test_bad_dask_input(dask_sync):
    X, y, _ = _data()
    X_nan = X.copy()
    X_nan[75, 2] = np.nan  # in the last of four blocks
    with pytest.raises(ValueError, match="NaN"):
        FisherDiscriminant().fit(da.from_array(X_nan, chunks=25), y)
    with pytest.raises(ValueError, match="NaN"):
        separability_angle(da.from_array(X_nan, chunks=25), y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        SeparabilityAngle().fit(da.from_array(X, chunks=25), np.zeros(100))
    with pytest.raises(ValueError, match="X has 100 rows but y has 99"):
        FisherDiscriminant().fit(da.from_array(X, chunks=25), y[:99])
    with pytest.raises(ValueError, match="compares two classes"):
        separability_angle(da.from_array(X, chunks=25), np.arange(100) % 3)
    with pytest.raises(ValueError, match="threshold='accuracy'.*dask"):
        FisherDiscriminant(threshold="accuracy").fit(da.from_array(X, chunks=25), y)
    with pytest.raises(TypeError, match="partial_fit takes in-memory chunks"):
        FisherDiscriminant().partial_fit(da.from_array(X, chunks=25), y, [0, 1])
    fitted = FisherDiscriminant().fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        fitted.predict(da.from_array(X_nan, chunks=25)).compute()


@needs_dask
def test_sparse_blocks_are_refused_by_name(dask_sync):
    """Dask blocks of scipy.sparse got scikit-learn's "dense data is required",
    though X may be sparse in memory: the message says the dask passes read
    dense blocks, and how to give them (found by a review). A sparse block
    behind a dense ``_meta`` is refused in its task."""
    import scipy.sparse as sp

    from sklearn_linsep import HardMarginSVM, linear_separability

    X, y, _ = _data()
    sparse = da.from_array(sp.csr_matrix(X), chunks=(25, -1), asarray=False)
    hidden = da.from_array(X, chunks=(25, -1)).map_blocks(
        sp.csr_matrix, meta=np.empty((0, 0))
    )
    for X_dask in (sparse, hidden):
        for call in (
            linear_separability,
            HardMarginSVM().fit,
            FisherDiscriminant().fit,
        ):
            with pytest.raises(TypeError, match="dask array of sparse blocks"):
                call(X_dask, y)
    dense = sparse.map_blocks(lambda block: block.toarray(), dtype=X.dtype)
    assert linear_separability(dense, y).separable == linear_separability(
        X, y
    ).separable


@needs_dask
def test_a_pipeline_on_dask_data(dask_sync):
    from sklearn.pipeline import make_pipeline

    X, y, _ = _data(n_classes=3)
    X_dask = da.from_array(X, chunks=40)
    pipe = make_pipeline(FisherDiscriminant(n_components=2), SeparabilityAngle())
    pipe.fit(X_dask, da.from_array(y, chunks=40))
    reference = make_pipeline(FisherDiscriminant(n_components=2), SeparabilityAngle())
    reference.fit(X, y)
    assert pipe[-1].angle_ == pytest.approx(reference[-1].angle_, rel=1e-9)
    out = pipe.transform(X_dask)
    assert isinstance(out, da.Array)
    assert_close(out.compute(), reference.transform(X), rtol=1e-9)


@pytest.mark.slow  # processes of their own: 1.5-14 s
def test_numpy_users_never_import_dask():
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        import sklearn_linsep as sl

        rng = np.random.RandomState(0)
        X = rng.normal(size=(60, 3))
        y = np.repeat([0, 1], 30)
        X[y == 1] += 4.0
        estimators = [
            sl.FisherDiscriminant(),
            sl.SeparabilityAngle(),
            sl.Perceptron(),
            sl.PocketPerceptron(),
            sl.Adaline(),
            sl.HardMarginSVM(),
        ]
        for estimator in estimators:
            estimator.fit(X, y)
            for method in ("predict", "decision_function", "transform"):
                if hasattr(estimator, method):
                    getattr(estimator, method)(X)
        sl.FisherDiscriminant().partial_fit(X, y, classes=[0, 1])
        sl.separability_angle(X, y)
        sl.separability_statistics(X, y)
        sl.linear_separability(X, y)
        loaded = sorted(name for name in sys.modules if name.split(".")[0] == "dask")
        print(loaded)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout


def test_grid_search_over_kappa_through_joblibs_dask_backend(dask_client):
    """GridSearchCV's fits as dask tasks on the cluster (joblib's dask backend):
    the same search as in this process."""
    import joblib
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 60))  # p > n: kappa matters
    y = np.repeat([0, 1], 20)
    X[y == 1, :5] += 1.0
    grid = {"kappa": [0.01, 0.1, 1.0, 10.0, np.inf]}
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    local = GridSearchCV(FisherDiscriminant(), grid, cv=folds).fit(X, y)
    with joblib.parallel_backend("dask"):
        remote = GridSearchCV(FisherDiscriminant(), grid, cv=folds, n_jobs=-1)
        remote.fit(X, y)
    np.testing.assert_array_equal(
        remote.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"]
    )
    assert remote.best_params_ == local.best_params_


@needs_dask
@pytest.mark.parametrize("n_classes", [2, 3])
def test_wide_fits_on_dask_equal_fits_in_memory(dask_sync, n_classes):
    # Each block's statistics hold their scatter as rows (p > n): the merge
    # concatenates them and relabels their classes across blocks.
    X, y, w = _data(n_classes, n=60, p=400)
    X_dask = da.from_array(X, chunks=(13, 400))
    for estimator in (FisherDiscriminant(kappa=0.1), SeparabilityAngle(kappa=0.1)):
        memory = estimator.fit(X, y, sample_weight=w)
        assert memory.statistics_.holds_rows
        expected = {k: getattr(memory, k) for k in ("coef_", "pairwise_angles_")
                    if hasattr(memory, k)}  # fmt: skip
        distributed = estimator.fit(X_dask, y, sample_weight=w)
        assert distributed.statistics_.holds_rows
        for name, value in expected.items():
            assert_close(getattr(distributed, name), value)


@needs_dask
def test_a_fit_on_the_cluster_equals_the_fit_in_memory(
    dask_client, no_rows_to_the_client
):
    # The tasks are pickled to worker processes, and only statistics come back.
    X, y, w = _data(3)
    X_dask = da.from_array(X, chunks=(17, 4))
    for estimator in (FisherDiscriminant(kappa=0.5), SeparabilityAngle()):
        expected = estimator.fit(X, y, sample_weight=w).statistics_
        got = estimator.fit(X_dask, da.from_array(y, 17), sample_weight=w).statistics_
        assert_close(got.means, expected.means)
        assert_close(got.scatter(), expected.scatter())
