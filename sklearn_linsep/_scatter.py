"""The pooled within-class scatter W of class statistics, in the form the data suit.

Three forms hold the same W:

- ``"matrix"``: W itself, (p, p), with the scatter of each class on request. Tall
  data: O(p²) whatever the number of rows.
- ``"rows"``: centred rows C with W = CᵀC, dense, O(m·p). Wide data (rows no more than
  the features), where the matrix would be O(p²) and everything needed of W goes
  through the (m, m) Gram matrix C Cᵀ (SPEC §10).
- ``"sparse"``: the same rows, of which the sparse part of the data is kept sparse
  and centred implicitly, ``√w_i (x_i - t_i)`` with ``t_i`` a row of a small dense
  table (the class means of the pass that made it): X is never densified.

:class:`CentredRows` is the linear operator C of the last two forms; everything
downstream (the rank decision, S(κ)⁻¹ in the span of the samples) uses C only
through its products, so it does not know whether a part of C is sparse.
"""

from dataclasses import dataclass, replace

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from ._threads import threads_for_matrix

# Where a feature's sum of squares of implicitly centred sparse rows is this many
# times smaller than that of the raw rows, centring by subtraction costs it digits
# that the rank decision needs (its rounding, about eps times the raw sum, would
# pass the rank tolerance, max(n, p)·eps, at 1e3: data at 100 with spread 3 found
# a third direction where there were two): that feature is centred explicitly.
_CANCELLATION_LIMIT = 4.0


