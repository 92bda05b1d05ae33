"""The hard-margin dual on the rows' Gram matrix by a primal-dual active set: the
route for rows that may all be support vectors (p ≫ n)."""

import numpy as np
from scipy.linalg import cho_solve, lapack, lu_solve

from ... import _kernels
from ..._kesler import class_columns, pair_blocks, pair_scores, row_coefficients
from . import _cost
from ._active_set import _two_sided, off_face, on_and_outside_margin, optimal_hyperplane

DENSE_DUAL_MAX_ITERATIONS = 40
# The face guess (:func:`face_guess`): passes of coordinate descent at most, ended
# once a pass changes whether α_i > 0 for at most FACE_SETTLED of the rows. From
# every row held, 2 000 x 2 000 (1 203 support vectors) factored 2 000, 1 009, 1 401,
# 1 226, 1 209 and 1 206 rows in 283 ms; guessed in 3 / 8 / 19 passes (settled),
# 1 519 / 1 272 / 1 214 rows, then 133 / 66 / 53 ms (one factor from 8 passes).
FACE_PASSES = 50
FACE_SETTLED = 1e-3
# Steps of a few exchanges each, once the exchanges at once cycle (_exchanges).
DAMPED_MAX_ITERATIONS = 120
# Damped steps at one budget before it halves: damped exchanges that wander (the
# soft limit's equality rows) give way after tens of steps, not 120.
STEPS_A_BUDGET = 10

# A held row whose pivot falls below this share of the largest diagonal entry of
# K + 1 1ᵀ depends on the other held rows to rounding.
DEPENDENT_BELOW = 1e-11
# Rows a band of a compacted block's copies (a band x k temporary).
COPY_BAND = 256
# A float32 held factor's smallest pivot, as a share of the largest diagonal entry:
# float32's rounding (6e-8) times a few hundred; below it, the float64 factor.
SINGLE_DEPENDENT_BELOW = 1e-5
# An answer whose held rows' margins miss 1 by more than this is refused.
RESIDUAL_LIMIT = 1e-9


def dense_dual_margin(Z, c, start=None, tol=1e-12):
    """The maximal margin of ``Z`` by :func:`gram_active_set` from the rows of
    :func:`face_guess` held (``start`` unused), checked on ``Z``; None if unsettled
    (nearest points decide)."""
    gram = Z @ Z.T
    answer = gram_active_set(gram, c, face_guess(gram, c), tol=tol)
    if answer is None:
        return None
    dual, intercept = answer
    coef = (dual * c) @ Z
    if not on_and_outside_margin(c * (Z @ coef + intercept), dual > 0, tol):
        return None
    return optimal_hyperplane(coef, intercept, dual, c)


def face_guess(gram, c):
    """The rows a few passes of coordinate descent on the margin's dual hold at
    α > 0 (``_kernels.margin_dual_passes``, rows in one seeded order), all rows
    where those are of one class: the start of :func:`gram_active_set`, whose
    exchanges make any guess exact (a poor one costs factorisations, not the
    answer)."""
    m = len(c)
    dual, scores = np.zeros(m), np.zeros(m)
    order = _kernels.shuffled_order(m, 0).astype(np.intp, copy=False)
    _kernels.margin_dual_passes(
        np.ascontiguousarray(gram), np.ascontiguousarray(c, dtype=float), dual,
        scores, order, FACE_PASSES, int(FACE_SETTLED * m),
    )  # fmt: skip
    held = np.flatnonzero(dual > 0)
    return held if _two_sided(c[held]) else np.arange(m)


