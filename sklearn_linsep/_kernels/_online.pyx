# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Epochs of the perceptron family: Rosenblatt's rule, Gallant's pocket, Widrow-Hoff.

A learner holds one weight row per one-vs-rest task, ``W`` of shape (K, p + 1), the
last column multiplying the constant ``bias`` (1.0 with an intercept, else 0.0); a
single task may come as the row itself, of shape (p + 1,). Task k's target is
``c = +1`` where ``codes[i] == first_class + k`` and ``-1`` elsewhere: two classes are
one task with ``first_class = 1``.

The kernels take their arguments in named records (``_records``: ``Samples``,
``Rates``, ``Pocket``, ``Average``). A record's arrays are mutable, so the kernels
update the state in place. Each public function reads the records' fields once, at
entry, through typed memoryviews (which check dtype, dimensions and C order; the
read-only inputs through ``const`` ones, so that a read-only X is read in place),
keeps their data pointers in the C structs below, and runs its loops without the GIL.

Rows of X, dense or CSR: the loops are compiled once per layout of X, through the
fused types ``floating_t`` (X's or the CSR data's dtype) and ``index_t`` (the CSR
index dtype, or ``dense_t`` for a dense X), so each kernel is written once and
compiled into six loops (dense float32/float64, CSR float32/float64 x int32/int64),
each without a per-element test of the layout.

Speed (measured against numba at 10^6 x 10, dense, and 10^5 x 1000 CSR): the plain
epoch (no pocket, no averaging) has its own loop, without the branches of the others,
and a single task its own loop without the loop over tasks; the class sign ``c`` is
computed without a branch; the records' scalars are passed by value, so that they
sit in registers rather than being read again after every store into the weights.

