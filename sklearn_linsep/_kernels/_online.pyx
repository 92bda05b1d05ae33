# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Epochs of the perceptron family: Rosenblatt's rule, Gallant's pocket, Widrow-Hoff.

A learner holds one weight row per one-vs-rest task, ``W`` of shape (K, p + 1), the
last column multiplying the constant ``bias`` (1.0 with an intercept, else 0.0); a
single task may come as the row itself, of shape (p + 1,). Task k's target is
``c = +1`` where ``codes[i] == first_class + k`` and ``-1`` elsewhere: two classes
are one task with ``first_class = 1``.

The kernels take their arguments in named records (``_records``: ``Samples``,
``Rates``, ``Pocket``, ``Average``), read once on entry into C structs of pointers;
a record's arrays are updated in place. The loops run without the GIL.

A row of X is dense (``rows = (X,)``, C-ordered) or CSR (``rows = (data, indices,
indptr)``), float32 or float64, with 32- or 64-bit indices: each combination is a
struct of the fused type ``rows_t``, so every loop below is compiled once per kind
of row, with no test of the kind inside it (a runtime ``if sparse`` per entry made
numba's dense epoch 6-8 times slower). Every product is accumulated in double
precision, in the order the rule is written (``W[k, p]·bias`` first, then the
entries in storage order): with ``-ffp-contract=off`` the numbers are those of the
former numba kernels, bit for bit.
"""

from libc.math cimport pow
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.string cimport memcpy, memset

import numpy as np

from ._records import RATE_CONSTANT, RATE_HYPERBOLIC, RATE_INVSCALING


# ------------------------------------------------------------------ rows of X

cdef struct Dense32:
    const float *X
    Py_ssize_t p

cdef struct Dense64:
    const double *X
    Py_ssize_t p

cdef struct Csr32:  # float32 data, int32 indices
    const float *data
    const int32_t *indices
    const int32_t *indptr

cdef struct Csr32Long:  # float32 data, int64 indices
    const float *data
    const int64_t *indices
    const int64_t *indptr

cdef struct Csr64:  # float64 data, int32 indices
    const double *data
    const int32_t *indices
    const int32_t *indptr

cdef struct Csr64Long:  # float64 data, int64 indices
    const double *data
    const int64_t *indices
    const int64_t *indptr

ctypedef fused rows_t:
    Dense32
    Dense64
    Csr32
    Csr32Long
    Csr64
    Csr64Long


cdef inline double row_dot(
    const rows_t *rows, Py_ssize_t i, const double *w, Py_ssize_t p, double bias
) noexcept nogil:
    """``w · (x_i, bias)`` for a weight row w of length p + 1."""
    cdef double total = w[p] * bias
    cdef Py_ssize_t j
    if rows_t is Dense32 or rows_t is Dense64:
        for j in range(p):
            total += w[j] * rows.X[i * p + j]
    else:
        for j in range(rows.indptr[i], rows.indptr[i + 1]):
            total += w[rows.indices[j]] * rows.data[j]
    return total


cdef inline void row_dot_pair(
    const rows_t *rows, Py_ssize_t i, const double *w, const double *v, Py_ssize_t p,
    double bias, double *first, double *second,
) noexcept nogil:
    """``(w · x̃_i, v · x̃_i)`` in one loop over the row."""
    cdef double a = w[p] * bias
    cdef double b = v[p] * bias
    cdef Py_ssize_t j
    if rows_t is Dense32 or rows_t is Dense64:
        for j in range(p):
            a += w[j] * rows.X[i * p + j]
            b += v[j] * rows.X[i * p + j]
    else:
        for j in range(rows.indptr[i], rows.indptr[i + 1]):
            a += w[rows.indices[j]] * rows.data[j]
            b += v[rows.indices[j]] * rows.data[j]
    first[0] = a
    second[0] = b


cdef inline void row_axpy(
    const rows_t *rows, Py_ssize_t i, double step, double *w, Py_ssize_t p,
    double bias,
) noexcept nogil:
    """``w += step · (x_i, bias)``."""
    cdef Py_ssize_t j
    w[p] += step * bias
    if rows_t is Dense32 or rows_t is Dense64:
        for j in range(p):
            w[j] += step * rows.X[i * p + j]
    else:
        for j in range(rows.indptr[i], rows.indptr[i + 1]):
            w[rows.indices[j]] += step * rows.data[j]


# ------------------------------------------------------- the records, as structs

cdef struct Problem:
    const Py_ssize_t *codes
    const double *sample_weight
    Py_ssize_t n_samples
    Py_ssize_t first_class
    double bias
    Py_ssize_t p  # W's rows hold p + 1 weights
    const int64_t *order  # NULL: the stored order
    Py_ssize_t n_order

cdef struct Schedule:
    int kind
    double eta0, a, b, power_t, scale
    const double *table
    Py_ssize_t table_rows, table_width
    const int64_t *starts

cdef struct PocketState:
    double *weights
    double *candidate
    double *snapshot
    double *correct
    double *candidate_correct
    int64_t *run
    int64_t *pocket_run
    int64_t *snapshot_run
    int64_t *evaluating
    uint8_t *kept
    uint8_t *checked
    uint8_t *is_pocket
    int64_t *budget

cdef struct AverageState:
    double *correction
    int64_t *seen
    int64_t start

cdef int _CONSTANT = RATE_CONSTANT
cdef int _HYPERBOLIC = RATE_HYPERBOLIC
cdef int _INVSCALING = RATE_INVSCALING


cdef inline double rate(const Schedule *rates, Py_ssize_t k, int64_t t) noexcept nogil:
    """The rate of task ``k``'s update ``t`` (see :class:`Rates`)."""
    cdef double value
    cdef Py_ssize_t row
    if rates.kind == _CONSTANT:
        value = rates.eta0
    elif rates.kind == _HYPERBOLIC:
        value = rates.a / (rates.b + <double>t)
    elif rates.kind == _INVSCALING:
        value = rates.eta0 / pow(<double>t + 1.0, rates.power_t)
    else:
        row = k if rates.table_rows > 1 else 0
        value = rates.table[row * rates.table_width + (t - rates.starts[row])]
    return value * rates.scale


cdef PocketState _pocket_state(
    double[:, ::1] weights, double[:, ::1] candidate, double[:, ::1] snapshot,
    double[::1] correct, double[::1] candidate_correct, int64_t[::1] run,
    int64_t[::1] pocket_run, int64_t[::1] snapshot_run, int64_t[::1] evaluating,
    uint8_t[::1] kept, uint8_t[::1] checked, uint8_t[::1] is_pocket,
    int64_t[::1] budget,
) noexcept:
    cdef PocketState state
    state.weights = &weights[0, 0]
    state.candidate = &candidate[0, 0]
    state.snapshot = &snapshot[0, 0]
    state.correct = &correct[0]
    state.candidate_correct = &candidate_correct[0]
    state.run = &run[0]
    state.pocket_run = &pocket_run[0]
    state.snapshot_run = &snapshot_run[0]
    state.evaluating = &evaluating[0]
    state.kept = &kept[0]
    state.checked = &checked[0]
    state.is_pocket = &is_pocket[0]
    state.budget = &budget[0]
    return state


cdef PocketState _read_pocket(pocket):
    """The pocket record's arrays (booleans read as bytes, in place)."""
    return _pocket_state(
        pocket.weights, pocket.candidate, pocket.snapshot, pocket.correct,
        pocket.candidate_correct, pocket.run, pocket.pocket_run, pocket.snapshot_run,
        pocket.evaluating, pocket.kept.view(np.uint8), pocket.checked.view(np.uint8),
        pocket.is_pocket.view(np.uint8), pocket.budget,
    )


# ------------------------------------------------------------------ the kernels

cdef inline Py_ssize_t _sample(const Problem *problem, Py_ssize_t position) noexcept nogil:
    """The sample visited at ``position``: ``order[position]``, or ``position``
    itself for :data:`STORED_ORDER`."""
    return problem.order[position] if problem.n_order else position


cdef inline Py_ssize_t _visits(const Problem *problem) noexcept nogil:
    return problem.n_order if problem.n_order else problem.n_samples


cdef double _weighted_correct(const rows_t *rows, const Problem *problem,
                              const double *w, Py_ssize_t k) noexcept nogil:
    cdef double total = 0.0
    cdef Py_ssize_t i
    cdef bint positive
    for i in range(problem.n_samples):
        positive = problem.codes[i] == problem.first_class + k
        if (row_dot(rows, i, w, problem.p, problem.bias) > 0.0) == positive:
            total += problem.sample_weight[i]
    return total


cdef Py_ssize_t _beats_pocket(
    const rows_t *rows, const Problem *problem, const double *w, Py_ssize_t k,
    double to_beat, double total, double *correct_out, bint *better,
) noexcept nogil:
    """Rows scanned; the correct weight and whether it beats ``to_beat`` (see
    :func:`beats_pocket`)."""
    cdef double correct = 0.0
    cdef double allowed_wrong = total - to_beat
    cdef double wrong = 0.0
    cdef Py_ssize_t i, n = problem.n_samples
    cdef bint positive
    for i in range(n):
        positive = problem.codes[i] == problem.first_class + k
        if (row_dot(rows, i, w, problem.p, problem.bias) > 0.0) == positive:
            correct += problem.sample_weight[i]
        else:
            wrong += problem.sample_weight[i]
            if wrong > allowed_wrong:
                correct_out[0] = correct
                better[0] = False
                return i + 1
    correct_out[0] = correct
    better[0] = correct > to_beat
    return n


cdef inline bint _run_is_longest(
    int64_t run, int64_t pocket_run, int64_t snapshot_run, bint checked,
    bint is_pocket, bint kept,
) noexcept nogil:
    """Whether the run of ``W[k]`` that ends now is kept for scoring in the next
    epoch: not scored, longer than the pocket's and than the longest kept this
    epoch, and not kept yet."""
    return (
        run > pocket_run
        and run > snapshot_run
        and not checked
        and not is_pocket
        and not kept
    )


cdef inline void _copy_row(const double *source, double *target,
                           Py_ssize_t width) noexcept nogil:
    memcpy(target, source, width * sizeof(double))


cdef inline void _snapshot(const double *w, Py_ssize_t k, PocketState *pocket,
                           Py_ssize_t width) noexcept nogil:
    """Keep ``W[k]`` and its run for scoring in the next epoch."""
    _copy_row(w, pocket.snapshot + k * width, width)
    pocket.snapshot_run[k] = pocket.run[k]
    pocket.kept[k] = True


cdef void _score_at_once(
    const rows_t *rows, const Problem *problem, const double *w, Py_ssize_t k,
    PocketState *pocket, double total,
) noexcept nogil:
    """Score ``W[k]``, whose run beats the pocket's, on every sample; it becomes
    the pocket if it classifies a strictly larger weight correctly."""
    cdef double correct
    cdef bint better
    cdef Py_ssize_t width = problem.p + 1
    pocket.checked[k] = True
    pocket.budget[0] -= _beats_pocket(
        rows, problem, w, k, pocket.correct[k], total, &correct, &better
    )
    if better:
        _copy_row(w, pocket.weights + k * width, width)
        pocket.correct[k] = correct
        pocket.pocket_run[k] = pocket.run[k]
        pocket.is_pocket[k] = True


cdef void _perceptron_epoch(
    const rows_t *rows, const Problem *problem, double *W, Py_ssize_t n_tasks,
    const Schedule *rates, int64_t *updates, int64_t *mistakes, double *loss,
    PocketState *pocket, AverageState *average,
) noexcept nogil:
    """See :func:`perceptron_epoch`; ``pocket`` and ``average`` may be NULL."""
    cdef Py_ssize_t p = problem.p, width = problem.p + 1
    cdef Py_ssize_t n_samples = problem.n_samples
    cdef Py_ssize_t position, i, k
    cdef double total = 0.0, weight, target, score, candidate_score, step
    cdef double bias = problem.bias
    cdef int64_t averaged = 0
    cdef double *w
    if pocket != NULL:
        for i in range(n_samples):
            total += problem.sample_weight[i]
    for k in range(n_tasks):
        mistakes[k] = 0
        loss[k] = 0.0
    for position in range(_visits(problem)):
        i = _sample(problem, position)
        weight = problem.sample_weight[i]
        if weight == 0.0:
            continue
        if average != NULL:
            average.seen[0] += 1
            averaged = average.seen[0] - average.start  # τ - 1 of this sample
        for k in range(n_tasks):
            w = W + k * width
            target = 1.0 if problem.codes[i] == problem.first_class + k else -1.0
            if pocket != NULL and pocket.evaluating[k]:
                row_dot_pair(rows, i, w, pocket.candidate + k * width, p, bias,
                             &score, &candidate_score)
                if (candidate_score > 0.0) == (target > 0.0):
                    pocket.candidate_correct[k] += weight
            else:
                score = row_dot(rows, i, w, p, bias)
            # A score that is not a number (inf - inf) counts as a mistake.
            if not (target * score > 0.0):
                if pocket != NULL:  # the run ends: keep it if the longest
                    if _run_is_longest(
                        pocket.run[k], pocket.pocket_run[k], pocket.snapshot_run[k],
                        pocket.checked[k], pocket.is_pocket[k], pocket.kept[k],
                    ):
                        _snapshot(w, k, pocket, width)
                    pocket.run[k] = 0
                    pocket.kept[k] = False
                    pocket.checked[k] = False
                    pocket.is_pocket[k] = False
                step = rate(rates, k, updates[k]) * weight * target
                row_axpy(rows, i, step, w, p, bias)
                if average != NULL and averaged > 0:
                    row_axpy(rows, i, <double>averaged * step,
                             average.correction + k * width, p, bias)
                updates[k] += 1
                mistakes[k] += 1
                loss[k] -= weight * target * score
            elif pocket != NULL:
                pocket.run[k] += 1
                if pocket.is_pocket[k]:
                    if pocket.run[k] > pocket.pocket_run[k]:
                        pocket.pocket_run[k] = pocket.run[k]
                elif (
                    pocket.run[k] > pocket.pocket_run[k]
                    and not pocket.checked[k]
                    and pocket.budget[0] >= n_samples
                ):
                    _score_at_once(rows, problem, w, k, pocket, total)


cdef bint _lms_epoch(
    const rows_t *rows, const Problem *problem, double *W, Py_ssize_t n_tasks,
    const Schedule *rates, int64_t t, double limit, double *loss,
) noexcept nogil:
    """See :func:`lms_epoch`."""
    cdef Py_ssize_t p = problem.p, width = problem.p + 1
    cdef Py_ssize_t position, i, k
    cdef double weight, step_rate, target, residual
    for k in range(n_tasks):
        loss[k] = 0.0
    for position in range(_visits(problem)):
        i = _sample(problem, position)
        weight = problem.sample_weight[i]
        if weight == 0.0:
            continue
        step_rate = rate(rates, 0, t)
        t += 1
        for k in range(n_tasks):
            target = 1.0 if problem.codes[i] == problem.first_class + k else -1.0
            residual = target - row_dot(rows, i, W + k * width, p, problem.bias)
            if not (abs(residual) <= limit):
                return False
            loss[k] += weight * residual * residual
            row_axpy(rows, i, step_rate * weight * residual, W + k * width, p,
                     problem.bias)
    return True


# ------------------------------------------------------- from Python, per kind

cdef enum RowKind:
    DENSE32, DENSE64, CSR32, CSR32_LONG, CSR64, CSR64_LONG


cdef struct AnyRows:
    RowKind kind
    Dense32 dense32
    Dense64 dense64
    Csr32 csr32
    Csr32Long csr32_long
    Csr64 csr64
    Csr64Long csr64_long


def _arrays_of(rows):
    """``rows`` with a CSR matrix's index arrays in one dtype (int32 when both
    are, else int64), so that its struct can hold them."""
    if len(rows) == 1:
        return rows
    data, indices, indptr = rows
    if indices.dtype == np.int32 and indptr.dtype == np.int32:
        return rows
    return (data, np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64))


