"""The exact core on wide sparse rows (``_margin/_wide.py``): the hard margin, the
verdict and the soft limit of sparse X with at least as many features as rows,
against the dense route on the same data, without densifying X."""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_linsep import HardMarginSVM, linear_separability
from sklearn_linsep._margin import _hard
from sklearn_linsep._margin._solvers._cost import wide_suits
from sklearn_linsep._rows._memory_two_class import ScaledRows


def _documents(n, p, seed, gap=0.3, density=None):
    """Nonnegative sparse rows normalised as TF-IDF rows are, two classes told
    apart by the words they use more (``gap``)."""
    rng = np.random.default_rng(seed)
    density = density or max(0.03, 10 / p)  # ten words a document at least
    X = sp.random(n, p, density=density, random_state=seed, format="csr")
    y = np.arange(n) % 2
    topical = sp.csr_matrix(
        gap * (y[:, None] == 1) * (rng.random((n, p)) < 0.01)
        + gap * (y[:, None] == 0) * (rng.random((n, p)) < 0.01)
    )
    X = sp.csr_matrix(X + topical)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1 / np.maximum(norms, 1e-12)) @ X), y


def _forbid_dense_rows(monkeypatch):
    """Make any dense copy of a working set's rows an error."""

    def refuse(self, indices):
        raise AssertionError("the wide route densified rows of X")

    monkeypatch.setattr(ScaledRows, "rows", refuse)


def _assert_same_fit(sparse, dense, rtol=1e-7):
    scale = np.abs(dense.coef_).max()
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=rtol, atol=rtol * scale)
    assert sparse.intercept_ == pytest.approx(dense.intercept_, rel=rtol, abs=1e-9)
    assert sparse.margin_ == pytest.approx(dense.margin_, rel=rtol)
    assert sparse.hinge_violation_ == pytest.approx(
        dense.hinge_violation_, rel=1e-7, abs=1e-9
    )


@pytest.mark.parametrize("n, p", [(60, 300), (120, 120), (200, 1000)])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("size", [None, 8])  # 8: working sets grow over rounds
def test_the_hard_margin_of_wide_sparse_rows_equals_the_dense_one(
    n, p, seed, size, monkeypatch
):
    X, y = _documents(n, p, seed)
    dense = HardMarginSVM().fit(X.toarray(), y)
    assert dense.separable_
    _forbid_dense_rows(monkeypatch)
    assert wide_suits(ScaledRows(X, np.where(y == 1, 1.0, -1.0)))
    sparse = HardMarginSVM(initial_size=size, batch=size).fit(X, y)
    _assert_same_fit(sparse, dense)
    assert sp.issparse(sparse.support_vectors_)
    np.testing.assert_allclose(
        sparse.dual_coef_ @ sparse.support_vectors_,
        sparse.coef_,
        rtol=1e-7,
        atol=1e-9 * np.abs(sparse.coef_).max(),
    )
    result = linear_separability(X, y)
    assert result.separable and result.verify(X, y)
    assert result.margin == pytest.approx(dense.margin_, rel=1e-7)


def test_equal_rows_of_one_class_are_one_constraint(monkeypatch):
    """Copies of rows (affinely dependent, their Gram matrix singular) change
    neither the hard margin nor, with their weights added, the soft limit."""
    X, y = _documents(80, 400, 2)
    copies = np.r_[0:80, 3, 3, 10, 11]
    dense = HardMarginSVM().fit(X.toarray(), y)
    _forbid_dense_rows(monkeypatch)
    repeated = HardMarginSVM().fit(X[copies], y[copies])
    _assert_same_fit(repeated, dense)
    assert np.all(repeated.support_ < 80)  # the first copy of each row only
    X[5] = X[8]  # classes 1 and 0: one document twice, inseparable
    X.eliminate_zeros()
    weights = np.bincount(copies, minlength=80).astype(float)
    once = HardMarginSVM().fit(X, y, sample_weight=weights)
    repeated = HardMarginSVM().fit(X[copies], y[copies])
    _assert_same_fit(repeated, once)


@pytest.mark.parametrize("seed", [0, 3])
def test_the_soft_limit_of_wide_sparse_rows_equals_the_dense_one(seed, monkeypatch):
    """Inseparable text: documents that occur in both classes, and one row that is
    a mix of two of the other class's (a point in both hulls)."""
    X, y = _documents(90, 500, seed)
    X = sp.lil_matrix(X)
    X[4], X[9] = X[7], X[12]  # 4 and 12 of class 0, 7 and 9 of class 1
    X[21] = 0.5 * (X[0] + X[2])  # class 1 between two rows of class 0
    X = sp.csr_matrix(X)
    weights = np.random.default_rng(seed).integers(1, 4, 90).astype(float)
    dense = HardMarginSVM().fit(X.toarray(), y, sample_weight=weights)
    assert not dense.separable_
    _forbid_dense_rows(monkeypatch)
    with pytest.warns(UserWarning, match="not linearly separable"):
        sparse = HardMarginSVM(on_inseparable="warn").fit(X, y, sample_weight=weights)
    _assert_same_fit(sparse, dense, rtol=1e-6)
    grown = HardMarginSVM(initial_size=8, batch=8).fit(X, y, sample_weight=weights)
    _assert_same_fit(grown, dense, rtol=1e-6)
    assert sparse.certificate_.verify(X, y)
    raising = HardMarginSVM(on_inseparable="raise")
    with pytest.raises(ValueError, match="not linearly separable"):
        raising.fit(X, y)


