"""Each section of the report on its own (``_report.sections``), the figure's
coordinates (``_report._plot``), and the registry."""

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.datasets import load_iris, load_wine
from sklearn.preprocessing import StandardScaler

from sklearn_linsep import (
    HardMarginSVM,
    JointSeparabilityResult,
    linear_separability,
    load_breast_cancer_wisconsin,
    separability_statistics,
)
from sklearn_linsep._report import format_report, separability_report
from sklearn_linsep._report._compute import compute_report
from sklearn_linsep._report._context import ReportData, ReportSettings
from sklearn_linsep._report._plot import plot_coordinates, plot_report
from sklearn_linsep._report._section import Section
from sklearn_linsep._report.sections import SECTIONS
from sklearn_linsep._report.sections._angle import Angle
from sklearn_linsep._report.sections._cover import Cover
from sklearn_linsep._report.sections._complexity import Complexity
from sklearn_linsep._report.sections._distance import Distance
from sklearn_linsep._report.sections._joint import JointVerdict
from sklearn_linsep._report.sections._validation import CrossValidation
from sklearn_linsep._report.sections._verdict import Verdict
from sklearn_linsep._stats import ClassStatistics


def report_data(X, y, **settings):
    labels, y = np.unique(y, return_inverse=True)
    classes = np.arange(len(labels))
    stats = ClassStatistics.from_data(X, y, classes, per_class=len(labels) > 2)
    return ReportData(
        X=np.asarray(X, float),
        y=y,
        class_names=[str(label) for label in labels],
        statistics=stats,
        feature_names=[f"x{j}" for j in range(X.shape[1])],
        row_ids=np.arange(len(y)),
        settings=ReportSettings(**settings),
    )


def wisconsin():
    return load_breast_cancer_wisconsin(return_X_y=True)


def test_every_section_is_registered_once_with_its_help():
    keys = [section.key for section in SECTIONS]
    assert len(set(keys)) == len(keys)
    assert {type(s) for s in SECTIONS} == {JointVerdict, Verdict, Distance, Angle,
                                           Cover, Complexity, CrossValidation}  # fmt: skip
    for section in SECTIONS:
        assert isinstance(section, Section) and section.help
        for word, text in section.help:
            assert len(word) <= 9 and text.endswith((".", ")"))


def test_a_new_section_needs_no_change_to_the_headline(monkeypatch):
    """The headline is put together from the registered sections' parts alone:
    a section added to the registry says its clause, its estimate (which the
    measured accuracy follows) and its step, and ``_headline`` imports no
    section's module."""
    import ast
    import inspect

    from sklearn_linsep._report import _headline
    from sklearn_linsep._report._section import HeadlineParts

    imported = [node.module for node in ast.walk(ast.parse(inspect.getsource(
        _headline))) if isinstance(node, ast.ImportFrom)]  # fmt: skip
    assert "sections" in imported
    assert not [name for name in imported if name.startswith("sections.")]

    class Extra(Section):
        key = "extra"

        def headline(self, report):
            return HeadlineParts(verdict="an extra clause", how_well="an estimate",
                                 precedence=9, estimate=True,
                                 next_steps=("look at the extra",))  # fmt: skip

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(1, 1, (30, 2))]
    report = separability_report(X, np.repeat([0, 1], 30), cv=2, effort=0)
    monkeypatch.setattr(_headline, "SECTIONS", (*SECTIONS, Extra()))
    _, verdict, how_well, steps = _headline.headline_lines(report, "data")
    assert verdict.startswith("Verdict: not linearly separable")
    assert verdict.endswith("; an extra clause.")
    assert how_well.startswith(
        "How well: an estimate; measured: the best cross-validated accuracy is "
    )
    assert steps.endswith("on new rows; look at the extra.")


