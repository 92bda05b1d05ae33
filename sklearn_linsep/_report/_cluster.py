"""``linsep report --scheduler``: the table read by ``dask.dataframe`` on a
``dask.distributed`` cluster, where its class statistics and every class pair's
exact verdict are computed over every row; a sample of it (``--sample-rows``) comes
to this process for what does not scale (the least hinge and the fewest rows to
remove on ``--fit-rows`` of it, cross-validation, the complexity measures, the
plot), with the rows of every certificate.

The columns are planned from the first file's header and first row as for one file
(:mod:`._columns`); the rules that read a column's values (a counter, unique text)
are not applied, so identifier columns are known by name (``id``, ``*_id``,
``index``, a saved pandas index) and others are ``--drop``'s. Rows are named by
their position among all the files' data rows.
"""

import json
import os
import threading
from dataclasses import replace
from itertools import combinations
from types import SimpleNamespace

import numpy as np

from ._columns import plan_columns
from ._errors import TableError
from ._labels import canonical_label, case_note, table_classes
from ._read import Table
from ._source import NULL_VALUES, is_missing, open_source, shown

CONNECT_SECONDS = 10  # an unreachable scheduler is said within this
CODE = "__linsep_class__"  # the columns of class codes and row positions added
POSITION = "__linsep_row__"  # on the cluster
SMALL_CLASS = 10  # a class of fewer sampled rows comes whole


def connect(address):
    """A ``distributed.Client`` of the scheduler at ``address`` (``tcp://host:port``
    or a scheduler file), the default of dask's computations from now on; a
    TableError where it is not a dask scheduler that answers within
    ``CONNECT_SECONDS`` (a port that accepts and says nothing included: the client
    is made in a thread of its own, left behind where it hangs)."""
    try:
        import distributed
    except ImportError:
        raise TableError(
            "--scheduler needs dask.distributed: pip install 'sklearn-linsep[dask]'."
        ) from None
    where = {"scheduler_file": address} if os.path.isfile(address) else {
        "address": address
    }
    if "scheduler_file" in where:
        _scheduler_file_address(address)
    made = {}

    def make():
        try:
            made["client"] = distributed.Client(**where, timeout=CONNECT_SECONDS)
        except BaseException as error:  # noqa: BLE001 - said below, in one line
            made["error"] = error

    maker = threading.Thread(target=make, daemon=True)
    maker.start()
    maker.join(CONNECT_SECONDS + 1)  # (dask's own timeout ends a connection only)
    if "client" in made:
        return made["client"]
    reason = (
        first_line(made["error"]) if "error" in made
        else f"no answer as a dask scheduler within {CONNECT_SECONDS} s"
    )  # fmt: skip
    if "scheduler_file" in where:
        reason = f"not a dask scheduler file, or its scheduler is gone ({reason})"
    raise TableError(f"Cannot use the dask scheduler at {address}: {reason}.")


def _scheduler_file_address(path):
    """The address a dask scheduler file names (a JSON object with an
    ``address``), or a TableError that says what the file is instead (before,
    distributed's bare AssertionError or KeyError)."""
    try:
        with open(path, encoding="utf-8") as file:
            address = json.load(file)["address"]
        if not isinstance(address, str):
            raise TypeError(f"its address is {address!r}, not a string")
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        what = "no 'address'" if isinstance(error, KeyError) else first_line(error)
        raise TableError(
            f"Cannot use the dask scheduler at {path}: not a dask scheduler file "
            f"(a JSON object with the scheduler's 'address'; here {what})."
        ) from None
    return address


def first_line(error):
    """``error`` in one line, with its type: its own message, else (an empty
    one) that of the error that caused it; a wrapper's ("An error occurred while
    calling the read_csv method registered to the pandas backend.") followed by
    its cause's, which says what was wrong."""
    while not str(error).strip() and error.__cause__ is not None:
        error = error.__cause__
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    said = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
    cause = error.__cause__
    if cause is not None and str(cause).strip():
        said += f" ({first_line(cause)})"
    return said


