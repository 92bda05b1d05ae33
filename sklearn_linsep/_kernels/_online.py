"""Epochs of the perceptron family: Rosenblatt's rule, Gallant's pocket, Widrow-Hoff.

A learner holds one weight row per one-vs-rest task, ``W`` of shape (K, p + 1), the
last column multiplying the constant ``bias`` (1.0 with an intercept, else 0.0); a
single task may come as the row itself, of shape (p + 1,), which compiles into a
faster loop (see ``_rows``). Task k's target is ``c = +1`` where
``codes[i] == first_class + k`` and ``-1`` elsewhere: two classes are one task with
``first_class = 1``.

The kernels take their arguments in named records (``_records``: ``Samples``,
``Rates``, ``Pocket``, ``Average``): namedtuples, which numba compiles field by field
and caches on disk like plain arrays. A record's arrays are mutable, so the kernels
update the state in place.
"""

from ._jit import kernel
from ._records import RATE_CONSTANT, RATE_HYPERBOLIC, RATE_INVSCALING
from ._rows import row_axpy, row_dot, row_dot_pair, row_of, task_count


@kernel(inline="always")
def _visits(order, n_samples):
    """The number of samples an epoch visits in ``order``."""
    return order.shape[0] if order.shape[0] else n_samples


@kernel(inline="always")
def _sample(order, position):
    """The sample visited at ``position``: ``order[position]``, or ``position``
    itself for :data:`STORED_ORDER`."""
    return order[position] if order.shape[0] else position


@kernel(inline="always")
def rate(rates, k, t):
    """The rate of task ``k``'s update ``t`` (see :class:`Rates`)."""
    kind = rates.kind
    if kind == RATE_CONSTANT:
        value = rates.eta0
    elif kind == RATE_HYPERBOLIC:
        value = rates.a / (rates.b + t)
    elif kind == RATE_INVSCALING:
        value = rates.eta0 / (t + 1.0) ** rates.power_t
    else:
        row = k if rates.table.shape[0] > 1 else 0
        value = rates.table[row, t - rates.starts[row]]
    return value * rates.scale


@kernel
def weighted_correct(samples, W, k):
    """Total weight of the samples that row ``W[k]`` classifies as ``predict`` does
    (a score > 0 means the positive class, a score of 0 the negative one)."""
    rows, codes, first_class, sample_weight, bias = samples
    total = 0.0
    for i in range(codes.shape[0]):
        positive = codes[i] == first_class + k
        if (row_dot(rows, i, W, k, bias) > 0.0) == positive:
            total += sample_weight[i]
    return total


@kernel
def beats_pocket(samples, W, k, to_beat, total):
    """``(rows scanned, correct weight, better)`` for the weights ``W[k]``.

    ``better`` means a correctly classified weight strictly above ``to_beat``; the
    scan stops as soon as the misclassified weight exceeds ``total - to_beat``,
    when the answer is known to be no.
    """
    rows, codes, first_class, sample_weight, bias = samples
    correct = 0.0
    allowed_wrong = total - to_beat
    wrong = 0.0
    n = codes.shape[0]
    for i in range(n):
        positive = codes[i] == first_class + k
        if (row_dot(rows, i, W, k, bias) > 0.0) == positive:
            correct += sample_weight[i]
        else:
            wrong += sample_weight[i]
            if wrong > allowed_wrong:
                return i + 1, correct, False
    return n, correct, correct > to_beat


