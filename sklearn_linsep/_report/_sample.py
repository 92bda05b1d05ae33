"""The rows kept of many: uniform within each class, every class kept. The
reader's sample of a file larger than ``--sample-rows`` (:mod:`._read`), and the
fitting rows of what does not scale to many (``--fit-rows``: the soft-margin
hinge, cross-validation)."""

import numpy as np

# A class of this many rows or fewer is kept whole in a sample; a larger one
# keeps at least this many rows (so that cross-validation folds can hold it).
_MINIMUM_PER_CLASS = 50


def stratified_sample(class_counts, sample_rows, seed):
    """Per class, the sorted ordinals of the rows to keep: about ``sample_rows`` in
    all, in proportion to the classes but never fewer than ``_MINIMUM_PER_CLASS``
    of a class (all of a smaller one), uniform within each class."""
    rng = np.random.default_rng(seed)
    total = class_counts.sum()
    chosen = []
    for count in class_counts:
        take = max(round(sample_rows * count / total), _MINIMUM_PER_CLASS)
        take = int(min(take, count))
        chosen.append(np.sort(rng.choice(count, take, replace=False)))
    return chosen


def fitting_rows(y, limit, seed):
    """Indices of at most about ``limit`` rows, uniform within each class and
    keeping every class (see :func:`stratified_sample`); all rows when there are
    no more."""
    if len(y) <= limit:
        return np.arange(len(y))
    n_classes = int(y.max()) + 1
    members = [np.flatnonzero(y == k) for k in range(n_classes)]
    chosen = stratified_sample(np.array([m.size for m in members]), limit, seed)
    return np.sort(np.concatenate([m[c] for m, c in zip(members, chosen, strict=True)]))


def kept_of_block(y, seen, chosen):
    """Which rows of a block the sample keeps: each row's ordinal within its class
    against the chosen ordinals (``seen`` counts the class's rows before)."""
    keep = np.zeros(len(y), dtype=bool)
    for k in range(len(chosen)):
        rows = np.flatnonzero(y == k)
        keep[rows] = np.isin(seen[k] + np.arange(rows.size), chosen[k])
        seen[k] += rows.size
    return keep
