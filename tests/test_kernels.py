import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from sklearn_linsep import _kernels
from sklearn_linsep._kernels import (
    centre_with_indicator,
    centre_with_indicator_weighted,
)
from sklearn_linsep._online._state import open_pocket


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_centre_with_indicator_matches_numpy(dtype):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(50, 4)).astype(dtype)
    y = rng.randint(0, 3, size=50)
    reference = rng.normal(size=(3, 4))
    out = np.full((50, 7), np.nan)
    centre_with_indicator(X, y, reference, out)
    np.testing.assert_array_equal(out[:, :4], X.astype(np.float64) - reference[y])
    np.testing.assert_array_equal(out[:, 4:], np.eye(3)[y])


def test_weighted_rows_are_scaled_by_the_root_weight():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(30, 2))
    y = rng.randint(0, 2, size=30)
    reference = rng.normal(size=(2, 2))
    weights = rng.uniform(0, 3, size=30)
    out = np.empty((30, 4))
    centre_with_indicator_weighted(X, y, reference, np.sqrt(weights), out)
    gram = out.T @ out
    centred = X - reference[y]
    np.testing.assert_allclose(gram[:2, :2], (centred * weights[:, None]).T @ centred)
    np.testing.assert_allclose(np.diag(gram[2:, 2:]), np.bincount(y, weights))
    np.testing.assert_allclose(
        gram[2:, :2], np.eye(2)[y].T @ (centred * weights[:, None])
    )


# ------------------------------------------------------------ perceptron family


def constant_rate(rate):
    """The kernels' record of a constant rate."""
    return _kernels.Rates(
        _kernels.RATE_CONSTANT,
        rate,
        0.0,
        1.0,
        0.0,
        1.0,
        np.zeros((1, 1)),
        np.zeros(1, dtype=np.int64),
    )


CONSTANT_ONE = constant_rate(1.0)


def samples_of(X, codes, weights, sparse=False, first_class=1):
    if sparse:
        X = sp.csr_matrix(X)
        rows = (X.data, X.indices, X.indptr)
    else:
        rows = (np.ascontiguousarray(X),)
    codes = np.asarray(codes, dtype=np.intp)
    return _kernels.Samples(rows, codes, first_class, np.asarray(weights, float), 1.0)


def naive_epoch(X, codes, weights, order, W, bias=1.0, average_from=1):
    """The epoch in plain Python: the weights, mistakes, perceptron criterion and
    the mean of the weights after each sample of positive weight from the
    ``average_from``-th on."""
    W = W.copy()
    mistakes, loss, visited = 0, 0.0, []
    for i in order:
        c = 1.0 if codes[i] == 1 else -1.0
        x = np.r_[X[i], bias]
        if weights[i] == 0:
            continue
        if c * (W[0] @ x) <= 0:
            loss -= weights[i] * c * (W[0] @ x)
            W[0] += weights[i] * c * x
            mistakes += 1
        visited.append(W.copy())
    return W, mistakes, loss, np.mean(visited[average_from - 1 :], axis=0)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("average_from", [None, 1, 17])
@pytest.mark.parametrize("as_row", [False, True])
def test_perceptron_epoch_matches_a_python_loop(sparse, dtype, average_from, as_row):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3)).astype(dtype)
    X[np.abs(X) < 0.5] = 0
    codes = rng.integers(0, 2, 40)
    weights = rng.integers(0, 3, 40).astype(float)
    order = rng.permutation(40)
    W = np.zeros((1, 4))
    updates, mistakes = np.zeros(1, np.int64), np.zeros(1, np.int64)
    loss = np.zeros(1)
    average = None
    if average_from is not None:
        average = _kernels.Average(
            np.zeros((1, 4)), np.zeros(1, np.int64), average_from
        )
    _kernels.perceptron_epoch(
        samples_of(X, codes, weights, sparse),
        order,
        W[0] if as_row else W,  # one task's weights as the row itself
        CONSTANT_ONE,
        updates,
        mistakes,
        loss,
        None,
        average,
    )
    expected, count, criterion, mean = naive_epoch(
        X.astype(float), codes, weights, order, np.zeros((1, 4)), 1.0, average_from or 1
    )
    np.testing.assert_allclose(W, expected, rtol=1e-12)
    assert mistakes[0] == count == updates[0]
    assert loss[0] == pytest.approx(criterion, rel=1e-12)
    if average is not None:
        assert average.seen[0] == np.count_nonzero(weights)
        n_averaged = average.seen[0] - average_from + 1
        np.testing.assert_allclose(
            W - average.correction / n_averaged, mean, rtol=1e-12, atol=1e-12
        )


