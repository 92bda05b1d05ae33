"""Labels, classes, sample weights and the working dtype: each rule once, one message.

Every estimator and function of the suite validates through here, in memory, chunk
by chunk (``partial_fit``) or in a dask task, so the same bad input gets the same
error whichever way it came. Imports nothing of ours but ``_compat``.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _assert_all_finite,
    _check_sample_weight,
    check_array,
    check_X_y,
    validate_data,
)

# The integers float64 holds exactly: |x| <= 2**53.
EXACT_INTEGERS = 2**53


def check_exact_integers(X):
    """A ValueError where integer X (an array, a sparse matrix or a frame's integer
    columns) holds a value float64 cannot hold exactly, beyond ``EXACT_INTEGERS``:
    converted, distinct rows could become one, and every answer would be about
    rows other than X's."""
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # a DataFrame's columns
        parts = [X[name] for name, kind in zip(X.columns, X.dtypes, strict=True)
                 if getattr(kind, "kind", None) in ("i", "u")]  # fmt: skip
    else:
        parts = [getattr(X, "data", X) if hasattr(X, "tocsr") else X]
    for part in parts:
        values = np.asarray(part)
        if values.dtype.kind not in "iu" or not values.size:
            continue
        beyond = values > EXACT_INTEGERS
        if values.dtype.kind == "i":
            beyond |= values < -EXACT_INTEGERS
        if np.any(beyond):
            raise ValueError(
                f"X holds integers beyond 2**53 (such as {values[beyond].flat[0]}), "
                "which float64 rounds: distinct values can become one, and the "
                "answer would be about other rows. Subtract a common offset, or "
                "convert X to float64 yourself to accept the rounding."
            )


def working_dtype(X):
    """The precision data are kept in: float32 stays, everything else is float64."""
    return np.dtype(np.float32) if X.dtype == np.float32 else np.dtype(np.float64)


def check_labels(classes, name):
    """The distinct labels of a fit, checked: classification targets, two at least
    (``name`` says whose fit)."""
    check_classification_targets(classes)
    if classes.shape[0] < 2:
        count = f"{classes.shape[0]} class" + ("" if classes.shape[0] == 1 else "es")
        raise ValueError(
            f"{name} needs at least 2 classes; got {count} ({classes.tolist()!r}). "
            "Linear separability compares classes."
        )
    return classes


def check_classes(classes, name):
    """``classes`` as an array, sorted and distinct as ``np.unique`` gives them, with
    at least two labels: the order of the rows of statistics and of coefficients."""
    classes = np.asarray(classes)
    if classes.ndim != 1:
        raise ValueError(f"classes must be 1-D; got shape {classes.shape}.")
    unique = np.unique(classes)
    if unique.shape != classes.shape or not np.all(unique == classes):
        raise ValueError(
            "classes must be sorted and distinct, as np.unique returns them (row k "
            f"of the statistics is classes[k]); got {classes.tolist()!r}."
        )
    return check_labels(classes, name)


def label_codes(y):
    """``(labels, codes)``: ``np.unique(y, return_inverse=True)``, in O(n) (no sort)
    for integer labels of a range not much wider than their number."""
    labels, codes = _integer_codes(y) if y.dtype.kind in "iub" else (None, None)
    if labels is None:
        try:
            labels, codes = np.unique(y, return_inverse=True)
        except TypeError:  # numpy's "'<' not supported between 'str' and 'int'"
            kinds = sorted({type(label).__name__ for label in np.ravel(y)})
            raise TypeError(
                f"y mixes labels of types {kinds}, which do not sort: give labels "
                "that are all numbers or all strings."
            ) from None
    return labels, codes.astype(np.intp, copy=False)


def _integer_codes(y):
    if y.size == 0:
        return None, None
    low = y.min()
    span = int(y.max()) - int(low)
    if span > 4 * y.size + 1024:
        return None, None
    # The offsets from the smallest label fit in an intp whatever the labels'
    # size (uint64 labels of 2**63 and more included): work in y's own type.
    dtype = y.dtype
    if dtype.kind == "b":
        y, low = y.astype(np.intp), int(low)
    offset = (y - low if low else y).astype(np.intp, copy=False)
    present = np.bincount(offset, minlength=span + 1) > 0
    labels = (np.flatnonzero(present).astype(y.dtype) + low).astype(dtype)
    if present.all():  # consecutive labels: the offsets are the codes (10⁶: 20 ms)
        return labels, offset
    return labels, (np.cumsum(present) - 1)[offset]


