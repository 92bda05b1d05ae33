"""The sparse route of S(κ)⁻¹: two LSQR solves on the centred rows, against the
dense definition (the span route's eigendecomposition, and S itself)."""

import ast
import importlib.util
import tracemalloc
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfVectorizer

from sklearn_linsep import (
    FisherDiscriminant,
    FisherDiscriminantCV,
    SeparabilityAngle,
    separability_curve,
    separability_statistics,
)
from sklearn_linsep._covariance import krylov_is_cheaper, regularized_covariance
from sklearn_linsep._krylov import KrylovCovariance
from sklearn_linsep._stats import class_statistics


def _documents(n, p, n_classes=2, seed=0, words=(5, 15)):
    """Log-scaled bag of words with L2-normalised rows; class k favours the
    words w with w % n_classes == k."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)
    lengths = rng.integers(*words, size=n)
    popularity = 1.0 / np.arange(1, p + 1) ** 1.1
    rows, columns = [], []
    for k in range(n_classes):
        chance = popularity * (1 + 2 * (np.arange(p) % n_classes == k))
        members = np.flatnonzero(y == k)
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


def _both_routes(stats, kappa):
    span = stats.regularized_inverse(kappa, route="span")
    krylov = stats.regularized_inverse(kappa, route="krylov")
    assert isinstance(krylov, KrylovCovariance)
    assert not isinstance(span, KrylovCovariance)
    return span, krylov


def _relative(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.mark.parametrize(
    "n, p, weighted", [(40, 300, False), (120, 900, True), (300, 400, False)]
)
@pytest.mark.parametrize("kappa", [0.05, 1.0, np.inf])
def test_the_split_equals_the_dense_definition(n, p, weighted, kappa):
    X, y = _documents(n, p, seed=n + p)
    weight = None
    if weighted:
        weight = np.random.default_rng(1).uniform(0.5, 3.0, n)
    stats = class_statistics(X, y, 2, sample_weight=weight)
    d = stats.mean_difference(1, 0)
    span, krylov = _both_routes(stats, kappa)
    # The dense definition itself: S(κ)⁻¹ of the (p, p) pooled covariance.
    dense = regularized_covariance(stats.pooled_covariance(), kappa)
    expected = dense.solve(d)
    for reg in (span, krylov):
        assert _relative(reg.solve(d), expected) < 1e-8
    pinv_part, null_part = krylov.split(d)
    assert abs(pinv_part @ null_part) < 1e-8 * np.linalg.norm(d) ** 2 * 1e3


def test_k_classes_equal_the_span_route():
    X, y = _documents(400, 1500, n_classes=4, seed=3)
    stats = class_statistics(X, y, 4)
    span, krylov = _both_routes(stats, 0.5)
    dense_fit = FisherDiscriminant(kappa=0.5)._model(stats, reg=span)
    sparse_fit = FisherDiscriminant(kappa=0.5)._model(stats, reg=krylov)
    assert _relative(sparse_fit["coef_"], dense_fit["coef_"]) < 1e-8
    np.testing.assert_allclose(
        sparse_fit["intercept_"], dense_fit["intercept_"], rtol=1e-8, atol=1e-8
    )
    np.testing.assert_allclose(
        sparse_fit["explained_variance_ratio_"],
        dense_fit["explained_variance_ratio_"],
        rtol=1e-8,
    )
    # Directions up to sign, each normalised to vᵀ S(κ) v = 1.
    for ours, theirs in zip(sparse_fit["scalings_"].T, dense_fit["scalings_"].T):
        assert min(_relative(ours, theirs), _relative(-ours, theirs)) < 1e-7


def _docstrings(package, limit):
    origin = Path(importlib.util.find_spec(package).origin).parent
    texts = []
    for path in sorted(origin.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                text = ast.get_docstring(node)
                if text and len(text) > 40:
                    texts.append(text)
    return texts[:limit]


def test_real_text_equals_the_span_route():
    """TF-IDF of the docstrings of installed packages, labelled by package."""
    first = _docstrings("email", 120) + _docstrings("logging", 120)
    second = _docstrings("asyncio", 120) + _docstrings("importlib", 120)
    X = TfidfVectorizer(max_features=3000).fit_transform(first + second)
    y = np.repeat([0, 1], [len(first), len(second)])
    stats = class_statistics(X, y, 2)
    assert krylov_is_cheaper(stats.within.rows)
    d = stats.mean_difference(1, 0)
    span, krylov = _both_routes(stats, 1.0)
    for kappa in (0.01, 1.0, np.inf):  # the factors do not depend on κ
        span, krylov = replace(span, kappa=kappa), replace(krylov, kappa=kappa)
        assert _relative(krylov.solve(d), span.solve(d)) < 1e-6
    fisher = FisherDiscriminant(kappa=np.inf).fit(X, y)
    assert _relative(fisher.coef_[0], span.solve(d, stats.mean_noise)) < 1e-6


def test_the_fitted_direction_is_the_dense_one_on_text():
    X, y = _documents(1500, 6000, seed=7, words=(20, 40))
    fisher = FisherDiscriminant(kappa=0.3).fit(X, y)
    stats = fisher.statistics_
    span = stats.regularized_inverse(0.3, route="span")
    expected = span.solve(stats.mean_difference(1, 0), stats.mean_noise)
    assert _relative(fisher.coef_[0], expected) < 1e-6
    assert fisher.rank_ == 1498  # the bound: rows less classes


def test_a_fitted_estimator_gives_its_statistics_without_a_second_solve(
    monkeypatch,
):
    X, y = _documents(700, 3000, seed=2)
    fisher = FisherDiscriminant(kappa=0.2).fit(X, y)
    expected = separability_statistics(X, y, kappa=0.2)
    expected_curve = separability_curve(X, y, [0.1, 1.0, 1e9])
    angle = SeparabilityAngle(kappa=0.2).fit(X, y)

    def refuse(*args, **kwargs):
        raise AssertionError("solved again")

    monkeypatch.setattr(KrylovCovariance, "_solve_column", refuse)
    result = separability_statistics(fisher)
    assert result.kappa == 0.2
    assert result.angle == pytest.approx(expected.angle, rel=1e-9)
    assert result.scaled_distance == pytest.approx(expected.scaled_distance, rel=1e-7)
    curve = separability_curve(fisher, kappas=[0.1, 1.0, 1e9])
    np.testing.assert_allclose(curve, expected_curve, rtol=1e-9)
    assert separability_statistics(angle).angle == pytest.approx(angle.angle_)


def test_a_fitted_estimator_refuses_data_beside_it():
    X, y = _documents(60, 300)
    fisher = FisherDiscriminant().fit(X, y)
    with pytest.raises(ValueError, match="takes neither"):
        separability_statistics(fisher, y)
    with pytest.raises(ValueError, match="needs y"):
        separability_statistics(X)
    three = FisherDiscriminant().fit(*_documents(60, 300, n_classes=3))
    with pytest.raises(ValueError, match="two classes"):
        separability_statistics(three)


def test_another_tol_decides_again():
    X, y = _documents(80, 400)
    fisher = FisherDiscriminant().fit(X, y)
    loose = separability_statistics(fisher, tol=0.5)
    assert loose.rank < fisher.rank_


def test_cross_validation_over_kappa_on_the_sparse_route():
    X, y = _documents(600, 2500, seed=5)
    search = FisherDiscriminantCV(kappas=[0.01, 1.0, 100.0], cv=3).fit(X, y)
    assert search.kappa_ in (0.01, 1.0, 100.0)
    assert search.score(X, y) > 0.9


def test_a_nearly_dependent_row_warns_with_the_residual_reached():
    X = sp.random(400, 2000, density=0.01, random_state=1, format="csr")
    X = sp.vstack([X, X[:1] * (1 + 1e-7)], format="csr")  # nearly a repeat
    y = np.arange(X.shape[0]) % 2
    y[-1] = y[0]
    stats = class_statistics(X, y, 2)
    b = stats.mean_difference(1, 0)
    b += np.random.default_rng(0).normal(size=b.size) * 1e-3
    # tol 1e-9: the condition limit 1/√tol = 3e4 is below the rows' 1e7.
    reg = stats.regularized_inverse(1.0, tol=1e-9, route="krylov")
    with pytest.warns(ConvergenceWarning, match="relative residual"):
        reg.split(b)


def test_the_route_is_chosen_by_cost():
    small, y = _documents(100, 2000)
    assert not krylov_is_cheaper(class_statistics(small, y, 2).within.rows)
    large, y = _documents(1200, 8000)
    assert krylov_is_cheaper(class_statistics(large, y, 2).within.rows)
    dense = class_statistics(large[:200].toarray(), y[:200], 2)
    assert not krylov_is_cheaper(dense.within.rows)


@pytest.mark.slow  # 4-5 s: a memory bound under tracemalloc at p = 20 000
def test_memory_stays_near_x():
    X, y = _documents(3000, 20000, seed=11, words=(20, 40))
    x_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    tracemalloc.start()
    try:
        FisherDiscriminant().fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The span route held a (3000, 3000) Gram matrix, 72 MB, and its eigenvectors.
    assert peak < 2 * x_bytes + 60 * 8 * (3000 + 20000)


def test_store_covariance_refuses_a_huge_matrix():
    X, y = _documents(30, 20000)
    with pytest.raises(ValueError, match="GiB"):
        FisherDiscriminant(store_covariance=True).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FisherDiscriminant(store_covariance=False).fit(X, y)


def test_graded_features_take_the_unit_free_span_route():
    """A feature 1e-6 the scale of the others: LSQR's condition limit is not
    unit-free and would drop it; the span route, whose rank cut is, answers."""
    X, y = _documents(600, 1500, seed=6, words=(20, 40))
    extra = y + np.random.default_rng(0).normal(size=y.size) * 0.5
    X = sp.hstack([X, sp.csr_matrix(extra[:, None] * 1e-6)], format="csr")
    stats = class_statistics(X, y, 2)
    assert not krylov_is_cheaper(stats.within.rows, graded=True)
    assert not isinstance(stats.regularized_inverse(1.0), KrylovCovariance)
    fisher = FisherDiscriminant().fit(X, y)
    span = stats.regularized_inverse(1.0, route="span")
    expected = span.solve(stats.mean_difference(1, 0), stats.mean_noise)
    assert _relative(fisher.coef_[0], expected) < 1e-9


@pytest.mark.parametrize("centre", [1e9, -1e8])
def test_a_feature_far_from_the_origin_equals_the_span_route(centre):
    """A feature at 1e9 with a spread of 1e-3: its class means carry a rounding
    error of about 1e-7, which, left in its explicitly centred column, made a
    spurious direction of C that the Krylov route inverted (answers 4e5 times
    too long). The column is centred again about its own means."""
    X, y = _documents(800, 3000, seed=3, words=(20, 40))
    far = centre + 1e-3 * np.random.default_rng(0).normal(size=y.size)
    X = sp.hstack([X, sp.csr_matrix(far[:, None])], format="csr")
    stats = class_statistics(X, y, 2)
    span, krylov = _both_routes(stats, 1.0)
    d = stats.mean_difference(1, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        found = krylov.solve(d, stats.mean_noise)
    assert _relative(found, span.solve(d, stats.mean_noise)) < 1e-8
    column = stats.within.rows.dot(np.eye(X.shape[1])[-1])
    for k in (0, 1):
        assert abs(column[y == k].sum()) < 1e-12 * np.linalg.norm(column)


def test_the_statistics_of_a_fitted_angle_use_its_metric():
    X, y = _documents(60, 300, seed=4)
    angle = SeparabilityAngle(kappa=0.5, metric="mahalanobis").fit(X, y)
    expected = separability_statistics(X, y, kappa=0.5, metric="mahalanobis")
    assert separability_statistics(angle).metric == "mahalanobis"
    assert separability_statistics(angle).angle == pytest.approx(expected.angle)
    assert separability_statistics(angle).angle == pytest.approx(angle.angle_)
    euclidean = separability_statistics(angle, metric="euclidean")
    assert euclidean.angle == pytest.approx(
        separability_statistics(X, y, kappa=0.5).angle
    )
    curve = separability_curve(angle, kappas=[0.5])
    assert curve[0] == pytest.approx(angle.angle_)