def test_weighted_correct_and_beats_pocket_follow_predict():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 2))
    codes = rng.integers(0, 2, 50)
    weights = rng.uniform(0.5, 2, 50)
    W = np.array([[1.0, -1.0, 0.2]])
    predicted = (X @ W[0, :2] + W[0, 2] > 0).astype(int)
    expected = weights[predicted == codes].sum()
    samples = samples_of(X, codes, weights)
    assert _kernels.weighted_correct(samples, W, 0) == pytest.approx(expected)
    scanned, correct, better = _kernels.beats_pocket(
        samples, W, 0, expected - 1e-9, weights.sum()
    )
    assert better and scanned == 50 and correct == pytest.approx(expected)
    scanned, _, better = _kernels.beats_pocket(samples, W, 0, expected, weights.sum())
    assert not better  # a tie does not pass the ratchet


def test_beats_pocket_stops_once_the_candidate_cannot_win():
    X = np.ones((100, 1))
    codes = np.zeros(100, dtype=np.intp)  # every score 1 > 0 is wrong
    samples = samples_of(X, codes, np.ones(100))
    scanned, correct, better = _kernels.beats_pocket(
        samples, np.ones((1, 2)), 0, 90.0, 100.0
    )
    assert not better and scanned == 11 and correct == 0


def test_pocket_end_of_epoch_ratchet():
    W = np.zeros((1, 2))
    pocket = open_pocket(np.full((1, 2), 1.0), [10.0])
    pocket.candidate[:] = 2.0
    pocket.snapshot[:] = 3.0
    pocket.candidate_correct[0] = 12.0
    pocket.evaluating[0] = 5
    pocket.snapshot_run[0] = 9
    pocket.pocket_run[0] = 4
    _kernels.pocket_end_of_epoch(W, pocket)
    # The candidate (12 > 10) became the pocket; the kept weights the next candidate.
    np.testing.assert_array_equal(pocket.weights, [[2.0, 2.0]])
    assert pocket.correct[0] == 12.0 and pocket.candidate_correct[0] == 0
    np.testing.assert_array_equal(pocket.candidate, [[3.0, 3.0]])
    assert pocket.evaluating[0] == 9 and pocket.pocket_run[0] == 5
    # A candidate no better than the pocket (a tie) is dropped.
    pocket.candidate_correct[0] = 12.0
    _kernels.pocket_end_of_epoch(W, pocket)
    np.testing.assert_array_equal(pocket.weights, [[2.0, 2.0]])
    assert pocket.evaluating[0] == 0


@pytest.mark.parametrize("sparse", [False, True])
def test_lms_epoch_matches_a_python_loop_and_flags_divergence(sparse):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((30, 3))
    codes = rng.integers(0, 2, 30)
    weights = np.ones(30)
    order = np.arange(30)
    schedule = constant_rate(0.05)
    W = np.zeros((1, 4))
    loss = np.zeros(1)
    samples = samples_of(X, codes, weights, sparse)
    stable = _kernels.lms_epoch(samples, order, W, schedule, 0, 1e6, loss)
    w, total = np.zeros(4), 0.0
    for i in order:
        x = np.r_[X[i], 1.0]
        residual = (1.0 if codes[i] == 1 else -1.0) - w @ x
        total += residual**2
        w += 0.05 * residual * x
    assert stable
    np.testing.assert_allclose(W[0], w, rtol=1e-12)
    assert loss[0] == pytest.approx(total)
    big = constant_rate(50.0)
    W[:] = 0
    assert not _kernels.lms_epoch(samples, order, W, big, 0, 1e6, loss)


