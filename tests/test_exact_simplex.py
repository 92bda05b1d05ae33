"""The simplex method in rationals on every row (``_exact._simplex``): Farkas'
alternative decided exactly from a float certificate, where float64 can only
say "inseparable to a tolerance".

Its answers are their own proofs (Farkas: exactly one of a certificate and a
separator exists), checked here in rationals (``exactly_balances``,
``exactly_separates``), and the verdict must not depend on where the steps
start: each is compared with the decision from no start and no limit."""

import warnings
from fractions import Fraction

import numpy as np
import pytest

from sklearn_linsep import HardMarginSVM, SolverError, linear_separability
from sklearn_linsep._exact import _frames, _kkt
from sklearn_linsep._exact import _simplex as _exact_simplex
from sklearn_linsep._exact._farkas import as_hyperplane, side_pairs
from sklearn_linsep._exact._simplex import decide_pairs_on_rows
from sklearn_linsep._testing import (
    exactly_balances,
    exactly_separates,
    facet_case,
    near_touching_case,
)


def decide_two_class_on_rows(X, signs, start, limited=True):
    """Two classes as the package decides them: K = 2 pairs, a pair per row (row,
    the other side), from the rows ``start``."""
    own, others = side_pairs(signs)
    start = [(int(i), int(others[i])) for i in start]
    return decide_pairs_on_rows(X, own, 2, start, limited)


def decide_two_class(X, signs):
    """The verdict from no start and without limits (a small problem's)."""
    return decide_two_class_on_rows(X, signs, [], limited=False)


def decide_pairs(X, y, K):
    return decide_pairs_on_rows(X, y, K, [], limited=False)


def _starts(n, seed):
    """No start, a random one and the rows in reverse: the answer is the same
    whatever the simplex starts from."""
    rng = np.random.default_rng(seed)
    return [], list(rng.permutation(n)), list(range(n))[::-1]


@pytest.mark.parametrize("seed", range(40))
def test_two_classes_agree_from_any_start_and_hold_exactly(seed):
    """On the near-touching corpus (dyadic rows, gaps of 2^-44 to 2^-26,
    scales 2^±20, offsets 2^30), from any start: the verdict from none, a
    certificate that balances exactly or a separator with every margin ≥ 1
    in rationals."""
    X, y, n_classes = near_touching_case(seed)
    if n_classes != 2:
        X, y = X[y < 2], y[y < 2]
    signs = np.where(y == 1, 1.0, -1.0)
    truth = decide_two_class(X, signs)[0]
    for start in _starts(len(X), seed):
        kind, answer = decide_two_class_on_rows(X, signs, start)
        assert kind == truth
        if kind == "certificate":
            rows, others, weights = answer
            assert exactly_balances(X, y, rows, weights, others)
        else:
            w, b = as_hyperplane(*answer[:2])
            assert all(s * (sum(Fraction(float(a)) * c for a, c in zip(x, w)) + b) >= 1
                       for x, s in zip(X, signs))  # fmt: skip


@pytest.mark.parametrize("seed", [3, 7, 11, 15, 19, 23, 27, 31])
def test_k_classes_jointly_agree_from_any_start_and_hold_exactly(seed):
    X, y, n_classes = near_touching_case(seed)
    y = np.unique(y, return_inverse=True)[1]
    K = int(y.max()) + 1
    truth = decide_pairs(X, y, K)[0]
    rng = np.random.default_rng(seed)
    rows, others = rng.permutation(len(X)), rng.integers(0, K, len(X))
    start = [(int(i), int(k)) for i, k in zip(rows, others) if k != y[i]]
    kind, answer = decide_pairs_on_rows(X, y, K, start)
    assert kind == truth
    if kind == "certificate":
        rows, others, weights = answer
        assert exactly_balances(X, y, rows, weights, others)
    else:
        assert exactly_separates(X, y, *answer[:2])