def gram_active_set(gram, c, held, sides=None, tol=1e-12):
    """The margin QP's dual on a Gram matrix K by a primal-dual active set
    (Hintermüller, Ito & Kunisch 2002) from the rows ``held``: ``(ν, b)``,
    ``w = Σ ν_i c_i z_i``, or None where it does not settle (cycling, a singular held
    set, one class held). Row i keeps ``c_i (w·z_i + b) ≥ 1`` where ``sides[i] = +1``
    (default), ``= 1`` where 0, ``≤ 1`` where -1. Held rows solve ``K_II β + b = c_I``,
    ``Σ β = 0``; then all held rows whose ``ν = c β`` has the wrong sign leave and all
    other rows off their side join: a support of most rows (p ≫ n) takes a few
    factorisations, not hundreds. It settles fast from a near support, may cycle from a
    poor one."""
    m = len(c)
    sides = np.ones(m) if sides is None else np.asarray(sides, dtype=float)
    held = np.union1d(held, np.flatnonzero(sides == 0))  # equalities: always
    beta = np.zeros(m)
    system = _two_class_system(gram, c)

    def step(held):
        solved = _two_class_solve(system, held)
        if solved is None:
            return None
        held, held_beta, intercept = solved  # less rows dependent on the others
        beta[:] = 0.0
        beta[held] = held_beta
        margins = c * (gram @ beta + intercept)  # β is 0 off the held rows
        dual = c * beta
        side = sides[held]
        keep = held[(side == 0) | (side * dual[held] > 0)]
        # Off its side of 1; an equality row left out as dependent counts too
        # (it joins again, and a held set that repeats ends the loop).
        off = off_face(margins, sides) > tol
        return held, keep, off, margins, (dual, intercept)

    return _exchanges(held, step, lambda held: _two_sided(c[held]), system)


def _exchanges(held, step, takes, system):
    """The exchanges of :func:`gram_active_set` and :func:`pair_active_set` over rows
    or pairs: ``step(held)`` is ``(held less dependent ones, kept, off their
    side, margins, answer)`` or None (``answer[0]`` the dual), its solves by the
    :class:`HeldSystem` ``system``; held not kept leave, others off join, at once,
    to ``answer``. Where a held set would repeat (the exchanges cycle: degenerate
    pairs, rows copied to rounding), at most half as many leave, and join, a step
    from then on (:func:`_damped`), half again at each repeat or after
    ``STEPS_A_BUDGET`` steps; None where that comes to none, or a held set fails
    ``takes``."""
    try:
        return _exchanged(held, step, takes, system)
    finally:
        system.refine_next = False  # set for this exchange's next solve, none later


def _exchanged(held, step, takes, system):
    seen, refined, budget, at_budget = set(), set(), None, 0
    for done in range(DENSE_DUAL_MAX_ITERATIONS + DAMPED_MAX_ITERATIONS):
        held = np.sort(held)
        key = held.tobytes()
        if not takes(held) or (budget is None and done >= DENSE_DUAL_MAX_ITERATIONS):
            return None  # a held set not for this route, or no end in sight
        seen.add(key)
        stepped = step(held)
        if stepped is None:
            return None
        held, keep, off, margins, answer = stepped
        off[held] = False  # only rows outside the held set join
        violated = np.flatnonzero(off)
        if keep.size == held.size and violated.size == 0:
            # A held set singular to rounding solves only roughly (a Schur update raises
            # nothing): the held margins show it. Earlier steps may be rough.
            if np.all(np.abs(margins[held] - 1) <= RESIDUAL_LIMIT):
                return answer
            if not system.by_update:
                return None
            # The update's border, not the held set, may be what is rough (issue 56's
            # TF-IDF: a restart from every pair took 37 s to the same set): once more,
            # the update refined against M's products where the system has them (a
            # factor of 7 000 pairs again took 3.7 s of 53, twice), else (or still
            # rough) from a factor of this very set.
            if system.product is None or key in refined:
                system.release()
            else:
                refined.add(key)
                system.refine_next = True
            seen.discard(key)
            continue
        following = _damped(held, keep, violated, answer[0], margins, budget)
        while following.tobytes() in seen or at_budget >= STEPS_A_BUDGET:
            if budget is None:
                budget = max(held.size - keep.size, violated.size)
            budget, at_budget = budget // 2, 0
            if budget < 1:
                return None
            following = _damped(held, keep, violated, answer[0], margins, budget)
        at_budget += budget is not None
        held = following
    return None


def _damped(held, keep, violated, dual, margins, budget):
    """The next held set (sorted): ``held`` less those not in ``keep``, with
    ``violated``; of each at most ``budget`` (None: all), those whose dual is the
    largest in size and whose margin the least first (near-copied text: a run that
    cycled on 30 pairs in and out at a step ends in 80 steps, 29 s by Clarabel ->
    0.4 s)."""
    if budget is not None:
        leaving = np.setdiff1d(held, keep, assume_unique=True)
        leaving = leaving[np.argsort(-np.abs(dual[leaving]), kind="stable")[:budget]]
        keep = np.setdiff1d(held, leaving, assume_unique=True)
        violated = violated[np.argsort(margins[violated], kind="stable")[:budget]]
    return np.sort(np.concatenate([keep, violated]))