def test_rate_table_rows_start_at_each_tasks_update_count():
    X = np.array([[1.0], [-1.0], [1.0], [-1.0]])
    codes = np.array([1, 0, 2, 2])  # three tasks; w = 0 makes every sample a mistake
    table = np.array([[0.5, 0.25, 0.125], [4.0, 2.0, 1.0], [8.0, 16.0, 32.0]])
    starts = np.array([10, 0, 7], dtype=np.int64)
    rates = _kernels.Rates(_kernels.RATE_TABLE, 0.0, 0.0, 1.0, 0.0, 1.0, table, starts)
    W = np.zeros((3, 2))
    updates = starts.copy()
    mistakes = np.zeros(3, np.int64)
    samples = samples_of(X, codes, np.ones(4), first_class=0)
    loss = np.zeros(3)
    _kernels.perceptron_epoch(
        samples, np.arange(1), W, rates, updates, mistakes, loss, None, None
    )
    # Sample 0 (class 1) is a mistake for every task, each at its own first rate.
    np.testing.assert_array_equal(W, [[-0.5, -0.5], [4.0, 4.0], [-8.0, -8.0]])
    np.testing.assert_array_equal(updates, starts + 1)


def test_a_score_that_is_not_a_number_is_a_mistake():
    X = np.array([[np.inf], [1.0]])
    W = np.array([[np.inf, -np.inf]])  # inf·inf - inf = nan
    updates, mistakes = np.zeros(1, np.int64), np.zeros(1, np.int64)
    samples = samples_of(X, [1, 1], np.ones(2))
    _kernels.perceptron_epoch(
        samples,
        np.arange(1),
        W,
        CONSTANT_ONE,
        updates,
        mistakes,
        np.zeros(1),
        None,
        None,
    )
    assert mistakes[0] == 1


def test_shuffled_order_is_a_uniform_reproducible_permutation():
    order = _kernels.shuffled_order(1000, 7)
    np.testing.assert_array_equal(np.sort(order), np.arange(1000))
    np.testing.assert_array_equal(order, _kernels.shuffled_order(1000, 7))
    assert not np.array_equal(order, _kernels.shuffled_order(1000, 8))
    # Where element 0 lands, over many seeds: uniform on 5 places (chi-square).
    landing = [
        np.flatnonzero(_kernels.shuffled_order(5, s) == 0)[0] for s in range(4000)
    ]
    assert stats.chisquare(np.bincount(landing, minlength=5)).pvalue > 1e-4


def test_block_shuffled_order_reads_blocks_in_sequence():
    order = _kernels.block_shuffled_order(1000, 64, 3)
    np.testing.assert_array_equal(np.sort(order), np.arange(1000))
    steps = np.abs(np.diff(order))
    # Inside a block consecutive positions are neighbours (or the wrap-around).
    assert np.mean(steps == 1) > 0.9
    assert not np.array_equal(order, _kernels.block_shuffled_order(1000, 64, 4))


def _hulls(kind, seed):
    """Rows and sides ±1 for the nearest-points kernel: a support of most rows
    (p ≈ n), a few (tall), overlapping classes, and rows repeated across sides."""
    rng = np.random.default_rng(seed)
    if kind == "square":
        X = rng.normal(size=(240, 160))
        c = np.where(X @ rng.normal(size=160) > 0, 1.0, -1.0)
    elif kind == "tall":
        X = rng.normal(size=(3000, 8))
        c = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)
        X += 0.2 * c[:, None]
    elif kind == "overlapping":
        c = np.where(rng.random(600) < 0.5, 1.0, -1.0)
        X = rng.normal(size=(600, 40)) + 0.4 * c[:, None]
    else:  # repeated: the hulls meet at copies
        X = rng.normal(size=(200, 30))
        c = np.where(X[:, 0] > 0, 1.0, -1.0)
        X = np.vstack([X, X[:20]])
        c = np.concatenate([c, -c[:20]])
    Z = np.ascontiguousarray(X - X.mean(axis=0))
    return Z / np.abs(Z).max(), c


def _nearest(Z, c, batch):
    weights = np.zeros(len(c))
    weights[np.flatnonzero(c > 0)[0]] = weights[np.flatnonzero(c < 0)[0]] = 1.0
    workspace = _kernels.nearest_workspace(*Z.shape)
    v, high, low, steps, status = _kernels.nearest_points_kernel(
        Z, c, weights, 1e-12, 10**6, workspace, batch
    )
    return v.copy(), high, low, steps, status, weights