cdef AnyRows _dense_rows(X) except *:
    cdef AnyRows any_rows
    memset(&any_rows, 0, sizeof(AnyRows))  # (the other kinds' members unused)
    cdef const float[:, ::1] X32
    cdef const double[:, ::1] X64
    if X.dtype == np.float32:
        X32 = X
        any_rows.kind = DENSE32
        any_rows.dense32.X = &X32[0, 0]
        any_rows.dense32.p = X32.shape[1]
    else:
        X64 = X
        any_rows.kind = DENSE64
        any_rows.dense64.X = &X64[0, 0]
        any_rows.dense64.p = X64.shape[1]
    return any_rows


cdef AnyRows _csr_rows(data, indices, indptr) except *:
    cdef AnyRows any_rows
    memset(&any_rows, 0, sizeof(AnyRows))
    cdef const float[::1] data32
    cdef const double[::1] data64
    cdef const int32_t[::1] indices32, indptr32
    cdef const int64_t[::1] indices64, indptr64
    cdef bint narrow = indices.dtype == np.int32
    if narrow:
        indices32, indptr32 = indices, indptr
    else:
        indices64, indptr64 = indices, indptr
    if data.dtype == np.float32:
        data32 = data
        if narrow:
            any_rows.kind = CSR32
            any_rows.csr32 = Csr32(&data32[0], &indices32[0], &indptr32[0])
        else:
            any_rows.kind = CSR32_LONG
            any_rows.csr32_long = Csr32Long(&data32[0], &indices64[0], &indptr64[0])
    else:
        data64 = data
        if narrow:
            any_rows.kind = CSR64
            any_rows.csr64 = Csr64(&data64[0], &indices32[0], &indptr32[0])
        else:
            any_rows.kind = CSR64_LONG
            any_rows.csr64_long = Csr64Long(&data64[0], &indices64[0], &indptr64[0])
    return any_rows