def test_dependent_equations_and_columns_are_covered_by_unit_columns():
    """A feature repeated exactly and a zero feature make Farkas' equations
    dependent, and the start repeats a row: the basis is completed by unit
    columns (fixed at 0), and the answer still holds exactly."""
    X = np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 1.0 + 2**-40], [0.0, 1.0]])
    y = np.array([0, 0, 1, 1])
    X = np.hstack([X, X[:, :1], np.zeros((4, 1))])
    signs = np.where(y == 1, 1.0, -1.0)
    kind, (W, b, _) = decide_two_class_on_rows(X, signs, [2, 2, 0, 0, 1])
    assert kind == "separator"
    assert exactly_separates(X, y, *as_hyperplane(W, b))
    X[2, 1] = 1.0 - 2**-40  # now the point lies inside the other hull
    kind, (rows, others, weights) = decide_two_class_on_rows(X, signs, [3, 3])
    assert kind == "certificate" and exactly_balances(X, y, rows, weights, others)


@pytest.mark.parametrize("separable", [True, False])
def test_near_touching_data_at_p_50_are_decided_exactly_on_every_row(separable):
    """651 rows at p = 50, classes 2^-44 from touching: beyond a whole
    rational solve, and float64's certificate holds to its tolerance only. The
    simplex in rationals from that certificate decides on every row: a proven
    certificate, or an exact separator (with the warning that says so).
    ``benchmarks/bench_exact.py --only scale`` runs 1e4 rows."""
    X, y = facet_case(separable, n=600)
    if separable:
        with pytest.warns(UserWarning, match="simplex method in rational"):
            result = linear_separability(X, y)
        assert result.separable
        assert exactly_separates(X, y, result.exact_coef, result.exact_intercept)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a proof: nothing to warn about
            result = linear_separability(X, y)
        assert not result.separable and result.proven
        assert exactly_balances(X, y, result.certificate_indices,
                                result.exact_weights(X, y))  # fmt: skip
    assert result.verify(X, y)