@kernel
def perceptron_epoch(
    samples, order, W, rates, updates, mistakes, loss, pocket, average
):
    """One pass of Rosenblatt's rule over ``order`` (:data:`STORED_ORDER`: in the
    stored order), with Gallant's pocket unless ``pocket`` is None, and the
    averaged weights unless ``average`` is None.

    For each sample i (in the given order) and task k, a mistake ``c·W[k]·x̃_i ≤ 0``
    of positive weight ``s_i`` gives ``W[k] += η_t s_i c x̃_i`` and ``updates[k] += 1``;
    ``mistakes[k]`` and ``loss[k]`` (set to 0 here) count them and sum the
    perceptron criterion ``s_i max(0, -c W[k]·x̃_i)`` met before each update. A score
    that is not a number (``inf - inf``) counts as a mistake, so that it surfaces in
    the weights.

    The pocket in Gallant's efficient form: when the run of ``W[k]`` exceeds the
    pocket's run, the candidate ``W[k]`` (once a run: ``checked``) is scored on the
    whole training set by :func:`beats_pocket` and replaces the pocket if it
    classifies a strictly larger weight of samples correctly. While ``W[k]`` is the
    pocket (``is_pocket``) its run is the pocket's run.

    Scoring costs a pass over the data; ``pocket.budget[0]`` is the number of rows
    the epoch may still scan. Once it is spent, candidates are not scored at once:
    the one whose run was longest (and longer than the pocket's) is kept in
    ``pocket.snapshot`` and :func:`pocket_end_of_epoch` makes it the candidate scored
    during the next epoch (``evaluating``), in the same pass as the updates: one
    more dot product per sample, no extra read of X.
    """
    rows, codes, first_class, sample_weight, bias = samples
    n_samples, n_tasks = codes.shape[0], task_count(W)
    if pocket is not None:
        # The fields are read once, here: a field read inside the loop costs a
        # reference count each time (measured: 5 times the epoch).
        total = 0.0
        for i in range(n_samples):
            total += sample_weight[i]
        candidate = pocket.candidate
        candidate_correct = pocket.candidate_correct
        run = pocket.run
        pocket_run = pocket.pocket_run
        snapshot_run = pocket.snapshot_run
        evaluating = pocket.evaluating
        kept = pocket.kept
        checked = pocket.checked
        is_pocket = pocket.is_pocket
        budget = pocket.budget
    if average is not None:
        correction, seen, start = average
    for k in range(n_tasks):
        mistakes[k] = 0
        loss[k] = 0.0
    for position in range(_visits(order, codes.shape[0])):
        i = _sample(order, position)
        weight = sample_weight[i]
        if weight == 0.0:
            continue
        if average is not None:
            seen[0] += 1
            averaged = seen[0] - start  # τ - 1 of this sample
        for k in range(n_tasks):
            target = 1.0 if codes[i] == first_class + k else -1.0
            if pocket is not None and evaluating[k]:
                score, candidate_score = row_dot_pair(rows, i, W, candidate, k, bias)
                if (candidate_score > 0.0) == (target > 0.0):
                    candidate_correct[k] += weight
            else:
                score = row_dot(rows, i, W, k, bias)
            if not target * score > 0.0:
                if pocket is not None:  # the run ends: keep it if the longest
                    if _run_is_longest(
                        run[k], pocket_run[k], snapshot_run[k], checked[k],
                        is_pocket[k], kept[k],
                    ):  # fmt: skip
                        _snapshot(W, k, pocket)
                    run[k] = 0
                    kept[k] = False
                    checked[k] = False
                    is_pocket[k] = False
                step = rate(rates, k, updates[k]) * weight * target
                row_axpy(rows, i, step, W, k, bias)
                if average is not None and averaged > 0:
                    row_axpy(rows, i, averaged * step, correction, k, bias)
                updates[k] += 1
                mistakes[k] += 1
                loss[k] -= weight * target * score
            elif pocket is not None:
                run[k] += 1
                if is_pocket[k]:
                    pocket_run[k] = max(pocket_run[k], run[k])
                elif (
                    run[k] > pocket_run[k] and not checked[k] and budget[0] >= n_samples
                ):
                    _score_at_once(samples, W, k, pocket, total)


@kernel(inline="always")
def _copy_row(source, target):
    """``target[:] = source`` for rows of one length. (An array assigned to a slice
    compiles numba's formatted shape-mismatch message: 3 s of a cold first fit.)"""
    for j in range(source.shape[0]):
        target[j] = source[j]