The arithmetic is that of the numba kernels these replace, operation for operation:
every accumulator is a double (a float32 entry is widened before it is multiplied),
each expression keeps its order of evaluation, and the extension is compiled with
``-ffp-contract=off`` (no multiply-add fused into one rounding), so that a fit gives
the same bits as before and on every machine.
"""

import numpy as np

from libc.math cimport fabs, pow
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memset

from ._records import RATE_CONSTANT, RATE_HYPERBOLIC, RATE_INVSCALING

# The rate kinds as C integers, read in the GIL-free loops; the values are the
# records' (a Python constant cannot be read without the GIL).
cdef int _CONSTANT = RATE_CONSTANT
cdef int _HYPERBOLIC = RATE_HYPERBOLIC
cdef int _INVSCALING = RATE_INVSCALING


# --------------------------------------------------------------------------------
# Layouts of X
# --------------------------------------------------------------------------------

ctypedef fused floating_t:
    float
    double

# The "index type" of a dense X, which has no index arrays: it only selects the
# dense loops (its pointers are NULL and never read).
ctypedef signed char dense_t

ctypedef fused index_t:
    int32_t
    int64_t
    dense_t

cdef enum Layout:
    DENSE_32
    DENSE_64
    CSR_32_32  # data float32, indices int32
    CSR_32_64
    CSR_64_32
    CSR_64_64


cdef struct SampleSet:
    # Samples, as pointers into the record's arrays (which the caller keeps alive).
    Layout layout
    const void* values  # a dense X's entries (C order), or the CSR data
    const void* indices  # CSR only
    const void* indptr  # CSR only
    Py_ssize_t n_features  # p; the bias multiplies entry p of a weight row
    Py_ssize_t n_samples
    const Py_ssize_t* codes
    Py_ssize_t first_class
    const double* weight  # sample weight x class weight
    double bias
    bint strict  # perceptron_epoch's: a score within its rounding is a mistake


cdef struct Weights:
    # Weight rows of length n_features + 1, row k at data + k * stride.
    double* data
    Py_ssize_t n_tasks
    Py_ssize_t stride


cdef struct Schedule:
    # A Rates record (see _records.Rates).
    int kind
    double eta0
    double a
    double b
    double power_t
    double scale
    const double* table  # (table_rows, table_stride), C order
    Py_ssize_t table_rows
    Py_ssize_t table_stride
    const int64_t* starts


cdef struct PocketState:
    # A Pocket record (see _records.Pocket); the rows of weights, candidate and
    # snapshot are Weights.stride apart, the flags are bytes (numpy's bool).
    double* weights
    double* candidate
    double* snapshot
    Py_ssize_t stride
    double* correct
    double* candidate_correct
    int64_t* run
    int64_t* pocket_run
    int64_t* snapshot_run
    int64_t* evaluating
    unsigned char* kept
    unsigned char* checked
    unsigned char* is_pocket
    int64_t* budget


cdef struct AverageState:
    # An Average record (see _records.Average).
    double* correction
    Py_ssize_t stride
    int64_t* seen
    int64_t start


# --------------------------------------------------------------------------------
# One row of X against a weight row (the numba version's _rows)
# --------------------------------------------------------------------------------

cdef inline double _row_dot(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    Py_ssize_t p, Py_ssize_t i, const double* w, double bias,
) noexcept nogil:
    """``w · (x_i, bias)``, accumulated in double from the bias term on."""
    cdef double total = w[p] * bias
    cdef const floating_t* x
    cdef Py_ssize_t j, jj
    if index_t is dense_t:
        x = values + i * p
        for j in range(p):
            total += w[j] * x[j]
    else:
        for jj in range(<Py_ssize_t> indptr[i], <Py_ssize_t> indptr[i + 1]):
            total += w[indices[jj]] * values[jj]
    return total


cdef inline double _row_slack(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    Py_ssize_t p, Py_ssize_t i, const double* w, double bias,
) noexcept nogil:
    """How far two evaluations of :func:`_row_dot` may differ, ``predict``'s in X's
    dtype included: a score within it of 0 has no sign to trust."""
    cdef double size = fabs(w[p] * bias)
    cdef double unit = 2.0 ** -24 if floating_t is float else 2.0 ** -53
    cdef double tiny = 2.0 ** -149 if floating_t is float else 2.0 ** -1074
    cdef const floating_t* x
    cdef Py_ssize_t j, jj, terms
    if index_t is dense_t:
        x = values + i * p
        terms = p
        for j in range(p):
            size += fabs(w[j] * x[j])
    else:
        terms = <Py_ssize_t> (indptr[i + 1] - indptr[i])
        for jj in range(<Py_ssize_t> indptr[i], <Py_ssize_t> indptr[i + 1]):
            size += fabs(w[indices[jj]] * values[jj])
    # Near 0 an evaluation is off by (terms / 2 + 1) u of the size (its signs'
    # sums about equal): two of them, the casts, and an underflow a product.
    return (terms + 4) * (unit * size * (1.0 + 1e-6) + tiny)


cdef inline void _row_dot_pair(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    Py_ssize_t p, Py_ssize_t i, const double* w, const double* v, double bias,
    double* first, double* second,
) noexcept nogil:
    """``(w · x̃_i, v · x̃_i)`` in one loop over the row."""
    cdef double a = w[p] * bias
    cdef double b = v[p] * bias
    cdef const floating_t* x
    cdef Py_ssize_t j, jj
    if index_t is dense_t:
        x = values + i * p
        for j in range(p):
            a += w[j] * x[j]
            b += v[j] * x[j]
    else:
        for jj in range(<Py_ssize_t> indptr[i], <Py_ssize_t> indptr[i + 1]):
            a += w[indices[jj]] * values[jj]
            b += v[indices[jj]] * values[jj]
    first[0] = a
    second[0] = b


cdef inline void _row_axpy(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    Py_ssize_t p, Py_ssize_t i, double step, double* w, double bias,
) noexcept nogil:
    """``w += step * (x_i, bias)``, the bias entry first."""
    cdef const floating_t* x
    cdef Py_ssize_t j, jj
    w[p] += step * bias
    if index_t is dense_t:
        x = values + i * p
        for j in range(p):
            w[j] += step * x[j]
    else:
        for jj in range(<Py_ssize_t> indptr[i], <Py_ssize_t> indptr[i + 1]):
            w[indices[jj]] += step * values[jj]


cdef inline void _copy_row(const double* source, double* target, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(n):
        target[j] = source[j]


cdef inline double _target(bint positive) noexcept nogil:
    """``c``: 1.0 for the task's positive class, else -1.0, computed without a
    branch (which the labels of shuffled samples would mispredict half the time)."""
    return <double> (2 * positive - 1)


cdef inline double _rate(Schedule rates, Py_ssize_t k, int64_t t) noexcept nogil:
    """The rate of task ``k``'s update ``t`` (see :class:`Rates`)."""
    cdef double value
    cdef Py_ssize_t row
    if rates.kind == _CONSTANT:
        value = rates.eta0
    elif rates.kind == _HYPERBOLIC:
        value = rates.a / (rates.b + <double> t)
    elif rates.kind == _INVSCALING:
        value = rates.eta0 / pow(<double> t + 1.0, rates.power_t)
    else:
        row = k if rates.table_rows > 1 else 0
        value = rates.table[row * rates.table_stride + (t - rates.starts[row])]
    return value * rates.scale