@dataclass
class CentredRows:
    r"""The rows C of a scatter ``W = CᵀC``: a sparse part centred implicitly, and a
    dense part.

    .. math:: C = \begin{bmatrix} \operatorname{diag}(r)\,(X - T_z) \\ R \end{bmatrix}

    with X sparse (n, p), r the square roots of the rows' weights, ``T_z`` the row
    ``z_i`` of a dense (t, p) table of centres for row i, and R dense (j, p).
    Either part may be empty. Each row has a class (``classes``), so that the
    scatter of any class is that of its rows.

    Parameters
    ----------
    dense : ndarray of shape (n_dense, n_features)
        R.
    dense_classes : ndarray of shape (n_dense,)
        The class of each row of R.
    sparse : sparse matrix of shape (n_sparse, n_features), default=None
        X (CSR).
    root_weight, centre_of, sparse_classes : ndarray of shape (n_sparse,)
        r, z and the class of each row of X.
    centres : ndarray of shape (n_centres, n_features)
        T.
    """

    dense: np.ndarray
    dense_classes: np.ndarray
    sparse: sp.spmatrix | None = None
    root_weight: np.ndarray | None = None
    centres: np.ndarray | None = None
    centre_of: np.ndarray | None = None
    sparse_classes: np.ndarray | None = None

    def __post_init__(self):
        self.dense_classes = np.asarray(self.dense_classes, dtype=np.intp)
        if self.sparse is not None and self.sparse.shape[0] == 0:
            self.sparse = None
        if self.sparse is not None:
            self.sparse = sp.csr_matrix(self.sparse)

    @classmethod
    def of_sparse(cls, X, y, root_weight, centres):
        """The rows ``√w_i (x_i - centres[y_i])`` of a sparse X, centred by class."""
        n_features = X.shape[1]
        y = np.asarray(y, dtype=np.intp)
        return cls(
            np.zeros((0, n_features)),
            np.zeros(0, dtype=np.intp),
            sparse=X,
            root_weight=np.asarray(root_weight, dtype=np.float64),
            centres=np.asarray(centres, dtype=np.float64),
            centre_of=y,
            sparse_classes=y,
        )

    @property
    def is_sparse(self):
        return self.sparse is not None

    @property
    def n_sparse(self):
        return 0 if self.sparse is None else self.sparse.shape[0]

    @property
    def n_rows(self):
        return self.n_sparse + self.dense.shape[0]

    @property
    def n_features(self):
        return self.dense.shape[1]

    @property
    def classes(self):
        """The class of each row of C (the sparse part's first)."""
        if self.sparse is None:
            return self.dense_classes
        return np.concatenate([self.sparse_classes, self.dense_classes])

    def _scaled_sparse(self, column_scale):
        """``(X E, T E)`` of the sparse part, E the diagonal of ``column_scale``."""
        if column_scale is None:
            return self.sparse, self.centres
        return self.sparse @ sp.diags(column_scale), self.centres * column_scale

    def dot(self, b):
        """``C b`` for a vector or the columns of a matrix."""
        dense = self.dense @ b
        if self.sparse is None:
            return dense
        root = self.root_weight if b.ndim == 1 else self.root_weight[:, None]
        centred = self.sparse @ b - (self.centres @ b)[self.centre_of]
        return np.concatenate([root * np.asarray(centred), dense])

    def tdot(self, u):
        """``Cᵀ u`` for a vector or the columns of a matrix."""
        n_sparse = self.n_sparse
        result = self.dense.T @ u[n_sparse:]
        if self.sparse is None:
            return result
        root = self.root_weight if u.ndim == 1 else self.root_weight[:, None]
        weighted = root * u[:n_sparse]
        if u.ndim == 1:  # (a Krylov solve's product: no indicator matrix built)
            per_centre = np.bincount(
                self.centre_of, weights=weighted, minlength=self.centres.shape[0]
            )
        else:
            per_centre = self._centre_indicator().T @ weighted
        return (
            result + np.asarray(self.sparse.T @ weighted) - self.centres.T @ per_centre
        )

    def _centre_indicator(self):
        n = self.n_sparse
        return sp.csr_matrix(
            (np.ones(n), (np.arange(n), self.centre_of)),
            shape=(n, self.centres.shape[0]),
        )

    def gram(self, column_scale=None):
        """``(C E)(C E)ᵀ``, (m, m), with ``E = diag(column_scale)`` (None: I).

        Of the sparse part, ``G = X Xᵀ - A Zᵀ - Z Aᵀ`` with Z the rows' centre
        indicator and ``A = X Tᵀ - ½ Z T Tᵀ`` (n, t): one sparse product, then a
        rank-2t update in place (``syr2k``), so that G is the only (n, n) array."""
        dense = self.dense if column_scale is None else self.dense * column_scale
        dense_gram = dense @ dense.T
        if self.sparse is None:
            return dense_gram
        X, T = self._scaled_sparse(column_scale)
        z, root = self.centre_of, self.root_weight
        indicator = np.zeros((X.shape[0], T.shape[0]))
        indicator[np.arange(X.shape[0]), z] = 1.0
        half = np.asarray(X @ T.T) - 0.5 * (T @ T.T)[z]
        gram = _sparse_gram(X)
        update = scipy.linalg.blas.get_blas_funcs("syr2k", (gram,))
        gram = update(-1.0, half, indicator, beta=1.0, c=gram, overwrite_c=True)
        _mirror_upper(gram)
        gram *= root[:, None]
        gram *= root[None, :]
        if not self.dense.shape[0]:
            return gram
        mixed = root[:, None] * (np.asarray(X @ dense.T) - (T @ dense.T)[z])
        return np.block([[gram, mixed], [mixed.T, dense_gram]])

    def column_squares(self):
        """``diag(CᵀC)``: each feature's sum of squares over the rows."""
        squares = np.einsum("ij,ij->j", self.dense, self.dense)
        if self.sparse is None:
            return squares
        return squares + self._sparse_column_squares()[0]

    def _sparse_column_squares(self):
        """``(centred, raw)`` sums of squares of the sparse part per feature: the
        implicitly centred ones, and those of the rows ``√w x`` themselves."""
        weight = self.root_weight**2
        X = self.sparse
        # The squares of X's entries on X's own indices (no copy of them),
        # weighted per row by the product.
        squares = sp.csr_matrix((X.data**2, X.indices, X.indptr), shape=X.shape)
        raw = np.asarray(squares.T @ weight).ravel()
        n_centres = self.centres.shape[0]
        weighted_sums = group_sums(X, self.centre_of, weight, n_centres)  # (t, p)
        centre_weight = np.bincount(self.centre_of, weight, minlength=n_centres)
        cross = np.einsum("tp,tp->p", weighted_sums, self.centres)
        centred = raw - 2.0 * cross + centre_weight @ self.centres**2
        return np.clip(centred, 0.0, None), raw

    def cancelling_features(self):
        """The features whose implicit centring would lose digits (more than
        about ``_CANCELLATION_LIMIT`` times float64's rounding of their spread): a
        feature far from the origin against its spread, or constant and nonzero
        within the classes (its spread, zero, would come out as rounding)."""
        if self.sparse is None:
            return np.zeros(0, dtype=np.intp)
        centred, raw = self._sparse_column_squares()
        return np.flatnonzero(raw > _CANCELLATION_LIMIT * centred)

    def without_cancelling(self, centres_are_means=False):
        """The same rows, with the features whose implicit centring would lose
        digits (:meth:`cancelling_features`) centred explicitly: each becomes a
        dense column of the sparse part (one entry a row) with centre 0, the rest
        stay sparse. (Those features cannot cancel any more: their centre is 0.)

        Where ``centres_are_means`` (the centres are the weighted means of their
        rows), the explicit columns are centred once more about their own means.
        A mean far from the origin carries a rounding error of eps times itself;
        left in, it would make a column's centred rows sum to that error per
        class, a spurious direction of C (about ``eps·|mean|·√n``) that the
        Krylov route, with no cut of its own, would invert."""
        features = self.cancelling_features()
        if not features.size:
            return self
        X, z = self.sparse, self.centre_of
        keep = np.ones(X.shape[1])
        keep[features] = 0.0
        block = X[:, features].toarray() - self.centres[np.ix_(z, features)]
        if centres_are_means:
            n_centres = self.centres.shape[0]
            block -= group_means(block, z, self.root_weight**2, n_centres)[0][z]
        rows, columns = np.nonzero(block)
        centred = sp.csr_matrix(
            (block[rows, columns], (rows, features[columns])), shape=X.shape
        )
        centres = self.centres.copy()
        centres[:, features] = 0.0
        return replace(
            self, sparse=sp.csr_matrix(X @ sp.diags(keep) + centred), centres=centres
        )

    def cancels(self):
        """Whether some feature's implicit centring would lose digits."""
        return bool(self.cancelling_features().size)

    def scaled(self, column_scale):
        """The rows of ``C diag(column_scale)``."""
        if self.sparse is None:
            return replace(self, dense=self.dense * column_scale)
        X, T = self._scaled_sparse(column_scale)
        return replace(self, dense=self.dense * column_scale, sparse=X, centres=T)

    def take(self, selected):
        """The rows where the boolean ``selected`` (of length ``n_rows``) holds."""
        n_sparse = self.n_sparse
        dense_part = selected[n_sparse:]
        parts = dict(
            dense=self.dense[dense_part], dense_classes=self.dense_classes[dense_part]
        )
        if self.sparse is not None:
            mine = selected[:n_sparse]
            parts.update(
                sparse=self.sparse[mine],
                root_weight=self.root_weight[mine],
                centre_of=self.centre_of[mine],
                sparse_classes=self.sparse_classes[mine],
            )
        return replace(self, **parts)

    def relabelled(self, new_class):
        """The same rows, the class k of each now ``new_class[k]``."""
        parts = dict(dense_classes=np.asarray(new_class)[self.dense_classes])
        if self.sparse is not None:
            parts["sparse_classes"] = np.asarray(new_class)[self.sparse_classes]
        return replace(self, **parts)

    def to_dense(self):
        """C as a dense (m, p) array (O(m·p) memory: for small parts and checks)."""
        if self.sparse is None:
            return self.dense
        centred = self.sparse.toarray() - self.centres[self.centre_of]
        return np.vstack([self.root_weight[:, None] * centred, self.dense])

    def matrix(self):
        """``CᵀC``, the (p, p) scatter; the sparse part by one sparse product."""
        matrix = self.dense.T @ self.dense
        if self.sparse is None:
            return matrix
        X = sp.diags(self.root_weight) @ self.sparse
        indicator = sp.diags(self.root_weight) @ self._centre_indicator()
        sums = np.asarray((indicator.T @ X).todense())  # (t, p) weighted row sums
        weight = np.asarray(indicator.multiply(indicator).sum(axis=0)).ravel()
        raw = (X.T @ X).toarray()
        cross = self.centres.T @ sums
        means_part = (self.centres * weight[:, None]).T @ self.centres
        return matrix + raw - cross - cross.T + means_part

    def stacked(self, *others):
        """The rows of self and then of each of ``others`` (dense part last)."""
        everyone = (self, *others)
        dense = np.concatenate([rows.dense for rows in everyone])
        dense_classes = np.concatenate([rows.dense_classes for rows in everyone])
        sparse_ones = [rows for rows in everyone if rows.sparse is not None]
        if not sparse_ones:
            return CentredRows(dense, dense_classes)
        offsets = np.cumsum([0] + [rows.centres.shape[0] for rows in sparse_ones])
        return CentredRows(
            dense,
            dense_classes,
            sparse=sp.vstack([rows.sparse for rows in sparse_ones], format="csr"),
            root_weight=np.concatenate([rows.root_weight for rows in sparse_ones]),
            centres=np.vstack([rows.centres for rows in sparse_ones]),
            centre_of=np.concatenate(
                [rows.centre_of + offset for rows, offset in zip(sparse_ones, offsets)]
            ),
            sparse_classes=np.concatenate(
                [rows.sparse_classes for rows in sparse_ones]
            ),
        )

    def any(self, block_rows=256):
        """Whether C has a nonzero entry: exact, the sparse part centred explicitly
        a block of rows at a time (rounding could leave a zero spread nonzero)."""
        if np.any(self.dense):
            return True
        for start in range(0, self.n_sparse, block_rows):
            block = np.zeros(self.n_rows, dtype=bool)
            block[start : min(start + block_rows, self.n_sparse)] = True
            if np.any(self.take(block).to_dense()):
                return True
        return False