cdef AnyRows _read_rows(arrays) except *:
    """The struct of ``arrays`` (from :func:`_arrays_of`, kept alive by the
    caller for the duration of the call)."""
    if len(arrays) == 1:
        return _dense_rows(arrays[0])
    return _csr_rows(arrays[0], arrays[1], arrays[2])


cdef Problem _read_problem(samples, Py_ssize_t p, order) except *:
    cdef const Py_ssize_t[::1] codes = samples.codes
    cdef const double[::1] sample_weight = samples.weight
    cdef const int64_t[::1] order_view = order
    cdef Problem problem
    problem.codes = &codes[0]
    problem.sample_weight = &sample_weight[0]
    problem.n_samples = codes.shape[0]
    problem.first_class = samples.first_class
    problem.bias = samples.bias
    problem.p = p
    problem.order = &order_view[0] if order_view.shape[0] else NULL
    problem.n_order = order_view.shape[0]
    return problem


cdef Schedule _read_rates(rates) except *:
    cdef const double[:, ::1] table = rates.table
    cdef const int64_t[::1] starts = rates.starts
    cdef Schedule schedule
    schedule.kind = rates.kind
    schedule.eta0 = rates.eta0
    schedule.a = rates.a
    schedule.b = rates.b
    schedule.power_t = rates.power_t
    schedule.scale = rates.scale
    schedule.table = &table[0, 0]
    schedule.table_rows = table.shape[0]
    schedule.table_width = table.shape[1]
    schedule.starts = &starts[0]
    return schedule