# --------------------------------------------------------------------------------
# The loops, one body per kernel, compiled per layout of X
# --------------------------------------------------------------------------------

cdef bint _beats_pocket(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    SampleSet s, const double* w, Py_ssize_t k, double to_beat, double total,
    Py_ssize_t* scanned, double* correct_weight,
) noexcept nogil:
    """Whether ``w`` beats the pocket; the rows scanned and the correctly classified
    weight in ``scanned`` and ``correct_weight``."""
    cdef double correct = 0.0
    cdef double allowed_wrong = total - to_beat
    cdef double wrong = 0.0
    cdef Py_ssize_t i
    cdef bint positive
    for i in range(s.n_samples):
        positive = s.codes[i] == s.first_class + k
        if (_row_dot(values, indices, indptr, s.n_features, i, w, s.bias) > 0.0) == positive:
            correct += s.weight[i]
        else:
            wrong += s.weight[i]
            if wrong > allowed_wrong:
                scanned[0] = i + 1
                correct_weight[0] = correct
                return False
    scanned[0] = s.n_samples
    correct_weight[0] = correct
    return correct > to_beat


cdef inline bint _run_is_longest(
    PocketState pocket, Py_ssize_t k
) noexcept nogil:
    """Whether the run of ``W[k]`` that ends now is kept for scoring in the next
    epoch: not scored, longer than the pocket's and than the longest kept this
    epoch, and not kept yet."""
    return (
        pocket.run[k] > pocket.pocket_run[k]
        and pocket.run[k] > pocket.snapshot_run[k]
        and not pocket.checked[k]
        and not pocket.is_pocket[k]
        and not pocket.kept[k]
    )


cdef inline void _snapshot(
    const double* w, Py_ssize_t width, PocketState pocket, Py_ssize_t k
) noexcept nogil:
    """Keep ``W[k]`` and its run for scoring in the next epoch."""
    _copy_row(w, pocket.snapshot + k * pocket.stride, width)
    pocket.snapshot_run[k] = pocket.run[k]
    pocket.kept[k] = True


cdef void _score_at_once(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    SampleSet s, const double* w, Py_ssize_t k, PocketState pocket,
    double total,
) noexcept nogil:
    """Score ``W[k]``, whose run beats the pocket's, on every sample; it becomes
    the pocket if it classifies a strictly larger weight correctly."""
    cdef Py_ssize_t scanned
    cdef double correct
    cdef bint better
    pocket.checked[k] = True
    better = _beats_pocket(
        values, indices, indptr, s, w, k, pocket.correct[k], total, &scanned, &correct
    )
    pocket.budget[0] -= scanned
    if better:
        _copy_row(w, pocket.weights + k * pocket.stride, s.n_features + 1)
        pocket.correct[k] = correct
        pocket.pocket_run[k] = pocket.run[k]
        pocket.is_pocket[k] = True


cdef inline void _rosenblatt_step(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    const SampleSet* s, Py_ssize_t i, double weight, Py_ssize_t k, double* w,
    const Schedule* rates, int64_t* updates, int64_t* mistakes, double* loss,
) noexcept nogil:
    """Rosenblatt's rule for sample ``i`` of positive weight and task ``k``."""
    cdef double target = _target(s.codes[i] == s.first_class + k)
    cdef double score = _row_dot(values, indices, indptr, s.n_features, i, w, s.bias)
    cdef double slack = 0.0
    cdef double step
    if s.strict and target * score > 0.0:
        slack = _row_slack(values, indices, indptr, s.n_features, i, w, s.bias)
    # Not "<= slack": a score that is not a number counts as a mistake.
    if not (target * score > slack):
        step = _rate(rates[0], k, updates[k]) * weight * target
        _row_axpy(values, indices, indptr, s.n_features, i, step, w, s.bias)
        updates[k] += 1
        mistakes[k] += 1
        if not (target * score > 0.0):  # the criterion: none within the slack
            loss[k] -= weight * target * score


