"""HardMarginSVM: the maximal-margin separating hyperplane, exact.

The mathematics is in ``_margin.maximal_margin_of``; the estimator asks for its rows
(``_rows.rows_of``, any backend), runs it one-vs-rest and publishes the support
vectors.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import LinearClassifierBase, fitted_or_reset
from ._margin import joint_margin_of, maximal_margin_of
from ._rows import one_vs_rest, rows_of
from ._validation import plain_label
from .exceptions import NotLinearlySeparableError, NotLinearlySeparableWarning


class HardMarginSVM(LinearClassifierBase):
    r"""The maximal-margin separating hyperplane, exact.

    Solves :math:`\min \tfrac12\|w\|^2` subject to
    :math:`c_i(w^T x_i + b) \ge 1` for every training sample: the separating
    hyperplane farthest from both classes, with geometric margin
    :math:`1/\|w\|`. The solution depends only on the support vectors (the samples
    on :math:`c_i(w^T x_i + b) = 1`), usually few: the QP is solved on a working set
    of candidates (seeded by the samples nearest the hyperplane halfway between the
    class means, grown by the most violated constraints after each solve, with one
    matrix-vector product over X) until no constraint is violated. The optimality
    conditions are then verified on all samples. X is centred and scaled by one
    scalar before solving, and the answer mapped back; X whose centred entries fall
    outside [1e-100, 1e100] is refused with a ValueError that says so (rescale it
    by a constant). An answer float64 cannot certify raises
    :class:`~sklearn_linsep.SolverError`.

    On inseparable data no hyperplane satisfies the constraints. With
    ``on_inseparable="soft"`` (default) the estimator fits the limit C → ∞ of the
    soft-margin SVM (the least total hinge violation, then the largest margin among
    the hyperplanes that attain it), and ``separable_`` is False (quietly, as
    scikit-learn's ``SVC`` fits any data: a grid search over real data would print
    a warning a fit); ``"warn"`` fits the same and emits a
    :class:`~sklearn_linsep.NotLinearlySeparableWarning`; ``"raise"`` raises
    :class:`~sklearn_linsep.NotLinearlySeparableError`, whose ``certificate`` (a
    :class:`SeparabilityResult`) proves it: a point in the convex hulls of both
    classes.

    More than two classes are fitted one-vs-rest (``multi_class="ovr"``), or
    jointly (``multi_class="crammer_singer"``): the exact maximal multiclass
    margin of Crammer and Singer,

    .. math:: \min \tfrac12 \sum_k \|w_k\|^2 \quad\text{s.t.}\quad
              (w_{y_i} - w_k)^T x_i + b_{y_i} - b_k \ge 1
              \ \text{for every } i \text{ and } k \ne y_i,

    whose prediction ``argmax_k w_k^T x + b_k`` classifies every training row
    right where any linear machine does (data can be separable this way and not
    one-vs-rest: standardised digits). It is solved on a working set of pairs
    (row, other class) of Kesler's construction, never formed whole, and its
    KKT conditions are checked on every pair. Inseparable, it is the C → ∞
    limit of the Crammer–Singer soft margin (each row's hinge its worst
    pair's), or the error with Farkas weights on pairs
    (:class:`JointSeparabilityResult`). With two classes both options are the
    binary hard margin.

    Sparse X with at least as many features as rows (TF-IDF text) is never
    densified: every QP is solved in the span of the rows, on the working set's
    Gram matrix (the memory is X's and that matrix's), and where a working set's
    hulls meet one sparse LP gives the certificate; ``support_vectors_`` is then
    sparse too.

    Parameters
    ----------
    on_inseparable : {"soft", "warn", "raise"}, default="soft"
        What to do when the classes cannot be separated: fit the C → ∞ limit
        (``"warn"``: and say so with a warning), or raise with the certificate.
    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        More than two classes: one hyperplane per class against the rest, or
        one linear machine of all classes at once (the Crammer–Singer margin).
    tol : float, default=1e-9
        Tolerance of the constraints and of the optimality conditions checked on
        all samples.
    initial_size : int, default=None
        Seed samples per class in the working set (``max(4 p + 20, 50)``, at
        most 1 000 where there are more samples than features; 1 000 for wide
        sparse X).
    batch : int, default=None
        Most violated samples added per round (``max(4 p + 40, 100)``, at most
        1 000 where there are more samples than features; for wide sparse X,
        ``initial_size`` or as many as the working set holds).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    margin_ : float or ndarray of shape (n_classes,)
        Geometric margin :math:`1/\|w\|` (of the C → ∞ limit when inseparable;
        nan, with a warning, when that limit is w = 0). For the Crammer–Singer
        machine, :math:`\min_{j<k} 1/\|w_j - w_k\|`: the least distance of a
        row at margin 1 from a boundary between two classes.
    separable_ : bool or ndarray of shape (n_classes,)
    hinge_violation_ : float or ndarray of shape (n_classes,)
        :math:`\sum_i s_i \max(0, 1 - c_i(w^T x_i + b))`: 0 when separable.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors (of any one-vs-rest task).
    support_vectors_ : {ndarray, sparse matrix} of shape (n_SV, n_features)
        The support vectors; CSR where X was sparse.
    dual_coef_ : ndarray of shape (1, n_SV) or (n_classes, n_SV)
        :math:`\alpha_i c_i`, so that ``coef_ = dual_coef_ @ support_vectors_``
        (Crammer–Singer: row k holds :math:`\sum_j \alpha_{ij}
        (\delta_{k y_i} - \delta_{k j})`, the pairs' weights on each support
        vector, and the same identity holds to the solver's precision).
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class.
    n_iter_ : int or ndarray of shape (n_classes,)
        Working-set rounds.
    center_ : ndarray of shape (n_features,) or None
        Set only where the training data lie so far from the origin against their
        spread that float64 cannot evaluate ``coef_ · x + intercept_`` on them (an
        intercept of 1e15, say; a ``UserWarning`` says so): the hyperplane is then
        ``coef_ · (x - center_) + intercept_at_center_``, which
        :meth:`decision_function` uses. None otherwise.
    intercept_at_center_ : ndarray of shape (1,) or (n_classes,), or None
        The intercepts about ``center_`` (None with it).
    exact_coef_, exact_intercept_ : list of fractions.Fraction, or None
        Where two classes come within float64's rounding of touching, the
        maximal-margin hyperplane is computed in exact rational arithmetic
        (a ``UserWarning`` says so): these are its ``w`` and ``b`` (with
        ``c_i (w·x_i + b) ≥ 1`` on every row as rationals), and ``coef_`` and
        ``intercept_`` their float64 roundings, which may not separate every
        row. Crammer–Singer: the machine's K rows and K intercepts, as lists.
        One-vs-rest with K > 2 classes: a list per task (None for the tasks
        float64 decided). None otherwise.
    certificate_ : SeparabilityResult, JointSeparabilityResult or None
        For two inseparable classes, the proof of inseparability; for K > 2
        jointly inseparable classes with ``multi_class="crammer_singer"``, the
        Farkas weights on pairs (check them with ``certificate_.verify(X, y)``).
        (One-vs-rest with K > 2 classes: ``on_inseparable="raise"`` raises with
        the certificate of the first inseparable task, for the labels
        ``y == classes_[k]``: check it with
        ``certificate.verify(X, y == classes_[k])``.)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined only when X has feature names that are all strings.

    See Also
    --------
    linear_separability : The separability test with certificates.
    sklearn.svm.SVC : ``SVC(kernel="linear", C=1e10)`` approximates the hard margin.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep import HardMarginSVM
    >>> X, y = load_iris(return_X_y=True)
    >>> X, y = X[:, :2], (y == 0).astype(int)  # setosa against the rest (SPEC §6)
    >>> svm = HardMarginSVM().fit(X, y)
    >>> np.round(svm.coef_ * 7, 6), round(float(svm.intercept_[0]) * 7, 6)
    (array([[-60.,  50.]]), 162.0)
    >>> round(svm.margin_, 6), svm.separable_
    (0.089626, True)

    Standardised digits separate jointly, though not one class against the rest:

    >>> from sklearn.datasets import load_digits
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_digits(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> machine = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    >>> machine.separable_, machine.coef_.shape, float(machine.score(X, y))
    (True, (10, 64), 1.0)
    """

    _accept_sparse = True

    _parameter_constraints: dict = {
        "on_inseparable": [StrOptions({"soft", "warn", "raise"})],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
        "tol": [Interval(Real, 0, 1, closed="neither")],
        "initial_size": [Interval(Integral, 1, None, closed="left"), None],
        "batch": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        on_inseparable="soft",
        *,
        multi_class="ovr",
        tol=1e-9,
        initial_size=None,
        batch=None,
    ):
        self.on_inseparable = on_inseparable
        self.multi_class = multi_class
        self.tol = tol
        self.initial_size = initial_size
        self.batch = batch

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the maximal-margin hyperplane (for K > 2 classes, one-vs-rest or
        the Crammer–Singer machine).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Samples of weight 0 are left out; otherwise weights matter only for the
            hinge violations of inseparable data.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with fitted_or_reset(self):
            rows = rows_of(
                X,
                y,
                sample_weight,
                name=type(self).__name__,
                estimator=self,
                finite=False,  # checked in the problems' first pass
            )
            self.classes_ = rows.classes
            if self.multi_class == "crammer_singer" and len(self.classes_) > 2:
                self._fit_machine(rows)
                return self
            results = [
                self._solve(problem, task)
                for task, problem in enumerate(one_vs_rest(rows))
            ]
            # float64 whatever X's dtype, as LinearSVC's: in float32 the margins of
            # the rows held at 1 fell 3.5e-8 below it, past tol.
            self.coef_ = np.vstack([r.coef for r in results]).astype(np.float64)
            self.intercept_ = np.array([r.intercept for r in results], dtype=np.float64)
            self._publish(results, rows.support_rows)
        return self

    def _fit_machine(self, rows):
        """The Crammer–Singer machine of K > 2 classes, and its attributes."""
        result = joint_margin_of(
            rows.joint(),
            tol=self.tol,
            soft=self.on_inseparable != "raise",
            classes=self.classes_,
            initial_size=self.initial_size,
            batch=self.batch,
        )
        if not result.separable and self.on_inseparable == "raise":
            raise NotLinearlySeparableError(
                "The classes are not jointly linearly separable: "
                f"{result.certificate.describe()}",
                certificate=result.certificate,
            )
        self.coef_ = result.coef.astype(np.float64)
        self.intercept_ = result.intercept.astype(np.float64)

        def dual_of(support, codes):
            # Each pair (i, k) puts +α on row i's own class and -α on k.
            position = np.searchsorted(support, result.support)
            dual = np.zeros((len(self.classes_), support.size))
            np.add.at(dual, (codes[position], position), result.dual)
            np.add.at(dual, (result.support_classes, position), -result.dual)
            return dual

        self._publish([result], rows.support_rows, dual_of)

    def _solve(self, two_class, task):
        """The MarginResult of one binary problem (task: its one-vs-rest index)."""
        names = None
        if len(self.classes_) == 2:
            classes, problem = self.classes_, "The classes"
        else:  # one against the rest: the certificate speaks of y == label
            classes = np.array([False, True])
            label = plain_label(self.classes_[task])
            problem = f"Class {label!r} and the rest"
            names = ("the other classes", f"class {label!r}")
        result = maximal_margin_of(
            two_class,
            tol=self.tol,
            initial_size=self.initial_size,
            batch=self.batch,
            soft=self.on_inseparable != "raise",
            classes=classes,
        )
        if not result.separable and self.on_inseparable == "raise":
            raise NotLinearlySeparableError(
                f"{problem} are not linearly separable: "
                f"{result.certificate.describe(names)}",
                certificate=result.certificate,
            )
        return result

    def _publish(self, results, support_rows, dual_of=None):
        """Fitted attributes from the results (one per one-vs-rest task, or
        the one machine); ``support_rows(indices)`` gives the rows and class
        indices of the support vectors, ``dual_of(support, codes)`` the dual
        coefficients on them (default: one row per task, its ``α c``)."""

        def squeeze(values):
            values = np.asarray(values)
            return values.item() if values.size == 1 else values

        self.margin_ = squeeze([r.margin for r in results])
        self.separable_ = squeeze([r.separable for r in results])
        self.hinge_violation_ = squeeze([r.hinge_violation for r in results])
        self.n_iter_ = squeeze([r.rounds for r in results])
        self.certificate_ = results[0].certificate if len(results) == 1 else None
        self.exact_coef_ = self.exact_intercept_ = None
        if any(result.exact_coef is not None for result in results):
            self.exact_coef_ = squeeze_list([r.exact_coef for r in results])
            self.exact_intercept_ = squeeze_list([r.exact_intercept for r in results])
        self.center_, self.intercept_at_center_ = None, None
        if any(result.needs_center for result in results):
            # Every task's rows are all the rows: one centre. A task centred
            # elsewhere (on dask each task's centre is a sum of other class sums,
            # ulps apart) is moved to it: w·(x - c_r) + b_r = w·(x - c) + b_r
            # + w·(c - c_r).
            self.center_ = center = results[0].center
            self.intercept_at_center_ = np.concatenate(
                [
                    np.atleast_1d(r.intercept_at_center + r.coef @ (center - r.center))
                    for r in results
                ]
            )
        support = np.unique(np.concatenate([r.support for r in results]))
        self.support_ = support.astype(np.intp)
        self.support_vectors_, support_codes = support_rows(support)
        if dual_of is None:
            dual = np.zeros((len(results), support.size))
            for k, result in enumerate(results):
                dual[k, np.searchsorted(support, result.support)] = result.dual
        else:
            dual = dual_of(support, support_codes)
        self.dual_coef_ = dual
        self.n_support_ = np.bincount(
            support_codes, minlength=len(self.classes_)
        ).astype(np.int32)
        _warn_if_inseparable(results, self.classes_, self.on_inseparable == "warn")


def squeeze_list(values):
    """One task's value, or the list of them (one per one-vs-rest task)."""
    return values[0] if len(values) == 1 else values


def _warn_if_inseparable(results, classes, inseparable):
    """The warnings of a fit whose results (one per task, or the one machine) are
    not all separable: a margin left undefined always, the inseparability itself
    where asked (``inseparable``)."""
    if any(np.isnan(result.margin) for result in results):
        warnings.warn(
            "The least total hinge violation is attained by w = 0, the "
            "smallest of the hyperplanes that attain it (the C -> infinity "
            "limit's): the decision function is a constant, no direction of the "
            "features lowers the violation, and the margin is undefined (margin_ "
            "is nan).",
            NotLinearlySeparableWarning,
            stacklevel=5,
        )
    if inseparable and not all(result.separable for result in results):
        verdict, joint = "The classes are not linearly separable", ""
        if len(results) > 1:  # one-vs-rest: the classes may separate jointly
            apart = [repr(plain_label(label))
                     for label, result in zip(classes, results, strict=True)
                     if not result.separable]  # fmt: skip
            which = "class" if len(apart) == 1 else "classes"
            verdict = (f"Not separable one-vs-rest ({which} {', '.join(apart)} "
                       "against the rest)")  # fmt: skip
            joint = (
                " The classes may still be separable jointly, by one linear "
                "machine: HardMarginSVM(multi_class='crammer_singer') fits it, "
                "and linear_separability(X, y, multiclass='joint') decides it."
            )
        warnings.warn(
            f"{verdict}: fitted the limit C → ∞ of the soft margin (least total "
            f"hinge violation {sum(r.hinge_violation for r in results):.6g}, then "
            "the largest margin). on_inseparable='raise' gives the certificate "
            f"as an error, 'soft' fits quietly (separable_ says it).{joint}",
            NotLinearlySeparableWarning,
            stacklevel=5,
        )