cdef double *_row_pointer(W) except NULL:
    """The first weight of ``W`` (one row or (K, p + 1), C-ordered, float64)."""
    cdef double[:, ::1] weights = W.reshape(1, -1) if W.ndim == 1 else W
    return &weights[0, 0]


cdef Py_ssize_t _task_count(W):
    return 1 if W.ndim == 1 else W.shape[0]


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
    arrays = _arrays_of(samples.rows)
    cdef AnyRows rows = _read_rows(arrays)
    cdef double *weights = _row_pointer(W)
    cdef Py_ssize_t n_tasks = _task_count(W)
    cdef Problem problem = _read_problem(samples, W.shape[W.ndim - 1] - 1, order)
    cdef Schedule schedule = _read_rates(rates)
    cdef int64_t[::1] updates_view = updates, mistakes_view = mistakes
    cdef double[::1] loss_view = loss
    cdef PocketState pocket_state
    cdef PocketState *pocket_pointer = NULL
    cdef AverageState average_state
    cdef AverageState *average_pointer = NULL
    cdef int64_t[::1] seen
    if pocket is not None:
        pocket_state = _read_pocket(pocket)
        pocket_pointer = &pocket_state
    if average is not None:
        seen = average.seen
        average_state.correction = _row_pointer(average.correction)
        average_state.seen = &seen[0]
        average_state.start = average.start
        average_pointer = &average_state
    if rows.kind == DENSE32:
        with nogil:
            _perceptron_epoch(&rows.dense32, &problem, weights, n_tasks, &schedule,
                              &updates_view[0], &mistakes_view[0], &loss_view[0],
                              pocket_pointer, average_pointer)
    elif rows.kind == DENSE64:
        with nogil:
            _perceptron_epoch(&rows.dense64, &problem, weights, n_tasks, &schedule,
                              &updates_view[0], &mistakes_view[0], &loss_view[0],
                              pocket_pointer, average_pointer)
    elif rows.kind == CSR32:
        with nogil:
            _perceptron_epoch(&rows.csr32, &problem, weights, n_tasks, &schedule,
                              &updates_view[0], &mistakes_view[0], &loss_view[0],
                              pocket_pointer, average_pointer)
    elif rows.kind == CSR32_LONG:
        with nogil:
            _perceptron_epoch(&rows.csr32_long, &problem, weights, n_tasks,
                              &schedule, &updates_view[0], &mistakes_view[0],
                              &loss_view[0], pocket_pointer, average_pointer)
    elif rows.kind == CSR64:
        with nogil:
            _perceptron_epoch(&rows.csr64, &problem, weights, n_tasks, &schedule,
                              &updates_view[0], &mistakes_view[0], &loss_view[0],
                              pocket_pointer, average_pointer)
    else:
        with nogil:
            _perceptron_epoch(&rows.csr64_long, &problem, weights, n_tasks,
                              &schedule, &updates_view[0], &mistakes_view[0],
                              &loss_view[0], pocket_pointer, average_pointer)