def test_the_sparse_lp_runs_only_where_the_gram_dual_finds_the_hulls_meeting(
    count_calls,
):
    """The Gram dual decides first (every row held: wide rows are mostly support
    vectors); the sparse LP is asked for the certificate only where a working
    set's hulls meet."""
    calls = count_calls(_hard, "certificate_from_subset")
    X, y = _documents(120, 600, 4)
    separable = HardMarginSVM().fit(X, y)
    assert separable.separable_ and not calls
    _assert_same_fit(separable, HardMarginSVM().fit(X.toarray(), y))
    X = sp.lil_matrix(X)
    X[4] = X[7]  # classes 0 and 1: one document twice
    X = sp.csr_matrix(X)
    with pytest.warns(UserWarning, match="not linearly separable"):
        inseparable = HardMarginSVM(on_inseparable="warn").fit(X, y)
    assert len(calls) == 1 and inseparable.certificate_.verify(X, y)


def test_an_offset_feature_is_centred_away(monkeypatch):
    """A feature far from the origin (a bias column of 1e4) is centred implicitly
    in the Gram matrix: the margin is the dense one's."""
    X, y = _documents(70, 300, 5)
    rng = np.random.default_rng(5)
    X = sp.hstack([X, sp.csr_matrix(1e4 + rng.random((70, 1)))], format="csr")
    dense = HardMarginSVM().fit(X.toarray(), y)
    _forbid_dense_rows(monkeypatch)
    sparse = HardMarginSVM().fit(X, y)
    assert sparse.margin_ == pytest.approx(dense.margin_, rel=1e-7)
    np.testing.assert_allclose(
        sparse.decision_function(X), dense.decision_function(X), rtol=1e-6, atol=1e-6
    )


def test_tall_sparse_rows_keep_the_working_set_route():
    X, y = _documents(400, 50, 0, gap=1.0, density=0.2)
    assert not wide_suits(ScaledRows(X, np.where(y == 1, 1.0, -1.0)))


@pytest.mark.slow  # 3 s under tracemalloc (run by .ci/run's `pytest -m slow`)
def test_a_fit_on_wide_text_never_densifies_x():
    """p = 50 000: X dense would be 200 MB; the fit holds X and a few copies of
    it (3.6 MB each), one Gram matrix of its working set (n × n: 2 MB) and
    vectors of length p (0.4 MB)."""
    n, p = 500, 50_000
    X, y = _documents(n, p, 0, density=2e-3)
    HardMarginSVM().fit(X[:60], y[:60])  # one-time allocations, not the fit's
    tracemalloc.start()
    try:
        svm = HardMarginSVM().fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert svm.separable_ and svm.score(X, y) == 1.0
    assert peak < 0.25 * n * p * 8


@pytest.mark.parametrize("fmt, dtype", [("csc", np.float64), ("csr", np.float32)])
def test_csc_and_float32_rows_take_the_wide_route(fmt, dtype, monkeypatch):
    X, y = _documents(80, 400, 6)
    X = X.asformat(fmt).astype(dtype)
    dense = HardMarginSVM().fit(X.toarray().astype(np.float64), y)
    _forbid_dense_rows(monkeypatch)
    sparse = HardMarginSVM().fit(X, y)
    assert sparse.coef_.dtype == np.float64  # the margins' hyperplane, unrounded
    assert sparse.margin_ == pytest.approx(dense.margin_, rel=1e-7)
    assert linear_separability(X, y).verify(X, y)


# ------------------------------------------ found by attacking the route (review)