@pytest.mark.parametrize("kind", ["square", "tall", "overlapping", "repeated"])
@pytest.mark.parametrize("seed", range(3))
def test_nearest_points_joined_in_batches_are_wolfes_one_at_a_time(kind, seed):
    """Rows join a step in batches (a support of most rows in tens of steps, not
    hundreds); the answer is Wolfe's: the same nearest points, a convex weight on
    each side with ``v = Σ λ c y``, and no row beyond its side's level."""
    Z, c = _hulls(kind, seed)
    v, high, low, steps, status, weights = _nearest(Z, c, _kernels.JOIN_BATCH)
    v_one, _, _, steps_one, status_one, _ = _nearest(Z, c, 0)
    assert status_one == _kernels.NEAREST_CONVERGED or kind == "repeated"
    assert status in (_kernels.NEAREST_CONVERGED, status_one)
    assert np.all(weights >= 0)
    assert weights[c > 0].sum() == pytest.approx(1) == weights[c < 0].sum()
    assert np.allclose((weights * c) @ Z, v, atol=1e-12)
    size = np.sqrt(v @ v)
    if kind == "repeated":  # the hulls meet: both find the point in both
        assert size < 1e-12 and np.sqrt(v_one @ v_one) < 1e-12
        return
    assert np.linalg.norm(v - v_one) <= 1e-9 * size
    scores = Z @ v
    assert scores[c > 0].min() >= high - 1e-9 * size**2
    assert scores[c < 0].max() <= low + 1e-9 * size**2
    if kind == "square":  # 90-odd support vectors: a few steps
        assert np.count_nonzero(weights) > 60 and 4 * steps < steps_one


@pytest.mark.parametrize("seed", [396, 433, 436, 622, 957, 1319, 1372, 1772])
def test_a_batch_without_progress_hands_over_to_one_row_a_step(seed):
    """Small integer rows whose hulls meet: a batch makes no progress at rounding
    level (seeds found by a search with an instrumented kernel, on OpenBLAS's
    SkylakeX kernels: another BLAS may round them elsewhere), and one row a step
    takes over. Both ways end where the hulls meet, never at a distance between
    them."""
    rng = np.random.default_rng(seed)
    m, q = rng.integers(6, 60), rng.integers(2, 12)
    Z = rng.integers(-2, 3, size=(m, q)).astype(float)
    c = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    for batch in (_kernels.JOIN_BATCH, 0):
        v, _, _, _, status, weights = _nearest(Z, c, batch)
        assert status != _kernels.NEAREST_ITERATIONS
        assert np.sqrt(v @ v) < 1e-14
        assert np.allclose((weights * c) @ Z, v, atol=1e-14)


def _dual_passes(Z, c, passes, settled=0):
    gram = Z @ Z.T
    dual, scores = np.zeros(len(c)), np.zeros(len(c))
    order = np.random.default_rng(0).permutation(len(c)).astype(np.intp)
    done = _kernels.margin_dual_passes(gram, c, dual, scores, order, passes, settled)
    return dual, scores, done, gram


@pytest.mark.parametrize("seed", range(3))
def test_coordinate_descent_on_the_margin_dual_is_the_augmented_maximal_margin(seed):
    """Run long (``settled=-1``: never ended by the face), the passes solve
    min ½‖w‖² + ½ b² with every c_i (w·z_i + b) ≥ 1 (the intercept a feature of
    constant 1): ``w = Zᵀ(c∘α)`` and ``b = Σ c α`` are cvxpy's, and the scores
    kept are ``K (c∘α)``."""
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(40, 6))
    c = np.where(Z @ rng.normal(size=6) + 0.3 > 0, 1.0, -1.0)
    dual, scores, done, gram = _dual_passes(Z, c, passes=5000, settled=-1)
    assert done == 5000 and np.all(dual >= 0)
    assert np.allclose(scores, gram @ (c * dual), atol=1e-10)
    w, b = cp.Variable(6), cp.Variable()
    cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(w) + 0.5 * cp.square(b)),
        [cp.multiply(c, Z @ w + b) >= 1],
    ).solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert np.allclose((c * dual) @ Z, w.value, atol=1e-6)
    assert abs(c @ dual - b.value) <= 1e-6


def test_coordinate_descent_stops_once_a_pass_settles_the_face():
    """``settled``: the passes end once whether α_i > 0 changes for at most that
    many rows in a pass; a bad shape is a ValueError."""
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(60, 80))
    c = np.where(np.arange(60) % 2 == 0, 1.0, -1.0)
    _, _, settled, _ = _dual_passes(Z, c, passes=500, settled=3)
    _, _, exact, _ = _dual_passes(Z, c, passes=500, settled=0)
    assert 1 <= settled <= exact < 500
    with pytest.raises(ValueError, match="length m"):
        _kernels.margin_dual_passes(
            Z @ Z.T, c[:-1], np.zeros(60), np.zeros(60), np.arange(60), 5, 0
        )