def lms_epoch(samples, order, W, rates, t_start, limit, loss):
    """One pass of the Widrow-Hoff rule ``W[k] += δ_t s_i (c - W[k]·x̃_i) x̃_i`` over
    ``order`` (:data:`STORED_ORDER`: in the stored order).

    ``t`` counts samples from ``t_start``. ``loss[k]`` receives the weighted sum of
    the squared residuals met before each update. Returns ``False`` as soon as a
    residual is not finite or exceeds ``limit`` in size (the rate diverges; the
    caller rolls back), else ``True``.
    """
    arrays = _arrays_of(samples.rows)
    cdef AnyRows rows = _read_rows(arrays)
    cdef double *weights = _row_pointer(W)
    cdef Py_ssize_t n_tasks = _task_count(W)
    cdef Problem problem = _read_problem(samples, W.shape[W.ndim - 1] - 1, order)
    cdef Schedule schedule = _read_rates(rates)
    cdef double[::1] loss_view = loss
    cdef int64_t t = t_start
    cdef double bound = limit
    cdef bint stable
    if rows.kind == DENSE32:
        with nogil:
            stable = _lms_epoch(&rows.dense32, &problem, weights, n_tasks, &schedule,
                                t, bound, &loss_view[0])
    elif rows.kind == DENSE64:
        with nogil:
            stable = _lms_epoch(&rows.dense64, &problem, weights, n_tasks, &schedule,
                                t, bound, &loss_view[0])
    elif rows.kind == CSR32:
        with nogil:
            stable = _lms_epoch(&rows.csr32, &problem, weights, n_tasks, &schedule,
                                t, bound, &loss_view[0])
    elif rows.kind == CSR32_LONG:
        with nogil:
            stable = _lms_epoch(&rows.csr32_long, &problem, weights, n_tasks,
                                &schedule, t, bound, &loss_view[0])
    elif rows.kind == CSR64:
        with nogil:
            stable = _lms_epoch(&rows.csr64, &problem, weights, n_tasks, &schedule,
                                t, bound, &loss_view[0])
    else:
        with nogil:
            stable = _lms_epoch(&rows.csr64_long, &problem, weights, n_tasks,
                                &schedule, t, bound, &loss_view[0])
    return bool(stable)


