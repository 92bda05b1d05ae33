"""Whether the class means' difference lies in the range of S, proved either way
(``_fredholm``), against an exact referee that shares nothing with it: FLINT's
ranks of the exactly centred rows C and of ``[C; d]``
(:func:`~sklearn_linsep._testing.exact_mean_in_range`)."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_linsep import (
    load_breast_cancer_wisconsin,
    load_bupa_liver,
    load_hepatitis,
    load_house_votes_84,
    load_pima_diabetes,
    separability_statistics,
)
from sklearn_linsep import _fredholm
from sklearn_linsep._exact._dyadic import (
    MODULUS,
    integer_rows,
    integer_shifts,
    residue_matrix,
)
from sklearn_linsep._exact._enclosure import proven_positive_definite
from sklearn_linsep._fredholm import decide_mean_range
from sklearn_linsep._report._command import _json_ready
from sklearn_linsep._report._context import ReportData
from sklearn_linsep._report.sections._distance import Distance
from sklearn_linsep._stats import ClassStatistics
from sklearn_linsep._testing import exact_mean_in_range


def assert_proved(X, y, decision, a=0, b=1):
    """The decision agrees with the referee, and an infinite one's direction
    holds in rationals: ``v·x`` one value per class, two values in all."""
    assert decision.finite is not None, decision.proof
    assert decision.finite == exact_mean_in_range(X, y, a, b), decision
    if decision.finite or decision.proof == "independent rows":
        return
    v = decision.exact_direction
    values = {}
    for x, label in zip(np.asarray(X, float), y, strict=True):
        if label in (a, b):
            value = sum(Fraction(float(x[j])) * w for j, w in v.items())
            values.setdefault(label, set()).add(value)
    assert [len(seen) for seen in values.values()] == [1, 1]
    (low,), (high,) = values[a], values[b]
    assert low < high  # v·d > 0
    assert max(abs(w) for w in v.values()) == 1
    np.testing.assert_array_equal(
        decision.direction[list(v)], [float(w) for w in v.values()]
    )


def digits_subsample(seed):
    X, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(seed)
    size = rng.integers(30, 66)
    keep = np.concatenate(
        [rng.choice(np.flatnonzero(y == k), size, replace=False) for k in range(10)]
    )
    return X[keep], y[keep]


def report_data(X, y):
    labels, y = np.unique(y, return_inverse=True)
    stats = ClassStatistics.from_data(X, y, np.arange(len(labels)), per_class=True)
    return ReportData(
        X=np.asarray(X, float), y=y, class_names=[str(k) for k in labels],
        statistics=stats, feature_names=[f"p{j}" for j in range(X.shape[1])],
        row_ids=np.arange(len(y)),
    )  # fmt: skip


@pytest.mark.parametrize("seed", [None, 0, 1, 2])
def test_digits_distances_are_what_exact_arithmetic_says_at_any_thread_count(seed):
    """The report's claim on every pair of digits (whole, and class-balanced
    subsamples, where a tolerance on d's null part said "infinite" 94 times
    where exact arithmetic says finite), at 1 and 2 BLAS threads."""
    X, y = load_digits(return_X_y=True) if seed is None else digits_subsample(seed)
    truth = {(str(a), str(b)): not exact_mean_in_range(X, y, a, b)
             for a in range(10) for b in range(a + 1, 10)}  # fmt: skip
    data = report_data(X, y)
    seen = []
    for threads in (1, 2):
        with threadpool_limits(threads):
            section = Distance().compute(data, {})
        claims = {tuple(p["classes"]): p["infinite"] for p in section["pairs"]}
        assert claims == truth
        seen.append(_json_ready(section))  # what --json prints
    assert seen[0] == seen[1]


def exact_dependency_case(rng, kind):
    """Integer rows with exact linear dependencies (so float64 holds them):
    finite or infinite by construction, at power-of-two scales and offsets."""
    n, p = int(rng.integers(6, 40)), int(rng.integers(3, 9))
    y = np.arange(n) % 2
    X = rng.integers(-9, 10, size=(n, p)).astype(float)
    X[:, -1] = X[:, 0] + 2 * X[:, 1]  # a dependency within both classes
    if kind == "infinite":  # ... and the classes apart along it
        X[y == 1, -1] += 3.0
    elif kind == "low rank":  # rows of rank 2 in each class, the classes
        B = rng.integers(-3, 4, size=(2, p))  # apart within their span or not
        shift = rng.integers(-3, 4, size=2) @ B if rng.random() < 0.5 else B[0] + 1
        X = (rng.integers(-3, 4, size=(n, 2)) @ B + np.outer(y, shift)).astype(float)
    elif kind == "wide":  # more features than rows: almost always infinite
        X = rng.integers(-9, 10, size=(n, n + p)).astype(float)
    scales = 2.0 ** rng.integers(-30, 31, size=X.shape[1])
    offsets = 2.0**20 * rng.integers(0, 2, size=X.shape[1])
    return X * scales + offsets * scales, y


@pytest.mark.parametrize("kind", ["finite", "infinite", "low rank", "wide"])
def test_exact_dependencies_are_decided_as_exact_arithmetic_says(kind):
    rng = np.random.default_rng(["finite", "infinite", "low rank", "wide"].index(kind))
    answers = set()
    for _ in range(15):
        X, y = exact_dependency_case(rng, kind)
        decision = decide_mean_range(X, y)
        assert_proved(X, y, decision)
        answers.add(decision.finite)
    assert answers == {"finite": {True}, "infinite": {False}, "low rank": {True, False},
                       "wide": {False}}[kind]  # fmt: skip


BUNDLED = [load_iris, load_wine, load_breast_cancer, load_breast_cancer_wisconsin,
           load_bupa_liver, load_pima_diabetes, load_house_votes_84, load_hepatitis]  # fmt: skip


@pytest.mark.parametrize("loader", BUNDLED, ids=lambda f: f.__name__)
def test_the_bundled_sets_every_pair_raw_and_standardized(loader):
    X, y = loader(return_X_y=True)
    classes = np.unique(y)
    for Z in (X, StandardScaler().fit_transform(X)):
        for i, a in enumerate(classes):
            for b in classes[i + 1 :]:
                keep = np.isin(y, [a, b])
                decision = decide_mean_range(Z[keep], y[keep])
                assert_proved(Z, y, decision, a, b)


def test_each_proof_route_is_taken_and_named():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 4))
    y = np.arange(40) % 2
    assert decide_mean_range(X, y).proof == "full rank"
    leak = np.c_[X, y * 1e-5]  # constant within each class, two values
    decision = decide_mean_range(leak, y)
    assert (decision.finite, decision.proof) == (False, "constant feature")
    assert decision.direction_features == [4]
    assert decide_mean_range(np.ones((6, 2)), np.arange(6) % 2).proof == "no spread"
    dependent = np.round(np.c_[X, X[:, 0] + X[:, 1]], 2)  # rounded: not exact
    assert decide_mean_range(dependent, y, numerical_rank=4).proof == "span"
    integers = np.c_[X.round(), X[:, :2].round().sum(axis=1) + 7.0 * y]
    decision = decide_mean_range(integers, y, numerical_rank=4)
    assert (decision.finite, decision.proof) == (False, "direction")
    assert decision.direction_features == [0, 1, 4]
    assert_proved(integers, y, decision)


def test_weights_rows_of_weight_zero_and_sparse_rows():
    rng = np.random.default_rng(4)
    X = rng.integers(-5, 6, size=(30, 4)).astype(float)
    y = np.arange(30) % 2
    X[:, 3] = X[:, 0] - X[:, 1] + 2.0 * y
    weights = rng.integers(1, 4, size=30).astype(float)
    decision = decide_mean_range(X, y, weights)
    assert decision.finite is False
    # A row of weight zero is no row: it may break the dependency.
    broken = np.r_[X, [[1.0, 2.0, 3.0, 4.0]]]
    assert decide_mean_range(broken, np.r_[y, 1], np.r_[weights, 0.0]).finite is False
    assert decide_mean_range(broken, np.r_[y, 1]).finite is True
    assert decide_mean_range(sp.csr_matrix(X), y).finite is False
    with pytest.raises(ValueError, match="Two classes"):
        decide_mean_range(X, np.zeros(30))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["finite", "infinite",
                                                             "low rank", "wide"]))
def test_the_decision_ignores_row_order_labels_and_exact_affine_maps(seed, kind):
    """Permuted rows, renamed labels and ``x ↦ 2^k x + t`` (exact) change
    neither the answer nor, up to the map, the direction."""
    rng = np.random.default_rng(seed)
    X, y = exact_dependency_case(rng, kind)
    decision = decide_mean_range(X, y)
    order = rng.permutation(len(y))
    scales = 2.0 ** rng.integers(-5, 6, size=X.shape[1])
    shift = rng.integers(-4, 5, size=X.shape[1]) * scales
    moved = decide_mean_range(X[order] * scales + shift, np.where(y[order], "a", "b"))
    assert moved.finite == decision.finite
    if decision.finite is False:
        assert_proved(X[order] * scales + shift, np.where(y[order], "a", "b"),
                      moved, "a", "b")  # fmt: skip


def test_beyond_the_limit_the_answer_is_undecided_and_says_why(monkeypatch):
    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, [2, 6])
    monkeypatch.setattr(_fredholm, "EXACT_SPAN_ENTRIES", 1000)
    decision = decide_mean_range(X[keep], y[keep], numerical_rank=54)
    assert decision.finite is None and "at most 1,000 entries" in decision.proof
    data = report_data(X[keep], y[keep])
    (pair,) = Distance().compute(data, {})["pairs"]
    assert pair["infinite"] is None and pair["mahalanobis"] is None
    assert "1,000 entries" in pair["undecided"]
    report = {"distance": Distance().compute(data, {}),
              "data": {"classes": ["2", "6"]}}  # fmt: skip
    text = "\n".join(Distance().section_lines(report))
    assert "undecided" in text and max(map(len, text.splitlines()[1:])) <= 80
    assert "undecided: " in Distance().headline(report).how_well


def test_a_sample_proves_a_finite_distance_never_an_infinite_one():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    y = np.arange(200) % 2
    leak = np.c_[X, 1.0 * y]
    for Z, expected in ((X, False), (leak, None)):
        full = ClassStatistics.from_data(Z, y, np.arange(2))
        data = report_data(Z[:100], y[:100])
        data.statistics = full  # the rows in memory are a sample of these
        (pair,) = Distance().compute(data, {})["pairs"]
        assert pair["infinite"] is expected
    assert "sample" in pair["undecided"]


def test_a_distance_that_the_rank_cut_shortens_says_so():
    """x3 = x1 + x2 + 1e-9 noise: the numerical rank drops that direction,
    exact arithmetic keeps it; the distance is finite, marked, and explained."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(100, 3))
    X[:, 2] = X[:, 0] + X[:, 1] + 1e-9 * rng.normal(size=100)
    y = np.arange(100) % 2
    X[y == 1] += 1.0
    data = report_data(X, y)
    section = Distance().compute(data, {})
    (pair,) = section["pairs"]
    assert pair["infinite"] is False and pair["rank"] == 2
    assert pair["exact_rank_at_least"] == 3
    text = " ".join(Distance().section_lines({"distance": section})).split()
    assert "1.0*" in " ".join(text[:20]) or any(w.endswith("*") for w in text)
    assert "vary by less than the tolerance, not zero" in " ".join(text)
    assert "no row" not in " ".join(text)