@pytest.mark.parametrize("seed", range(3))
def test_coordinate_descent_on_the_rows_is_the_passes_on_their_gram_matrix(seed):
    """``margin_row_passes`` keeps ``w = Σ c α (z, 1)`` where ``margin_dual_passes``
    keeps the scores ``K (c∘α)``: the same steps in the same order, so the same α
    (to rounding), settled after the same passes; a bad shape is a ValueError."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(70, 30))
    c = np.where(Z @ rng.normal(size=30) + 0.2 > 0, 1.0, -1.0)
    gram_dual, _, gram_done, _ = _dual_passes(Z, c, passes=40, settled=1)
    dual, w = np.zeros(70), np.zeros(31)
    order = np.random.default_rng(0).permutation(70).astype(np.intp)
    done = _kernels.margin_row_passes(Z, c, dual, w, order, 40, 1)
    assert done == gram_done and np.all(dual >= 0)
    assert np.allclose(dual, gram_dual, rtol=1e-9, atol=1e-12)
    assert np.allclose(w[:-1], (c * dual) @ Z, atol=1e-10)
    assert w[-1] == pytest.approx(c @ dual, abs=1e-10)
    with pytest.raises(ValueError, match="q \\+ 1"):
        _kernels.margin_row_passes(Z, c, dual, np.zeros(30), order, 5, 0)
    with pytest.raises(ValueError, match="in range"):
        _kernels.margin_row_passes(Z, c, dual, w, order + 70, 5, 0)


@pytest.mark.parametrize("kind", ["square", "tall", "overlapping", "repeated"])
def test_nearest_points_from_a_start_of_many_rows_are_those_from_two(kind):
    """A start of many rows (a guess of the support: some of them off it, in any
    order, more than one block of the QR's rebuild) is made a corral first (Wolfe's
    minor cycle before the first step): the same nearest points as from a row of
    each side, with weight left only where the rows' answer has it."""
    Z, c = _hulls(kind, 1)
    v, _, _, _, _, weights = _nearest(Z, c, _kernels.JOIN_BATCH)
    rng = np.random.default_rng(2)
    start = np.where(rng.random(len(c)) < 0.5, rng.random(len(c)), 0.0)
    start[weights > 0] += rng.random(np.count_nonzero(weights))  # every support row
    held = np.flatnonzero(start)
    extra = held.size - (min(Z.shape) + 3)  # beyond what nearest_workspace holds
    start[held[np.argsort(start[held])[: max(0, extra)]]] = 0.0
    for side in (c > 0, c < 0):
        start[side] /= start[side].sum()
    if kind == "square":
        assert np.count_nonzero(start) > 64  # two blocks of the rebuild at least
    workspace = _kernels.nearest_workspace(*Z.shape)
    warm_v, *_, warm_status = _kernels.nearest_points_kernel(
        Z, c, start, 1e-12, 10**6, workspace, _kernels.JOIN_BATCH
    )
    size = np.sqrt(v @ v)
    assert warm_status == _kernels.NEAREST_CONVERGED or kind == "repeated"
    assert warm_status != _kernels.NEAREST_ITERATIONS
    assert np.all(start >= 0)
    assert np.allclose((start * c) @ Z, warm_v, atol=1e-12)
    if kind == "repeated":
        assert size < 1e-12 and np.sqrt(warm_v @ warm_v) < 1e-12
        return
    assert np.linalg.norm(warm_v - v) <= 1e-9 * size
    scores = Z @ warm_v
    beyond = np.minimum(scores[c > 0] - scores[c > 0].min(), 1)
    assert np.all(start[c > 0][beyond > 1e-6 * size**2] == 0)

def _pair_dual(Z, codes, K, bound=1e9, passes=3000, settled=-1, tolerance=0.0):
    n, q = Z.shape
    alpha, weights = np.zeros((n, K)), np.zeros((K, q + 1))
    order = np.random.default_rng(1).permutation(n).astype(np.intp)
    codes = codes.astype(np.intp)
    args = (alpha, weights, order, bound, passes, settled, tolerance)
    if sp.issparse(Z):
        Z = sp.csr_matrix(Z)
        indices, indptr = Z.indices.astype(np.intp), Z.indptr.astype(np.intp)
        done = _kernels.sparse_pair_dual_passes(Z.data, indices, indptr, codes, *args)
    else:
        done = _kernels.pair_dual_passes(Z, codes, *args)
    return alpha, weights, done