def weighted_correct(samples, W, k):
    """Total weight of the samples that row ``W[k]`` classifies as ``predict`` does
    (a score > 0 means the positive class, a score of 0 the negative one)."""
    arrays = _arrays_of(samples.rows)
    cdef AnyRows rows = _read_rows(arrays)
    cdef Py_ssize_t task = k, width = W.shape[W.ndim - 1]
    cdef const double *w = _row_pointer(W) + task * width
    cdef Problem problem = _read_problem(samples, W.shape[W.ndim - 1] - 1, _NO_ORDER)
    cdef double total
    with nogil:
        if rows.kind == DENSE32:
            total = _weighted_correct(&rows.dense32, &problem, w, task)
        elif rows.kind == DENSE64:
            total = _weighted_correct(&rows.dense64, &problem, w, task)
        elif rows.kind == CSR32:
            total = _weighted_correct(&rows.csr32, &problem, w, task)
        elif rows.kind == CSR32_LONG:
            total = _weighted_correct(&rows.csr32_long, &problem, w, task)
        elif rows.kind == CSR64:
            total = _weighted_correct(&rows.csr64, &problem, w, task)
        else:
            total = _weighted_correct(&rows.csr64_long, &problem, w, task)
    return total


def beats_pocket(samples, W, k, to_beat, total):
    """``(rows scanned, correct weight, better)`` for the weights ``W[k]``.

    ``better`` means a correctly classified weight strictly above ``to_beat``; the
    scan stops as soon as the misclassified weight exceeds ``total - to_beat``,
    when the answer is known to be no.
    """
    arrays = _arrays_of(samples.rows)
    cdef AnyRows rows = _read_rows(arrays)
    cdef Py_ssize_t task = k, width = W.shape[W.ndim - 1], scanned
    cdef const double *w = _row_pointer(W) + task * width
    cdef Problem problem = _read_problem(samples, W.shape[W.ndim - 1] - 1, _NO_ORDER)
    cdef double bar = to_beat, weight_total = total, correct
    cdef bint better
    with nogil:
        if rows.kind == DENSE32:
            scanned = _beats_pocket(&rows.dense32, &problem, w, task, bar,
                                    weight_total, &correct, &better)
        elif rows.kind == DENSE64:
            scanned = _beats_pocket(&rows.dense64, &problem, w, task, bar,
                                    weight_total, &correct, &better)
        elif rows.kind == CSR32:
            scanned = _beats_pocket(&rows.csr32, &problem, w, task, bar,
                                    weight_total, &correct, &better)
        elif rows.kind == CSR32_LONG:
            scanned = _beats_pocket(&rows.csr32_long, &problem, w, task, bar,
                                    weight_total, &correct, &better)
        elif rows.kind == CSR64:
            scanned = _beats_pocket(&rows.csr64, &problem, w, task, bar,
                                    weight_total, &correct, &better)
        else:
            scanned = _beats_pocket(&rows.csr64_long, &problem, w, task, bar,
                                    weight_total, &correct, &better)
    return scanned, correct, bool(better)