def _two_class_system(gram, c):
    """The :class:`HeldSystem` of two classes: ``M = K + 1 1ᵀ`` (``K_IJ + 1`` a
    block), right sides ``[c, 1]``."""
    return HeldSystem(
        lambda rows, columns: gram[np.ix_(rows, columns)] + 1.0,
        lambda held: np.column_stack([c[held], np.ones(held.size)]),
        gram,
    )


def _two_class_solve(system, held):
    """``(held, β_I, b)``, ``K_II β + b = c_I``, ``Σ β = 0``, or None if singular.
    ``K + 1 1ᵀ`` acts as K where Σ β = 0 and is positive definite on affinely
    independent rows (K of centred rows is not): one factor solves for c and 1, then
    ``b = 1ᵀK⁻¹c / 1ᵀK⁻¹1`` makes Σ β = 0."""
    solved = system.solve(held)
    if solved is None:
        return None
    held, solution = solved
    towards_c, towards_one = solution[:, 0], solution[:, 1]
    intercept = towards_c.sum() / towards_one.sum()
    beta = towards_c - intercept * towards_one
    if not (np.all(np.isfinite(beta)) and np.isfinite(intercept)):
        return None
    return held, beta, float(intercept)


class HeldSystem:
    """Solves ``M_II X = R_I`` for an active set's held set I, ``M`` PSD given by
    ``block(rows, columns)``, ``R`` by ``right(held)``: two classes
    (``M = K + 1 1ᵀ``, ``full`` its K whole if the caller has it) or K-class pairs
    (``M = C ∘ (K + 1 1ᵀ)``; ``whole(held, release, R)`` their solve with no k x k
    array, None where it does not serve; ``product(held, V)`` their ``M_II V`` from
    the rows; no factor of more than ``largest`` keys, None there). Later steps
    exchange a few percent of rows:
    a held set within ``UPDATE_SHARE`` of a factored one of at least ``UPDATE_FROM``
    rows is solved from that factor, joined and left rows (held at 0 by a multiplier)
    in a Schur complement: ``2 k² (joined + left)`` flops, not ``k³ / 3``; where
    ``refine_next`` is set and there is a ``product``, that solve is refined
    (:meth:`_refined`).

    A held set of at least ``SINGLE_FROM`` keys, where there is a ``product``, is
    factored in float32: half the memory of the one k x k array and half the flops
    of its factor (issue 56's TF-IDF, 8 901 pairs: 604 -> 302 MiB). Each of its
    solves, new or updated, is then refined in float64 against ``product`` until the
    residual is within ``RESIDUAL_BELOW`` of the right sides. Keys whose float32
    pivot falls below ``SINGLE_DEPENDENT_BELOW`` join by a Schur complement in
    float64, which drops those dependent as the float64 factor would; so do an
    update's joining keys where its solve does not settle. Where ``REFINEMENTS``
    steps do not settle a new factor's solve, or more than ``SINGLE_LOW_SHARE`` of
    its keys have such pivots, the system factors in float64 from then on."""

    UPDATE_SHARE = 0.12
    UPDATE_FROM = 400
    SINGLE_FROM = 4096
    # Keys a float32 factor leaves out for small pivots, at most this share of it:
    # their float64 columns (16 k bytes a key) stay a fraction of its 4 k² bytes.
    SINGLE_LOW_SHARE = 0.02
    RESIDUAL_BELOW = 1e-11
    REFINEMENTS = 6
    COLUMN_BAND = 64  # border columns refined at a time (product's temporaries)

    def __init__(self, block, right, full=None, whole=None, largest=None,
                 product=None):  # fmt: skip
        self.block, self.right, self.full, self.whole = block, right, full, whole
        self.largest, self.product = largest, product
        self.refine_next = False  # whether the next update is refined (_refined)
        self.pivoting = False  # whether a complete pivoting factors (_held_factor)
        self.double = False  # float64 factors only: a float32 one did not settle
        self.release()

    def release(self):
        """Forget the factor: the next solve factorises its held set anew."""
        self.factored, self.factor, self._columns = None, None, {}
        self._update = None  # the last held set's elimination (_update_for)
        self.by_update = False  # whether the last solve came from another set's factor

    def solve(self, held, rights=None):
        """``(held, X)``, or None if singular. A new factorisation drops from ``held``
        the rows dependent on the others (``DEPENDENT_BELOW``); an update does not see
        them (its solve is then rough; the caller checks its answer). ``rights(keys)``:
        right sides other than ``self.right`` (a refinement's residuals)."""
        rights = rights or self.right
        self.by_update, refine, self.refine_next = False, self.refine_next, False
        solution = None if self.whole is None else self.whole(held, self.release,
                                                               rights(held))
        if solution is not None:
            return held, solution
        if self.factored is not None and self.factored.size >= self.UPDATE_FROM:
            solved = self._from_factor(held, rights)
            if solved is not None and self._single():
                solved = self._settled_update(held, solved, rights)
            elif solved is not None and refine and self.by_update:
                return self._refined(held, solved[1], rights)
            if solved is not None:
                return solved
        if self.largest is not None and held.size > self.largest:
            return None
        return self._factorise(held, rights)

    def _single(self):
        """Whether the factor at hand is float32's."""
        return self.factor is not None and self.factor[0].dtype == np.float32

    def _settled_update(self, held, solved, rights):
        """A float32 factor's update ``solved`` refined until it settles; where it
        does not, once more with the joining keys' border solves refined to float64
        (a key near the span of the factored ones has a Schur complement that
        float32's rounding loses); None where that does not settle either."""
        settled = self._refined(held, solved[1], rights, self.REFINEMENTS, settle=True)
        if settled is not None or not self._refine_joining(held):
            return settled
        solved = self._from_factor(held, rights)
        if solved is None:
            return None
        return self._refined(held, solved[1], rights, self.REFINEMENTS, settle=True)

    def _refine_joining(self, held):
        """Whether the border solves of ``held``'s joining keys not refined yet were
        refined to float64 (:meth:`_solved_in_float64`); the update is then made
        anew from them."""
        joining = held[~np.isin(held, self.factored)]
        rough = np.array([key for key in joining
                          if not self._columns.get(("joins", key), (0, 0, False))[2]],
                         dtype=np.intp)  # fmt: skip
        if not rough.size:
            return False
        self._update = None
        self._keep_columns(rough, *self._solved_in_float64(rough))
        return True

    def _keep_columns(self, keys, border, through, refined=True):
        """Keep the joining keys' border columns and their solves, as copies (a view
        would hold its whole array)."""
        for j, key in enumerate(keys):
            self._columns[("joins", key)] = (border[:, j].copy(), through[:, j].copy(),
                                             refined)  # fmt: skip

    def _solved_in_float64(self, keys):
        """``(B, M_base⁻¹ B)`` of the keys' border columns against the factored
        keys, the solves refined against ``product`` until they stop halving, a
        band of ``COLUMN_BAND`` columns at a time (the product's temporaries are a
        few arrays of its width)."""
        base = self.factored
        border = np.empty((base.size, keys.size))
        through = np.empty_like(border)
        for start in range(0, keys.size, self.COLUMN_BAND):
            band = slice(start, start + self.COLUMN_BAND)
            border[:, band] = self.block(base, keys[band])
            solved, last = self._through(border[:, band]), np.inf
            for _ in range(self.REFINEMENTS):
                residual = border[:, band] - self.product(base, solved)
                size = float(np.max(np.abs(residual), initial=0.0))
                if size == 0.0 or size > last / 2:
                    break
                solved += self._through(residual)
                last = size
            through[:, band] = solved
        return border, through

    def _factorise(self, held, rights):
        # One k x k array at a time: the last factor goes before the new block is
        # made, and the block is factored in its own memory.
        self.release()
        if not self.double and self.product is not None and (
            held.size >= self.SINGLE_FROM
        ):
            solved = self._factorise_single(held, rights)
            if solved is not None:
                return solved
            self.double = True
            self.release()
        factor, order = _held_factor(self._held_block(held), self.pivoting)
        if factor is None:
            return None
        # Held sets of the same rows share their dependent ones: once a Cholesky in
        # order has failed, pstrf first (1.3x its time; a failed one cost 2.3x).
        self.pivoting = factor[1]
        # In the factor's order; rows left out (dependent) are held at 0, free to
        # join again if violated.
        held = held[order]
        self.factored, self.factor, self._columns = held, factor, {}
        solution = self._through(rights(held))
        ranked = np.argsort(held)
        return held[ranked], solution[ranked]

    def _factorise_single(self, held, rights):
        """``(held, X)`` from a float32 factor of the sorted ``held``, refined; None
        where it does not settle. Keys whose float32 pivot falls below
        ``SINGLE_DEPENDENT_BELOW`` join that factor by a Schur complement in float64
        (:meth:`_join_in_float64`), which drops those dependent to
        ``DEPENDENT_BELOW`` as the float64 factor would."""
        block = np.empty((held.size, held.size), dtype=np.float32)
        for start in range(0, held.size, COPY_BAND):  # a band x k float64 at a time
            band = slice(start, start + COPY_BAND)
            block[band] = self.block(held[band], held)
        top = float(np.max(np.diag(block)))
        factor, order = _held_factor(block, self.pivoting, SINGLE_DEPENDENT_BELOW)
        if factor is None:
            return None
        self.pivoting = factor[1]
        self.factored, self.factor, self._columns = held[order], factor, {}
        low = np.setdiff1d(held, self.factored, assume_unique=True)
        if low.size > self.SINGLE_LOW_SHARE * self.factored.size:
            return None  # many dependent keys: the float64 factor's pivoting
        if low.size:
            held = np.setdiff1d(held, self._join_in_float64(low, top),
                                assume_unique=True)  # fmt: skip
        solved = self._from_factor(held, rights)
        if solved is not None:
            solved = self._refined(held, solved[1], rights, self.REFINEMENTS,
                                   settle=True)  # fmt: skip
        # A new factor, though its left-out keys joined it as an update does: a
        # rough answer from it is not retried as an update's would be.
        self.by_update = False
        return solved

    def _join_in_float64(self, low, top):
        """The keys of ``low`` dependent on the factored ones and each other to
        ``DEPENDENT_BELOW`` of ``top`` (the held block's largest diagonal entry),
        by a pivoted Cholesky of their Schur complement in float64; the border
        columns of the others are solved and refined to float64 (kept for
        :meth:`_border`), so that their join does not lose the digits that tell
        them apart."""
        border, through = self._solved_in_float64(low)
        schur = self.block(low, low) - border.T @ through
        largest, order = float(np.max(np.diag(schur))), None
        if largest > DEPENDENT_BELOW * top:  # else every one of them is dependent
            below = DEPENDENT_BELOW * top / largest
            _, order = _held_factor(schur, pivoting=True, below=below)
        kept = np.zeros(low.size, dtype=bool)
        if order is not None:
            kept[order] = True
        self._keep_columns(low[kept], border[:, kept], through[:, kept])
        return low[~kept]

    def _through(self, values, cast=True):
        """``M_base⁻¹ values`` by the factor, in its precision: a float32 factor's
        right sides are cast to float32, since scipy would otherwise cast the factor
        (a k x k float64 copy); the answer in float64 where ``cast``."""
        factor, lower = self.factor
        values = np.asarray(values).astype(factor.dtype, copy=False)
        solved = cho_solve((factor, lower), values, check_finite=False)
        return solved.astype(float, copy=False) if cast else solved

    def _held_block(self, held):
        if self.full is not None and held.size == len(self.full):
            return self.full + 1.0
        return self.block(held, held)

    def _border(self, base, joining, leaving):
        """``(B_J, M_base⁻¹ [B_J, E_L])`` of the Schur border: the joining keys' block
        against the factored keys, and the solves of it and of the leaving
        positions' unit columns (``E_L``, never stored); each solved once per factor
        (steps from one factor share most changes)."""
        names = [("joins", key) for key in joining] + [("leaves", at) for at in leaving]
        # Of a float32 factor (many keys), only this step's columns are kept: a key
        # that leaves the exchanges for good would hold its two columns to the end
        # (issue 56's TF-IDF: 1 135 of them, 135 MB, where a step used 600).
        if self._single():
            self._columns = {
                name: self._columns[name] for name in names if name in self._columns
            }
        columns = self._columns
        new = [name for name in names if name not in columns]  # joining keys first
        if new:
            keys = [key for kind, key in new if kind == "joins"]
            border = (self.block(base, np.array(keys, dtype=np.intp)) if keys
                      else np.zeros((base.size, 0)))  # fmt: skip
            units = np.zeros((base.size, len(new) - len(keys)))
            units[[at for _, at in new[len(keys) :]], np.arange(units.shape[1])] = 1
            # In the factor's precision: a float32 factor's solves are float32
            # numbers, kept in half the memory.
            through = self._through(np.column_stack([border, units]), cast=False)
            del units
            for j, name in enumerate(new):  # copies: each goes when it is dropped
                columns[name] = (border[:, j].copy() if j < len(keys) else None,
                                 through[:, j].copy(), False)  # fmt: skip
            del border, through
        stacked = np.empty((base.size, len(names)))
        for j, name in enumerate(names):
            stacked[:, j] = columns[name][1]
        joined = np.empty((base.size, joining.size))
        for j, name in enumerate(names[: joining.size]):
            joined[:, j] = columns[name][0]
        return joined, stacked

    def _refined(self, held, solution, rights, steps=2, settle=False):
        """``(held, X)`` refined from an update's ``solution``: ``X += M_II⁻¹ (R -
        M_II X)``, the residual by ``product`` (from the rows, no k x k array), its
        solve by the same update (the border's solves kept: a few percent of a
        factor's time). With ``settle``, until the residual is within
        ``RESIDUAL_BELOW`` of the right sides, or stops halving within
        ``RESIDUAL_LIMIT`` of them (float64's floor), else None."""
        right = rights(held)
        scale = max(float(np.max(np.abs(right), initial=0.0)), np.finfo(float).tiny)
        last = np.inf
        for step in range(steps + settle):  # settle: the last residual checked too
            residual = right - self.product(held, solution)
            size = float(np.max(np.abs(residual), initial=0.0))
            # Settled: small, or at float64's floor (no longer halving) within what
            # the exchanges accept of the held margins.
            if settle and (size <= self.RESIDUAL_BELOW * scale or (
                size > last / 2 and size <= RESIDUAL_LIMIT * scale
            )):
                return held, solution
            if step == steps:
                break
            last = size

            def residual_of(keys, residual=residual):
                at = np.minimum(np.searchsorted(held, keys), held.size - 1)
                return np.where((held[at] == keys)[:, None], residual[at], 0.0)

            solved = self._from_factor(held, residual_of)
            if solved is None:
                break
            solution = solution + solved[1]
        return None if settle else (held, solution)

    def _from_factor(self, held, rights):
        """The solves for ``held`` from the factor of ``self.factored``: left rows held
        at 0, joined rows by block elimination (Schur complement). The elimination
        of the last held set is kept: a refinement solves it again and again."""
        update = self._update_for(held)
        if update is None:
            return None
        leaving, joining, border, through, schur = update
        base, a = self.factored, joining.size
        self.by_update = leaving.size + a > 0
        right = rights(base)
        right[leaving] = 0.0
        right_extra = np.zeros((a + leaving.size, right.shape[1]))
        right_extra[:a] = rights(joining)
        base_part = self._through(right)
        if schur is not None:
            extra = lu_solve(schur, right_extra - _bordered(border, leaving,
                                                            base_part),
                             check_finite=False)  # fmt: skip
            base_part -= through @ extra
        else:
            extra = right_extra
        solution = np.empty((held.size, right.shape[1]))
        staying = np.isin(base, held)
        solution[np.searchsorted(held, base[staying])] = base_part[staying]
        solution[np.searchsorted(held, joining)] = extra[:a]
        return held, solution

    def _update_for(self, held):
        """``(leaving, joining, B, M_base⁻¹ B, LU of the Schur complement)`` of
        ``held`` from the factor, the last one kept; None where too many keys change
        or the complement is singular."""
        key = held.tobytes()
        if self._update is not None and self._update[0] == key:
            return self._update[1]
        base = self.factored
        leaving = np.flatnonzero(~np.isin(base, held))  # positions in base
        joining = held[~np.isin(held, base)]
        a, r = joining.size, leaving.size
        if a + r > self.UPDATE_SHARE * base.size:
            return None
        self._update = None  # its arrays go before the next are made
        border, through = self._border(base, joining, leaving)
        corner = np.zeros((a + r, a + r))
        corner[:a, :a] = self.block(joining, joining)
        schur = None  # nothing changed: no complement
        if a + r:
            factor, pivots, info = lapack.dgetrf(
                corner - _bordered(border, leaving, through)
            )
            if info != 0 or not np.all(np.isfinite(factor)):
                return None
            schur = factor, pivots
        self._update = (key, (leaving, joining, border, through, schur))
        return self._update[1]