def _both(X, y, fit):
    """``fit`` on X sparse and dense, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit(sp.csr_matrix(X), y), fit(np.asarray(X), y)


def test_a_constant_decision_function_is_w_zero_exactly():
    """The least hinge is attained by w = 0 alone: the interior point's answer
    (w ~ 1e-6) is not a margin of 3e5."""
    X, y = np.array([[1.0, 0, 0], [1, 0, 0], [0, 1, 0]]), [0, 1, 1]
    sparse, dense = _both(X, y, lambda X, y: HardMarginSVM().fit(X, y))
    assert np.all(sparse.coef_ == 0) and np.isnan(sparse.margin_)
    assert sparse.hinge_violation_ == pytest.approx(dense.hinge_violation_)


def test_a_constant_feature_whose_mean_rounds_off_it():
    """A column of 0.1: its mean is an ulp off 0.1, which must not become its
    spread (the LPs divided the column by 1e-17)."""
    P = np.array([[0, 0], [1, 1], [2, 2], [0, 1], [1, 0], [0, 2], [2, 0]], float)
    X, y = np.c_[np.full(7, 0.1), P, np.zeros((7, 4))], [0, 0, 0, 1, 1, 1, 1]
    sparse, dense = _both(X, y, linear_separability)
    assert not sparse.separable and sparse.verify(X, y)
    X, y = np.array([[0.1, 0, 0]] * 3), [0, 1, 0]
    sparse, dense = _both(X, y, lambda X, y: HardMarginSVM().fit(X, y))
    assert sparse.hinge_violation_ == pytest.approx(dense.hinge_violation_)


@pytest.mark.parametrize("seed, factor", [(30, 1e3), (3, 1e6)])
def test_features_on_scales_far_apart(seed, factor):
    """The Gram matrix loses a small feature's digits: small X goes the dense
    route (which decides in the equilibrated frame) when the wide answer fails
    its checks."""
    X = np.random.default_rng(seed).standard_normal((4, 4))
    X[:, :2] *= factor
    y = [0, 1, 0, 1]
    sparse, dense = _both(X, y, lambda X, y: HardMarginSVM().fit(X, y))
    assert sparse.margin_ == pytest.approx(dense.margin_, rel=1e-7)


def test_classes_a_thousandth_apart_and_a_soft_limit_far_from_the_origin():
    rng = np.random.default_rng(5)
    B = rng.standard_normal((6, 10)) * (rng.random((6, 10)) < 0.5)
    X, y = np.vstack([B, B[0] + 1e-3 * np.eye(10)[3]]), [0, 0, 0, 1, 1, 1, 1]
    sparse, dense = _both(X, y, linear_separability)
    assert sparse.margin == pytest.approx(dense.margin, rel=1e-7)
    X = np.random.default_rng(1).standard_normal((5, 5))
    X[:, 0] += 1e8
    X, y = np.c_[np.vstack([X, X[0]]), np.zeros(6)], [0, 1, 0, 1, 0, 1]
    sparse, dense = _both(X, y, lambda X, y: HardMarginSVM().fit(X, y))
    assert sparse.hinge_violation_ == pytest.approx(dense.hinge_violation_, rel=1e-7)


def test_the_verdict_of_sparse_rows_runs_no_lp_over_every_row(monkeypatch):
    """``linear_separability`` of sparse rows goes the working set's way, as
    ``HardMarginSVM`` does: on separable text no LP over all rows (it cost up to
    100x the verdict), and a certificate where the hulls meet, proved."""
    from sklearn_linsep._margin import _certificate

    sizes = []
    spied = _certificate.hull_intersection_lp
    monkeypatch.setattr(
        _certificate, "hull_intersection_lp",
        lambda Z, *args: sizes.append(Z.shape[0]) or spied(Z, *args),
    )  # fmt: skip
    for n, p in ((120, 600), (400, 300)):  # wide, and taller than wide
        X, y = _documents(n, p, 8)
        result = linear_separability(X, y)
        dense = linear_separability(X.toarray(), y)
        assert result.separable and dense.separable and not sizes
        assert result.margin == pytest.approx(dense.margin, rel=1e-8)
        X = sp.vstack([X, X[:1]]).tocsr()  # one document under both labels
        result = linear_separability(X, np.r_[y, 1 - y[0]])
        assert not result.separable and result.verify(X, np.r_[y, 1 - y[0]])
        assert sorted(result.certificate_indices) == [0, n]


def test_a_wide_certificate_that_holds_to_a_tolerance_only_is_decided_again(
    monkeypatch,
):
    """The wide route's certificate goes through the driver's one rule: where its
    proof fails, the deciders beyond float64 decide again; an unproved certificate
    is never returned as if it were one."""
    import dataclasses

    calls, spied = [], _hard.certificate_from_subset
    monkeypatch.setattr(
        _hard,
        "certificate_from_subset",
        lambda *args, **kwargs: calls.append(1)
        or dataclasses.replace(spied(*args, **kwargs), proven=False),
    )
    X, y = _documents(60, 300, 0)
    X = sp.vstack([X, X[:3]]).tocsr()
    y = np.concatenate([y, 1 - y[:3]])  # three documents under both labels
    assert wide_suits(ScaledRows(X, 2.0 * y - 1))
    result = linear_separability(X, y)
    assert calls and not result.separable and result.proven
    assert result.verify(X, y)