@pytest.mark.parametrize("seed", range(2))
def test_coordinate_descent_on_the_pairs_dual_is_the_augmented_machine(seed):
    """Run long, the passes on K classes' pairs solve min ½ ‖W‖² + ½ ‖b‖² with
    every (w_own - w_k)·z_i + b_own - b_k ≥ 1 (cvxpy's W and b); W is Σ α_ik
    (e_own - e_k) z_iᵀ; CSR rows give the dense rows' answer."""
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(seed)
    n, q, K = 60, 5, 4
    codes = rng.integers(K, size=n)
    Z = 2.0 * rng.normal(size=(K, q))[codes] + rng.normal(size=(n, q))
    Z /= np.abs(Z).max()
    alpha, weights, done = _pair_dual(Z, codes, K)
    sparse_alpha, sparse_weights, _ = _pair_dual(sp.csr_matrix(Z), codes, K)
    assert done == 3000 and np.all(alpha >= 0)
    assert np.all(alpha[np.arange(n), codes] == 0)  # no pair of a row with itself
    np.testing.assert_allclose(sparse_weights, weights, atol=1e-12)
    np.testing.assert_allclose(sparse_alpha, alpha, atol=1e-12)
    rebuilt = np.zeros_like(weights)
    for k in range(K):  # each pair (i, k): +α z_i to its own class, -α to k
        lifted = np.c_[Z, np.ones(n)] * alpha[:, [k]]
        np.add.at(rebuilt, codes, lifted)
        rebuilt[k] -= lifted.sum(axis=0)
    np.testing.assert_allclose(rebuilt, weights, atol=1e-12)
    W, b = cp.Variable((K, q)), cp.Variable(K)
    scores = Z @ W.T + np.ones((n, 1)) @ cp.reshape(b, (1, K), order="C")
    own = cp.sum(cp.multiply(np.eye(K)[codes], scores), axis=1)
    constraints = [own[codes != k] - scores[codes != k, k] >= 1 for k in range(K)]
    cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(W) + 0.5 * cp.sum_squares(b)), constraints
    ).solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    np.testing.assert_allclose(weights[:, :q], W.value, atol=1e-6)
    np.testing.assert_allclose(weights[:, q], b.value, atol=1e-6)


def test_the_pairs_passes_end_at_their_tolerance_and_refuse_bad_shapes():
    """The passes end once a pass changes no sign and misses no optimality
    condition by more than ``tolerance``: a looser tolerance ends sooner; each α
    stays within ``bound``. Arrays that do not fit are a ValueError, before any
    loop reads them."""
    rng = np.random.default_rng(4)  # classes that separate
    codes = rng.integers(3, size=80)
    Z = 3.0 * rng.normal(size=(3, 6))[codes] + rng.normal(size=(80, 6))
    Z /= np.abs(Z).max()
    _, _, loose = _pair_dual(Z, codes, 3, settled=0, tolerance=0.3)
    _, _, tight = _pair_dual(Z, codes, 3, settled=0, tolerance=1e-3)
    assert loose < tight < 3000
    alpha, _, _ = _pair_dual(Z, codes, 3, bound=0.5, passes=50)
    assert alpha.max() <= 0.5
    n = len(codes)
    good = {"alpha": np.zeros((n, 3)), "weights": np.zeros((3, 7)),
            "order": np.arange(n)}  # fmt: skip
    for name, bad in [("alpha", np.zeros((n, 2))), ("weights", np.zeros((3, 6))),
                      ("order", np.arange(n - 1))]:  # fmt: skip
        arrays = {**good, name: bad}
        with pytest.raises(ValueError, match="n entries"):
            _kernels.pair_dual_passes(
                Z, codes.astype(np.intp), arrays["alpha"], arrays["weights"],
                arrays["order"], 1.0, 5, 0, 0.1,
            )  # fmt: skip
    for bad in (n, -1, 10**9):  # a row beyond X: read and written out of bounds
        order = np.arange(n)
        order[3] = bad
        with pytest.raises(ValueError, match="rows in range"):
            _kernels.pair_dual_passes(
                Z, codes.astype(np.intp), good["alpha"], good["weights"], order,
                1.0, 5, 0, 0.1,
            )  # fmt: skip
        with pytest.raises(ValueError, match="rows in range"):
            _kernels.margin_dual_passes(
                Z @ Z.T, np.where(codes == 0, 1.0, -1.0), np.zeros(n), np.zeros(n),
                order, 5, 0,
            )  # fmt: skip
    with pytest.raises(ValueError, match="classes in range"):
        _kernels.pair_dual_passes(
            Z, codes.astype(np.intp) + 1, *good.values(), 1.0, 5, 0, 0.1
        )
    S = sp.csr_matrix(Z)
    with pytest.raises(ValueError, match="beyond the weights' width"):
        _kernels.sparse_pair_dual_passes(
            S.data, S.indices.astype(np.intp) + 1, S.indptr.astype(np.intp),
            codes.astype(np.intp), *good.values(), 1.0, 5, 0, 0.1,
        )  # fmt: skip


