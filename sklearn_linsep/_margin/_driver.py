"""The one exact core: the loop every problem kind goes through.

A *problem kind* (:class:`ProblemKind`; user guide, "What a problem provides") is
what varies between two classes (rows, labelled ±1) and K classes (Kesler's pairs:
a row and another class). :func:`exact_margin` does the rest, in this order:

1. **Decide** where every feature keeps its digits: in X's frame (divided by one
   scalar) where the spreads are close, else (or where that fails its checks) with
   each feature divided by its own spread. The working set grows by the worst
   violators (:func:`~sklearn_linsep._working_set.grow`) until none is left, or a
   subset has no hyperplane (then neither has the whole).
2. **Finish in X's units**: the Euclidean margin from the equilibrated frame's
   working set and hyperplane (which separates every row in X's frame too); where
   float64 cannot, the kind's ``finish_exactly`` (the maximal margin in rationals).
3. **Check** the KKT conditions on every constraint and **prove** the margins with
   their rounding bounded (:func:`~._kkt.check_optimality`, :func:`~._kkt.proven`).
4. **Inseparable**: the certificate of the last working set, and with ``soft`` the
   C → ∞ limit of the soft margin.
5. **Where float64 cannot decide** (its answer fails its proof), the deciders give
   a typed :class:`Decision`: :meth:`~ProblemKind.decide_whole` where float64's
   route raised, :meth:`~ProblemKind.decide_beyond` where its certificate holds to
   a tolerance only. A separator in rationals, where the margin is asked, starts
   the rational KKT solver (``maximal_from``). :mod:`sklearn_linsep._exact` maps
   the methods.
"""

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from .._exact._farkas import decidable, tightest_pairs
from .._exact._kkt import (
    MAXIMAL_ENTRIES,
    Budget,
    maximal_machine_on_rows,
    small_problem_budget,
)
from .._exact._simplex import decide_pairs_on_rows
from .._rows._protocol import check_protocol
from .._working_set import DROP_ABOVE, grow, rows_in_memory
from ..exceptions import SolverError
from ._certificate import checked_certificate, without_proof
from ._kkt import check_optimality, proven
from ._principal import decide_jointly_in_principal_frame
from ._result import warn_if_inexact, warn_user

SEPARABLE_EXACTLY = (
    "The classes are separable, decided in exact rational arithmetic where "
    "float64 could not prove a hyperplane. The separating hyperplane is given "
    "exactly (exact_coef, exact_intercept: Fractions); coef and intercept are "
    "their float64 roundings, which may not separate, and margin is that "
    "hyperplane's, not the maximal one"
)
MAXIMAL_EXACTLY = (
    "The maximal-margin hyperplane was computed in exact rational arithmetic, "
    "where float64 could not prove it: exact_coef and exact_intercept "
    "(Fractions) have c_i (w·x_i + b) >= 1 on every row, equal on the support. "
    "coef and intercept are their float64 roundings, which may not separate "
    "every row; margin is 1/||w|| rounded"
)
BY_ROUNDING = (
    "float64: inseparable to its tolerance; some features are rounded linear "
    "combinations of others, and the classes separate along the directions "
    "that rounding alone fills"
)
NEAR_TOUCHING = (
    "float64: inseparable to its tolerance; the classes come within its "
    "rounding of touching, and the simplex method in rational arithmetic "
    "decided on every row (sklearn_linsep._exact._simplex)"
)
NO_FLOAT_MARGIN = (
    "The classes are separable (decided in exact rational arithmetic), but the "
    "maximal-margin hyperplane cannot be computed and proved in float64, and in "
    "rationals (from the rows or pairs the exact separator holds nearest its "
    "margin) it did not settle or is beyond "
    f"sklearn_linsep._exact._kkt.MAXIMAL_ENTRIES = {MAXIMAL_ENTRIES} entries "
    "of the rows; linear_separability gives an exact separating hyperplane."
)


class Decided(Enum):
    """What a decision beyond float64 found."""

    CERTIFICATE = "certificate"  # proven: the classes are inseparable
    SEPARATOR = "separator"  # a separating hyperplane in rationals, not the widest
    MAXIMAL = "maximal"  # the maximal-margin hyperplane in rationals


@dataclass(frozen=True)
class Decision:
    """A decider's answer: the proven certificate, or a result with ``exact_coef``."""

    kind: Decided
    answer: object

    @classmethod
    def of(cls, kind, answer):
        """From the exact layer's tag: "certificate", "separator" or "maximal"."""
        return cls(Decided(kind), answer)