def test_settings_are_made_once_and_said_in_order():
    """The settings are frozen; the JSON says them, then what the run found."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(1, 1, (30, 2))]
    data = report_data(X, np.repeat([0, 1], 30), cv=2, effort=0, kappa=2)
    with pytest.raises(AttributeError):
        data.settings.cv = 3
    report = compute_report(data)
    assert list(report["settings"]) == [
        "kappa", "cv", "standardize", "cv_raw", "seed", "fit_rows", "effort",
        "time_limit", "cv_possible", "cv_rows",
    ]  # fmt: skip
    assert report["settings"]["kappa"] == 2.0 and report["settings"]["cv_rows"] == 60


def test_verdict_is_the_standardized_hard_margin():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (40, 3)), rng.normal(6, 1, (40, 3))]
    X[:, 1] *= 1e4  # units far apart: the verdict's figures must not care
    y = np.repeat([0, 1], 40)
    data = report_data(X, y)
    (verdict,) = Verdict().compute(data, {})
    Z = StandardScaler().fit_transform(X)
    svm = HardMarginSVM().fit(Z, y)
    assert verdict["separable"] and verdict["conclusive"]
    assert verdict["margin"] == pytest.approx(svm.margin_, rel=1e-6)
    raw = verdict["hyperplane_in_data_units"]
    w = np.array(list(raw["coef"].values()))
    c = np.where(y == 1, 1, -1)
    assert np.all(c * (X @ w + raw["intercept"]) >= 1 - 1e-6)


def test_the_joint_verdict_comes_first_for_more_than_two_classes():
    """K > 2: one linear machine or not, from the rows alone, before the pairs;
    neither a unit of a feature nor its offset moves it."""
    X, y = load_iris(return_X_y=True)
    X = X * np.array([1e4, 1.0, 1e-3, 1.0]) + 5e3
    data = report_data(X, y)
    errors = {}
    joint = JointVerdict().compute(data, errors)
    assert not errors and joint["separable"] is False and joint["conclusive"]
    rows = [entry["row"] for entry in joint["certificate"]]
    result = JointSeparabilityResult(
        separable=False,
        classes=np.arange(3),
        certificate_indices=np.array(rows),
        certificate_classes=np.array(
            [int(e["other_class"]) for e in joint["certificate"]]
        ),
        certificate_weights=np.array([e["weight"] for e in joint["certificate"]]),
    )
    assert result.verify(X, y)
    assert [e["class"] for e in joint["certificate"]] == [str(y[i]) for i in rows]
    removal = joint["removal"]  # one row of iris stands between it and a machine
    assert removal["optimal"] and removal["upper_bound"] == 1
    keep = np.setdiff1d(np.arange(len(y)), removal["removed"])
    assert linear_separability(X[keep], y[keep], multiclass="joint").separable
    report = compute_report(data)
    text = format_report(report)
    assert text.index("joint linear separability") < text.index("Exact linear sep")
    assert "no linear machine separates all classes" in text.splitlines()[1]
    assert "for one to, exactly 1 of 150 rows must be removed (proven)" in text
    assert not JointVerdict().applies(report_data(X[y < 2], y[y < 2]))


def test_the_joint_verdict_of_separable_classes_gives_the_machines_margin():
    X, y = load_wine(return_X_y=True)
    data = report_data(X, y)
    joint = JointVerdict().compute(data, {})
    machine = linear_separability(
        StandardScaler().fit_transform(X), y, multiclass="joint"
    )
    assert joint["separable"] and joint["margin"] == pytest.approx(machine.margin)
    assert "one linear machine separates all classes" in format_report(
        compute_report(data)
    )


def test_verdict_certificate_rows_and_standardized_hinge():
    X, y = wisconsin()
    data = report_data(X, y, fit_rows=10_000)
    errors = {}
    (verdict,) = Verdict().compute(data, errors)
    assert not errors and verdict["separable"] is False
    rows = np.array([entry["row"] for entry in verdict["certificate"]])
    weights = np.array([entry["weight"] for entry in verdict["certificate"]])
    labels = np.array([entry["class"] for entry in verdict["certificate"]])
    means = [weights[labels == k] @ X[rows[labels == k]] for k in ("0", "1")]
    np.testing.assert_allclose(means[0], means[1], atol=1e-9)
    svm = HardMarginSVM().fit(StandardScaler().fit_transform(X), y)
    assert verdict["hinge_violation"] == pytest.approx(svm.hinge_violation_, rel=1e-6)
    assert verdict["hinge_rows"] == verdict["rows"] == 699


def test_the_fewest_rows_to_remove_are_bounded_and_named():
    X, y = wisconsin()
    data = report_data(X, y, fit_rows=10_000, effort=60)
    (verdict,) = Verdict().compute(data, {})
    removal = verdict["removal"]
    assert removal["rows"] == 699 and removal["stopped_by"] == "effort"
    assert 1 <= removal["lower_bound"] <= removal["upper_bound"] <= 13
    assert len(removal["removed"]) == removal["upper_bound"]
    keep = np.setdiff1d(np.arange(699), removal["removed"])
    assert linear_separability(X[keep], y[keep]).separable
    text = Verdict.text(verdict, {"errors": {}})
    assert (
        f"at least {removal['lower_bound']} and at most {removal['upper_bound']} "
        "of 699 rows must be removed (the search's --effort ran out)"
    ) in text
    # The same effort gives the same bounds (the report's lines do not depend on
    # the machine's speed).
    (again,) = Verdict().compute(report_data(X, y, fit_rows=10_000, effort=60), {})
    assert again["removal"] == removal


def test_a_proven_count_and_a_sampled_one_say_what_they_are():
    X, y = load_iris(return_X_y=True)
    pair = y > 0
    data = report_data(X[pair], y[pair])
    (verdict,) = Verdict().compute(data, {})
    assert verdict["removal"]["optimal"] and verdict["removal"]["upper_bound"] == 1
    assert "exactly 1 of 100 rows must be removed (proven)" in Verdict.text(
        verdict, {"errors": {}}
    )
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] + rng.normal(size=600) > 0).astype(int)
    sample = report_data(X[:300], y[:300], effort=30)
    sample.statistics = ClassStatistics.from_data(X, y, [0, 1])  # of all 600 rows
    (verdict,) = Verdict().compute(sample, {})
    text = Verdict.text(verdict, {"errors": {}})
    lower = verdict["removal"]["lower_bound"]
    assert lower >= 1 and f"at least {lower} rows must be removed (proved on " in text
    # The upper bound and its rows speak of the sample only: not in the JSON.
    assert not {"upper_bound", "optimal", "removed"} & set(verdict["removal"])


def test_a_failing_pair_is_keyed_by_section_and_pair(monkeypatch):
    from sklearn_linsep._report.sections import _verdict

    def broken(X, y, tol):
        if set(np.unique(y)) == {0, 2}:
            raise ValueError("only this pair")
        return linear_separability(X, y, tol=tol)

    monkeypatch.setattr(_verdict, "linear_separability", broken)
    iris = load_iris()
    data = report_data(iris.data, iris.target, cv=0)
    errors = {}
    verdicts = Verdict().compute(data, errors)
    assert errors == {"separability": {"0 vs 2": "ValueError: only this pair"}}
    assert [v["separable"] for v in verdicts] == [True, None, False]
    report = compute_report(data)
    report["errors"] = errors
    report["separability"] = verdicts
    assert "n/a" in "\n".join(Verdict().lines(report))
    text = format_report(report, "iris")
    assert "  separability 0 vs 2: ValueError: only this pair" in text


def test_distance_is_mahalanobis_and_its_gaussian_error():
    X, y = wisconsin()
    section = Distance().compute(report_data(X, y), {})
    (pair,) = section["pairs"]
    expected = separability_statistics(X, y, metric="mahalanobis").mahalanobis_distance
    assert pair["mahalanobis"] == pytest.approx(expected, rel=1e-12)
    n1, n2 = np.bincount(y)
    unbiased = np.sqrt((699 - 9 - 3) / 697 * expected**2 - 9 * (1 / n1 + 1 / n2))
    assert pair["corrected"] == pytest.approx(unbiased, rel=1e-12)
    assert pair["gaussian_error"] == pytest.approx(norm.cdf(-unbiased / 2))
    # Unit-free: any invertible affine map of the features.
    A = np.random.default_rng(0).normal(size=(9, 9))
    mapped = Distance().compute(report_data(X @ A + 5.0, y), {})["pairs"][0]
    assert mapped["mahalanobis"] == pytest.approx(pair["mahalanobis"], rel=1e-8)


def test_distance_is_not_given_where_the_covariance_is_singular():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(20, 40)), np.arange(20) % 2
    (pair,) = Distance().compute(report_data(X, y), {})["pairs"]
    assert pair["mahalanobis"] is None and pair["rank"] < 40 and pair["infinite"]


def test_the_angle_help_states_the_numbers_it_quotes():
    X, y = wisconsin()
    quoted = {0.1: 5.3, 1.0: 43.0, 10.0: 83.9, 100.0: 89.4}
    for kappa, degrees in quoted.items():
        assert separability_statistics(X, y, kappa=kappa).degrees == pytest.approx(
            degrees, abs=0.05
        )
    (text,) = [text for word, text in Angle.help if word == "theta"]
    assert "5.3, 43.0, 83.9 deg at kappa 0.1, 1, 10" in text


def test_angle_follows_kappa_and_the_standardize_setting():
    X, y = wisconsin()
    for kappa in (0.5, 3.0):
        section = Angle().compute(report_data(X, y, kappa=kappa), {})
        assert section["euclidean"]["angle_degrees"] == pytest.approx(
            separability_statistics(X, y, kappa=kappa).degrees, rel=1e-9
        )
    standardized = Angle().compute(report_data(X, y, standardize=True), {})
    expected = separability_statistics(StandardScaler().fit_transform(X), y)
    assert standardized["euclidean"]["angle_degrees"] == pytest.approx(
        expected.degrees, rel=1e-9
    )


def test_cover_and_cross_validation_sections():
    from sklearn_linsep import cover_separability_probability

    X, y = wisconsin()
    data = report_data(X, y, cv=2, fit_rows=200)
    cover = Cover().compute(data, {})
    assert cover["probability_random_labelling_separable"] == pytest.approx(
        cover_separability_probability(699, 9)
    )
    assert not CrossValidation().applies(report_data(X, y, cv=0))
    scores = CrossValidation().compute(data, {})
    assert len(scores) == 8 and 200 <= data.run_settings["cv_rows"] < 260
    assert all(0.85 < s["mean"] <= 1 for s in scores.values())


def test_text_is_made_from_the_dict_alone():
    """``format_report`` of the JSON-able dict gives the same text twice: no
    section reads anything but the dict."""
    import json

    X, y = wisconsin()
    report = separability_report(X, y, cv=0)
    again = json.loads(json.dumps(report))
    assert format_report(again, "w") == format_report(report, "w")


@pytest.mark.parametrize("shift", [8.0, 0.5])
def test_the_plot_shows_what_the_verdict_says(tmp_path, shift):
    rng = np.random.default_rng(3)
    X = np.r_[rng.normal(0, 1, (60, 5)), rng.normal(shift, 1, (60, 5))]
    X[:, 0] *= 1e3
    y = np.repeat([0, 1], 60)
    data = report_data(X, y)
    (verdict,) = Verdict().compute(data, {})
    points = plot_coordinates(data, verdict)
    c = np.where(points.y == 1, 1, -1)
    if points.separable:
        # No row inside the band: the 30-D hyperplane's trace cannot cut a class.
        assert np.all(c * points.along >= points.margin * (1 - 1e-6))
    else:
        assert points.certificate.size == verdict["certificate_size"]
        assert set(points.y[points.certificate]) == {0, 1}
    plot_report(data, verdict, tmp_path / "f.png", title="t")
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"


def test_the_plot_of_a_sample_keeps_the_verdict_of_all_rows():
    """One mislabelled row in 2 000: the 100 rows the figure shows may well be
    separable, but the figure draws the verdict of all rows, its certificate
    included."""
    rng = np.random.default_rng(4)
    X = np.r_[rng.normal(0, 1, (1000, 3)), rng.normal(6, 1, (1000, 3))]
    y = np.repeat([0, 1], 1000)
    y[0] = 1
    data = report_data(X, y, fit_rows=100)
    (verdict,) = Verdict().compute(data, {})
    assert verdict["separable"] is False
    points = plot_coordinates(data, verdict)
    assert not points.separable and points.certificate.size >= 2
    assert len(points.y) < 200


def test_distance_with_a_constant_feature_is_that_of_the_others():
    """Digits has pixels that never vary: S is singular, but the means differ
    only where rows vary, so the distance is defined, and is the one without."""
    X, y = wisconsin()
    padded = np.c_[X, np.full(len(y), 3.0), 2 * X[:, 0] - X[:, 1]]
    (pair,) = Distance().compute(report_data(padded, y), {})["pairs"]
    (plain,) = Distance().compute(report_data(X, y), {})["pairs"]
    assert pair["rank"] == 9
    assert pair["mahalanobis"] == pytest.approx(plain["mahalanobis"], rel=1e-8)


@pytest.mark.parametrize("unit", [1.0, 1e-5, 1e5])
def test_distance_does_not_depend_on_a_class_constant_feature_s_units(unit):
    """A feature constant within each class separates them exactly: no finite
    distance, whatever its units (the check of d against S's range once took a
    tolerance in the file's units)."""
    X, y = wisconsin()
    X = np.c_[X, unit * y]
    (pair,) = Distance().compute(report_data(X, y), {})["pairs"]
    assert pair["mahalanobis"] is None and pair["infinite"]


def test_standardizing_a_feature_near_float64_s_range():
    from sklearn_linsep._report._context import standardizing_map

    X, y = wisconsin()
    X = np.c_[X, 1e160 * y]
    mean, scale = standardizing_map(report_data(X, y).statistics)
    assert np.all(np.isfinite(scale))
    assert scale[-1] == pytest.approx(1e160 * np.std(y), rel=1e-12)


def test_a_feature_of_1e308_in_every_row_changes_no_section():
    """Found by review: c = 1.7e308 in every row made the distance nan (--json
    printed null, and the text report failed on formatting it), the verdict said
    "Input X contains infinity", and the angle was 0. Every section now answers
    as on the rows without that column, and nothing warns."""
    import warnings

    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=(100, 2)), np.full(100, 1.7e308)]
    y = rng.integers(0, 2, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        report = separability_report(X, y, cv=0)
    without = separability_report(X[:, :2], y, cv=0)
    assert report["errors"] == {}
    assert report["complexity"]["measures"] == without["complexity"]["measures"]
    fields = ("mahalanobis", "corrected", "gaussian_error", "infinite", "rank")
    assert [[pair[f] for f in fields] for pair in report["distance"]["pairs"]] == [
        [pair[f] for f in fields] for pair in without["distance"]["pairs"]]  # fmt: skip
    for metric in ("euclidean", "mahalanobis"):
        assert report["angle"][metric]["angle_degrees"] == pytest.approx(
            without["angle"][metric]["angle_degrees"], rel=1e-12
        )
    verdict, expected = report["separability"][0], without["separability"][0]
    assert (verdict["separable"], verdict["hinge_violation"]) == (
        expected["separable"], expected["hinge_violation"])  # fmt: skip
    assert "Distance between the class means" in format_report(report, "huge")


def test_a_finite_distance_float64_cannot_evaluate_fails_its_section(monkeypatch):
    """A distance proved finite that comes out nan is the section's error, with
    its reason; the text report prints (it failed on formatting None)."""
    from sklearn_linsep._fredholm import MeanRange
    from sklearn_linsep._report.sections import _distance

    def overflowed(stats, range_of):
        return float("nan"), 2, MeanRange(True, "full rank")

    monkeypatch.setattr(_distance, "class_mean_distance", overflowed)
    X, y = wisconsin()
    report = separability_report(X, y, cv=0)
    assert report.get("distance") is None
    assert "float64 overflowed" in report["errors"]["distance"]
    assert "could not be computed" in format_report(report, "overflowed")
