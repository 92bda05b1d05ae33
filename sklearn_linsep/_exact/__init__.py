"""The exact layer: statements about the float64 rows as given, decided and
proved in exact arithmetic, one method a module.

Every float64 is a rational (``m · 2^k``), so whether two classes are linearly
separable, and by which hyperplane at most, is a question with an exact answer
on the data as given. The exact core (:mod:`sklearn_linsep._margin`) answers it
in float64 first; this layer turns that answer into a proof, or finds the true
one where float64 cannot tell.

How a proof is made, cheapest first (the order :mod:`._margin._driver` runs
its fallbacks in; each step is tried only where the one before cannot decide):

1. **A float64 proof with every rounding bounded** (in
   :mod:`sklearn_linsep._proofs`, not here): a separator's every margin bounded
   below, or a certificate's square system enclosed (:mod:`._enclosure`,
   Rump's method), in X's frame or a better-conditioned one (:mod:`._frames`).
2. **A certificate's weights in rationals** (:func:`._simplex.exact_pair_weights`;
   two classes are K = 2, a pair per row): the one solution of its system
   (:func:`._numbers.solve_exactly`), else the simplex on its columns.
3. **A small problem decided whole** (within :data:`._farkas.EXACT_ENTRIES`),
   or **a large one from float64's certificate**: Farkas' LP stepped in
   rationals, float-guided (:mod:`._simplex`), on every row; its answer is an
   exact certificate or an exact separator.
4. **The maximal margin in rationals** (:mod:`._kkt`): from the separator's
   tight rows, or a float guess of the support, the KKT system of the support
   solved exactly and checked on every row and pair; two classes are its case
   K = 2.
5. **The span of the within-class differences** (:mod:`._span`): whether the
   class means' difference lies in the range of the scatter, for the
   statistics family (:mod:`sklearn_linsep._fredholm`).

What is checked, rather than made, is :mod:`sklearn_linsep._proofs`' and the
results' ``verify``; their exact checks are :mod:`._farkas`'s
(:func:`~._farkas.solves_exactly`, :func:`~._farkas.least_pair_margin`).

The modules, bottom up (each one method; ARCHITECTURE.md says what each holds):
:mod:`._dyadic` (numpy only), :mod:`._numbers` (the one module importing
``flint`` or ``fractions``: FLINT's matrices inside, Fractions handed out),
:mod:`._enclosure`, :mod:`._farkas`, :mod:`._frames`, :mod:`._simplex`,
:mod:`._kkt`, :mod:`._span`.
"""