def pocket_end_of_epoch(W, pocket):
    """The ratchet for the candidate scored during the epoch, and the choice of the
    next epoch's candidate (see :func:`perceptron_epoch`).

    Per task: the candidate just scored replaces the pocket if it classified a
    strictly larger weight of samples correctly; the current run is considered
    for keeping; the kept weights, if their run beats the pocket's, become the
    candidate of the next epoch.
    """
    cdef double *weights = _row_pointer(W)
    cdef Py_ssize_t n_tasks = _task_count(W), width = W.shape[W.ndim - 1], k
    cdef PocketState state = _read_pocket(pocket)
    with nogil:
        for k in range(n_tasks):
            if state.evaluating[k] and state.candidate_correct[k] > state.correct[k]:
                _copy_row(state.candidate + k * width, state.weights + k * width,
                          width)
                state.correct[k] = state.candidate_correct[k]
                if state.evaluating[k] > state.pocket_run[k]:
                    state.pocket_run[k] = state.evaluating[k]
            if _run_is_longest(
                state.run[k], state.pocket_run[k], state.snapshot_run[k],
                state.checked[k], state.is_pocket[k], state.kept[k],
            ):
                _snapshot(weights + k * width, k, &state, width)
            if state.snapshot_run[k] > state.pocket_run[k]:
                _copy_row(state.snapshot + k * width, state.candidate + k * width,
                          width)
                # > 0, and the candidate's run, for the ratchet
                state.evaluating[k] = state.snapshot_run[k]
            else:
                state.evaluating[k] = 0
            state.snapshot_run[k] = 0
            state.candidate_correct[k] = 0.0


_NO_ORDER = np.empty(0, dtype=np.int64)
