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


def _delimiter(path):
    """``,`` unless the first line has none and has ``;`` or a tab (the usual
    alternatives), so that such files are read rather than refused."""
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        first = handle.readline()
    if "," not in first:
        for candidate in (";", "\t"):
            if candidate in first:
                return candidate
    return ","


def _csv_chunks(path, chunk_rows):
    """``(header, chunk of rows as lists of str)``, the header first."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle, delimiter=_delimiter(path))
        try:
            try:
                header = next(reader)
            except StopIteration:
                raise TableError(f"{path} is empty.") from None
            yield header
            chunk = []
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
                    yield _Rows(chunk)
                    chunk = []
        except csv.Error as error:
            raise TableError(
                f"{path}, line {reader.line_num}: not valid CSV ({error})."
            ) from None
        except UnicodeDecodeError:
            raise TableError(
                f"{path} is not UTF-8 text (near line {reader.line_num + 1}); save "
                "it as UTF-8 (e.g. iconv -f latin1 -t utf-8)."
            ) from None
        if chunk:
            yield _Rows(chunk)


class _Rows:
    """A chunk of CSV rows, read a column at a time."""

    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def texts(self, j):
        return [row[j] for row in self.rows]

    def numbers(self, j):
        return None  # text only: every cell is parsed


class _Batch:
    """A Parquet record batch: numeric columns come as floats (nulls as NaN)
    without going through text."""

    def __init__(self, batch):
        self.batch = batch

    def __len__(self):
        return self.batch.num_rows

    def texts(self, j):
        return ["" if v is None else str(v) for v in self.batch.column(j).to_pylist()]

    def numbers(self, j):
        import pyarrow as pa

        column = self.batch.column(j)
        if pa.types.is_integer(column.type) or pa.types.is_floating(column.type):
            values = column.to_numpy(zero_copy_only=False).astype(np.float64)
            return np.where(column.is_null().to_numpy(zero_copy_only=False), np.nan,
                            values)  # fmt: skip
        return None


def _parquet_chunks(path, chunk_rows):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise TableError(
            "Reading Parquet needs pyarrow (pip install pyarrow); or give a CSV file."
        ) from None
    parquet = pq.ParquetFile(path)
    yield list(parquet.schema_arrow.names)
    for batch in parquet.iter_batches(batch_size=chunk_rows):
        yield _Batch(batch)


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


def _names(header, log):
    """Column names, stripped; an unnamed column (a saved index, often) gets a
    name, said on stderr; a repeated name is an error (which one is meant?)."""
    names = []
    for j, name in enumerate(header):
        name = str(name).strip()
        if not name:
            name = f"unnamed_{j + 1}"
            log(f"note: column {j + 1} has no name; it is the feature {name!r} "
                f"(--drop {name} to leave it out)")  # fmt: skip
        names.append(name)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise TableError(
            f"Repeated column name(s): {', '.join(repeated)}; rename them so that "
            "--target and --drop are unambiguous."
        )
    return names


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
    if target in drop:
        raise TableError(f"--drop names the target column {target!r}.")
    return _Layout(header, header.index(target), features)


def canonical_label(text):
    """A class label as read: stripped, and a number written in its shortest form
    (``1``, ``1.0`` and ``01`` are one class)."""
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        return text
    if not np.isfinite(value):
        return text
    return str(int(value)) if value.is_integer() else repr(value)


def _is_missing(text):
    return text.strip().lower() in MISSING_TOKENS


def _parse(chunk, layout, first_line):
    """``(values with NaN for missing cells, labels with None for missing, the
    first non-numeric cell of each feature column that has one)``.

    A column at a time, cell by cell: a long cell costs its own length only (an
    array of strings would give every cell the width of the longest)."""
    labels = np.array(
        [
            None if _is_missing(text) else canonical_label(text)
            for text in chunk.texts(layout.target)
        ],
        dtype=object,
    )
    values = np.empty((len(chunk), len(layout.features)))
    bad = {}
    for column, j in enumerate(layout.features):
        numbers = chunk.numbers(j)
        if numbers is not None:
            values[:, column] = numbers
            continue
        texts = chunk.texts(j)
        try:
            values[:, column] = np.fromiter(
                (np.nan if _is_missing(text) else float(text) for text in texts),
                dtype=float,
                count=len(texts),
            )
        except ValueError:
            for text in texts:
                if not _is_missing(text):
                    try:
                        float(text)
                    except ValueError:
                        cell = text.strip()
                        bad[layout.header[j]] = cell[:40] + (
                            "..." if len(cell) > 40 else ""
                        )
                        break
    infinite = np.isinf(values)
    if infinite.any():
        i, column = np.argwhere(infinite)[0]
        raise TableError(
            f"Column {layout.feature_names[column]!r}, data row {first_line + i}: an "
            "infinite value (or one beyond float64's range); fix or drop it."
        )
    return values, labels, bad


def _usable(values, labels, missing):
    """Rows that count under the missing-value policy: a class, and with "drop"
    no missing cell."""
    usable = ~np.equal(labels, None)
    if missing == "drop":
        usable &= ~np.isnan(values).any(axis=1)
    return usable


def _scan(path, target, drop, missing, chunk_rows, keep_rows, log):
    """Pass 1. Returns the layout, the counts of the usable rows per label,
    per-column missing counts and means, the number of rows, and the parsed rows
    themselves if there are at most ``keep_rows``."""
    chunks = _chunks(path, chunk_rows)
    layout = _layout(_names(next(chunks), log), target, drop, path)
    size = os.path.getsize(path)
    if size > 100 * 2**20:
        log(f"reading {path} ({size / 2**30:.2f} GB) in chunks of {chunk_rows} rows")
    p = len(layout.features)
    missing_cells = np.zeros(p + 1, dtype=np.int64)  # the features, then the target
    sums, counts = np.zeros(p), np.zeros(p)
    labels_seen = {}
    n_rows = 0
    non_numeric = {}
    kept = []
    for chunk in chunks:
        values, labels, bad = _parse(chunk, layout, first_line=n_rows + 1)
        for name, cell in bad.items():
            non_numeric.setdefault(name, cell)
        n_rows += len(chunk)
        if non_numeric:
            continue  # keep scanning for the names of all such columns only
        nan = np.isnan(values)
        no_label = np.equal(labels, None)
        missing_cells[:p] += nan.sum(axis=0)
        missing_cells[p] += no_label.sum()
        sums += np.where(nan, 0.0, values).sum(axis=0)
        counts += (~nan).sum(axis=0)
        usable = _usable(values, labels, missing)
        for label, count in zip(
            *np.unique(labels[usable].astype(str), return_counts=True), strict=True
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
    return layout, labels_seen, missing_cells, means, n_rows, kept


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
    positive = canonical_label(positive)
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
    layout, labels_seen, missing_cells, means, n_rows, kept = _scan(
        path, target, drop, missing, chunk_rows, sample_rows, log
    )
    if missing_cells.any() and missing is None:
        raise TableError(_missing_message(layout, missing_cells, path))
    if missing == "mean" and np.isnan(means).any():
        empty = [name for name, mean in zip(layout.feature_names, means, strict=True)
                 if np.isnan(mean)]  # fmt: skip
        raise TableError(
            f"Column(s) with no value at all: {', '.join(empty)}; drop them with "
            "--drop."
        )
    if not labels_seen:
        raise TableError(
            f"No row of {path} is left with a class and "
            + ("no missing cell (--missing drop)." if missing == "drop" else "values.")
        )
    if len(labels_seen) < 2:
        found = ", ".join(labels_seen)
        raise TableError(
            f"The column {layout.header[layout.target]!r} holds one class only "
            f"({found}) in the usable rows: separability compares two classes or "
            "more."
        )
    _refuse_a_continuous_target(labels_seen, layout)
    class_names, codes = _class_codes(labels_seen, positive)
    n_classes = len(class_names)
    class_counts = np.zeros(n_classes, dtype=np.int64)
    for label, count in labels_seen.items():
        class_counts[codes[label]] += count
    n_used = int(class_counts.sum())
    chosen = None
    if kept is None:
        log(
            f"{path}: {n_rows} rows, more than --sample-rows {sample_rows}: reading "
            "it again in chunks, for the class statistics of all rows and a "
            f"sample of about {min(sample_rows, n_used)} rows."
        )
        chosen = stratified_sample(class_counts, sample_rows, seed)
    if kept is not None:
        pieces = iter(kept)
    else:
        chunks = _chunks(path, chunk_rows)
        next(chunks)
        pieces = (_parse(chunk, layout, 0)[:2] for chunk in chunks)
    statistics, X_parts, y_parts = None, [], []
    seen = np.zeros(n_classes, dtype=np.int64)  # usable rows of each class so far
    dropped, filled = 0, 0
    for values, labels in pieces:
        usable = _usable(values, labels, missing)
        if missing == "mean":
            nan = np.isnan(values)
            filled += int(nan[usable].sum())
            values = np.where(nan, means, values)
        dropped += int(np.sum(~usable))
        values = values[usable]
        y = np.array([codes[label] for label in labels[usable]], dtype=np.intp)
        if not len(y):
            continue
        part = ClassStatistics.from_data(
            values, y, np.arange(n_classes), per_class=n_classes > 2
        )
        statistics = part if statistics is None else statistics.merge(part)
        if chosen is None:
            X_parts.append(values)
            y_parts.append(y)
        else:
            # Each row's ordinal within its class, against the chosen ordinals.
            keep = np.zeros(len(y), dtype=bool)
            for k in range(n_classes):
                rows = np.flatnonzero(y == k)
                keep[rows] = np.isin(seen[k] + np.arange(rows.size), chosen[k])
                seen[k] += rows.size
            X_parts.append(values[keep])
            y_parts.append(y[keep])
    table = Table(
        X=np.vstack(X_parts),
        y=np.concatenate(y_parts),
        class_names=class_names,
        feature_names=layout.feature_names,
        statistics=statistics,
        n_rows_read=n_rows,
        n_rows_used=n_used,
        missing_filled=filled,
        rows_dropped=dropped,
    )
    if dropped:
        table.notes.append(f"{dropped} row(s) with missing cells left out")
    if filled:
        table.notes.append(f"{filled} missing cell(s) filled with the column mean")
    if table.sampled:
        table.notes.append(
            f"the angle and Cover's probability use all {n_used} rows; the exact "
            f"test, cross-validation and plot a sample of {len(table.y)} (uniform "
            "within each class, every class kept)"
        )
    return table


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


def _refuse_a_continuous_target(labels_seen, layout):
    """Labels that are numbers with fractions, or very many labels: a regression
    target given by mistake, which would mean one class per value."""
    numbers = []
    for label in labels_seen:
        try:
            numbers.append(float(label))
        except ValueError:
            break
    fractional = len(numbers) == len(labels_seen) and any(
        not value.is_integer() for value in numbers
    )
    if fractional or len(labels_seen) > 100:
        raise TableError(
            f"The column {layout.header[layout.target]!r} holds {len(labels_seen)} "
            "distinct values"
            + (", some with fractions" if fractional else "")
            + ": it looks continuous (a regression target?). The report compares "
            "classes; give the class column with --target."
        )
