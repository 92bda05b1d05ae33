"""Pure-function tests of the validation layer (``_validation``, ``_compat``), and
of the import graph it keeps acyclic."""

import ast
import pathlib
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_linsep._compat import any_dask, is_dask_array
from sklearn_linsep._validation import (
    check_classes,
    check_labels,
    check_weights,
    chunk_weights,
    encode_classes,
    encode_known_labels,
    encode_labels,
    label_codes,
    validate_labelled_data,
    working_dtype,
)


def test_the_working_dtype_keeps_float32_only():
    assert working_dtype(np.zeros(2, np.float32)) == np.float32
    for dtype in (np.float64, np.int64, np.float16, np.int8, bool):
        assert working_dtype(np.zeros(2, dtype)) == np.float64


@pytest.mark.parametrize("labels", [[], [3], ["a"]])
def test_fewer_than_two_classes_is_one_error(labels):
    with pytest.raises(ValueError, match="Est needs at least 2 classes; got [01] cl"):
        check_labels(np.asarray(labels), "Est")
    with pytest.raises(ValueError, match="Est needs at least 2 classes"):
        check_classes(labels, "Est")


def test_classes_must_be_sorted_distinct_and_one_dimensional():
    np.testing.assert_array_equal(check_classes([1, 4], "Est"), [1, 4])
    for bad in ([4, 1], [1, 1, 4], [[1, 4]]):
        with pytest.raises(ValueError, match="classes must be"):
            check_classes(bad, "Est")
    with pytest.raises(ValueError, match="Unknown label type"):
        check_classes([0.5, 1.5], "Est")


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=40),
    narrow=st.booleans(),
)
def test_label_codes_are_numpy_unique(values, narrow):
    y = np.asarray(values, dtype=np.int64)
    if narrow:  # the O(n) lookup table, not the sort
        y = y % 7 - 3
    labels, codes = label_codes(y)
    expected_labels, expected_codes = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_array_equal(codes, expected_codes)
    assert labels.dtype == y.dtype and codes.dtype == np.intp


@pytest.mark.parametrize(
    "y",
    [
        np.array([5, 3, 3, 9, 5]),
        np.array([-7, 2, -7, 2, 2], dtype=np.int8),
        np.array([True, False, True]),
        np.array([0, 10**12, 10**12]),  # too wide for the lookup table
        np.array(["b", "a", "b"]),
        np.array([2**63 + 1, 2**63, 2**63 + 1], dtype=np.uint64),  # beyond intp
        np.array([-(2**63), -(2**63) + 3], dtype=np.int64),
        np.array([1.0, 2.0, 1.0]),
    ],
)
def test_encoding_equals_numpy_unique(y):
    classes, codes = encode_classes(y, "Est")
    expected_classes, expected_codes = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(classes, expected_classes)
    assert classes.dtype == expected_classes.dtype
    np.testing.assert_array_equal(codes, expected_codes)


def test_label_codes_of_text_and_booleans():
    labels, codes = label_codes(np.array(["b", "a", "b"]))
    assert labels.tolist() == ["a", "b"] and codes.tolist() == [1, 0, 1]
    labels, codes = label_codes(np.array([True, False]))
    assert labels.tolist() == [False, True] and codes.tolist() == [1, 0]


def test_encode_classes_checks_targets_and_count():
    classes, codes = encode_classes(np.array([5, 2, 5]), "Est")
    assert classes.tolist() == [2, 5] and codes.tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="Unknown label type"):
        encode_classes(np.linspace(0, 1, 5), "Est")


def test_encode_labels_refuses_unknown_labels_by_name():
    classes = np.array([0, 1])
    assert encode_labels([1, 0, 1], classes).tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match=r"Est: y contains labels not in classes "
                                         r"\[0, 1\]: \[2, 7\]"):  # fmt: skip
        encode_labels([0, 7, 2, 7], classes, "Est")
    with pytest.raises(ValueError, match=r"not in classes \[0, 1\]: \['a'\]"):
        encode_labels(["a"], classes)  # another type: none is known