def _bordered(joined, leaving, values):
    """``Bᵀ values`` of the border ``B = [B_J, E_L]`` (:meth:`HeldSystem._border`):
    the joining keys' products, then the leaving positions' rows."""
    return np.vstack([joined.T @ values, values[leaving]])


def _held_factor(block, pivoting=False, below=DEPENDENT_BELOW):
    """``(factor, order)``: the Cholesky factor (``cho_solve``'s form) of the rows and
    columns ``order`` (in that order) of a symmetric PSD block (float64, or float32
    with its own ``below``), in the block's own memory; ``(None, None)`` where it
    fails.

    LAPACK's Cholesky factors the block in order (its transpose is Fortran-ordered:
    in place, the factor the block's lower triangle). Where a pivot falls to
    ``DEPENDENT_BELOW`` of the largest diagonal entry (rows dependent on the others
    to rounding), or at once where ``pivoting``, a complete pivoting (pstrf) factors
    ``Pᵀ A P = L Lᵀ`` from the upper triangle the Cholesky left alone, and stops
    where the largest pivot left falls there: its kept set is the best-conditioned
    one (an in-order choice kept rows whose pivot was rounding, and its other set
    made the exchanges cycle), and its factor the one solved with (a Cholesky of the
    kept rows again took 4.6 s of 66 twice on issue 56's TF-IDF of 8 900 pairs)."""
    if block.dtype == np.float32:
        potrf, pstrf = lapack.spotrf, lapack.spstrf
    else:
        block = np.ascontiguousarray(block, dtype=float)
        potrf, pstrf = lapack.dpotrf, lapack.dpstrf
    diagonal = np.diag(block).copy()  # both LAPACK calls write it
    tolerance = below * float(np.max(diagonal))
    if not pivoting:
        factor, info = potrf(block.T, lower=0, clean=0, overwrite_a=1)
        if info == 0 and float(np.min(np.diag(factor))) ** 2 >= tolerance:
            return (factor, False), np.arange(len(block))
        block[np.diag_indices(len(block))] = diagonal
    _, pivots, rank, info = pstrf(block.T, tol=tolerance, lower=1, overwrite_a=1)
    if info < 0 or rank == 0:
        return None, None
    if rank < len(block):  # L's leading rank x rank, one contiguous array for potrs
        block = _leading(block, rank)
    return (block.T, True), pivots[:rank] - 1


