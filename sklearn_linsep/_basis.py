"""An orthonormal basis U of the range of a covariance, explicit or in the span of
the samples.

:class:`~sklearn_linsep._covariance.RegularizedCovariance` applies U and Uᵀ only:
``to_range(b) = Uᵀ b`` and ``from_range(c) = U c``. Tall data hold U itself, (p, r).
Wide data hold it as ``U = Cᵀ Y``, the centred rows C (m, p, possibly sparse) combined
by an (m, r) matrix Y, so that each product with U is a pass over C and no (p, r)
matrix is formed (SPEC §10).
"""

from dataclasses import dataclass

import numpy as np

from ._scatter import CentredRows


@dataclass(frozen=True)
class ExplicitBasis:
    """U itself.

    Attributes
    ----------
    matrix : ndarray of shape (n_features, rank)
    """

    matrix: np.ndarray

    @property
    def n_features(self):
        return int(self.matrix.shape[0])

    def to_range(self, b):
        """``Uᵀ b``."""
        return self.matrix.T @ b

    def from_range(self, coordinates):
        """``U c``."""
        return self.matrix @ coordinates


@dataclass(frozen=True)
class SpanBasis:
    """``U = Cᵀ Y`` in the span of the rows C.

    Attributes
    ----------
    rows : CentredRows
        C, (n_rows, n_features), dense or with a sparse part.
    coefficients : ndarray of shape (n_rows, rank)
        Y.
    """

    rows: CentredRows
    coefficients: np.ndarray

    @property
    def n_features(self):
        return int(self.rows.n_features)

    def to_range(self, b):
        """``Uᵀ b = Yᵀ (C b)``."""
        return self.coefficients.T @ self.rows.dot(b)

    def from_range(self, coordinates):
        """``U c = Cᵀ (Y c)``."""
        return self.rows.tdot(self.coefficients @ coordinates)


def as_rows(rows):
    """``rows`` as :class:`CentredRows` (a dense array becomes its dense part)."""
    if isinstance(rows, CentredRows):
        return rows
    rows = np.asarray(rows, dtype=np.float64)
    return CentredRows(rows, np.zeros(rows.shape[0], dtype=np.intp))


def combine_parts(pinv_part, null_part, kappa):
    """``S† b + Q b / κ`` from the two parts of b (``S† b`` alone at κ = ∞), for
    every form of S(κ)⁻¹. A tiny κ can overflow: callers check the result and
    say why."""
    if np.isinf(kappa):
        return pinv_part
    with np.errstate(over="ignore"):
        return pinv_part + null_part / kappa