def test_the_pairs_passes_on_rows_without_features_move_the_intercepts_only():
    """q = 0 (BLAS writes nothing where a product has no rows): the dense rows
    give the CSR rows' intercepts and those of a column of zeros."""
    codes = np.array([0, 0, 0, 1, 1, 1])
    n = len(codes)
    _ = [np.full(6, 1e300) for _ in range(50)]  # dirty memory for the scores
    empty, _, _ = _pair_dual(np.zeros((n, 0)), codes, 3, bound=1e3, passes=500)
    sparse, _, _ = _pair_dual(sp.csr_matrix((n, 0)), codes, 3, bound=1e3, passes=500)
    zeros, weights, _ = _pair_dual(np.zeros((n, 1)), codes, 3, bound=1e3, passes=500)
    np.testing.assert_array_equal(empty, sparse)
    np.testing.assert_array_equal(empty, zeros)
    np.testing.assert_allclose(weights[:, 0], 0.0)
    assert np.all(np.isfinite(empty))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("width", [6, 300])  # narrow, and vectorised rows
def test_class_summaries_are_numpys_of_each_class_rows(dtype, weighted, width):
    """Counts, sums (the same bits as numpy's sum over axis 0), extremes; rows of
    weight 0 left out, a class without rows at -inf / inf; no columns: counts."""
    rng = np.random.default_rng(7)
    scales = 10.0 ** rng.integers(-3, 4, width)
    X = (rng.normal(size=(5_000, width)) * scales).astype(dtype)
    X[11, 0], X[12, -1] = np.inf, -np.inf  # extremes, and sums, of inf
    codes = rng.integers(0, 3, 5_000).astype(np.intp)  # class 3 has no rows
    weights = np.where(rng.random(5_000) < 0.3, 0.0, 1.5) if weighted else None
    K, p = 4, X.shape[1]
    counts, sums = np.empty(K), np.empty((K, p))
    high, low = np.empty((K, p)), np.empty((K, p))
    _kernels.class_summaries(X, codes, np.zeros(0) if weights is None else weights,
                             counts, sums, high, low)  # fmt: skip
    active = np.ones(len(codes), bool) if weights is None else weights > 0
    for k in range(3):
        rows = X[active & (codes == k)].astype(np.float64)
        assert counts[k] == len(rows)
        np.testing.assert_array_equal(sums[k], rows.sum(axis=0))
        np.testing.assert_array_equal(high[k], rows.max(axis=0))
        np.testing.assert_array_equal(low[k], rows.min(axis=0))
    assert counts[3] == 0 and np.all(sums[3] == 0)
    assert np.all(high[3] == -np.inf) and np.all(low[3] == np.inf)
    none = np.empty((K, 0))
    _kernels.class_summaries(X[:, :0], codes, np.zeros(0), counts, none, none, none)
    np.testing.assert_array_equal(counts, np.bincount(codes, minlength=K))
    with pytest.raises(ValueError, match=r"\[0, K\)"):
        _kernels.class_summaries(X, codes + 1, np.zeros(0), counts[:3], sums, high, low)
    with pytest.raises(ValueError, match="one entry per row"):
        _kernels.class_summaries(X, codes[:10], np.zeros(0), counts, sums, high, low)
    with pytest.raises(ValueError, match="a row per class"):
        _kernels.class_summaries(X, codes, np.zeros(0), counts, sums[:2], high, low)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("width", [9, 300])  # narrow, and vectorised rows
