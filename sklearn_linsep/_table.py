"""Reading a labelled table (CSV, or Parquet with pyarrow) for the report, in chunks.

Two passes over the file, each a chunk at a time, so a file larger than memory
never is in memory:

1. a scan: the header, the target column, which feature columns are not numeric,
   the missing cells per column, the column means, the labels and their counts;
2. the statistics: every usable row goes into the class statistics (exact, any
   size), and a uniform random sample of at most ``sample_rows`` rows is kept for
   what needs the rows themselves (the exact separability test, cross-validation,
   the plot). A file of at most ``sample_rows`` rows is kept whole after the first
   pass, and not read again.
"""

import csv
import os
from dataclasses import dataclass, field

import numpy as np

from ._stats import ClassStatistics

MISSING_TOKENS = frozenset({"", "?", "na", "nan", "n/a", "null", "none", "-"})
CHUNK_ROWS = 50_000


class TableError(ValueError):
    """A problem with the input table, said in one line for the command line."""


@dataclass
class Table:
    """What the report needs of a file.

    ``X``, ``y`` are all usable rows, or a uniform sample of them when the file
    holds more than ``sample_rows``; ``statistics`` are the class statistics of
    all usable rows; ``y`` holds class indices into ``class_names``.
    """

    X: np.ndarray
    y: np.ndarray
    class_names: list
    feature_names: list
    statistics: ClassStatistics
    n_rows_read: int
    n_rows_used: int
    missing_filled: int = 0
    rows_dropped: int = 0
    notes: list = field(default_factory=list)

    @property
    def sampled(self):
        return self.X.shape[0] < self.n_rows_used


