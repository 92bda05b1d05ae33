import numpy as np
import pytest

from sklearn_linsep._kernels import (
    centre_with_indicator,
    centre_with_indicator_weighted,
)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_centre_with_indicator_matches_numpy(dtype):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(50, 4)).astype(dtype)
    y = rng.randint(0, 3, size=50)
    reference = rng.normal(size=(3, 4))
    out = np.full((50, 7), np.nan)
    centre_with_indicator(X, y, reference, out)
    np.testing.assert_array_equal(out[:, :4], X.astype(np.float64) - reference[y])
    np.testing.assert_array_equal(out[:, 4:], np.eye(3)[y])


def test_weighted_rows_are_scaled_by_the_root_weight():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(30, 2))
    y = rng.randint(0, 2, size=30)
    reference = rng.normal(size=(2, 2))
    weights = rng.uniform(0, 3, size=30)
    out = np.empty((30, 4))
    centre_with_indicator_weighted(X, y, reference, np.sqrt(weights), out)
    gram = out.T @ out
    centred = X - reference[y]
    np.testing.assert_allclose(gram[:2, :2], (centred * weights[:, None]).T @ centred)
    np.testing.assert_allclose(np.diag(gram[2:, 2:]), np.bincount(y, weights))
    np.testing.assert_allclose(
        gram[2:, :2], np.eye(2)[y].T @ (centred * weights[:, None])
    )