def test_the_report_names_the_direction_of_an_infinite_distance():
    rng = np.random.default_rng(7)
    X = rng.integers(-5, 6, size=(60, 3)).astype(float)
    y = np.arange(60) % 2
    X[:, 2] = X[:, 0] - 2 * X[:, 1] + 4.0 * y
    section = Distance().compute(report_data(X, y), {})
    (pair,) = section["pairs"]
    assert pair["infinite"] is True and pair["proof"] == "direction"
    assert pair["direction"] == {"p0": -0.5, "p1": 1.0, "p2": 0.5}  # v·d > 0
    text = " ".join(" ".join(Distance().section_lines({"distance": section})).split())
    assert "0 vs 1: infinite, proved: the means differ along -0.5 p0 + p1 + 0.5 p2" in text


def test_the_angle_reads_d_s_null_part_by_the_proof():
    """Standardized digits 0 vs 4 of a subsample: S singular, d in its range
    exactly, and the numerical split leaves d a null-space part of 9e-14, its
    rounding, which a small kappa magnified (to 9 at kappa = 1e-14)."""
    X, y = digits_subsample(1)
    keep = np.isin(y, [0, 4])
    Z = StandardScaler().fit_transform(X)[keep]
    tiny = separability_statistics(Z, y[keep], kappa=1e-14)
    plain = separability_statistics(Z, y[keep], kappa=1e9)
    assert tiny.mean_in_range is True and tiny.rank == plain.rank < Z.shape[1]
    assert tiny.scaled_distance == pytest.approx(plain.scaled_distance, rel=1e-12)
    # A leaked label: the null part is d's own, and the proof says so.
    leak = np.c_[Z, y[keep]]
    result = separability_statistics(leak, y[keep], kappa=1.0)
    assert result.mean_in_range is False and result.rank == tiny.rank