cdef void _rosenblatt_epoch(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    SampleSet s, const int64_t* order, Py_ssize_t n_order, Weights W,
    Schedule rates, int64_t* updates, int64_t* mistakes, double* loss,
) noexcept nogil:
    """:func:`perceptron_epoch` without a pocket and without averaging: the
    general loop below with their branches left out. (Their tests, and the values
    they keep live, made this plain epoch 20-40% slower at 10^6 x 10.)"""
    cdef Py_ssize_t n_visits = n_order if n_order else s.n_samples
    cdef Py_ssize_t position, i, k
    cdef double weight
    for k in range(W.n_tasks):
        mistakes[k] = 0
        loss[k] = 0.0
    if W.n_tasks == 1:  # one task, a constant: no loop over tasks
        for position in range(n_visits):
            i = <Py_ssize_t> order[position] if n_order else position
            weight = s.weight[i]
            if weight != 0.0:
                _rosenblatt_step(values, indices, indptr, &s, i, weight, 0, W.data,
                                 &rates, updates, mistakes, loss)
        return
    for position in range(n_visits):
        i = <Py_ssize_t> order[position] if n_order else position
        weight = s.weight[i]
        if weight == 0.0:
            continue
        for k in range(W.n_tasks):
            _rosenblatt_step(values, indices, indptr, &s, i, weight, k,
                             W.data + k * W.stride, &rates, updates, mistakes, loss)


cdef void _perceptron_epoch(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    SampleSet s, const int64_t* order, Py_ssize_t n_order, Weights W,
    Schedule rates, int64_t* updates, int64_t* mistakes, double* loss,
    bint has_pocket, PocketState pocket, bint has_average, AverageState average,
) noexcept nogil:
    """See :func:`perceptron_epoch`; ``pocket`` and ``average`` are read only with
    ``has_pocket`` and ``has_average``."""
    cdef Py_ssize_t p = s.n_features
    cdef Py_ssize_t n_samples = s.n_samples
    cdef Py_ssize_t n_tasks = W.n_tasks
    cdef Py_ssize_t n_visits = n_order if n_order else n_samples
    cdef Py_ssize_t position, i, k
    cdef double total = 0.0
    cdef double weight, target, score, candidate_score, step, slack
    cdef int64_t averaged = 0
    cdef double* w
    if not has_pocket and not has_average:
        _rosenblatt_epoch(
            values, indices, indptr, s, order, n_order, W, rates, updates, mistakes,
            loss,
        )
        return
    if has_pocket:
        for i in range(n_samples):
            total += s.weight[i]
    for k in range(n_tasks):
        mistakes[k] = 0
        loss[k] = 0.0
    for position in range(n_visits):
        i = <Py_ssize_t> order[position] if n_order else position
        weight = s.weight[i]
        if weight == 0.0:
            continue
        if has_average:
            average.seen[0] += 1
            averaged = average.seen[0] - average.start  # τ - 1 of this sample
        for k in range(n_tasks):
            w = W.data + k * W.stride
            target = _target(s.codes[i] == s.first_class + k)
            if has_pocket and pocket.evaluating[k]:
                _row_dot_pair(
                    values, indices, indptr, p, i, w,
                    pocket.candidate + k * pocket.stride, s.bias,
                    &score, &candidate_score,
                )
                if (candidate_score > 0.0) == (target > 0.0):
                    pocket.candidate_correct[k] += weight
            else:
                score = _row_dot(values, indices, indptr, p, i, w, s.bias)
            slack = 0.0
            if s.strict and target * score > 0.0:
                slack = _row_slack(values, indices, indptr, p, i, w, s.bias)
            if not (target * score > slack):
                if has_pocket:  # the run ends: keep it if the longest
                    if _run_is_longest(pocket, k):
                        _snapshot(w, p + 1, pocket, k)
                    pocket.run[k] = 0
                    pocket.kept[k] = False
                    pocket.checked[k] = False
                    pocket.is_pocket[k] = False
                step = _rate(rates, k, updates[k]) * weight * target
                _row_axpy(values, indices, indptr, p, i, step, w, s.bias)
                if has_average and averaged > 0:
                    _row_axpy(
                        values, indices, indptr, p, i, averaged * step,
                        average.correction + k * average.stride, s.bias,
                    )
                updates[k] += 1
                mistakes[k] += 1
                if not (target * score > 0.0):  # as in _rosenblatt_step
                    loss[k] -= weight * target * score
            elif has_pocket:
                pocket.run[k] += 1
                if pocket.is_pocket[k]:
                    pocket.pocket_run[k] = max(pocket.pocket_run[k], pocket.run[k])
                elif (
                    pocket.run[k] > pocket.pocket_run[k]
                    and not pocket.checked[k]
                    and pocket.budget[0] >= n_samples
                ):
                    _score_at_once(values, indices, indptr, s, w, k, pocket, total)