def read_on_cluster(path, args, log):
    """``(table, verdicts)``: the :class:`~._read.Table` of a sample of the rows of
    PATH (with the class statistics of every row) and every pair's
    :func:`~sklearn_linsep.linear_separability` over every row (its certificate's
    rows in the sample), or the error it raised, by pair of class codes."""
    with open_source(path, args.decimal, max_bytes=args.max_decompressed) as first:
        layout = plan_columns(first, args.target, args.drop, args.keep,
                              args.keep_index)  # fmt: skip
        raw, parquet = first.header, first.parquet
        delimiter = getattr(first, "delimiter", ",")  # a CSV's
        parts = getattr(first, "parts", [first])  # one Source a file
        files, packing = [part.path for part in parts], _compression(path, parts)
    _refuse_text(layout, first)
    target = raw[layout.target]
    features = [raw[j] for j in layout.features]
    log(f"cluster: reading {len(files)} file(s) of {path} with dask.dataframe")
    frame = _frame(files, parquet, target, features, args.decimal, delimiter, packing)
    counted = frame.dropna(subset=features) if args.missing == "drop" else frame
    found = _first_pass(frame, counted, features, target)
    scan = SimpleNamespace(
        missing_cells=np.r_[found.missing, found.missing_labels],
        means=found.means,
        labels_seen=found.labels_seen,
    )
    class_names, class_of = table_classes(scan, layout, args.missing, args.positive)
    usable = _positioned(frame, found.starts)  # before any row is left out
    if args.missing == "drop":
        usable = usable.dropna(subset=features)
    if args.missing == "mean":
        usable = usable.fillna(dict(zip(features, found.means, strict=True)))
    X, y, where = _arrays(usable, target, features, found, class_of)
    log(f"cluster: {X.shape[0]} rows; the class statistics and the exact verdict of "
        "every pair over all of them")  # fmt: skip
    statistics = _statistics(X, y, len(class_names))
    verdicts = _verdicts(X, y, statistics, len(class_names), args)
    kept = _sample(y, statistics.counts, args.sample_rows, args.seed, verdicts)
    log(f"cluster: {kept.size} rows to this process (a sample, and the rows of "
        "every certificate)")  # fmt: skip
    X_kept, y_kept, positions = _rows_at(X, y, where, kept)
    table = Table(
        X=X_kept,
        y=y_kept,
        row_ids=positions,
        class_names=class_names,
        feature_names=layout.feature_names,
        statistics=statistics,
        n_rows_read=int(found.rows),
        n_rows_used=int(X.shape[0]),
        left_out=_left_out(layout),
        rows_dropped=int(found.rows - X.shape[0]),
    )
    table.notes = _notes(table, args)
    return table, _named_by_position(verdicts, kept, positions)


def _left_out(layout):
    return [(layout.name(j), rule) for j, rule in sorted(layout.identifiers.items())]


def _compression(path, parts):
    """The one compression of the files (by their first bytes), else a TableError
    (dask reads every file as the first one's)."""
    kinds = {part.compressed_as for part in parts}
    if len(kinds) > 1:
        raise TableError(
            f"{path}: with --scheduler, the files must be all plain or all "
            f"compressed alike (found {', '.join(sorted(map(str, kinds)))})."
        )
    return kinds.pop()


def _refuse_text(layout, source):
    """A column of text that no rule by name makes an identifier: not a feature
    (the reader's refusal, before the cluster reads anything)."""
    if layout.texts:
        name = layout.name(layout.texts[0])
        raise TableError(
            f"{source.path}: non-numeric feature column {shown(name)}; with "
            "--scheduler identifiers are known by name only (id, index, *_id, a "
            "saved index). Drop it with --drop or encode it as numbers."
        )


def _named_by_position(verdicts, kept, positions):
    """The verdicts with their certificates' rows named by position among the data
    rows (``kept``: indices into the rows with a class; ``positions``: theirs)."""
    named = {}
    for pair, result in verdicts.items():
        if not isinstance(result, Exception) and not result.separable:
            at = np.searchsorted(kept, result.certificate_indices)
            result = replace(result, certificate_indices=positions[at])
        named[pair] = result
    return named


def _frame(files, parquet, target, features, decimal, delimiter, packing):
    """The files as one dask DataFrame of the target and the features."""
    import dask.dataframe as dd

    columns = [target, *features]
    if parquet:
        return dd.read_parquet(files, columns=columns)
    return dd.read_csv(
        files,
        usecols=columns,
        sep=delimiter,
        decimal=decimal,
        dtype={target: str, **dict.fromkeys(features, "float64")},
        na_values=NULL_VALUES,
        keep_default_na=True,
        skipinitialspace=True,
        compression=packing,
        blocksize=None if packing else "64MB",
    )


def _first_pass(frame, counted, features, target):
    """One pass: rows, missing cells per feature, missing labels, the features'
    means and the usable rows' labels counted (by their canonical form)."""
    import dask

    lengths, missing, missing_labels, means, counts = dask.compute(
        frame.map_partitions(len),
        frame[features].isna().sum(),
        frame[target].isna().sum(),
        frame[features].mean(),
        counted[target].dropna().astype(str).value_counts(),
    )
    seen, texts = {}, list(counts.index)
    for text, count in counts.items():
        if not is_missing(text):
            label = canonical_label(text)
            seen[label] = seen.get(label, 0) + int(count)
    missing_labels = int(missing_labels) + sum(
        int(count) for text, count in counts.items() if is_missing(text)
    )
    lengths = np.asarray(lengths, dtype=np.int64)
    return SimpleNamespace(
        rows=int(lengths.sum()),
        starts=np.concatenate([[0], np.cumsum(lengths)[:-1]]),
        missing=np.asarray(missing, dtype=np.int64),
        missing_labels=missing_labels,
        means=np.asarray(means, dtype=float),
        labels_seen=seen,
        texts=texts,
    )


