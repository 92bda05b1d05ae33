"""The documentation says what the library computes.

The tables of docs/reproduction.rst are parsed and every number in them is recomputed
with the library and compared to its printed digits; the quick start page runs as a
doctest; the API reference lists every public name.
"""

import csv
import doctest
import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.preprocessing import StandardScaler

import sklearn_linsep
from sklearn_linsep import (
    cover_separability_probability,
    load_hepatitis,
    load_pima_diabetes,
    perceptron_mistake_bound,
    separability_statistics,
)

DOCS = Path(__file__).resolve().parents[1] / "docs"


def csv_table(page, name):
    """The rows of the ``.. csv-table::`` with ``:name: name`` in docs/page, as
    dicts keyed by its ``:header:``."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    for start, line in enumerate(lines):
        if not line.startswith(".. csv-table::"):
            continue
        options, body, i = {}, [], start + 1
        while i < len(lines) and lines[i].startswith("   :"):
            key, _, value = lines[i].strip()[1:].partition(":")
            options[key] = value.strip()
            i += 1
        if options.get("name") != name:
            continue
        i += 1  # the blank line after the options
        while i < len(lines) and (lines[i].startswith("   ") or not lines[i].strip()):
            if lines[i].strip():
                body.append(lines[i].strip())
            elif body:
                break
            i += 1
        header = next(csv.reader([options["header"]], skipinitialspace=True))
        rows = list(csv.reader(body, skipinitialspace=True))
        assert rows and all(len(row) == len(header) for row in rows), name
        return [dict(zip(header, row, strict=True)) for row in rows]
    raise AssertionError(f"no csv-table named {name!r} in {page}")


def assert_printed(printed, value):
    """``value`` rounds to ``printed`` (a number as the page prints it: optional
    degree sign, fixed or scientific notation) at the printed precision."""
    text = printed.strip().rstrip("°")
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    tolerance = 0.5 * 10.0 ** (int(exponent or 0) - decimals)
    assert abs(value - float(text)) <= tolerance * (1 + 1e-9), (printed, value)


def theta(X, y, **kwargs):
    return separability_statistics(X, y, kappa=1.0, **kwargs).degrees


# --- Table 1 -------------------------------------------------------------------------

TABLE_1 = csv_table("reproduction.rst", "table-1")


def test_table_1_lists_the_five_bundled_data_sets():
    loaders = {row["Loader"] for row in TABLE_1}
    assert loaders == {
        name for name in sklearn_linsep.__all__ if name.startswith("load_")
    }


@pytest.mark.parametrize("row", TABLE_1, ids=lambda row: row["Data set"])
def test_table_1_values_are_the_librarys(row):
    X, y = getattr(sklearn_linsep, row["Loader"])(return_X_y=True)
    result = separability_statistics(X, y, kappa=1.0)
    assert X.shape == (int(row["n"]), int(row["p"]))
    assert_printed(row["‖S⁻¹d‖"], result.scaled_distance)
    assert_printed(row["cos θ"], result.cos_angle)
    assert_printed(row["θ"], result.degrees)
    paper = float(row["Paper's θ"].rstrip("°"))
    if row["Status"] == "reproduced":
        assert round(result.degrees) == paper
    else:
        assert row["Status"] == "discrepancy"
        assert abs(result.degrees - paper) > 0.5


def test_table_1_discrepancies_are_the_documented_two():
    discrepant = {row["Data set"] for row in TABLE_1 if row["Status"] != "reproduced"}
    assert discrepant == {"Diabetes", "Hepatitis"}


# --- the two discrepancies under other conventions -----------------------------------


def _pima_raw():
    return load_pima_diabetes(preparation="raw", return_X_y=True)


def _hepatitis_raw():
    return load_hepatitis(preparation="raw", return_X_y=True)


def _complete_rows(X, y, expected):
    keep = ~np.isnan(X).any(axis=1)
    assert keep.sum() == expected
    return X[keep], y[keep]


def _mean_imputed(X, y):
    return np.where(np.isnan(X), np.nanmean(X, axis=0), X), y


def _standardised(X, y):
    return StandardScaler().fit_transform(X), y


CONVENTIONS = {
    ("Diabetes", "attributes as given, zeros included"): lambda: theta(
        *load_pima_diabetes(return_X_y=True)
    ),
    ("Diabetes", "zeros that stand for missing values dropped"): lambda: theta(
        *_complete_rows(*_pima_raw(), 392)
    ),
    ("Diabetes", "those zeros replaced by the mean"): lambda: theta(
        *_mean_imputed(*_pima_raw())
    ),
    ("Diabetes", "attributes standardised"): lambda: theta(
        *_standardised(*load_pima_diabetes(return_X_y=True))
    ),
    ("Diabetes", "affine-invariant length"): lambda: theta(
        *load_pima_diabetes(return_X_y=True), metric="mahalanobis"
    ),
    ("Hepatitis", "``?`` → 0 (``preparation"): lambda: theta(
        *load_hepatitis(return_X_y=True)
    ),
    ("Hepatitis", "``?`` → mean"): lambda: theta(
        *load_hepatitis(preparation="mean", return_X_y=True)
    ),
    ("Hepatitis", "the 80 complete rows"): lambda: theta(
        *_complete_rows(*_hepatitis_raw(), 80)
    ),
    ("Hepatitis", "``?`` → 0, attributes standardised"): lambda: theta(
        *_standardised(*load_hepatitis(return_X_y=True))
    ),
    ("Hepatitis", "``?`` → 0, affine-invariant length"): lambda: theta(
        *load_hepatitis(return_X_y=True), metric="mahalanobis"
    ),
}

DISCREPANCIES = csv_table("reproduction.rst", "discrepancies")


def _computation(row, known):
    """The one entry of ``known`` whose key (data set or result, start of the
    description) matches this row."""
    first, description = list(row.values())[:2]
    found = [
        compute
        for (key, start), compute in known.items()
        if key == first and description.startswith(start)
    ]
    assert len(found) == 1, f"no single computation for the row {row}"
    return found[0]


def test_every_convention_is_on_the_page():
    assert len(DISCREPANCIES) == len(CONVENTIONS)


@pytest.mark.parametrize(
    "row", DISCREPANCIES, ids=lambda row: f"{row['Data set']}: {row['Convention']}"
)
def test_discrepancy_conventions_are_the_librarys(row):
    assert_printed(row["θ"], _computation(row, CONVENTIONS)())


def test_the_papers_preparation_row_matches_table_1():
    table_1 = {row["Data set"]: row["θ"] for row in TABLE_1}
    for row in DISCREPANCIES:
        if 'preparation="paper"' in row["Convention"]:
            assert row["θ"] == table_1[row["Data set"]]


# --- other results -------------------------------------------------------------------


def _iris(nudged=False):
    X, y = load_iris(return_X_y=True)
    X, y = X[:, :2].copy(), (y == 0).astype(int)
    if nudged:
        moved = (X[:, 0] == 4.5) & (X[:, 1] == 2.3)
        assert moved.sum() == 1
        X[moved, 1] = 2.8
    return X, y


def _margin(X, y):
    return sklearn_linsep.HardMarginSVM().fit(X, y).margin_


OTHER = {
    "Iris, setosa vs rest, sepal features: maximal margin γ": lambda: _margin(*_iris()),
    "Iris: textbook bound (R/γ)²": lambda: perceptron_mistake_bound(
        *_iris(), bound="textbook"
    ),
    "Iris: guaranteed bound (R̃/γ̃)², augmented perceptron": lambda: (
        perceptron_mistake_bound(*_iris())
    ),
    "Iris, setosa (4.5, 2.3) moved to (4.5, 2.8): maximal margin γ": lambda: _margin(
        *_iris(nudged=True)
    ),
    "Iris, nudged: textbook bound (R/γ)²": lambda: perceptron_mistake_bound(
        *_iris(nudged=True), bound="textbook"
    ),
    "Iris, nudged: guaranteed bound (R̃/γ̃)²": lambda: perceptron_mistake_bound(
        *_iris(nudged=True)
    ),
    "Cover: P(separable) at Z = 2N (6 points in the plane, affine)": lambda: (
        cover_separability_probability(6, 2)
    ),
    "Cover: P(separable), 699 points in R⁹ (affine)": lambda: (
        cover_separability_probability(699, 9)
    ),
}

OTHER_ROWS = csv_table("reproduction.rst", "other-results")


def test_every_other_result_is_on_the_page():
    assert {row["Result"] for row in OTHER_ROWS} == set(OTHER)


@pytest.mark.parametrize("row", OTHER_ROWS, ids=lambda row: row["Result"])
def test_other_results_are_the_librarys(row):
    value = OTHER[row["Result"]]()
    assert_printed(row["Ours"], value)
    if row["Published"] != "—":
        assert_printed(row["Published"], value)


# --- the other pages -----------------------------------------------------------------


@pytest.mark.parametrize(
    "page",
    [
        "quickstart.rst",
        "user_guide/probes.rst",
        "user_guide/certificates.rst",
        "user_guide/complexity.rst",
        "scaling.rst",
    ],
)
def test_pages_with_examples_run_as_printed(page):
    failed, attempted = doctest.testfile(
        str(DOCS / page),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        verbose=False,
    )
    assert attempted > 0
    assert failed == 0


def test_api_reference_lists_every_public_name():
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = set()
    for block in re.findall(r"\.\. autosummary::\n((?:   .*\n|\n)+)", text):
        listed |= {
            line.strip()
            for line in block.splitlines()
            if line.strip() and not line.strip().startswith(":")
        }
    assert listed == set(sklearn_linsep.__all__)


def test_index_lists_every_page():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    for page in [
        "install",
        "quickstart",
        "user_guide/index",
        "cli",
        "auto_examples/index",
        "reproduction",
        "scaling",
        "api",
    ]:
        assert re.search(rf"^   {re.escape(page)}$", index, re.M), page