cdef bint _lms_epoch(
    const floating_t* values, const index_t* indices, const index_t* indptr,
    SampleSet s, const int64_t* order, Py_ssize_t n_order, Weights W,
    Schedule rates, int64_t t, double limit, double* loss,
) noexcept nogil:
    """See :func:`lms_epoch`."""
    cdef Py_ssize_t p = s.n_features
    cdef Py_ssize_t n_visits = n_order if n_order else s.n_samples
    cdef Py_ssize_t position, i, k
    cdef double weight, target, residual, step_rate
    cdef double* w
    for k in range(W.n_tasks):
        loss[k] = 0.0
    for position in range(n_visits):
        i = <Py_ssize_t> order[position] if n_order else position
        weight = s.weight[i]
        if weight == 0.0:
            continue
        step_rate = _rate(rates, 0, t)
        t += 1
        for k in range(W.n_tasks):
            w = W.data + k * W.stride
            target = _target(s.codes[i] == s.first_class + k)
            residual = target - _row_dot(values, indices, indptr, p, i, w, s.bias)
            if not (fabs(residual) <= limit):  # a NaN residual diverges too
                return False
            loss[k] += weight * residual * residual
            _row_axpy(values, indices, indptr, p, i, step_rate * weight * residual, w, s.bias)
    return True


# --------------------------------------------------------------------------------
# The choice of the compiled loop (once a call, on the layout of X)
# --------------------------------------------------------------------------------

cdef const int32_t* _i32(const void* pointer) noexcept nogil:
    return <const int32_t*> pointer


cdef const int64_t* _i64(const void* pointer) noexcept nogil:
    return <const int64_t*> pointer


cdef const float* _f32(const void* pointer) noexcept nogil:
    return <const float*> pointer


cdef const double* _f64(const void* pointer) noexcept nogil:
    return <const double*> pointer


cdef const dense_t* _NO_INDEX = NULL


cdef void _perceptron_epoch_of(
    SampleSet s, const int64_t* order, Py_ssize_t n_order, Weights W,
    Schedule rates, int64_t* updates, int64_t* mistakes, double* loss,
    bint has_pocket, PocketState pocket, bint has_average, AverageState average,
) noexcept nogil:
    if s.layout == DENSE_32:
        _perceptron_epoch(_f32(s.values), _NO_INDEX, _NO_INDEX, s, order, n_order, W, rates, updates, mistakes, loss, has_pocket, pocket, has_average, average)
    elif s.layout == DENSE_64:
        _perceptron_epoch(_f64(s.values), _NO_INDEX, _NO_INDEX, s, order, n_order, W, rates, updates, mistakes, loss, has_pocket, pocket, has_average, average)
    elif s.layout == CSR_32_32:
        _perceptron_epoch(_f32(s.values), _i32(s.indices), _i32(s.indptr), s, order, n_order, W, rates, updates, mistakes, loss, has_pocket, pocket, has_average, average)
    elif s.layout == CSR_32_64:
        _perceptron_epoch(_f32(s.values), _i64(s.indices), _i64(s.indptr), s, order, n_order, W, rates, updates, mistakes, loss, has_pocket, pocket, has_average, average)
    elif s.layout == CSR_64_32:
        _perceptron_epoch(_f64(s.values), _i32(s.indices), _i32(s.indptr), s, order, n_order, W, rates, updates, mistakes, loss, has_pocket, pocket, has_average, average)
    else:
        _perceptron_epoch(_f64(s.values), _i64(s.indices), _i64(s.indptr), s, order, n_order, W, rates, updates, mistakes, loss, has_pocket, pocket, has_average, average)


cdef bint _lms_epoch_of(
    SampleSet s, const int64_t* order, Py_ssize_t n_order, Weights W,
    Schedule rates, int64_t t, double limit, double* loss,
) noexcept nogil:
    if s.layout == DENSE_32:
        return _lms_epoch(_f32(s.values), _NO_INDEX, _NO_INDEX, s, order, n_order, W, rates, t, limit, loss)
    elif s.layout == DENSE_64:
        return _lms_epoch(_f64(s.values), _NO_INDEX, _NO_INDEX, s, order, n_order, W, rates, t, limit, loss)
    elif s.layout == CSR_32_32:
        return _lms_epoch(_f32(s.values), _i32(s.indices), _i32(s.indptr), s, order, n_order, W, rates, t, limit, loss)
    elif s.layout == CSR_32_64:
        return _lms_epoch(_f32(s.values), _i64(s.indices), _i64(s.indptr), s, order, n_order, W, rates, t, limit, loss)
    elif s.layout == CSR_64_32:
        return _lms_epoch(_f64(s.values), _i32(s.indices), _i32(s.indptr), s, order, n_order, W, rates, t, limit, loss)
    else:
        return _lms_epoch(_f64(s.values), _i64(s.indices), _i64(s.indptr), s, order, n_order, W, rates, t, limit, loss)