def _positioned(frame, starts):
    """The frame with each row's position among the data rows (``starts``: each
    partition's first), as the column ``POSITION``."""

    def positioned(part, partition_info=None):
        start = starts[partition_info["number"]] if partition_info else 0
        return part.assign(**{POSITION: start + np.arange(len(part), dtype=float)})

    meta = frame._meta.assign(**{POSITION: np.array([], dtype=float)})
    return frame.map_partitions(positioned, meta=meta)


def _arrays(usable, target, features, found, class_of):
    """``(X, y, positions)``: dask arrays of the features, class codes and
    positions among the data rows of the rows with a class, with their blocks'
    lengths (one pass), kept on the workers where they take at most
    ``KEEP_SHARE`` of the cluster's memory (each later pass then reads memory, not
    the files). The labels the first pass read are coded once each, not per row."""
    code_of = {text: float(class_of.get(canonical_label(text), -1))
               for text in found.texts if not is_missing(text)}  # fmt: skip

    def coded(part):
        codes = part[target].astype(str).map(code_of).fillna(-1.0).to_numpy(float)
        return part[features].assign(**{CODE: codes, POSITION: part[POSITION]})

    meta = usable[features]._meta.assign(
        **{CODE: np.array([], dtype=float), POSITION: np.array([], dtype=float)}
    )
    frame = usable.map_partitions(coded, meta=meta)
    frame = frame[frame[CODE] >= 0]
    values = frame.to_dask_array(lengths=True)
    from .._rows._dask._tasks import KEEP_SHARE, cluster_memory

    if values.nbytes <= KEEP_SHARE * cluster_memory():
        values = values.persist()
    codes, at = values[:, -2].astype(np.intp), values[:, -1].astype(np.int64)
    return values[:, :-2], codes, at


def _statistics(X, y, n_classes):
    """The class statistics of every row (one pass on the cluster)."""
    from .._rows import rows_of
    from .._rows._dask._statistics import dask_class_statistics

    rows = rows_of(X, y, name="linsep report")
    classes, statistics = dask_class_statistics(rows, per_class=n_classes > 2)
    if len(classes) != n_classes:  # pragma: no cover - the first pass counted them
        raise TableError("The classes changed between two passes over the files.")
    return statistics


def _verdicts(X, y, statistics, n_classes, args):
    """Every pair's exact verdict over every row, on the features standardized as
    the report standardizes them, by pair of class codes, and with more than two
    classes the joint one (``"joint"``); or the error each raised."""
    from .._certificates import linear_separability
    from ..exceptions import SolverError
    from ._context import standardizing_map

    mean, scale = standardizing_map(statistics)
    Z = (X - mean) / scale
    verdicts = {}
    try:
        found = linear_separability(Z, y)
    except (SolverError, ValueError, MemoryError) as error:
        verdicts = {pair: error for pair in combinations(range(n_classes), 2)}
    else:
        found = {(0, 1): found} if n_classes == 2 else found
        verdicts = {(int(a), int(b)): result for (a, b), result in found.items()}
    if n_classes > 2:
        try:
            verdicts["joint"] = linear_separability(Z, y, multiclass="joint")
        except (SolverError, ValueError, MemoryError) as error:
            verdicts["joint"] = error
    return verdicts


def _sample(y, counts, sample_rows, seed, verdicts):
    """Positions of the rows to bring over, sorted: each with probability
    ``sample_rows / n`` (every row of a class that would get fewer than
    ``SMALL_CLASS``), and every certificate's rows."""
    import dask.array as da

    n = y.shape[0]
    share = min(1.0, sample_rows / max(n, 1))
    drawn = da.random.default_rng(seed).random(n, chunks=y.chunks) < share
    small = np.flatnonzero(np.asarray(counts) * share < SMALL_CLASS)
    if small.size:
        drawn |= da.isin(y, small)
    chosen = da.arange(n, chunks=y.chunks)[drawn].compute()
    proved = [found for found in verdicts.values()
              if not isinstance(found, Exception) and not found.separable]  # fmt: skip
    rows = [np.asarray(found.certificate_indices, np.intp) for found in proved]
    return np.union1d(chosen, np.concatenate([chosen[:0], *rows]))


def _rows_at(X, y, where, kept):
    """The rows ``kept`` (sorted indices) of X, y and their positions, in memory."""
    import dask

    return dask.compute(X[kept], y[kept], where[kept])


def _notes(table, args):
    notes = [
        (
            f"on the dask cluster at {args.scheduler}: the exact verdict of every "
            f"pair, the angle, the distance, the standardization and Cover's "
            f"probability use all {table.n_rows_used} rows; the least hinge and the "
            f"fewest rows to remove, cross-validation, the complexity measures and "
            f"the plot a sample of {len(table.y)} (with every certificate's rows)"
        ),
        (
            "identifier columns are known by their names only (id, index, *_id, a "
            "saved index) with --scheduler: --drop any other"
        ),
    ]
    if table.rows_dropped:
        notes.append(f"{table.rows_dropped} row(s) without a class or with missing "
                     "cells left out")  # fmt: skip
    if (twins := case_note(table.class_names)) is not None:
        notes.append(twins)
    return notes