def _leading(block, k):
    """``block[:k, :k]`` moved into the first ``k²`` entries of its memory, a
    C-ordered k x k array, a band of rows at a time (row r is read before rows
    below r are written over it)."""
    compact = block.reshape(-1)[: k * k].reshape(k, k)
    for first in range(0, k, COPY_BAND):
        rows = slice(first, min(first + COPY_BAND, k))
        compact[rows] = block[rows, :k]  # numpy copies where the two overlap
    return compact


def pair_held_system(pairs_of_keys, gram, n_classes):
    """The :class:`HeldSystem` of pairs, ``M = C ∘ (K + 1 1ᵀ)``, right sides
    ``[1, Bᵀ]`` (:func:`pair_active_set`; the blocks and the right sides are
    :func:`~sklearn_linsep._kesler.pair_blocks`): most pairs of most rows held,
    they are solved by the rows' inverse (rows x rows), else by a held factor;
    neither of more than ``_cost.PAIR_DUAL_MAX_PAIRS`` (read here: settable)."""
    largest = _cost.PAIR_DUAL_MAX_PAIRS
    block, right, whole, product = pair_blocks(pairs_of_keys, gram, n_classes, largest)
    return HeldSystem(block, right, whole=whole, largest=largest, product=product)


def pair_system(gram, position, own, others, n_classes):
    """The :func:`pair_held_system` of these pairs, keyed by position in ``own``."""
    return pair_held_system(lambda keys: (position[keys], own[keys], others[keys]),
                            lambda: gram, n_classes)  # fmt: skip