def encode_classes(y, name):
    """``(classes, y_encoded)`` of the labels of a whole fit (1-D), with a clear
    error for fewer than two classes.

    The target type is decided on the distinct labels: the same answer as on y
    (the same values), without a second pass over y (8 ms at 10⁶ labels).
    """
    try:
        classes, y_encoded = label_codes(y)
    except TypeError as mixed:  # labels that do not sort (mixed types)
        try:
            check_classification_targets(y)  # scikit-learn's message, where it has one
        except TypeError:  # its own sort's: ours names the types
            raise mixed from None
        raise
    return check_labels(classes, name), y_encoded


def encode_known_labels(y, classes):
    """Indices of the labels ``y`` in the sorted ``classes``, for labels already
    checked by :func:`encode_labels` (a later pass over the same rows)."""
    y = np.asarray(y)
    if y.dtype == classes.dtype and _consecutive_integers(classes):
        # Each known label is its offset from the first: a subtraction, not a
        # binary search (5e5 labels of a dask block: 3 ms, not 10). Clipped as the
        # search's codes are, for encode_labels to find unknown labels.
        codes = np.clip(y - classes[0], 0, len(classes) - 1)
        return codes.astype(np.intp, copy=False)
    codes = np.minimum(np.searchsorted(classes, y), len(classes) - 1)
    return codes.astype(np.intp, copy=False)


def _consecutive_integers(classes):
    """Whether the sorted ``classes`` are integers ``a, a + 1, ..., a + K - 1``."""
    return (
        classes.dtype.kind in "iu"
        and len(classes) > 0
        and int(classes[-1]) - int(classes[0]) == len(classes) - 1
    )


def encode_labels(y, classes, name=None):
    """Indices of the labels ``y`` in the sorted ``classes``; a label outside them is
    an error (naming a few), never silently another class."""
    y = np.asarray(y)
    try:
        codes = encode_known_labels(y, classes)
        unknown = classes[codes] != y
    except TypeError:  # e.g. str labels against int classes: none of them is known
        codes, unknown = np.zeros(y.shape, dtype=np.intp), np.ones(y.shape, bool)
    if np.any(unknown):
        whose = "" if name is None else f"{name}: "
        raise ValueError(
            f"{whose}y contains labels not in classes {classes.tolist()!r}: "
            f"{np.unique(y[unknown])[:5].tolist()!r}."
        )
    return codes.astype(np.intp, copy=False)


def chunk_weights(sample_weight, n_samples):
    """Sample weights of one part of the data: finite, non-negative, one per row.
    All zero is allowed (scikit-learn's check refuses it): a part of zero weight
    adds nothing, as its rows would inside a larger part."""
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.shape != (n_samples,):
        raise ValueError(
            f"sample_weight has shape {weights.shape}; expected ({n_samples},), one "
            "per row."
        )
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    return weights


def check_class_totals(totals, classes):
    """Every class of a fit must weigh something: ``totals[k]`` is the total sample
    weight of ``classes[k]``."""
    missing = np.asarray(totals) <= 0
    if np.any(missing):
        raise ValueError(
            "Every class needs a positive total sample weight; classes "
            f"{np.asarray(classes)[missing].tolist()!r} have weight zero."
        )


def check_class_weight(per_class, classes, name):
    """A ValueError naming the classes whose ``class_weight`` (as
    ``compute_class_weight`` gives it) is not a positive finite number: a zero,
    negative or NaN class weight is refused, as the same sample weights are."""
    bad = ~(np.isfinite(per_class) & (per_class > 0))
    if np.any(bad):
        shown = {plain_label(c): float(w) for c, w in zip(classes[bad], per_class[bad])}
        raise ValueError(
            f"{name}: class_weight must be positive and finite for every class; "
            f"got {shown}."
        )