def _csv_chunks(path, chunk_rows):
    """``(header, chunk of rows as lists of str)``, the header first."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            raise TableError(f"{path} is empty.") from None
        except csv.Error as error:
            raise TableError(f"{path} is not a readable CSV file: {error}.") from None
        header = [name.strip() for name in header]
        yield header
        chunk = []
        try:
            for row in reader:
                if not row:
                    continue
                if len(row) != len(header):
                    raise TableError(
                        f"{path}, line {reader.line_num}: {len(row)} fields, but the "
                        f"header has {len(header)}."
                    )
                chunk.append(row)
                if len(chunk) == chunk_rows:
                    yield chunk
                    chunk = []
        except csv.Error as error:
            raise TableError(
                f"{path}, line {reader.line_num}: not valid CSV ({error})."
            ) from None
        if chunk:
            yield chunk


def _parquet_chunks(path, chunk_rows):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise TableError(
            "Reading Parquet needs pyarrow (pip install pyarrow); or give a CSV file."
        ) from None
    parquet = pq.ParquetFile(path)
    header = list(parquet.schema_arrow.names)
    yield header
    for batch in parquet.iter_batches(batch_size=chunk_rows):
        columns = [batch.column(i).to_pylist() for i in range(batch.num_columns)]
        yield [
            ["" if value is None else str(value) for value in row]
            for row in zip(*columns, strict=True)
        ]


def _chunks(path, chunk_rows):
    if not os.path.exists(path):
        raise TableError(f"No such file: {path}")
    if os.path.isdir(path):
        raise TableError(f"{path} is a directory, not a data file.")
    if str(path).lower().endswith((".parquet", ".pq")):
        return _parquet_chunks(path, chunk_rows)
    return _csv_chunks(path, chunk_rows)


@dataclass
class _Layout:
    header: list
    target: int
    features: list  # column indices

    @property
    def feature_names(self):
        return [self.header[j] for j in self.features]


def _layout(header, target, drop, path):
    if target is None:
        raise TableError(
            "Name the class column with --target COLUMN; the columns of "
            f"{path} are: {', '.join(header)}."
        )
    if target not in header:
        raise TableError(
            f"No column {target!r} in {path}; its columns are: {', '.join(header)}."
        )
    unknown = [name for name in drop if name not in header]
    if unknown:
        raise TableError(f"--drop names columns not in {path}: {', '.join(unknown)}.")
    dropped = set(drop) | {target}
    features = [j for j, name in enumerate(header) if name not in dropped]
    if not features:
        raise TableError(f"{path} has no feature column left besides the target.")
    return _Layout(header, header.index(target), features)


def _parse(chunk, layout):
    """``(values with NaN for missing cells, labels with None for missing, the
    first non-numeric cell of each feature column that has one)``."""
    cells = np.array(chunk, dtype=str)
    labels = np.char.strip(cells[:, layout.target])
    labels = np.where(
        np.isin(np.char.lower(labels), list(MISSING_TOKENS)), None, labels
    )
    values = np.empty((len(chunk), len(layout.features)))
    bad = {}
    for column, j in enumerate(layout.features):
        text = np.char.strip(cells[:, j])
        missing = np.isin(np.char.lower(text), list(MISSING_TOKENS))
        try:
            values[:, column] = np.where(missing, "nan", text).astype(float)
        except ValueError:
            for cell in text[~missing]:
                try:
                    float(cell)
                except ValueError:
                    bad[layout.header[j]] = str(cell)
                    break
    return values, labels, bad


def _scan(path, target, drop, chunk_rows, keep_rows):
    """Pass 1. Returns the layout, the label counts, per-column missing counts and
    means, and the parsed rows themselves if there are at most ``keep_rows``."""
    chunks = _chunks(path, chunk_rows)
    layout = _layout(next(chunks), target, drop, path)
    p = len(layout.features)
    missing = np.zeros(p + 1, dtype=np.int64)  # the features, then the target
    sums, counts = np.zeros(p), np.zeros(p)
    labels_seen = {}
    complete_rows, n_rows = 0, 0
    non_numeric = {}
    kept = []
    for chunk in chunks:
        values, labels, bad = _parse(chunk, layout)
        for name, cell in bad.items():
            non_numeric.setdefault(name, cell)
        if non_numeric:
            continue  # keep scanning for the names of all such columns only
        n_rows += len(chunk)
        nan = np.isnan(values)
        missing[:p] += nan.sum(axis=0)
        no_label = np.equal(labels, None)
        missing[p] += no_label.sum()
        complete_rows += int(np.sum(~nan.any(axis=1) & ~no_label))
        sums += np.where(nan, 0.0, values).sum(axis=0)
        counts += (~nan).sum(axis=0)
        for label, count in zip(
            *np.unique(labels[~no_label].astype(str), return_counts=True), strict=True
        ):
            labels_seen[label] = labels_seen.get(label, 0) + int(count)
        if kept is not None:
            kept.append((values, labels))
            if n_rows > keep_rows:
                kept = None
    if non_numeric:
        described = ", ".join(
            f"{name} (e.g. {cell!r})" for name, cell in non_numeric.items()
        )
        raise TableError(
            f"Non-numeric feature column(s): {described}. Drop them with --drop or "
            "encode them as numbers."
        )
    if n_rows == 0:
        raise TableError(f"{path} has a header but no rows.")
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    return layout, labels_seen, missing, means, complete_rows, n_rows, kept


def _missing_message(layout, missing, path):
    names = layout.feature_names + [layout.header[layout.target]]
    counted = ", ".join(
        f"{name}: {count}" for name, count in zip(names, missing, strict=True) if count
    )
    return (
        f"{path} has {int(missing.sum())} missing cell(s) ({counted}). Choose what to "
        "do with --missing drop (leave out their rows) or --missing mean (fill a "
        "feature with its column mean; rows without a class are left out)."
    )


def _class_codes(labels_seen, positive):
    """``(names, code of each label)``: sorted labels, or ``[rest, positive]``."""
    labels = sorted(labels_seen, key=_label_order)
    if positive is None:
        return labels, {label: k for k, label in enumerate(labels)}
    if positive not in labels_seen:
        raise TableError(
            f"--positive {positive!r} is not a class; the classes are: "
            f"{', '.join(labels)}."
        )
    others = [label for label in labels if label != positive]
    rest = others[0] if len(others) == 1 else f"not {positive}"
    return [rest, positive], {label: int(label == positive) for label in labels}


def _label_order(label):
    """Numbers in numeric order, before any text."""
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def read_table(
    path,
    target,
    *,
    drop=(),
    missing=None,
    positive=None,
    sample_rows=200_000,
    seed=0,
    chunk_rows=CHUNK_ROWS,
    log=None,
):
    """Read a labelled table for the report (see the module docstring).

    Parameters
    ----------
    path : str
        A CSV file with a header row, or a Parquet file (``.parquet``, ``.pq``).
    target : str
        The class column.
    drop : sequence of str, default=()
        Columns to leave out.
    missing : {None, "drop", "mean"}, default=None
        None refuses a table with missing cells (``""``, ``?``, ``NA``, ...),
        counting them per column; "drop" leaves out their rows; "mean" fills a
        feature with its column mean (rows without a class are left out).
    positive : str, default=None
        Report this class against the rest.
    sample_rows : int, default=200_000
        Rows kept in memory at most.
    seed : int, default=0
        Seeds the sample.
    chunk_rows : int, default=50_000
    log : callable, default=None
        Receives progress messages (for stderr).

    Returns
    -------
    table : Table
    """
    log = log or (lambda message: None)
    layout, labels_seen, missing_cells, means, complete_rows, n_rows, kept = _scan(
        path, target, drop, chunk_rows, keep_rows=sample_rows
    )
    if missing_cells.any() and missing is None:
        raise TableError(_missing_message(layout, missing_cells, path))
    if len(labels_seen) < 2:
        found = ", ".join(labels_seen) or "none"
        raise TableError(
            f"The column {layout.header[layout.target]!r} holds one class only "
            f"({found}): separability compares two classes or more."
        )
    class_names, codes = _class_codes(labels_seen, positive)
    n_used = complete_rows if missing == "drop" else n_rows - int(missing_cells[-1])
    if kept is None:
        log(
            f"{path}: {n_rows} rows, more than --sample-rows {sample_rows}: reading "
            "it again in chunks, for the class statistics of all rows and a uniform "
            f"sample of {sample_rows} rows."
        )
    rng = np.random.default_rng(seed)
    chosen = (
        None
        if kept is not None
        else np.sort(rng.choice(n_used, sample_rows, replace=False))
    )
    if kept is not None:
        pieces = iter(kept)
    else:
        chunks = _chunks(path, chunk_rows)
        next(chunks)
        pieces = (_parse(chunk, layout)[:2] for chunk in chunks)
    statistics, X_parts, y_parts = None, [], []
    used, dropped, filled = 0, 0, 0
    n_classes = len(class_names)
    for values, labels in pieces:
        usable = ~np.equal(labels, None)
        nan = np.isnan(values)
        if missing == "drop":
            usable &= ~nan.any(axis=1)
        elif missing == "mean":
            filled += int(nan[usable].sum())
            values = np.where(nan, means, values)
        dropped += int(np.sum(~usable))
        values = values[usable]
        y = np.array(
            [codes[label] for label in labels[usable].astype(str)], dtype=np.intp
        )
        part = ClassStatistics.from_data(
            values, y, np.arange(n_classes), per_class=n_classes > 2
        )
        statistics = part if statistics is None else statistics.merge(part)
        if chosen is None:
            X_parts.append(values)
            y_parts.append(y)
        else:
            here = chosen[(chosen >= used) & (chosen < used + len(y))] - used
            X_parts.append(values[here])
            y_parts.append(y[here])
        used += len(y)
    table = Table(
        X=np.vstack(X_parts),
        y=np.concatenate(y_parts),
        class_names=class_names,
        feature_names=layout.feature_names,
        statistics=statistics,
        n_rows_read=n_rows,
        n_rows_used=used,
        missing_filled=filled,
        rows_dropped=dropped,
    )
    if dropped:
        table.notes.append(f"{dropped} row(s) with missing cells left out")
    if filled:
        table.notes.append(f"{filled} missing cell(s) filled with the column mean")
    if table.sampled:
        table.notes.append(
            f"the angle and Cover's probability use all {used} rows; the exact "
            f"test, cross-validation and plot a uniform sample of {len(table.y)}"
        )
    return table