def pair_active_set(
    gram, position, own, others, n_classes, held, tol=1e-12, system=None
):
    r"""The Crammer–Singer dual of the pairs on their rows' Gram matrix by the
    primal-dual active set of :func:`gram_active_set`: ``(α, b, A)``, ``W = Σ_j α_j
    (e_own - e_other) z_jᵀ = A Z`` (:func:`row_coefficients`), or None where it does
    not settle. Pair j is row ``position[j]`` of ``gram`` (a row once, however many
    pairs), classes ``own[j]`` and ``others[j]``. With ``B`` the class columns
    (:func:`class_columns`) the pairs' Gram matrix is ``C ∘ K``, ``C = Bᵀ B`` (entries
    in {-2, …, 2}), formed only in held blocks. Held pairs solve ``(C ∘ K)_II α +
    B_Iᵀ b = 1``, ``B_I α = 0``: ``M = C ∘ (K + 1 1ᵀ)`` acts as ``C ∘ K`` where ``B α
    = 0`` and is positive definite on independent Kesler rows, so one factor solves
    ``M X = [1, B_Iᵀ]`` and ``B_I M⁻¹ B_Iᵀ b = B_I M⁻¹ 1`` (``Σ b = 0``; K - 1
    equations independent: ``1ᵀ B = 0``) gives b. K = 2 is two classes (``C = 2 c
    cᵀ``). ``system``: ``(keys, held system)``, sorted keys outliving this call (its
    factor serves the next round)."""
    m = len(own)
    classes = class_columns(own, others, n_classes)
    if system is None:
        keys, system = np.arange(m), pair_system(gram, position, own, others, n_classes)
    else:
        keys, system = system
    alpha = np.zeros(m)

    def step(held):
        solved = system.solve(keys[held])
        if solved is None:
            return None
        held_keys, solution = solved  # less pairs dependent on the others
        held = np.searchsorted(keys, held_keys)
        held_classes = classes[:, held]
        towards_one, towards_classes = solution[:, 0], solution[:, 1:]
        coupling = held_classes @ towards_classes
        intercept = np.linalg.lstsq(
            coupling + np.ones_like(coupling), held_classes @ towards_one, rcond=None
        )[0]
        held_alpha = towards_one - towards_classes @ intercept
        if not (np.all(np.isfinite(held_alpha)) and np.all(np.isfinite(intercept))):
            return None
        alpha[:] = 0.0
        alpha[held] = held_alpha
        # Every pair's (w_own - w_other)·z_j + b_own - b_other from the rows' Gram
        # matrix (A K: K scores a row, no copy of K).
        rows = row_coefficients(position, own, others, alpha, n_classes, len(gram))
        margins = pair_scores(rows, gram, position, own, others, n_classes)[:, 0]
        margins += classes.T @ intercept
        keep = held[held_alpha > 0]
        return held, keep, margins < 1 - tol, margins, (alpha, intercept, rows)

    held = np.asarray(held, dtype=np.intp)
    return _exchanges(held, step, lambda held: held.size > 0, system)