# group_sums multiplies Xᵀ by a dense (n, groups) indicator up to this many
# groups: a product of two sparse matrices would copy X's indices into a wider
# integer type (a transient copy of X on text).
_DENSE_INDICATOR_GROUPS = 64


def group_sums(X, group, weight, n_groups):
    """``(n_groups, p)`` dense: the weighted sum of the rows of X (sparse or dense)
    in each group, ``Σ_{i: group_i = g} weight_i x_i``."""
    n = X.shape[0]
    if n_groups <= _DENSE_INDICATOR_GROUPS:
        indicator = np.zeros((n, n_groups))
        indicator[np.arange(n), group] = weight
        return np.asarray(X.T @ indicator, dtype=np.float64).T
    indicator = sp.csr_matrix((weight, (np.arange(n), group)), shape=(n, n_groups))
    return np.asarray((indicator.T @ X).todense(), dtype=np.float64)


def group_means(X, group, weight, n_groups):
    """``(means, totals)``: the weighted mean of the rows of X (sparse or dense) in
    each group, (n_groups, p), zero for a group of no weight, and each group's
    total weight."""
    totals = np.bincount(group, weights=weight, minlength=n_groups).astype(np.float64)
    sums = group_sums(X, group, weight, n_groups)
    return sums / np.where(totals > 0, totals, 1.0)[:, None], totals


