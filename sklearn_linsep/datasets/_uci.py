"""Loaders of the five UCI data sets behind Table 1 of Ben-Israel & Levin (2005).

The raw files ship unmodified in ``data/`` with their UCI ``.names`` descriptions; each
loader parses one, applies a named preparation and returns a scikit-learn ``Bunch``. The
preparation the paper used is ``preparation="paper"`` (the default, so that its numbers
reproduce); ``"raw"`` keeps every row with missing values as NaN.
"""

from dataclasses import dataclass
from importlib import resources

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils._param_validation import StrOptions, validate_params

_PACKAGE = "sklearn_linsep.datasets"


@dataclass(frozen=True)
class _Layout:
    """Where the target and the features sit in a raw file, and how cells parse."""

    filename: str
    descr: str
    target_column: int
    feature_columns: tuple
    feature_names: tuple
    target_values: tuple  # raw class codes, in the order of target_names
    target_names: tuple
    codes: dict | None = None  # categorical cell → number (e.g. votes y/n)


def _read_text(subdir, name):
    return resources.files(_PACKAGE).joinpath(subdir, name).read_text(encoding="utf-8")


def _parse(layout):
    """Float features (NaN for ``?``) and integer targets of a raw comma-separated
    file."""
    rows = [
        line.split(",")
        for line in _read_text("data", layout.filename).splitlines()
        if line
    ]
    codes = layout.codes or {}

    def cell(text):
        text = text.strip()
        if text == "?":
            return np.nan
        return codes[text] if text in codes else float(text)

    data = np.array([[cell(row[j]) for j in layout.feature_columns] for row in rows])
    raw_target = [row[layout.target_column].strip() for row in rows]
    lookup = {value: k for k, value in enumerate(layout.target_values)}
    target = np.array([lookup[value] for value in raw_target], dtype=np.int64)
    return data, target


def _fill_missing(data, how):
    missing = np.isnan(data)
    if how == "mean":
        column_means = np.nanmean(data, axis=0)
        return np.where(missing, column_means, data)
    return np.where(missing, how, data)


def _bunch(layout, data, target, as_frame, return_X_y):
    feature_names = list(layout.feature_names)
    frame = None
    if as_frame:
        import pandas as pd  # optional: only needed for as_frame=True

        frame = pd.DataFrame(data, columns=feature_names)
        frame["target"] = target
        data, target = frame[feature_names], frame["target"]
    if return_X_y:
        return data, target
    return Bunch(
        data=data,
        target=target,
        frame=frame,
        feature_names=feature_names,
        target_names=np.array(layout.target_names),
        DESCR=_read_text("descr", layout.descr),
        data_filename=layout.filename,
    )


_COMMON_PARAMS = {"return_X_y": ["boolean"], "as_frame": ["boolean"]}

_BREAST = _Layout(
    filename="breast-cancer-wisconsin.data",
    descr="breast_cancer_wisconsin.rst",
    target_column=10,
    feature_columns=tuple(range(1, 10)),
    feature_names=(
        "clump_thickness",
        "uniformity_of_cell_size",
        "uniformity_of_cell_shape",
        "marginal_adhesion",
        "single_epithelial_cell_size",
        "bare_nuclei",
        "bland_chromatin",
        "normal_nucleoli",
        "mitoses",
    ),
    target_values=("2", "4"),
    target_names=("benign", "malignant"),
)