cdef bint _beats_pocket_of(
    SampleSet s, const double* w, Py_ssize_t k, double to_beat, double total,
    Py_ssize_t* scanned, double* correct,
) noexcept nogil:
    if s.layout == DENSE_32:
        return _beats_pocket(_f32(s.values), _NO_INDEX, _NO_INDEX, s, w, k, to_beat, total, scanned, correct)
    elif s.layout == DENSE_64:
        return _beats_pocket(_f64(s.values), _NO_INDEX, _NO_INDEX, s, w, k, to_beat, total, scanned, correct)
    elif s.layout == CSR_32_32:
        return _beats_pocket(_f32(s.values), _i32(s.indices), _i32(s.indptr), s, w, k, to_beat, total, scanned, correct)
    elif s.layout == CSR_32_64:
        return _beats_pocket(_f32(s.values), _i64(s.indices), _i64(s.indptr), s, w, k, to_beat, total, scanned, correct)
    elif s.layout == CSR_64_32:
        return _beats_pocket(_f64(s.values), _i32(s.indices), _i32(s.indptr), s, w, k, to_beat, total, scanned, correct)
    else:
        return _beats_pocket(_f64(s.values), _i64(s.indices), _i64(s.indptr), s, w, k, to_beat, total, scanned, correct)


# --------------------------------------------------------------------------------
# The records, read once at entry
# --------------------------------------------------------------------------------

cdef int _read_samples(samples, SampleSet* s) except -1:
    """Fill ``s`` from a Samples record; its arrays must outlive the call."""
    cdef const Py_ssize_t[::1] codes
    cdef const double[::1] weight
    cdef const float[:, ::1] dense32
    cdef const double[:, ::1] dense64
    cdef const float[::1] data32
    cdef const double[::1] data64
    cdef const int32_t[::1] indices32, indptr32
    cdef const int64_t[::1] indices64, indptr64
    rows, codes, first_class, weight, bias = samples
    s.n_samples = codes.shape[0]
    s.codes = &codes[0]
    s.first_class = first_class
    s.weight = &weight[0]
    s.bias = bias
    s.strict = False
    if weight.shape[0] != s.n_samples:
        raise ValueError("Samples: one weight per sample")
    if len(rows) == 1:
        X = rows[0]
        if X.dtype == np.float32:
            dense32 = X
            s.layout = DENSE_32
            s.values = &dense32[0, 0]
        else:
            dense64 = X
            s.layout = DENSE_64
            s.values = &dense64[0, 0]
        s.indices = NULL
        s.indptr = NULL
        if X.shape[0] != s.n_samples:
            raise ValueError("Samples: one row of X per sample")
        s.n_features = X.shape[1]
        return 0
    data, indices, indptr = rows
    if indptr.shape[0] != s.n_samples + 1:
        raise ValueError("Samples: one CSR row per sample")
    if indices.dtype == np.int32:
        indices32 = indices
        indptr32 = indptr
        s.indices = &indices32[0]
        s.indptr = &indptr32[0]
    else:
        indices64 = indices
        indptr64 = indptr
        s.indices = &indices64[0]
        s.indptr = &indptr64[0]
    if data.dtype == np.float32:
        data32 = data
        s.values = &data32[0]
        s.layout = CSR_32_32 if indices.dtype == np.int32 else CSR_32_64
    else:
        data64 = data
        s.values = &data64[0]
        s.layout = CSR_64_32 if indices.dtype == np.int32 else CSR_64_64
    s.n_features = -1  # the weights' width less one, set by _read_weights
    return 0


cdef double[:, ::1] _as_rows(W):
    """``W`` as a (n_tasks, width) memoryview: a one-dimensional ``W`` is one row
    (a view: the kernels update it in place)."""
    W = np.asarray(W)
    return W[np.newaxis, :] if W.ndim == 1 else W


cdef int _read_weights(W, SampleSet* s, Weights* weights) except -1:
    """Fill ``weights`` from ``W`` and check its width against X's."""
    cdef double[:, ::1] rows = _as_rows(W)
    weights.data = &rows[0, 0]
    weights.n_tasks = rows.shape[0]
    weights.stride = rows.shape[1]
    if s.n_features < 0:  # CSR: the number of features is the weights'
        s.n_features = rows.shape[1] - 1
    elif rows.shape[1] != s.n_features + 1:
        raise ValueError(
            f"weights of width {rows.shape[1]} for {s.n_features} features"
        )
    return 0


