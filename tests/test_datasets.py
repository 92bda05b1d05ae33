import hashlib
from importlib import resources

import numpy as np
import pytest

from sklearn_linsep import (
    load_breast_cancer_wisconsin,
    load_bupa_liver,
    load_hepatitis,
    load_house_votes_84,
    load_pima_diabetes,
)

# md5 of the raw files, from the provenance record (data/PROVENANCE.md)
CHECKSUMS = {
    "breast-cancer-wisconsin.data": "52b89051b9bd37a91a54e8570b963719",
    "bupa.data": "8743b8ffa79962088a5ff4f2f3a37509",
    "pima-indians-diabetes.data": "cfa2f3a14e4199be0b1e0653db9574d3",
    "house-votes-84.data": "47c6454509be4a77d8ee466bc9684872",
    "hepatitis.data": "d84f027c208e2bf3f1e047105b9354e2",
}

LOADERS = [
    (load_breast_cancer_wisconsin, (699, 9), 241, "Wolberg"),
    (load_bupa_liver, (345, 6), 200, "McDermott"),
    (load_pima_diabetes, (768, 8), 268, "Smith"),
    (load_house_votes_84, (435, 16), 168, "Schlimmer"),
    (load_hepatitis, (155, 19), 123, "Gong"),
]


@pytest.mark.parametrize("filename, md5", CHECKSUMS.items())
def test_shipped_files_are_the_originals(filename, md5):
    raw = (
        resources.files("sklearn_linsep.datasets")
        .joinpath("data", filename)
        .read_bytes()
    )
    assert hashlib.md5(raw).hexdigest() == md5


@pytest.mark.parametrize(
    "loader, shape, positives, cited", LOADERS, ids=lambda v: getattr(v, "__name__", "")
)
def test_loader_bunch(loader, shape, positives, cited):
    bunch = loader()
    assert bunch.data.shape == shape
    assert int(bunch.target.sum()) == positives
    assert set(np.unique(bunch.target)) == {0, 1}
    assert len(bunch.feature_names) == shape[1] and len(bunch.target_names) == 2
    assert not np.isnan(bunch.data).any()
    assert cited in bunch.DESCR and "UCI" in bunch.DESCR
    X, y = loader(return_X_y=True)
    np.testing.assert_array_equal(X, bunch.data)


@pytest.mark.parametrize(
    "loader, shape, positives, cited", LOADERS, ids=lambda v: getattr(v, "__name__", "")
)
def test_as_frame(loader, shape, positives, cited):
    pytest.importorskip("pandas")
    bunch = loader(as_frame=True)
    assert bunch.frame.shape == (shape[0], shape[1] + 1)
    assert list(bunch.data.columns) == bunch.feature_names
    assert bunch.target.name == "target"


def test_breast_cancer_preparations():
    raw = load_breast_cancer_wisconsin(preparation="raw").data
    assert np.isnan(raw).sum() == 16 and np.isnan(raw[:, 5]).sum() == 16
    paper = load_breast_cancer_wisconsin().data
    observed_mean = np.nanmean(raw[:, 5])
    np.testing.assert_allclose(paper[np.isnan(raw)], observed_mean)
    complete = load_breast_cancer_wisconsin(preparation="complete")
    assert complete.data.shape == (683, 9) and complete.target.shape == (683,)
    np.testing.assert_array_equal(paper[0], [5, 1, 1, 1, 2, 1, 3, 1, 1])


def test_votes_codings():
    raw = load_house_votes_84(preparation="raw").data
    assert np.isnan(raw).sum() == 392
    np.testing.assert_array_equal(np.isnan(raw).sum(axis=0)[-1], 104)
    paper = load_house_votes_84().data
    assert set(np.unique(paper)) == {-1.0, 1.0}
    assert set(np.unique(load_house_votes_84(preparation="abstain_zero").data)) == {
        -1.0,
        0.0,
        1.0,
    }


def test_pima_raw_marks_impossible_zeros():
    raw = load_pima_diabetes(preparation="raw").data
    np.testing.assert_array_equal(
        np.isnan(raw).sum(axis=0), [0, 5, 35, 227, 374, 11, 0, 0]
    )


def test_hepatitis_codings():
    raw = load_hepatitis(preparation="raw").data
    assert np.isnan(raw[:, 17]).sum() == 67
    assert (~np.isnan(raw).any(axis=1)).sum() == 80
    paper = load_hepatitis().data
    np.testing.assert_array_equal(paper[np.isnan(raw)], 0.0)
    mean = load_hepatitis(preparation="mean").data
    np.testing.assert_allclose(mean[np.isnan(raw[:, 17]), 17], np.nanmean(raw[:, 17]))


def test_unknown_preparation_is_refused():
    with pytest.raises(ValueError, match="preparation"):
        load_breast_cancer_wisconsin(preparation="median")