@validate_params(
    {"preparation": [StrOptions({"paper", "complete", "raw"})], **_COMMON_PARAMS},
    prefer_skip_nested_validation=True,
)
def load_breast_cancer_wisconsin(
    *, preparation="paper", return_X_y=False, as_frame=False
):
    """Wisconsin Breast Cancer (original), 699 rows, 9 attributes, benign/malignant.

    Parameters
    ----------
    preparation : {"paper", "complete", "raw"}, default="paper"
        "paper": the 16 missing ``bare_nuclei`` values (``?``) replaced by the column
        mean of the observed values, as Ben-Israel & Levin did (θ = 43.01°); "complete":
        the 683 complete rows; "raw": all rows, NaN for missing.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.
    as_frame : bool, default=False
        Data as a pandas DataFrame and target as a Series (needs pandas).

    Returns
    -------
    data : Bunch
        ``data`` (699 × 9 or 683 × 9), ``target`` (0 = benign, 1 = malignant),
        ``feature_names``, ``target_names``, ``frame``, ``DESCR`` (citation and the
        quirks of the file), ``data_filename``.

    Examples
    --------
    >>> from sklearn_linsep import load_breast_cancer_wisconsin
    >>> bunch = load_breast_cancer_wisconsin()
    >>> bunch.data.shape, bunch.target.sum()
    ((699, 9), np.int64(241))
    >>> load_breast_cancer_wisconsin(preparation="complete").data.shape
    (683, 9)
    """
    data, target = _parse(_BREAST)
    if preparation == "paper":
        data = _fill_missing(data, "mean")
    elif preparation == "complete":
        keep = ~np.isnan(data).any(axis=1)
        data, target = data[keep], target[keep]
    return _bunch(_BREAST, data, target, as_frame, return_X_y)


_BUPA = _Layout(
    filename="bupa.data",
    descr="bupa_liver.rst",
    target_column=6,
    feature_columns=tuple(range(6)),
    feature_names=("mcv", "alkphos", "sgpt", "sgot", "gammagt", "drinks"),
    target_values=("1", "2"),
    target_names=("selector_1", "selector_2"),
)


@validate_params(_COMMON_PARAMS, prefer_skip_nested_validation=True)
def load_bupa_liver(*, return_X_y=False, as_frame=False):
    """BUPA Liver Disorders, 345 rows, 6 attributes, the ``selector`` field as class.

    The file has no missing values. The class is the ``selector`` field, as in the paper
    (θ = 3.85°) and many older studies; McDermott & Forsyth (2016) showed it is a
    train/test split field, not a diagnosis (see ``DESCR``).

    Parameters
    ----------
    return_X_y : bool, default=False
    as_frame : bool, default=False

    Returns
    -------
    data : Bunch
        ``target`` 0 for selector 1 (145 rows), 1 for selector 2 (200 rows).

    Examples
    --------
    >>> from sklearn_linsep import load_bupa_liver
    >>> X, y = load_bupa_liver(return_X_y=True)
    >>> X.shape, int(y.sum())
    ((345, 6), 200)
    """
    data, target = _parse(_BUPA)
    return _bunch(_BUPA, data, target, as_frame, return_X_y)


_PIMA = _Layout(
    filename="pima-indians-diabetes.data",
    descr="pima_diabetes.rst",
    target_column=8,
    feature_columns=tuple(range(8)),
    feature_names=(
        "pregnancies",
        "plasma_glucose",
        "diastolic_blood_pressure",
        "triceps_skin_fold",
        "serum_insulin",
        "bmi",
        "diabetes_pedigree",
        "age",
    ),
    target_values=("0", "1"),
    target_names=("tested_negative", "tested_positive"),
)


@validate_params(
    {"preparation": [StrOptions({"paper", "raw"})], **_COMMON_PARAMS},
    prefer_skip_nested_validation=True,
)
def load_pima_diabetes(*, preparation="paper", return_X_y=False, as_frame=False):
    """Pima Indians Diabetes, 768 rows, 8 attributes.

    Parameters
    ----------
    preparation : {"paper", "raw"}, default="paper"
        "paper": the attributes as given, zeros included (θ = 25.21°; the paper's 3°
        is not reproducible under any natural convention). "raw": the zeros that stand
        for missing values (glucose, blood pressure, skin fold, insulin, BMI) as NaN.
    return_X_y : bool, default=False
    as_frame : bool, default=False

    Returns
    -------
    data : Bunch
        ``target`` 1 for tested positive (268 rows).

    Examples
    --------
    >>> from sklearn_linsep import load_pima_diabetes
    >>> X, y = load_pima_diabetes(return_X_y=True)
    >>> X.shape, int(y.sum())
    ((768, 8), 268)
    """
    data, target = _parse(_PIMA)
    if preparation == "raw":
        impossible_zero = [1, 2, 3, 4, 5]
        block = data[:, impossible_zero]
        data[:, impossible_zero] = np.where(block == 0, np.nan, block)
    return _bunch(_PIMA, data, target, as_frame, return_X_y)