cdef int _read_rates(rates, Schedule* schedule) except -1:
    cdef const double[:, ::1] table = rates.table
    cdef const int64_t[::1] starts = rates.starts
    schedule.kind = rates.kind
    schedule.eta0 = rates.eta0
    schedule.a = rates.a
    schedule.b = rates.b
    schedule.power_t = rates.power_t
    schedule.scale = rates.scale
    schedule.table = &table[0, 0]
    schedule.table_rows = table.shape[0]
    schedule.table_stride = table.shape[1]
    schedule.starts = &starts[0]
    return 0


cdef inline bint _fits(Py_ssize_t n_rows, Py_ssize_t width, const Weights* W):
    """Whether rows of a record hold one row per task of ``W``'s width."""
    return n_rows >= W.n_tasks and width == W.stride


cdef int _read_pocket(pocket, const Weights* W, PocketState* state) except -1:
    cdef double[:, ::1] weights = pocket.weights
    cdef double[:, ::1] candidate = pocket.candidate
    cdef double[:, ::1] snapshot = pocket.snapshot
    cdef double[::1] correct = pocket.correct
    cdef double[::1] candidate_correct = pocket.candidate_correct
    cdef int64_t[::1] run = pocket.run
    cdef int64_t[::1] pocket_run = pocket.pocket_run
    cdef int64_t[::1] snapshot_run = pocket.snapshot_run
    cdef int64_t[::1] evaluating = pocket.evaluating
    # numpy's bool is one byte, 0 or 1: read and written through a uint8 view.
    cdef unsigned char[::1] kept = pocket.kept.view(np.uint8)
    cdef unsigned char[::1] checked = pocket.checked.view(np.uint8)
    cdef unsigned char[::1] is_pocket = pocket.is_pocket.view(np.uint8)
    cdef int64_t[::1] budget = pocket.budget
    if not (
        _fits(weights.shape[0], weights.shape[1], W)
        and _fits(candidate.shape[0], candidate.shape[1], W)
        and _fits(snapshot.shape[0], snapshot.shape[1], W)
        and min(correct.shape[0], candidate_correct.shape[0], run.shape[0],
                pocket_run.shape[0], snapshot_run.shape[0], evaluating.shape[0],
                kept.shape[0], checked.shape[0], is_pocket.shape[0]) >= W.n_tasks
        and budget.shape[0] >= 1
    ):
        raise ValueError("Pocket: one entry and weight row per task, as wide as W")
    state.weights = &weights[0, 0]
    state.candidate = &candidate[0, 0]
    state.snapshot = &snapshot[0, 0]
    state.stride = W.stride
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
    return 0


cdef int _read_average(average, const Weights* W, AverageState* state) except -1:
    correction_array, seen_array, start = average
    cdef double[:, ::1] correction = _as_rows(correction_array)
    cdef int64_t[::1] seen = seen_array
    if not _fits(correction.shape[0], correction.shape[1], W) or seen.shape[0] < 1:
        raise ValueError("Average: one correction row per task, as wide as W")
    state.correction = &correction[0, 0]
    state.stride = correction.shape[1]
    state.seen = &seen[0]
    state.start = start
    return 0


# --------------------------------------------------------------------------------
# The kernels
# --------------------------------------------------------------------------------

def weighted_correct(samples, W, Py_ssize_t k):
    """Total weight of the samples that row ``W[k]`` classifies as ``predict`` does
    (a score > 0 means the positive class, a score of 0 the negative one).

    A one-dimensional ``W`` is the row itself (``k`` still names the task)."""
    return beats_pocket(samples, W, k, -np.inf, 0.0)[1]  # no weight to beat


def beats_pocket(samples, W, Py_ssize_t k, double to_beat, double total):
    """``(rows scanned, correct weight, better)`` for the weights ``W[k]``.

    ``better`` means a correctly classified weight strictly above ``to_beat``; the
    scan stops as soon as the misclassified weight exceeds ``total - to_beat``,
    when the answer is known to be no.
    """
    cdef SampleSet s
    cdef Weights weights
    cdef Py_ssize_t scanned
    cdef double correct
    cdef bint better
    _read_samples(samples, &s)
    _read_weights(W, &s, &weights)
    cdef const double* w = weights.data + (0 if np.ndim(W) == 1 else k) * weights.stride
    with nogil:
        better = _beats_pocket_of(s, w, k, to_beat, total, &scanned, &correct)
    return scanned, correct, better