class ProblemKind:
    """What :func:`exact_margin` asks of a problem kind, and what the kinds share:
    the deciders beyond float64 written once over the kind's own exact pieces.
    ``rows`` is the problem in X's frame (:func:`check_rows`), ``frame`` it or its
    equilibrated copy, ``active`` the rows in memory
    (:func:`~sklearn_linsep._working_set.rows_in_memory`). A piece a kind lacks
    fails where it is asked (AttributeError)."""

    rows: object
    classes: object  # the labels, for the certificate
    n_classes: int  # 2 for rows, K for pairs
    warm: type  # ``warm(frame, tol)``: the working set's warm subproblem
    not_finished: str  # the SolverError where X's units cannot be finished
    not_in_units: str  # the warning of ``units_or_verdict``
    equilibrates = True  # False: decided in X's frame only, else a SolverError
    maximal_refused = False  # ``maximal_from`` is tried once (_hyperplane_decided)
    basis_is_support = False  # the simplex's last basis guesses the maximal support
    sizes: Callable  # (initial_size, batch): the working set's, defaults filled in
    misses: Callable  # (ids, solution, tol): the KKT conditions (feasibility) missed?
    from_feasible: Callable  # (ids, feasible, tol): the primal active set (_in_units)
    terms: Callable  # (frame, working, solution): the working set's ._kkt.DualTerms
    result: Callable  # (frame, working, solution, rounds): the answer, mapped to X
    certificate: Callable  # (working, solution): a hull-less working set's proof
    unseparated: Callable  # (rounds, certificate): the answer without the soft limit
    soft_limit: Callable  # (working, tol, batch): the C → ∞ limit from the working set
    # The exact pieces, on the rows' pairs (two classes: K = 2, a pair per row), that
    # the deciders below map to the kind's answers.
    certified_pairs: Callable  # (certificate): its rows (X's) and other class codes
    exact_separator: Callable  # (W, b): a separating machine in rationals' result
    exact_maximal: Callable  # (result, rows, others, μ): its dual and exact margin
    separator_budget: Callable  # (n_rows): the KKT solver's from a separator, or None

    def anchors(self, frame):
        """Constraint ids every working set keeps (rows: none)."""
        return np.array([], dtype=np.intp)

    def per_round(self, batch, working):
        """How many violators join ``working`` in a round."""
        return batch

    def subproblem(self, frame, tol):
        """``solve(ids) -> Hyperplane``, warm; ``solve.polished`` the last answer."""
        return self.warm(frame, tol)

    def in_units(self, tol):
        """The warm subproblem on ``rows``, in X's units (:func:`_in_units`)."""
        return self.warm(self.rows, tol)

    def known_certificate(self):
        """A certificate found before any round (:func:`float_route` starts from
        it), or None: two classes reach theirs in a round or two."""

    def finish_exactly(self):
        """Where float64 cannot finish X's units: the maximal margin in rationals,
        proved on every constraint; None where the kind cannot (two classes: the
        primal active set finishes X's units in float64, keeping each feature's
        digits, :func:`~._solvers.margin_from_feasible`)."""
        return None

    def decide_whole(self, maximal):
        """Where float64's route raised (no certificate to start from): a
        :class:`Decision` on the whole problem in rationals without limits where
        it is small (``EXACT_ENTRIES``: an exact certificate, or the maximal-margin
        else a separating hyperplane), else by the simplex on every row; None."""
        active = rows_in_memory(self.rows)
        if active is None:
            return None
        small = decidable(active.size, self.rows.n_features, self.n_classes)
        if small and (decision := self.decide_on_rows(active, [], True, small=True)):
            return decision
        return self.decide_on_rows(active, [], maximal)

    def decide_beyond(self, certificate, maximal):
        """``(decision, why)`` where float64's ``certificate`` holds to a tolerance
        only (``why``: what float64 could not do), or ``(None, None)``. The frame
        of the rows' principal axes first (:mod:`._principal`): features that are
        rounded combinations of others cost the simplex many steps. Else the
        simplex in rationals on every row from the certificate's constraints."""
        active = rows_in_memory(self.rows)  # every constraint priced every step
        if active is None:
            return None, None
        found = decide_jointly_in_principal_frame(
            self.rows.original_rows(active), self.codes(active), self.n_classes
        )
        kind, answer = found or (None, None)
        if kind == "certificate":
            try:
                checked = self.checked(active, *answer, proof_only=True)
                return Decision.of(kind, checked), BY_ROUNDING
            except SolverError:  # the frame's certificate is no proof either
                pass
        elif kind is not None:
            return Decision.of(kind, self.exact_separator(*answer)), BY_ROUNDING
        # The start: the certificate's pairs, heaviest first, (position, other code).
        position = {i: k for k, i in enumerate(self.rows.indices_in_X(active).tolist())}
        heaviest = np.argsort(-certificate.certificate_weights, kind="stable")
        rows, others = (part[heaviest].tolist()
                        for part in self.certified_pairs(certificate))  # fmt: skip
        start = [(position[i], k) for i, k in zip(rows, others) if i in position]
        return self.decide_on_rows(active, start, maximal), NEAR_TOUCHING

    def codes(self, active):
        """The class codes (0 to K - 1) of the rows ``active``."""
        return self.rows.codes[active]

    def machine(self, separator):
        """The machine ``(W, b)`` in rationals of a separator's result."""
        return separator.exact_coef, separator.exact_intercept

    def checked(self, active, local, weights, **options):
        """The checked certificate (:func:`~._certificate.checked_certificate`) of
        the weights μ on the pairs ``local`` (``row * K + other``, of the rows
        ``active``)."""
        K = self.n_classes
        ids = active[local // K] * K + local % K
        return checked_certificate(self.rows, ids, weights, self.classes, **options)

    def decide_on_rows(self, active, start, maximal, small=False):
        """Farkas' alternative on every pair of the rows ``active`` in rationals from
        the pairs ``start`` (:func:`~.._exact._simplex.decide_pairs_on_rows`; a
        ``small`` problem without limits): a :class:`Decision`, or None. With
        ``maximal``, the maximal margin from the separator's last basis where that
        is as a rule its support (``basis_is_support``) or the problem is small (K
        classes: the basis holds pairs of every class, and a small problem's
        exchanges fix it)."""
        K = self.n_classes
        points, codes = self.rows.original_rows(active), self.codes(active)
        found = decide_pairs_on_rows(points, codes, K, start, limited=not small)
        if found is None:
            return None
        kind, answer = found
        if kind == "certificate":
            pair_rows, others, exact = answer
            weights = np.array([float(value) for value in exact])
            checked = self.checked(active, pair_rows * K + others, weights,
                                   exact_weights=exact)  # fmt: skip
            return Decision.of(kind, checked)
        W, b, tight = answer
        if maximal and (small or self.basis_is_support):
            budget = small_problem_budget(active.size * (K - 1)) if small else Budget()
            maximal = maximal_machine_on_rows(points, codes, K, tight, budget)
            if decision := self.maximal_of(active, maximal):
                return decision
        return Decision.of(kind, self.exact_separator(W, b))

    def maximal_from(self, separator):
        """The maximal margin's :class:`Decision` by the rational KKT solver from the
        pairs the rational ``separator`` holds nearest its margin (exactly: its
        weights may cancel), as many as a hyperplane's unknowns (a larger guess slows
        each exchange); None off memory, beyond the kind's ``separator_budget``, or
        where it does not settle."""
        rows, K = self.rows, self.n_classes
        active = rows_in_memory(rows)
        budget = None if active is None else self.separator_budget(active.size)
        if budget is None or not active.size:
            return None
        points, codes = rows.original_rows(active), self.codes(active)
        near = tightest_pairs(points, codes, K, *self.machine(separator),
                              rows.n_features + 1)  # fmt: skip
        maximal = maximal_machine_on_rows(points, codes, K, near, budget)
        return self.maximal_of(active, maximal)

    def maximal_of(self, active, found):
        """The :class:`Decision` of the maximal machine ``found = (W, b, μ)`` in
        rationals on the rows ``active`` (``μ > 0`` by ``(row, other)``: its
        support), or None without one."""
        if not found:
            return None
        W, b, multipliers = found
        on = sorted(multipliers)
        rows = active[[i for i, _ in on]]
        others = np.array([k for _, k in on], dtype=np.intp)
        try:
            mu = np.array([float(multipliers[pair]) for pair in on])
        except OverflowError:  # a feature of 1e-155: μ ~ ‖w‖² beyond float64
            return None
        result = self.exact_separator(W, b)
        result.support = self.rows.indices_in_X(rows)
        self.exact_maximal(result, rows, others, mu)
        return Decision.of("maximal", result)


def exact_margin(problem, tol, soft, initial_size=None, batch=None,
                 units_or_verdict=False, verdict=False):  # fmt: skip
    """The module's steps on ``problem`` (a :class:`ProblemKind`). With
    ``units_or_verdict``, where X's units cannot be finished and certified
    (features on scales ~1e6 apart whose optimum turns on the small ones), the
    deciding frame's hyperplane, which separates every row, comes with a
    UserWarning. Where float64 cannot decide (classes within its rounding of
    touching), ``decide_whole`` decides in rationals; a separator, not the maximal
    one, stands only with ``verdict`` (the verdict is asked, not the margin)."""
    try:
        return float_route(problem, tol, soft, initial_size, batch,
                           units_or_verdict, verdict=verdict)  # fmt: skip
    except SolverError as error:
        failure = error  # what float64 could not do, said with the answer
        decision = problem.decide_whole(maximal=not verdict)
        if decision is None:
            raise
    if decision.kind is not Decided.CERTIFICATE:
        return _hyperplane_decided(problem, decision, f"float64: {failure}", verdict,
                                   f"{failure} {NO_FLOAT_MARGIN}", failure)  # fmt: skip
    if not soft:
        return problem.unseparated(0, decision.answer)
    # The soft limit stands on its own proof, whatever the certificate's; where
    # it fails too, float64's own reason is the error.
    try:
        return float_route(problem, tol, soft, initial_size, batch,
                           units_or_verdict, certificate=decision.answer)  # fmt: skip
    except SolverError:
        raise failure from None


def _hyperplane_decided(problem, decision, why, verdict, refusal, cause=None):
    """A hyperplane decided in rationals, with its warning. A separator stands
    only with ``verdict``; else the maximal margin from it (``maximal_from``, tried
    once a problem: after a refusal exact_margin decides again, and its separator
    would start the same search), or the SolverError ``refusal``."""
    if decision.kind is Decided.SEPARATOR and not verdict:
        if not problem.maximal_refused:
            decision = problem.maximal_from(decision.answer)
            problem.maximal_refused = decision is None
        if problem.maximal_refused:
            raise SolverError(refusal) from cause
    said = MAXIMAL_EXACTLY if decision.kind is Decided.MAXIMAL else SEPARABLE_EXACTLY
    warn_user(f"{said} ({why})")
    return decision.answer


def float_route(problem, tol, soft, initial_size, batch, units_or_verdict=False,
                certificate=None, verdict=False):  # fmt: skip
    """:func:`exact_margin` in float64, every answer proved (or a SolverError);
    ``certificate``, given by the exact decision, stands for the route's own. A
    certificate that holds to a tolerance only is decided again
    (``decide_beyond``); where that fails it stands, with a warning."""
    rows = problem.rows
    check_scale(rows.scale)
    size, batch = problem.sizes(initial_size, batch)
    known = problem.known_certificate() if certificate is None else None
    if known is not None:
        if not soft:
            return problem.unseparated(0, known)
        working = problem.certified_ids(known, rows.seed(size))
        result = problem.soft_limit(working, tol, batch)
        result.certificate = known
        return result
    frame, (solution, working, rounds), smallest = _deciding_frame(
        problem, tol, size, batch
    )
    if solution.feasible and frame is not rows:
        finished = _in_units(problem, frame, solution, working, tol, batch)
        if finished is not None:
            (solution, working, more), smallest, frame = *finished, rows
            rounds += more
        elif (exact := problem.finish_exactly()) is not None:
            warn_user(f"{MAXIMAL_EXACTLY} (float64: {problem.not_finished})")
            return exact
        elif units_or_verdict:
            warn_user(problem.not_in_units)
        else:
            raise SolverError(problem.not_finished)
    if solution.feasible:
        if smallest is None:  # the deciding frame's hyperplane (see above)
            smallest = _checked(problem, frame, working, solution, tol)
        warn_if_inexact(solution)
        result = problem.result(frame, working, solution, rounds)
        return proven(rows, result, tol, smallest)
    if certificate is None:
        certificate = problem.certificate(working, solution)
    if not certificate.proven:
        decision, why = problem.decide_beyond(certificate, maximal=not verdict)
        if decision is not None and decision.kind is Decided.CERTIFICATE:
            certificate = decision.answer
        elif decision is not None:  # the certificate is false: never returned
            return _hyperplane_decided(problem, decision, why, verdict,
                                       f"{NO_FLOAT_MARGIN} ({why})")  # fmt: skip
    if not certificate.proven:  # to a tolerance only: said, never passed off
        warn_user(without_proof(rows.n_samples, rows.n_features))
    if not soft:
        return problem.unseparated(rounds, certificate)
    result = problem.soft_limit(working, tol, batch)
    result.rounds += rounds
    result.certificate = certificate
    return result


def _deciding_frame(problem, tol, size, batch):
    """``(frame, (solution, working, rounds), smallest)``: the verdict in X's frame
    where the spreads are close (``smallest``: its checked least margin), else, or
    where that fails (a solver stalls or the checks fail), with each feature
    divided by its own spread (``smallest`` None: not the answer yet)."""
    rows = problem.rows
    if not (rows.uneven and problem.equilibrates):
        try:
            found = _decide(problem, rows, tol, size, batch)
            solution, working, _ = found
            if not solution.feasible:
                return rows, found, None
            return rows, found, _checked(problem, rows, working, solution, tol)
        except SolverError:
            if not problem.equilibrates:
                raise
    frame = rows.equilibrated()
    return frame, _decide(problem, frame, tol, size, batch), None


def _decide(problem, frame, tol, size, batch):
    """The working-set loop in ``frame`` from its seed, the last answer polished."""
    seed = frame.seed(size)  # first: the subproblem may start from its guess
    subproblem = problem.subproblem(frame, tol)
    solution, working, rounds = grow_working_set(
        problem, frame, subproblem, seed, tol, batch
    )
    return subproblem.polished(working, solution), working, rounds


def _in_units(problem, frame, solution, working, tol, batch):
    """``((solution, working, rounds), smallest)`` in X's units from the
    equilibrated frame's working set and hyperplane (None if not certified): each
    working set by the kind's warm subproblem in X's metric where that meets the
    KKT conditions, else (a small feature's gap below the rounding of the large
    ones) by the primal active set from that hyperplane, which separates all."""
    rows = problem.rows
    feasible = (solution.coef * (rows.scale / frame.scale), solution.intercept)
    warm = problem.in_units(tol)

    def finish(ids):
        try:
            solution = warm(ids)
            if solution.feasible and not problem.misses(ids, solution, tol):
                return solution
        except SolverError:
            pass
        solution = problem.from_feasible(ids, feasible, tol / 2)
        if solution is None:
            raise SolverError(problem.not_finished)
        warm.remember(ids, solution)
        return solution

    try:
        finished = grow_working_set(problem, rows, finish, working, tol, batch)
        return finished, _checked(problem, rows, finished[1], finished[0], tol)
    except SolverError:
        return None


class WarmStart:
    """A subproblem started from the last answer's support: its rows (``members``)
    and their hull weights λ."""

    # Shared by every instance until one answers: read-only, so that a subproblem
    # can only replace them, never write into another's.
    members = np.array([], dtype=np.intp)  # rows of the last answer
    weights = np.array([])  # and their λ
    members.setflags(write=False)
    weights.setflags(write=False)

    def polished(self, indices, solution):
        """The last answer as it is (a subproblem that polishes overrides this)."""
        return solution

    def start(self, indices):
        """The last answer's λ on the rows ``indices`` (sorted)."""
        start = np.zeros(len(indices))
        positions, weights = self.last_support_in(indices)
        start[positions] = weights
        return start

    def last_support_in(self, indices):
        """Positions in ``indices`` (sorted) of the last support's rows, and their λ."""
        found = np.searchsorted(indices, self.members)
        inside = found < len(indices)
        inside[inside] = indices[found[inside]] == self.members[inside]
        return found[inside], self.weights[inside]


def _checked(problem, frame, working, solution, tol):
    """The KKT conditions on every constraint (or a SolverError); the least margin."""
    terms = problem.terms(frame, working, solution)
    return check_optimality(frame, terms, solution, tol)


def grow_working_set(problem, frame, solve, start, tol, batch):
    """The hard margin's working-set loop on ``frame`` from ``start``, each set
    solved by ``solve``; the kind's anchors join and stay. Constraints far inside
    their side rarely become support and are dropped (cost grows with size)."""
    anchors = problem.anchors(frame)

    def violators(solution, working):
        joining = problem.per_round(batch, working)
        violated, inside = frame.violators(
            solution.coef, solution.intercept, 1.0 - tol, working, joining
        )
        if anchors.size:
            inside = np.where(np.isin(working, anchors), 0.0, inside)
        return violated, inside

    return grow(np.union1d(start, anchors), solve, violators, drop_above=DROP_ABOVE)


def check_rows(rows, protocol, in_memory):
    """``rows`` provides all of ``protocol``, or of its extension ``in_memory``
    where its passes are cheap (rows in memory)."""
    check_protocol(rows, in_memory if rows.cheap_passes else protocol)


def check_scale(scale):
    """Refuse data whose spread the dual coefficients (α / scale²) and the QP's
    scaling cannot represent in float64."""
    if not 1e-100 <= scale <= 1e100:
        raise ValueError(
            f"X's centred entries reach {scale:.3g}: outside [1e-100, 1e100], where "
            "the margin, the dual coefficients (α / scale²) and the scores stay "
            "representable in float64. Rescale X by a constant."
        )