def plain_label(label):
    """A label as a plain Python value for a dict key or a message (numpy
    scalars have ``item``; the str of an object array has not)."""
    return label.item() if hasattr(label, "item") else label


def check_weights(sample_weight, X, y_encoded, classes):
    """Validated sample weights of a whole fit, every class of positive total
    weight; ``None`` stays ``None`` (the unweighted path)."""
    if sample_weight is None:
        return None
    sample_weight = _check_sample_weight(
        sample_weight, X, dtype=np.float64, ensure_non_negative=True
    )
    per_class = np.bincount(y_encoded, weights=sample_weight, minlength=len(classes))
    check_class_totals(per_class, classes)
    return sample_weight


def validate_labelled_data(
    X, y, sample_weight, name, estimator=None, accept_sparse=False, reset=True,
    finite=True,
):  # fmt: skip
    """``(X, classes, y_encoded, sample_weight)``, validated for a classification fit.

    With an estimator this is ``validate_data`` (which records ``n_features_in_`` and
    feature names when ``reset``); without one, for functions, ``check_X_y``.
    ``finite=False`` leaves X's finiteness to the caller's first pass over it
    (:func:`finiteness_check`): the error a user sees is the same, and comes
    first, where another check fails too (X is then checked here).
    """
    options = {
        "accept_sparse": accept_sparse and "csr",
        "dtype": [np.float64, np.float32],
        "y_numeric": False,
        "ensure_all_finite": finite,
    }
    given = X
    check_exact_integers(X)
    try:
        if estimator is None:
            X, y = check_X_y(X, y, **options)
        else:
            X, y = validate_data(estimator, X, y, reset=reset, **options)
        classes, y_encoded = encode_classes(y, name)
        sample_weight = check_weights(sample_weight, X, y_encoded, classes)
    except (ValueError, TypeError):
        if not finite:  # X's own error first, as check_array would give it
            options = {
                "accept_sparse": options["accept_sparse"],
                "dtype": options["dtype"],
            }
            check_array(given, estimator=estimator, input_name="X", **options)
        raise
    return X, classes, y_encoded, sample_weight


def finiteness_check(estimator):
    """``check(X)``: check_array's error (its very message) where X holds NaN or
    infinity, for a pass over X that validation left to check it (``estimator``
    None: a function's, which names no estimator)."""
    name = None if estimator is None else type(estimator).__name__

    def check(X):
        _assert_all_finite(X, input_name="X", estimator_name=name)

    return check


def validate_chunk(estimator, X, y, sample_weight, classes, reset, accept_sparse=False):
    """``(X, y_encoded, sample_weight)`` of one ``partial_fit`` chunk.

    ``validate_data`` (``reset`` on the first chunk records ``n_features_in_`` and
    feature names), classification targets, labels encoded against the ``classes``
    of the whole stream, and :func:`chunk_weights` (a chunk may weigh nothing).
    """
    X, y = validate_data(
        estimator,
        X,
        y,
        reset=reset,
        accept_sparse=accept_sparse and "csr",
        dtype=[np.float64, np.float32],
        y_numeric=False,
    )
    check_classification_targets(y)
    y_encoded = encode_labels(y, classes, type(estimator).__name__)
    if sample_weight is not None:
        sample_weight = chunk_weights(sample_weight, X.shape[0])
    return X, y_encoded, sample_weight


class PositiveValues(HasMethods):
    """A ``_parameter_constraints`` entry: one or more positive numbers (``inf``
    allowed), as a number or an array-like of real numbers (not text, not
    booleans). (A subclass of a constraint scikit-learn's validation takes as
    it is: it accepts no constraint class of its own.)"""

    def __init__(self):
        super().__init__([])

    def is_satisfied_by(self, val):
        values = np.asarray(val, dtype=object)
        if values.ndim > 1 or values.size == 0:
            return False
        return all(
            isinstance(value, Real)
            and not isinstance(value, (bool, np.bool_))
            and float(value) > 0
            for value in values.ravel()
        )

    def __str__(self):
        return "one or more positive numbers (np.inf allowed)"