def perceptron_epoch(
    samples, order, W, rates, updates, mistakes, loss, pocket, average, strict=False
):
    """One pass of Rosenblatt's rule over ``order`` (:data:`STORED_ORDER`: in the
    stored order), with Gallant's pocket unless ``pocket`` is None, and the
    averaged weights unless ``average`` is None.

    For each sample i (in the given order) and task k, a mistake ``c·W[k]·x̃_i ≤ δ``
    (δ = 0; with ``strict``, a bound on the rounding of any evaluation of the
    score, ``predict``'s in X's dtype included: :func:`_row_slack`)
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

    ``W``, ``updates`` (int64), ``mistakes`` (int64), ``loss`` and the arrays of
    ``pocket`` and ``average`` are C-ordered and updated in place.
    """
    cdef SampleSet s
    cdef Weights weights
    cdef Schedule schedule
    cdef PocketState pocket_state
    cdef AverageState average_state
    cdef const int64_t[::1] visits = order
    cdef int64_t[::1] update_counts = updates
    cdef int64_t[::1] mistake_counts = mistakes
    cdef double[::1] losses = loss
    _read_samples(samples, &s)
    s.strict = strict
    _read_weights(W, &s, &weights)
    _read_rates(rates, &schedule)
    memset(&pocket_state, 0, sizeof(pocket_state))  # passed (unread) without a pocket
    memset(&average_state, 0, sizeof(average_state))
    if min(update_counts.shape[0], mistake_counts.shape[0], losses.shape[0]) < weights.n_tasks:
        raise ValueError("updates, mistakes and loss: one entry per task")
    if pocket is not None:
        _read_pocket(pocket, &weights, &pocket_state)
    if average is not None:
        _read_average(average, &weights, &average_state)
    with nogil:
        _perceptron_epoch_of(
            s, &visits[0], visits.shape[0], weights, schedule, &update_counts[0],
            &mistake_counts[0], &losses[0], pocket is not None, pocket_state,
            average is not None, average_state,
        )


def pocket_end_of_epoch(W, pocket):
    """The ratchet for the candidate scored during the epoch, and the choice of the
    next epoch's candidate (see :func:`perceptron_epoch`).

    Per task: the candidate just scored replaces the pocket if it classified a
    strictly larger weight of samples correctly; the current run is considered
    for keeping; the kept weights, if their run beats the pocket's, become the
    candidate of the next epoch.
    """
    cdef Weights weights
    cdef PocketState state
    cdef double[:, ::1] rows = _as_rows(W)
    cdef Py_ssize_t k
    cdef Py_ssize_t width = rows.shape[1]
    weights.data = &rows[0, 0]
    weights.n_tasks = rows.shape[0]
    weights.stride = width
    _read_pocket(pocket, &weights, &state)
    with nogil:
        for k in range(weights.n_tasks):
            if state.evaluating[k] and state.candidate_correct[k] > state.correct[k]:
                _copy_row(
                    state.candidate + k * width, state.weights + k * width, width
                )
                state.correct[k] = state.candidate_correct[k]
                state.pocket_run[k] = max(state.pocket_run[k], state.evaluating[k])
            if _run_is_longest(state, k):
                _snapshot(weights.data + k * width, width, state, k)
            if state.snapshot_run[k] > state.pocket_run[k]:
                _copy_row(
                    state.snapshot + k * width, state.candidate + k * width, width
                )
                # > 0, and the candidate's run, for the ratchet
                state.evaluating[k] = state.snapshot_run[k]
            else:
                state.evaluating[k] = 0
            state.snapshot_run[k] = 0
            state.candidate_correct[k] = 0.0


def lms_epoch(samples, order, W, rates, int64_t t_start, double limit, loss):
    """One pass of the Widrow-Hoff rule ``W[k] += δ_t s_i (c - W[k]·x̃_i) x̃_i`` over
    ``order`` (:data:`STORED_ORDER`: in the stored order).

    ``t`` counts samples from ``t_start``. ``loss[k]`` receives the weighted sum of
    the squared residuals met before each update. Returns ``False`` as soon as a
    residual is not finite or exceeds ``limit`` in size (the rate diverges; the
    caller rolls back), else ``True``.
    """
    cdef SampleSet s
    cdef Weights weights
    cdef Schedule schedule
    cdef const int64_t[::1] visits = order
    cdef double[::1] losses = loss
    cdef bint stable
    _read_samples(samples, &s)
    _read_weights(W, &s, &weights)
    _read_rates(rates, &schedule)
    if losses.shape[0] < weights.n_tasks:
        raise ValueError("loss: one entry per task")
    with nogil:
        stable = _lms_epoch_of(
            s, &visits[0], visits.shape[0], weights, schedule, t_start, limit,
            &losses[0],
        )
    return stable
