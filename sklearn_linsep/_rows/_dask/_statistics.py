"""Class statistics of dask arrays: one task per block, merged in a tree."""

from dataclasses import replace

import numpy as np

from ..._stats import class_statistics
from ..._validation import check_class_totals, check_labels
from ._tasks import tree_reduce, validate_block


def _labelled_block_statistics(X, y, sample_weight, per_class, name):
    """``(labels, statistics)`` of one block, its classes being the labels it
    holds: no pass over y is needed beforehand to know them all."""
    X, y_encoded, sample_weight, labels = validate_block(
        X, y, sample_weight, None, name
    )
    stats = class_statistics(
        X, y_encoded, len(labels), sample_weight, per_class=per_class
    )
    return labels, stats


def _expand(stats, labels, union):
    """The statistics of ``labels`` as statistics of the classes ``union`` (a
    class absent from the block has weight 0, which the merge ignores)."""
    if len(labels) == len(union):
        return stats
    where = np.searchsorted(union, labels)
    counts = np.zeros(len(union))
    counts[where] = stats.counts
    means = np.zeros((len(union), stats.n_features))
    means[where] = stats.means
    residual = np.zeros((len(union), stats.n_features))
    residual[where] = stats.residual
    return replace(
        stats,
        counts=counts,
        means=means,
        mean_residual=residual,
        within=stats.within.relabelled(where, len(union)),
    )


def _merge_labelled(first, second):
    (labels_a, stats_a), (labels_b, stats_b) = first, second
    union = np.union1d(labels_a, labels_b)
    return union, _expand(stats_a, labels_a, union).merge(
        _expand(stats_b, labels_b, union)
    )


def dask_class_statistics(rows, per_class=False):
    """``(classes, statistics)`` of a :class:`DaskRows`, in one pass over its
    blocks: :func:`~sklearn_linsep._stats.class_statistics` of each block as a dask
    task (keyed by the labels the block holds), merged by Chan's update in a tree.
    Never brings rows to the client.

    ``per_class`` keeps the scatter of each class.
    """
    import dask

    block_stats = dask.delayed(_labelled_block_statistics, pure=True)
    parts = [block_stats(X, y, w, per_class, rows.name) for X, y, w in rows.blocks()]
    classes, stats = tree_reduce(parts, _merge_labelled).compute()
    classes = check_labels(classes, rows.name)
    check_class_totals(stats.counts, classes)
    return classes, stats