def test_the_residues_and_integers_are_the_rationals():
    rng = np.random.default_rng(8)
    values = np.r_[rng.normal(size=50) * 10.0 ** rng.integers(-300, 300, 50),
                   0.0, -0.0, 5e-324, -1.0, 3.0, 2.0**60]  # fmt: skip
    for value, residue in zip(values, residue_matrix(values).tolist(), strict=True):
        exact = Fraction(float(value))
        assert residue == exact.numerator * pow(exact.denominator, -1, MODULUS) % MODULUS
    X = values.reshape(-1, 8)
    shifts = integer_shifts(X)
    ints = integer_rows(X, shifts)
    for i, row in enumerate(ints):
        for j, value in enumerate(row):
            assert Fraction(value) == Fraction(float(X[i, j])) * Fraction(2) ** int(shifts[j])
    # The least shifts: an odd integer somewhere in each column that is not zero.
    assert all(any(row[j] % 2 for row in ints) for j in range(8) if X[:, j].any())


def test_positive_definiteness_is_proved_only_where_it_holds():
    assert proven_positive_definite(np.eye(3))
    assert not proven_positive_definite(np.diag([1.0, 0.0]))
    assert not proven_positive_definite(np.diag([1.0, -1e-300]))
    assert not proven_positive_definite(np.diag([1.0, 1e-6]), radius=1e-6)
    assert proven_positive_definite(np.diag([1.0, 1e-6]), radius=1e-7)
    assert not proven_positive_definite(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    # Exactly singular (rank 2 of 3): never proved, however it rounds.
    rng = np.random.default_rng(9)
    for _ in range(20):
        A = rng.integers(-9, 10, size=(3, 2)).astype(float)
        assert not proven_positive_definite(A @ A.T)


def test_inputs_are_checked_and_made_float64_whatever_their_form():
    """Found in review: sparse float32 rows were proved full rank in float32
    arithmetic under a float64 bound (a wrong "finite"), sparse integers
    crashed, and NaN went through."""
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 100)
    a = 1 + rng.integers(0, 2**20, size=(200, 2)) / 2**20
    X = np.column_stack([a, a.sum(axis=1) + y]).astype(np.float32)  # x3 - x1 - x2 = y
    for form in (X, sp.csr_matrix(X)):
        decision = decide_mean_range(form, y)
        assert decision.finite is False
        assert_proved(X.astype(float), y, decision)
    integers = sp.csr_matrix(np.arange(12).reshape(6, 2) % 5)
    assert decide_mean_range(integers, [0, 0, 0, 1, 1, 1]).finite is not None
    bad = np.array([[1, 2], [2, 3], [3, 5], [np.nan, 1], [2, 2], [4, 1]])
    with pytest.raises(ValueError, match="NaN"):
        decide_mean_range(bad, [0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="inconsistent"):
        decide_mean_range(np.ones((6, 2)), [0, 1])


def test_a_feature_holding_1_and_2_to_the_61_is_decided():
    """2^61 is 1 modulo the Mersenne prime 2^61 - 1: read modulo it, such a
    feature looked dependent and the search never settled."""
    big = 2.0**61
    X = np.array([[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, big, 1],
                  [0, 0, 0, 5], [0, 0, 1, 6], [1, 1, big, 6]])  # fmt: skip
    y = np.array([0, 0, 0, 1, 1, 1])
    assert_proved(X, y, decide_mean_range(X, y))


def test_features_of_many_binary_orders():
    """Integers of ~1 500 bits once each feature is scaled to integers: full
    rank is read modulo the prime with no solve; an exact solve that large is
    refused as undecided, with the reason, not taken for minutes."""
    rng = np.random.default_rng(2)
    X = np.ldexp(rng.normal(size=(400, 40)), rng.integers(-1000, 480, size=(400, 40)))
    X[:, -1] = X[:, -2]
    X[0, -1] = np.nextafter(X[0, -1], np.inf)  # full rank, by one row's last bit
    y = np.arange(400) % 2
    decision = decide_mean_range(X, y, numerical_rank=39)
    assert (decision.finite, decision.exact_rank) == (True, 40)
    X[:, -1] = X[:, -2]  # now a dependency: the solve would be 40 x 40 of ~1500 bits
    X[y == 1, -1] += X[y == 1, 0] * 0.0 + 1.0
    decision = decide_mean_range(X, y, numerical_rank=39)
    assert decision.finite is None or decision.finite == exact_mean_in_range(X, y, 0, 1)


def test_the_exact_rank_is_proved_on_every_row_not_the_first_ones():
    """Rows past the ones the search starts from vary a little along x3 - x1:
    the exact rank is 3 where the numerical rank is 2 (found in review: the
    rank of the first rows was taken for S's, and the angle dropped d's part
    along that direction as rounding)."""
    rng = np.random.default_rng(0)
    X = np.zeros((80, 3))
    y = np.repeat([0, 1], 40)
    X[:, :2] = rng.integers(-9, 10, size=(80, 2))
    X[y == 1, 0] += 20
    late = np.r_[np.arange(10, 40), 40 + np.arange(10, 40)]
    X[:, 2] = X[:, 0]
    X[late, 2] += rng.choice([0.0, 2.0**-40], size=late.size)
    decision = decide_mean_range(X, y, numerical_rank=2, exact_rank=True)
    assert (decision.finite, decision.exact_rank) == (True, 3)
    tiny = separability_statistics(X, y, kappa=1e-20)
    assert tiny.rank == 2 and tiny.mean_in_range is True
    assert tiny.angle > 1e-14  # d's part along the cut direction, kept
    (pair,) = Distance().compute(report_data(X, y), {})["pairs"]
    assert pair["exact_rank"] == 3 and pair["rank"] == 2