def test_scaled_and_offset_facets_float64_found_nothing_for_are_decided():
    """The facet case with each feature times 2^±20 plus up to 2^19 (whose
    rounding decides the truth): float64's certificate fails in rationals or
    its LPs find nothing, so the simplex has no start of its own. It starts
    from HiGHS's optimum of the same LP with its equations made orthonormal
    (``_float_start``), and decides in a few steps; from no start at all it
    ran out of steps."""
    rng = np.random.default_rng(0)
    for separable in (True, False):
        X, y = facet_case(separable, n=1_000, p=20)
        X = _scaled_and_offset(X, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            result = linear_separability(X, y)
        _assert_the_proof_holds(X, y, result)


def _scaled_and_offset(X, rng):
    """Each feature times 2^±20 plus up to 2^19: its rounding decides."""
    p = X.shape[1]
    return X * 2.0 ** rng.integers(-20, 21, p) + 2.0 ** rng.integers(
        0, 20, p) * rng.integers(0, 2, p)  # fmt: skip


def _assert_the_proof_holds(X, y, result):
    """Proved, and the proof holds in rationals: the separator (exact where
    given) separates every row, or the certificate's exact weights balance."""
    assert result.proven
    if result.separable:
        exact = result.exact_coef is not None
        assert exactly_separates(
            X, y, result.exact_coef if exact else result.coef,
            result.exact_intercept if exact else result.intercept,
        )  # fmt: skip
    else:
        assert exactly_balances(X, y, result.certificate_indices,
                                result.exact_weights(X, y))  # fmt: skip


@pytest.mark.parametrize("n, p, scaled", [(600, 30, False), (300, 10, True)])
def test_hard_margin_svm_fits_a_hair_separable_set_exactly(n, p, scaled):
    """Separable by 2^-44: the maximal margin is beyond float64 (it raised
    SolverError before). The exact simplex's separator holds its support's
    rows tight; from them the maximal margin is solved in rationals. Checked
    here on its own: every margin ≥ 1 and 1 on the support, ``α ≥ 0`` with
    ``w = Σ α c x`` and ``Σ α c = 0``, all exactly."""
    X, y = facet_case(True, n=n, p=p)
    if scaled:  # by powers of two: exactly, so still separable by a hair
        X = X * 2.0 ** np.random.default_rng(0).integers(-20, 21, p)
    with pytest.warns(UserWarning, match="exact rational arithmetic"):
        svm = HardMarginSVM().fit(X, y)
    w = [Fraction(v) for v in svm.exact_coef_]
    b = Fraction(svm.exact_intercept_)
    signs = np.where(y == 1, 1, -1)
    rows = [[Fraction(float(v)) for v in x] for x in X]
    margins = [c * (sum(a * v for a, v in zip(w, x)) + b) for c, x in zip(signs, rows)]
    assert min(margins) == 1
    support = svm.support_
    assert all(margins[i] == 1 for i in support)
    # α from the dual coefficients α_i c_i, rounded to float64: solve exactly
    # on the support instead, and check its signs and stationarity.
    from flint import fmpq_mat

    from sklearn_linsep._exact._numbers import as_fmpq

    p_ = X.shape[1]
    system = fmpq_mat(p_ + 1, len(support), [
        as_fmpq(X[i, f]) * int(signs[i]) if f < p_ else int(signs[i])
        for f in range(p_ + 1) for i in support])  # fmt: skip
    target = fmpq_mat(p_ + 1, 1, [as_fmpq(v) for v in w] + [0])
    alpha = (system.transpose() * system).solve(system.transpose() * target)
    assert system * alpha == target
    assert all(alpha[i, 0] >= 0 for i in range(len(support)))
    assert np.array_equal(svm.predict(X), y)


def test_k_classes_jointly_inseparable_by_a_hair_at_scale_are_proved():
    X, y = facet_case(False, n=1_000, p=20, n_classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = linear_separability(X, y, multiclass="joint")
    assert not result.separable and result.proven
    weights = result.exact_weights(X, y)
    assert exactly_balances(X, y, result.certificate_indices, weights,
                            result.certificate_classes)  # fmt: skip


def test_k_classes_jointly_separable_by_a_hair_at_scale_are_decided():
    """From float64's certificate the steps run out (every class needs tight
    pairs of its own, far from the certificate's basis); from HiGHS's optimum
    of the same LP they reach the exact separator."""
    X, y = facet_case(True, n=300, p=20, n_classes=3)
    with pytest.warns(UserWarning, match="rational"):
        result = linear_separability(X, y, multiclass="joint")
    assert result.separable and result.proven
    assert exactly_separates(X, y, result.exact_coef, result.exact_intercept)


def test_beyond_its_steps_the_certificate_is_flagged_and_the_limit_named(
    monkeypatch,
):
    """K = 3 jointly separable by a hair at scale: the optimal basis is far
    from the certificate's (each class needs its own tight pairs). Without
    the float steps, the simplex stops at ``EXACT_PIVOTS``; the certificate
    is then flagged, never passed off as proven, and the warning names the
    limit."""
    monkeypatch.setattr(_exact_simplex, "EXACT_PIVOTS", 5)
    monkeypatch.setattr(_exact_simplex.farkas_simplex, "__defaults__", (5, True))
    monkeypatch.setattr(_exact_simplex, "CERTIFICATE_FLOAT_PIVOTS", 0)
    monkeypatch.setattr(_exact_simplex._float_pivots, "__defaults__", (0,))
    X, y = facet_case(True, n=1_000, p=20, n_classes=3)
    with pytest.warns(UserWarning, match="EXACT_PIVOTS"):
        result = linear_separability(X, y, multiclass="joint")
    assert not result.proven and not result.verify(X, y)


@pytest.mark.parametrize("shift", [-2.0, 0.0, 2.0])
def test_the_float_start_by_column_generation_is_the_whole_lp_optimum(shift):
    """``_generated_columns_lp`` (HiGHS on a few columns, the rest priced by its
    dual) reaches the optimum of ``min t`` s.t. ``A λ + t e = e``, ``λ ≥ 0`` on
    all columns: the same t as one LP on every column, λ feasible on them, and
    no column of negative reduced cost. ``shift`` moves the columns from
    spanning e's direction (t = 0) to the far side (t = 1)."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(0)
    m, n = 12, 3_000
    rows = rng.normal(size=(m, n))
    e = rng.normal(size=m)
    rows += shift * np.outer(e, np.ones(n)) / np.linalg.norm(e)
    weights, dual = _exact_simplex._generated_columns_lp(rows, e)
    whole = linprog(np.r_[np.zeros(n), 1.0], A_eq=np.column_stack([rows, e]),
                    b_eq=e, bounds=(0, None), method="highs")  # fmt: skip
    assert np.all(weights >= 0)
    residual = e - rows @ weights  # = t e
    t = residual @ e / (e @ e)
    np.testing.assert_allclose(residual, t * e, atol=1e-9)
    assert t == pytest.approx(whole.fun, abs=1e-9)
    scale = np.abs(dual).max()
    reduced = -(dual @ rows) / np.linalg.norm(rows, axis=0)
    assert reduced.min() >= -1e-9 * scale


def test_a_finish_gives_up_its_exchange_search_after_a_few(
    monkeypatch, count_calls
):
    """Near-touching data whose nearest points' support holds no hyperplane:
    the finish's search over exchanges (a solve of the support per row in it)
    ran 25 times here and 54 times on 10 000 x 50 (2 s of a 2.3 s verdict). It
    now stops at ``MAX_EXCHANGES``, and the verdict is still decided and
    proved exactly."""
    from sklearn_linsep._margin._solvers import _active_set

    searches = count_calls(_active_set, "_best_exchange")
    X, y = facet_case(True, n=300, p=20)
    X = _scaled_and_offset(X, np.random.default_rng(4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = linear_separability(X, y)
    assert 0 < len(searches) <= _active_set.MAX_EXCHANGES
    assert result.separable
    _assert_the_proof_holds(X, y, result)


def _assert_the_rational_verdict_holds(X, y, signs, found):
    """``found`` (of ``decide_two_class_on_rows``) is the verdict from no
    start, and its proof holds exactly."""
    kind, answer = found
    assert kind == decide_two_class(X, signs)[0]
    if kind == "certificate":
        rows, others, weights = answer
        assert exactly_balances(X, y, rows, weights, others)
    else:
        assert exactly_separates(X, y, *as_hyperplane(*answer[:2]))


def _two_class_columns(X, signs):
    """The two-class Farkas system of ``X`` (K = 2, a pair per row) as
    ``FarkasColumns``."""
    return _exact_simplex.pairs_columns(X, *side_pairs(signs), 2)


def _exact_columns(system):
    """``columns(basis)``: the basis's matrix transposed, in rationals, as the
    exact steps build it."""
    from sklearn_linsep._exact._numbers import ExactRows

    return ExactRows(lambda ids: _exact_simplex._float_matrix(system, ids).T, system.m)


def _exact_steps_counted(monkeypatch):
    """A list that grows by one at every exact step: a call of ``_leaving`` on
    rationals (a float step's ``u`` is an array)."""
    calls, wrapped = [], _exact_simplex._leaving

    def counted(basis, u, *rest):
        if not isinstance(u, np.ndarray):
            calls.append(1)
        return wrapped(basis, u, *rest)

    monkeypatch.setattr(_exact_simplex, "_leaving", counted)
    return calls


def test_the_float_steps_leave_the_exact_ones_a_check(monkeypatch):
    """K = 3 separable by a hair of 2^-44: 144 exact steps (2.3 s) from
    HiGHS's start. The same steps in floating point, their solves refined in
    extended precision and prices near 0 taken again in it
    (``_float_pivots``), settle on the optimal basis; the exact steps then
    only check it."""
    exact_steps = _exact_steps_counted(monkeypatch)
    X, y = facet_case(True, n=300, p=20, n_classes=3)
    with pytest.warns(UserWarning, match="rational"):
        result = linear_separability(X, y, multiclass="joint")
    assert result.separable and result.proven
    assert exactly_separates(X, y, result.exact_coef, result.exact_intercept)
    if np.finfo(np.longdouble).eps < 2.0**-60:  # x87's: a hair keeps its sign
        assert len(exact_steps) <= 2


@pytest.mark.parametrize("seed", [0, 1])
def test_a_float_misstep_costs_exact_steps_never_the_answer(monkeypatch, seed):
    """Wherever the float steps leave the basis (here: ``t`` and random
    columns, or no step taken at all), the exact steps from it reach the
    verdict of the rational first phase, and its proof holds exactly."""
    rng = np.random.default_rng(seed)

    def random_basis(system, basis, max_pivots=None):
        if seed:
            return basis, True
        picked = rng.choice(system.n_columns, system.m - 1, replace=False)
        return [_exact_simplex.T, *map(int, picked)], True

    monkeypatch.setattr(_exact_simplex, "_float_pivots", random_basis)
    for case in range(8):
        X, y, n_classes = near_touching_case(100 + 8 * seed + case)
        X, y = X[y < 2], y[y < 2]
        signs = np.where(y == 1, 1.0, -1.0)
        found = decide_two_class_on_rows(X, signs, list(range(len(X))))
        if found is None:  # a random basis singular in rationals: no answer
            continue
        _assert_the_rational_verdict_holds(X, y, signs, found)


def test_the_float_steps_stop_short_of_a_basis_they_cannot_tell_from_singular():
    """Rows offset by 2^30 spreads (corpus seed 16): float64 stepped into a
    basis singular in rationals (float64 cannot tell it from the near-touching
    ones). The exact steps take the last basis whose determinant modulo a
    prime is nonzero, and decide from there."""
    X, y, _ = near_touching_case(16)
    X, y = X[y < 2], y[y < 2]
    signs = np.where(y == 1, 1.0, -1.0)
    system = _two_class_columns(X, signs)
    basis, _ = _exact_simplex._float_pivots(
        system, _exact_simplex._starting_basis(system, [])
    )
    assert _exact_columns(system)(basis).det() != 0  # det(Bᵀ) = det(B)
    kind, answer = decide_two_class_on_rows(X, signs, [])
    assert kind == decide_two_class(X, signs)[0]


@pytest.mark.parametrize("seed", range(6))
def test_the_centred_frame_is_exact_and_maps_a_separator_back(seed):
    """``CentredFrame``: features offset by 2^29 to 2^30 spreads and scaled
    by 2^±20 are moved by one of their own values, where every difference is
    exact (checked here in rationals), and all are scaled by powers of two.
    A hyperplane on the frame's points is the same one on the rows in
    rationals. Subnormal features scale exactly too."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-8, 9, size=(12, 4)) / 8.0
    offset = np.array([True, False, True, seed % 2 == 0])
    scales = 2.0 ** rng.integers(-20, 21, 4)
    X = X * scales + rng.integers(2**29, 2**30, 4) * scales * offset
    frame = _frames.CentredFrame(X)
    assert np.all(frame.offsets[offset] != 0)  # Sterbenz: exact differences
    for x, moved in zip(X, frame.points):
        for f in range(X.shape[1]):
            assert Fraction(float(moved[f])) == (
                Fraction(float(x[f])) - Fraction(float(frame.offsets[f]))
            ) * Fraction(float(frame.scales[f]))
    assert np.all(np.abs(frame.points).max(axis=0) < 2)
    w = [Fraction(int(v), 7) for v in rng.integers(-5, 6, 4)]
    b = Fraction(3, 11)
    w_units, b_units = frame.in_units(w, b)
    for x, moved in zip(X, frame.points):
        on_frame = sum(wf * Fraction(float(v)) for wf, v in zip(w, moved)) + b
        in_units = sum(wf * Fraction(float(v)) for wf, v in zip(w_units, x)) + b_units
        assert on_frame == in_units
    tiny = _frames.CentredFrame(np.array([[3e-320], [4e-320], [-5e-320]]))
    assert np.all(np.isfinite(tiny.points)) and np.abs(tiny.points).max() > 0
    offset, scale = Fraction(float(tiny.offsets[0])), Fraction(float(tiny.scales[0]))
    assert [Fraction(float(v)) for v in tiny.points[:, 0]] == [
        (Fraction(v) - offset) * scale for v in (3e-320, 4e-320, -5e-320)
    ]


@pytest.mark.parametrize("seed", [121, 189])
def test_a_start_singular_in_rationals_gives_way_to_unit_columns(seed):
    """Corpus seeds whose float start's basis is singular in rationals (its
    columns were chosen in float64): the exact steps start from ``t`` and
    unit columns instead, and decide."""
    X, y, _ = near_touching_case(seed)
    X, y = X[y < 2], y[y < 2]
    signs = np.where(y == 1, 1.0, -1.0)
    _assert_the_rational_verdict_holds(
        X, y, signs, decide_two_class_on_rows(X, signs, [])
    )


def test_a_nonzero_determinant_modulo_the_prime_is_nonzero():
    """``determinant_nonzero`` modulo ``MODULUS`` of a basis's float64 matrix
    (the simplex's check) agrees with FLINT's exact determinant on bases of the
    facet case, singular ones (a repeated column) included."""
    from sklearn_linsep._exact._dyadic import MODULUS
    from sklearn_linsep._exact._numbers import determinant_nonzero

    rng = np.random.default_rng(0)
    X, y = facet_case(True, n=200, p=6)
    signs = np.where(y == 1, 1.0, -1.0)
    system = _two_class_columns(X, signs)
    columns = _exact_columns(system)
    answers = set()
    for trial in range(20):
        basis = [_exact_simplex.T, *map(int, rng.choice(len(X), system.m - 1))]
        if trial % 4 == 0:
            basis[2] = basis[1]  # singular
        exact = columns(basis).det() != 0  # det(Bᵀ) = det(B)
        B = _exact_simplex._float_matrix(system, basis)
        assert determinant_nonzero(B, MODULUS) == exact
        answers.add(exact)
    assert answers == {True, False}


def test_the_float_dual_is_the_correctly_rounded_scaled_dual():
    """``_float_dual``: each entry times one power of two, correctly rounded
    (against Fractions), the largest in [1/2, 2)."""
    import flint

    rng = np.random.default_rng(1)
    y = [flint.fmpq(int(n) * 10**12 + 7, int(d) * 10**9 + 1) for n, d in
         zip(rng.integers(-10**18, 10**18, 9), rng.integers(1, 10**16, 9))]  # fmt: skip
    rounded = _exact_simplex._float_dual(y)
    exact = [Fraction(int(v.p), int(v.q)) for v in y]
    ratio = Fraction(float(rounded[0])) / exact[0]
    scale = Fraction(2) ** round(np.log2(float(ratio)))
    assert [float(v * scale) for v in exact] == rounded.tolist()
    assert 0.5 <= np.abs(rounded).max() < 2


def test_beyond_its_entries_a_hair_separable_fit_is_refused_naming_the_limit(
    monkeypatch,
):
    """Beyond ``MAXIMAL_ENTRIES`` entries of the rows the maximal margin is not
    solved in rationals: the fit raises SolverError, which names the limit."""
    monkeypatch.setattr(_kkt, "MAXIMAL_ENTRIES", 100)
    X, y = facet_case(True, n=300, p=10)
    with pytest.raises(SolverError, match="MAXIMAL_ENTRIES"):
        HardMarginSVM().fit(X, y)