def test_column_extremes_are_numpys_max_and_min(dtype, width):
    """One pass over X: numpy's max and min over axis 0, a NaN winning (first
    or last, beside infinities); no rows: -inf and inf; the public helper keeps
    numpy's refusal of no rows."""
    from sklearn_linsep._proofs import column_extremes

    rng = np.random.default_rng(3)
    scales = 10.0 ** rng.integers(-5, 6, width)
    X = (rng.normal(size=(2_000, width)) * scales).astype(dtype)
    X[7, 4] = X[1_999, 8] = X[0, 5] = np.nan
    X[3, 5], X[9, 4], X[4, 2] = np.inf, -np.inf, np.inf
    high, low = np.empty(width), np.empty(width)
    _kernels.column_extremes(X, high, low)
    np.testing.assert_array_equal(high, X.max(axis=0).astype(float))
    np.testing.assert_array_equal(low, X.min(axis=0).astype(float))
    _kernels.column_extremes(X[:0], high, low)
    assert np.all(high == -np.inf) and np.all(low == np.inf)
    with pytest.raises(ValueError, match="one entry per column"):
        _kernels.column_extremes(X, high[:3], low)
    for layout in (X, np.asfortranarray(X), sp.csr_matrix(np.nan_to_num(X))):
        got_high, got_low = column_extremes(layout)
        want = np.nan_to_num(X) if sp.issparse(layout) else X
        np.testing.assert_array_equal(got_high, want.max(axis=0).astype(float))
        np.testing.assert_array_equal(got_low, want.min(axis=0).astype(float))
    with pytest.raises(ValueError):
        column_extremes(X[:0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_outside_weights_are_the_weight_outside_each_closed_interval(dtype):
    from sklearn_linsep._complexity import outside_weights

    rng = np.random.default_rng(4)
    X = rng.integers(-3, 4, size=(3_000, 5)).astype(dtype)  # values on the bounds
    X[10, 3] = np.nan  # in no outside
    w = rng.uniform(0, 2, 3_000)
    low, high = np.array([-1.0, 0, -3, 2, 5]), np.array([1.0, 0, 3, 1, 6])
    out = np.empty(5)
    _kernels.outside_weights(X, w, low, high, out)
    expected = w @ ((X < low) | (X > high))
    np.testing.assert_allclose(out, expected, rtol=1e-13)
    np.testing.assert_allclose(outside_weights(X, w, low, high), expected, rtol=1e-13)
    np.testing.assert_allclose(
        outside_weights(sp.csr_matrix(np.nan_to_num(X)), w, low, high),
        w @ ((np.nan_to_num(X) < low) | (np.nan_to_num(X) > high)), rtol=1e-13,
    )
    with pytest.raises(ValueError, match="one entry per row"):
        _kernels.outside_weights(X, w[:5], low, high, out)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("width", [0, 3, 4, 257])  # no column, a remainder, quads
def test_centred_scores_are_the_float64_products_of_the_centred_rows(dtype, width):
    """(x - centre) · coef + intercept in float64 with float32 rows widened: to
    the rounding of the centred products, far from the origin too; the scores of
    ScaledRows, whose Fortran-ordered X numpy's chunks score alike."""
    from sklearn_linsep._rows._memory_two_class import ScaledRows

    rng = np.random.default_rng(11)
    X = (1e4 + rng.normal(size=(700, width))).astype(dtype)
    centre, coef = X.astype(np.float64).mean(axis=0), rng.normal(size=width)
    out = np.empty(700)
    _kernels.centred_scores(X, centre, coef, 0.25, out)
    centred = X.astype(np.float64) - centre
    size = np.abs(centred) @ np.abs(coef) + 0.25
    np.testing.assert_array_less(np.abs(out - (centred @ coef + 0.25)), 1e-14 * size)
    c = np.where(np.arange(700) % 2, 1.0, -1.0)
    for layout in (X, np.asfortranarray(X)) if width else ():
        rows = ScaledRows(layout, c)  # each layout with the centre it finds
        weights = coef / rows.scale
        centred = X.astype(np.float64) - rows.centre
        size = np.abs(centred) @ np.abs(weights) + 0.5
        want = centred @ weights + 0.5
        np.testing.assert_array_less(np.abs(rows.scores(coef, 0.5) - want), 1e-14 * size)
    with pytest.raises(ValueError, match="one entry per row"):
        _kernels.centred_scores(X, centre, coef, 0.0, out[:5])
    with pytest.raises(ValueError, match="one entry per column"):
        _kernels.centred_scores(np.ones((3, 5), dtype), centre[:2], coef[:2], 0.0,
                                out[:3])  # fmt: skip