def refined_pair_dual(system, keys, alpha, intercept, margins_for, steps=2):
    """The held pairs' ``(α, b)`` of :func:`pair_active_set` refined on the residual
    ``r = 1 - margins`` (``margins_for(α, b)(keys)``, as the caller computes them: from
    the rows, not their Gram matrix), each step one solve of the held ``system`` (the
    rows' inverse, an update of its factor, or a new one): ``M δα + B_Iᵀ β = r``,
    ``B_I δα = -B_I α``, ``Σ β = 0``, then ``b += β - B_I α`` (``M = C ∘ K + Bᵀ B``),
    until the margins are 1 to float64's last bits; None where a solve fails."""
    classes = system.right(keys)[:, 1:].T
    for _ in range(steps):
        margins = margins_for(alpha, intercept)
        if np.max(np.abs(margins(keys) - 1.0), initial=0.0) <= 4 * np.finfo(float).eps:
            break  # (small problems: most; the solves cost them 5%)
        solved = system.solve(keys, lambda some, margins=margins: np.column_stack(
            [1.0 - margins(some), system.right(some)[:, 1:]]))  # [1 - margins, Bᵀ]
        if solved is None or solved[0].size != keys.size:
            return None  # a held pair found dependent: not this system's solve
        towards, through = solved[1][:, 0], solved[1][:, 1:]
        coupling, unbalanced = classes @ through, classes @ alpha
        beta = np.linalg.lstsq(coupling + 1.0, classes @ towards + unbalanced,
                               rcond=None)[0]  # fmt: skip
        alpha = alpha + towards - through @ beta
        intercept = intercept + beta - unbalanced
    return alpha, intercept