def test_chunk_weights_rules():
    np.testing.assert_array_equal(chunk_weights(2, 3), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(chunk_weights([0, 0], 2), [0.0, 0.0])  # allowed
    with pytest.raises(ValueError, match=r"shape \(2,\); expected \(3,\)"):
        chunk_weights([1, 2], 3)
    for bad in ([1.0, -1.0], [1.0, np.nan], [np.inf, 1.0]):
        with pytest.raises(ValueError, match="finite and non-negative"):
            chunk_weights(bad, 2)


def test_check_weights_wants_every_class_weighted():
    X, codes, classes = np.zeros((4, 1)), np.array([0, 0, 1, 1]), np.array(["a", "b"])
    assert check_weights(None, X, codes, classes) is None
    np.testing.assert_array_equal(
        check_weights([1, 0, 2, 0], X, codes, classes), [1, 0, 2, 0]
    )
    with pytest.raises(ValueError, match=r"classes \['b'\] have weight zero"):
        check_weights([1, 1, 0, 0], X, codes, classes)
    with pytest.raises(ValueError, match="Negative values"):
        check_weights([1, -1, 1, 1], X, codes, classes)
    with pytest.raises(ValueError, match="non-zero"):
        check_weights(np.zeros(4), X, codes, classes)


def test_labels_known_to_be_valid_encode_without_a_check():
    classes = np.array([2, 5, 9])
    y = np.array([9, 2, 5, 5])
    np.testing.assert_array_equal(encode_known_labels(y, classes), [2, 0, 1, 1])
    np.testing.assert_array_equal(
        encode_known_labels(y, classes), encode_labels(y, classes)
    )


def test_validate_labelled_data_for_functions():
    X, classes, codes, weights = validate_labelled_data(
        [[0.0], [1.0]], ["x", "y"], None, "f"
    )
    assert X.dtype == np.float64 and classes.tolist() == ["x", "y"]
    assert codes.tolist() == [0, 1] and weights is None
    X32 = validate_labelled_data(np.ones((2, 1), np.float32), [0, 1], None, "f")[0]
    assert X32.dtype == np.float32
    with pytest.raises(ValueError, match="NaN"):
        validate_labelled_data([[np.nan], [1.0]], [0, 1], None, "f")
    with pytest.raises(ValueError, match="f needs at least 2 classes"):
        validate_labelled_data([[0.0], [1.0]], [0, 0], None, "f")


def test_compat_recognises_dask_without_importing_it():
    assert not is_dask_array(np.zeros(2)) and not any_dask(np.zeros(2), None)


def _module_name(path, package):
    """``"_online._base"`` for ``sklearn_linsep/_online/_base.py``; a package's
    ``__init__`` is the package."""
    parts = path.relative_to(package).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _python_imports(path):
    """The module's source for ``ast``: a Cython kernel's Python-level ``import``
    and ``from ... import`` lines (its ``cimport`` lines name C declarations)."""
    text = path.read_text()
    if path.suffix != ".pyx":
        return text
    pattern = re.compile(r"^(from\s+\S+\s+import\s+[^(\n]+|import\s+\S.*)$", re.M)
    return "\n".join(pattern.findall(text))


def _relative_imports(path, package):
    """The modules of the package that ``path`` imports, as dotted names."""
    anchor = _module_name(path, package).split(".")
    if path.name != "__init__.py":
        anchor = anchor[:-1]  # relative imports start from the containing package
    anchor = [part for part in anchor if part]
    imported = set()
    for node in ast.walk(ast.parse(_python_imports(path))):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = anchor[: len(anchor) - (node.level - 1)]
        if node.module:
            imported.add(".".join(base + node.module.split(".")))
        else:  # from . import _kernels
            imported.update(".".join(base + [alias.name]) for alias in node.names)
    return imported


def test_the_package_has_no_import_cycle():
    package = pathlib.Path(__file__).parents[1] / "sklearn_linsep"
    graph = {
        _module_name(path, package): _relative_imports(path, package)
        for pattern in ("*.py", "*.pyx")
        for path in package.rglob(pattern)
    }
    assert {"_online._base", "_kernels._online", "_rows._dask._blocks"} <= set(graph)
    assert "_kernels" in graph["_online._perceptron"]
    assert graph["_compat"] == set()
    assert graph["_validation"] <= {"_compat"}
    kernels = [name for name in graph if name.startswith("_kernels")]
    for name in kernels:  # the kernels lean on nothing but each other and floor 0
        assert all(
            module.startswith("_kernels") or module in ("_version", "_compat")
            for module in graph[name]
        ), name
    assert graph["_version"] == set()

    def reachable(start):  # each module once: paths, not walks (19 s before)
        seen, stack = set(), list(graph.get(start, ()))
        while stack:
            module = stack.pop()
            if module not in seen:
                seen.add(module)
                stack.extend(graph.get(module, ()))
        return seen

    cyclic = [module for module in graph if module in reachable(module)]
    assert not cyclic, f"import cycles through {cyclic}"


@pytest.mark.parametrize("estimator", ["FisherDiscriminant", "SeparabilityAngle"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("shape", [(300, 4), (40, 600)])  # the matrix and rows forms
def test_finiteness_checked_in_the_pass_gives_check_array_s_message(estimator, bad,
                                                                    shape):  # fmt: skip
    """The statistics estimators check X's finiteness in their one pass over it
    (no pass of its own): the error is check_array's, word for word, and comes
    first where y is wrong too."""
    import sklearn_linsep
    from sklearn.utils.validation import check_array

    rng = np.random.default_rng(0)
    X = rng.normal(size=shape)
    X[shape[0] - 7, 2] = bad
    y = np.arange(shape[0]) % 2
    model = getattr(sklearn_linsep, estimator)()
    with pytest.raises(ValueError) as expected:
        check_array(X, estimator=model, input_name="X")
    for labels in (y, np.zeros_like(y)):  # one class: X's error first still
        with pytest.raises(ValueError) as raised:
            model.fit(X, labels)
        assert str(raised.value) == str(expected.value)
    for dtype in (np.float32,):
        with pytest.raises(ValueError) as raised:
            model.fit(X.astype(dtype), y)
        assert str(raised.value).startswith(str(expected.value).split("\n")[0][:17])
    if shape[0] > shape[1]:  # the matrix form: a finite X whose squares overflow
        huge = np.where(np.isfinite(X), X, 0.0)
        huge[:, 0] *= 1e200
        with pytest.raises(ValueError, match="overflowed float64"):
            model.fit(huge, y)


@pytest.mark.parametrize("kind", ["int64", "uint64", "sparse", "frame", "dask"])
@pytest.mark.parametrize("fit", ["linear_separability", "HardMarginSVM", "FisherDiscriminant"])
def test_integers_float64_would_round_are_a_clear_error(kind, fit):
    """Integers beyond 2**53 (ids, nanosecond times): float64 made 2**62 and
    2**62 + 1 one row, and the inseparable verdict on that row was 'proven'.
    Refused by name; 2**53 itself, exactly held, is taken."""
    import pandas as pd
    import scipy.sparse as sp

    import sklearn_linsep

    big = np.array([[2**62, 0], [2**62 + 1, 1], [2**62 + 2, 1]], dtype=np.int64)
    X = {
        "int64": big,
        "uint64": big.astype(np.uint64) + np.uint64(2**63),
        "sparse": sp.csr_matrix(big),
        "frame": pd.DataFrame({"id": big[:, 0], "x": [0.5, 1.0, 2.0]}),
        "dask": big,
    }[kind]
    if kind == "dask":  # each block checked in its task
        import dask.array as da

        X = da.from_array(big, chunks=(2, 2))
    y = np.array([0, 1, 1])
    call = getattr(sklearn_linsep, fit)
    run = call if fit == "linear_separability" else (lambda X, y: call().fit(X, y))
    with pytest.raises(ValueError, match=r"integers beyond 2\*\*53"):
        run(X, y)
    exact = np.array([[2**53, 0], [-(2**53), 1], [5, 1]], dtype=np.int64)
    assert run(exact, y) is not None


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_labels_of_mixed_types_are_named(backend):
    """int and str labels in one y: numpy's sort said "'<' not supported between
    instances of 'int' and 'str'", naming neither y nor its labels."""
    from sklearn_linsep import linear_separability

    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int).astype(object)
    y[y == 1] = "a"
    if backend == "dask":
        import dask.array as da

        X, y = da.from_array(X, chunks=(30, -1)), da.from_array(y, chunks=30)
    with pytest.raises(TypeError, match=r"y mixes labels of types \['int', 'str'\]"):
        linear_separability(X, y)