_VOTE_ISSUES = (
    "handicapped_infants",
    "water_project_cost_sharing",
    "adoption_of_the_budget_resolution",
    "physician_fee_freeze",
    "el_salvador_aid",
    "religious_groups_in_schools",
    "anti_satellite_test_ban",
    "aid_to_nicaraguan_contras",
    "mx_missile",
    "immigration",
    "synfuels_corporation_cutback",
    "education_spending",
    "superfund_right_to_sue",
    "crime",
    "duty_free_exports",
    "export_administration_act_south_africa",
)

_VOTES = _Layout(
    filename="house-votes-84.data",
    descr="house_votes_84.rst",
    target_column=0,
    feature_columns=tuple(range(1, 17)),
    feature_names=_VOTE_ISSUES,
    target_values=("democrat", "republican"),
    target_names=("democrat", "republican"),
    codes={"y": 1.0, "n": -1.0},
)


@validate_params(
    {"preparation": [StrOptions({"paper", "abstain_zero", "raw"})], **_COMMON_PARAMS},
    prefer_skip_nested_validation=True,
)
def load_house_votes_84(*, preparation="paper", return_X_y=False, as_frame=False):
    """1984 US Congressional Voting Records, 435 rows, 16 votes, democrat/republican.

    Parameters
    ----------
    preparation : {"paper", "abstain_zero", "raw"}, default="paper"
        Votes are coded y = +1 and n = -1. "paper": ``?`` (neither yea nor nay) as -1,
        as in the paper (θ = 80.31°); "abstain_zero": ``?`` as 0; "raw": NaN.
    return_X_y : bool, default=False
    as_frame : bool, default=False

    Returns
    -------
    data : Bunch
        ``target`` 0 = democrat (267 rows), 1 = republican (168 rows).

    Examples
    --------
    >>> from sklearn_linsep import load_house_votes_84
    >>> X, y = load_house_votes_84(return_X_y=True)
    >>> X.shape, int(y.sum())
    ((435, 16), 168)
    """
    data, target = _parse(_VOTES)
    if preparation != "raw":
        data = _fill_missing(data, -1.0 if preparation == "paper" else 0.0)
    return _bunch(_VOTES, data, target, as_frame, return_X_y)


_HEPATITIS = _Layout(
    filename="hepatitis.data",
    descr="hepatitis.rst",
    target_column=0,
    feature_columns=tuple(range(1, 20)),
    feature_names=(
        "age",
        "sex",
        "steroid",
        "antivirals",
        "fatigue",
        "malaise",
        "anorexia",
        "liver_big",
        "liver_firm",
        "spleen_palpable",
        "spiders",
        "ascites",
        "varices",
        "bilirubin",
        "alk_phosphate",
        "sgot",
        "albumin",
        "protime",
        "histology",
    ),
    target_values=("1", "2"),
    target_names=("die", "live"),
)


@validate_params(
    {"preparation": [StrOptions({"paper", "mean", "raw"})], **_COMMON_PARAMS},
    prefer_skip_nested_validation=True,
)
def load_hepatitis(*, preparation="paper", return_X_y=False, as_frame=False):
    """Hepatitis, 155 rows, 19 attributes, die/live.

    Parameters
    ----------
    preparation : {"paper", "mean", "raw"}, default="paper"
        "paper": ``?`` as 0 (θ = 66.00°; the paper's 65° is not reproducible exactly);
        "mean": ``?`` as the column mean of the observed values; "raw": NaN (only 80
        rows are complete; ``protime`` alone misses 67 values).
    return_X_y : bool, default=False
    as_frame : bool, default=False

    Returns
    -------
    data : Bunch
        ``target`` 0 = die (32 rows), 1 = live (123 rows).

    Examples
    --------
    >>> from sklearn_linsep import load_hepatitis
    >>> X, y = load_hepatitis(return_X_y=True)
    >>> X.shape, int(y.sum())
    ((155, 19), 123)
    """
    data, target = _parse(_HEPATITIS)
    if preparation != "raw":
        data = _fill_missing(data, 0.0 if preparation == "paper" else "mean")
    return _bunch(_HEPATITIS, data, target, as_frame, return_X_y)