@kernel
def _score_at_once(samples, W, k, pocket, total):
    """Score ``W[k]``, whose run beats the pocket's, on every sample; it becomes
    the pocket if it classifies a strictly larger weight correctly."""
    pocket.checked[k] = True
    scanned, correct, better = beats_pocket(samples, W, k, pocket.correct[k], total)
    pocket.budget[0] -= scanned
    if better:
        _copy_row(row_of(W, k), pocket.weights[k])
        pocket.correct[k] = correct
        pocket.pocket_run[k] = pocket.run[k]
        pocket.is_pocket[k] = True


@kernel(inline="always")
def _run_is_longest(run, pocket_run, snapshot_run, checked, is_pocket, kept):
    """Whether the run of ``W[k]`` that ends now is kept for scoring in the next
    epoch: not scored, longer than the pocket's and than the longest kept this
    epoch, and not kept yet. (Scalars: the array arguments of a function inlined
    into the epoch's loop cost reference counts at every call, which made the
    pocket's epoch 60% slower.)"""
    return (
        run > pocket_run
        and run > snapshot_run
        and not checked
        and not is_pocket
        and not kept
    )


@kernel(inline="always")
def _snapshot(W, k, pocket):
    """Keep ``W[k]`` and its run for scoring in the next epoch."""
    _copy_row(row_of(W, k), pocket.snapshot[k])
    pocket.snapshot_run[k] = pocket.run[k]
    pocket.kept[k] = True


@kernel
def pocket_end_of_epoch(W, pocket):
    """The ratchet for the candidate scored during the epoch, and the choice of the
    next epoch's candidate (see :func:`perceptron_epoch`).

    Per task: the candidate just scored replaces the pocket if it classified a
    strictly larger weight of samples correctly; the current run is considered
    for keeping; the kept weights, if their run beats the pocket's, become the
    candidate of the next epoch.
    """
    for k in range(task_count(W)):
        if pocket.evaluating[k] and pocket.candidate_correct[k] > pocket.correct[k]:
            _copy_row(pocket.candidate[k], pocket.weights[k])
            pocket.correct[k] = pocket.candidate_correct[k]
            pocket.pocket_run[k] = max(pocket.pocket_run[k], pocket.evaluating[k])
        if _run_is_longest(
            pocket.run[k], pocket.pocket_run[k], pocket.snapshot_run[k],
            pocket.checked[k], pocket.is_pocket[k], pocket.kept[k],
        ):  # fmt: skip
            _snapshot(W, k, pocket)
        if pocket.snapshot_run[k] > pocket.pocket_run[k]:
            _copy_row(pocket.snapshot[k], pocket.candidate[k])
            # > 0, and the candidate's run, for the ratchet
            pocket.evaluating[k] = pocket.snapshot_run[k]
        else:
            pocket.evaluating[k] = 0
        pocket.snapshot_run[k] = 0
        pocket.candidate_correct[k] = 0.0


@kernel
def lms_epoch(samples, order, W, rates, t_start, limit, loss):
    """One pass of the Widrow-Hoff rule ``W[k] += δ_t s_i (c - W[k]·x̃_i) x̃_i`` over
    ``order`` (:data:`STORED_ORDER`: in the stored order).

    ``t`` counts samples from ``t_start``. ``loss[k]`` receives the weighted sum of
    the squared residuals met before each update. Returns ``False`` as soon as a
    residual is not finite or exceeds ``limit`` in size (the rate diverges; the
    caller rolls back), else ``True``.
    """
    rows, codes, first_class, sample_weight, bias = samples
    n_tasks = task_count(W)
    for k in range(n_tasks):
        loss[k] = 0.0
    t = t_start
    for position in range(_visits(order, codes.shape[0])):
        i = _sample(order, position)
        weight = sample_weight[i]
        if weight == 0.0:
            continue
        step_rate = rate(rates, 0, t)
        t += 1
        for k in range(n_tasks):
            target = 1.0 if codes[i] == first_class + k else -1.0
            residual = target - row_dot(rows, i, W, k, bias)
            if not abs(residual) <= limit:
                return False
            loss[k] += weight * residual * residual
            row_axpy(rows, i, step_rate * weight * residual, W, k, bias)
    return True