def _sparse_gram(X, block=1024):
    """``X Xᵀ`` of sparse rows as a dense (n, n) Fortran array, a block of rows at a
    time: the sparse product of all rows at once (nearly dense for text) would
    hold about 1.5 times the dense matrix beside it."""
    n = X.shape[0]
    gram = np.empty((n, n), order="F")
    transposed = X.T.tocsr()
    for start in range(0, n, block):
        stop = min(start + block, n)
        gram[start:stop] = (X[start:stop] @ transposed).toarray()
    return gram


def _mirror_upper(matrix, block=1024):
    """Copy the upper triangle of a square matrix onto its lower one, in place, a
    block of rows at a time (no (n, n) temporary)."""
    for start in range(0, matrix.shape[0], block):
        stop = min(start + block, matrix.shape[0])
        matrix[start:stop, :start] = matrix[:start, start:stop].T
        tile = matrix[start:stop, start:stop]
        matrix[start:stop, start:stop] = np.triu(tile) + np.triu(tile, 1).T


@dataclass(frozen=True)
class Scatter:
    """The pooled within-class scatter W, as a matrix or as rows (see the module).

    Attributes
    ----------
    matrix : ndarray of shape (n_features, n_features) or None
        W, in the ``"matrix"`` form.
    per_class : ndarray of shape (n_classes, n_features, n_features) or None
        The scatter of each class, kept on request in the ``"matrix"`` form.
    rows : CentredRows or None
        C with W = CᵀC, in the ``"rows"`` and ``"sparse"`` forms.
    keep_per_class : bool
        Whether ``per_class`` is kept when the rows become the matrix.
    """

    matrix: np.ndarray | None = None
    per_class: np.ndarray | None = None
    rows: CentredRows | None = None
    keep_per_class: bool = False

    @property
    def form(self):
        if self.rows is None:
            return "matrix"
        return "sparse" if self.rows.is_sparse else "rows"

    def full(self):
        """W as a (p, p) matrix whatever the form (from rows: O(m·p²))."""
        return self.matrix if self.rows is None else self.rows.matrix()

    def diagonal(self):
        """``diag(W)``."""
        if self.rows is None:
            return np.diagonal(self.matrix).copy()
        return self.rows.column_squares()

    def any(self):
        """Whether W is nonzero."""
        return bool(np.any(self.matrix)) if self.rows is None else self.rows.any()

    def with_matrix(self, n_classes):
        """The matrix form (and the scatter of each class when ``keep_per_class``)."""
        if self.rows is None:
            return self
        per_class = None
        if self.keep_per_class:
            classes = self.rows.classes
            per_class = np.stack(
                [self.rows.take(classes == k).matrix() for k in range(n_classes)]
            )
        return Scatter(matrix=self.rows.matrix(), per_class=per_class)

    def rescaled(self, scale):
        """The scatter of the features divided by ``scale``."""
        if self.rows is not None:
            return replace(self, rows=self.rows.scaled(1.0 / scale))
        outer = np.outer(scale, scale)
        per_class = None if self.per_class is None else self.per_class / outer
        return replace(self, matrix=self.matrix / outer, per_class=per_class)

    def pair(self, i, j):
        """The scatter of classes i and j alone, as classes 0 and 1."""
        if self.rows is not None:
            classes = self.rows.classes
            members = (classes == i) | (classes == j)
            label = np.zeros(max(i, j) + 1, dtype=np.intp)
            label[j] = 1
            return replace(self, rows=self.rows.take(members).relabelled(label))
        if self.per_class is None:
            raise ValueError(
                "Pairwise statistics need the scatter of each class: compute them "
                "with per_class=True (ClassStatistics.from_data or class_statistics)."
            )
        return Scatter(
            matrix=self.per_class[i] + self.per_class[j],
            per_class=self.per_class[[i, j]],
        )

    def relabelled(self, where, n_classes):
        """The scatter with class k renamed ``where[k]`` among ``n_classes``."""
        if self.rows is not None:
            return replace(self, rows=self.rows.relabelled(where))
        if self.per_class is None:
            return self
        per_class = np.zeros((n_classes, *self.per_class.shape[1:]))
        per_class[where] = self.per_class
        return replace(self, per_class=per_class)

    def without_per_class(self):
        return replace(self, per_class=None, keep_per_class=False)

    def merged(self, other, corrections, means=None, part_means=(None, None)):
        """The scatter of the union: ``W_a + W_b + Σ_k q_k q_kᵀ`` with the rows
        ``corrections`` (K, p) the Chan corrections ``√(c_a c_b / c) δ_k``.

        Sparse rows centred implicitly on their own part's class means
        (``part_means``) are centred again on the union's ``means`` instead:
        exact, with no correction rows, since implicit centring costs nothing
        whatever the centre."""
        if (
            means is not None
            and self._centred_on(part_means[0])
            and other._centred_on(part_means[1])
        ):
            rows = self.rows.stacked(other.rows)
            recentred = CentredRows.of_sparse(
                rows.sparse, rows.sparse_classes, rows.root_weight, means
            )
            if not recentred.cancels():
                return Scatter(
                    rows=recentred,
                    keep_per_class=self.keep_per_class and other.keep_per_class,
                )
        if self.rows is not None and other.rows is not None:
            corrected = np.flatnonzero(np.any(corrections != 0, axis=1))
            extra = CentredRows(corrections[corrected], corrected)
            return Scatter(
                rows=self.rows.stacked(other.rows, extra),
                keep_per_class=self.keep_per_class and other.keep_per_class,
            )
        n_classes = corrections.shape[0]
        mine, theirs = self.with_matrix(n_classes), other.with_matrix(n_classes)
        matrix = mine.matrix + theirs.matrix  # (one (p, p) temporary, not two)
        matrix += corrections.T @ corrections
        per_class = None
        if mine.per_class is not None and theirs.per_class is not None:
            per_class = mine.per_class + theirs.per_class
            per_class += corrections[:, :, None] * corrections[:, None, :]
        return Scatter(matrix=matrix, per_class=per_class)

    def _centred_on(self, means):
        """Whether the rows are all sparse, centred on these class means (no
        feature centred explicitly, no correction row)."""
        rows = self.rows
        return (
            means is not None
            and rows is not None
            and rows.is_sparse
            and not rows.dense.size
            and np.array_equal(rows.centres, means)
            and np.array_equal(rows.centre_of, rows.sparse_classes)
        )

    def compacted(self, n_classes):
        """The rows form with as few rows per class as the rank of its scatter:
        per class, ``C_k → V_rᵀ C_k`` with ``(C_k E)(C_k E)ᵀ = V Σ Vᵀ`` and r the
        eigenvalues above rounding (``C_kᵀ C_k`` is kept to rounding).

        E scales each feature to unit sum of squares, so that what is dropped is
        rounding for every feature on its own scale: unit-free, as the rank
        decision is (a cut on the raw Gram dropped the directions of features
        1e8 smaller than others, and their part of the rank with them)."""
        parts, classes = [], []
        all_classes = self.rows.classes
        for k in range(n_classes):
            members = self.rows.take(all_classes == k)
            if members.n_rows > 1:
                squares = members.column_squares()
                scale = 1.0 / np.sqrt(np.where(squares > 0, squares, 1.0))
                gram = members.gram(column_scale=scale)
                with threads_for_matrix(len(gram)):
                    values, vectors = np.linalg.eigh(gram)
                noise = members.n_rows * np.finfo(float).eps * max(values[-1], 0.0)
                kept = members.tdot(vectors[:, values > noise]).T
            else:
                kept = members.to_dense()
            parts.append(kept)
            classes.append(np.full(kept.shape[0], k, dtype=np.intp))
        rows = CentredRows(np.concatenate(parts), np.concatenate(classes))
        return replace(self, rows=rows)
