"""Reading a labelled table (CSV, possibly compressed, or Parquet) for the report,
in blocks, with pyarrow's readers (C++): only the target and the feature columns
are parsed, the features straight to float64.

:func:`read_table` is a few passes, each its own function:

0. the plan: the header and the first data row say which columns are the target,
   features, text and identifiers (:mod:`._columns`);
1. a scan: the labels and their counts, the missing cells and the means per column,
   and what the identifier rules need of the values;
2. the statistics: every usable row goes into the class statistics (exact, any
   size), and a uniform random sample of at most ``sample_rows`` rows is kept for
   what needs the rows themselves (the exact separability test, cross-validation,
   the plot). A file whose parsed blocks fit in ``keep_bytes`` is held after the
   first pass, and not read again (a second parse cost as much as the first: 0.5 s
   of 3.7 at 1e6 x 10); a larger one is read again, streamed.

A file larger than memory is never in memory. File access (pipes, compression,
temporary copies, a file that changes) is :mod:`._source`'s and :mod:`._copies`';
the classes and the missing cells are :mod:`._labels`'; the sample is
:mod:`._sample`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._columns import SAVED_INDEX, IdentifierWatch, plan_columns
from ._copies import MAX_DECOMPRESSED, READ_ERRORS
from ._errors import TableError
from ._labels import (
    case_note,
    class_counts,
    label_codes,
    table_classes,
    usable_rows,
)
from ._sample import kept_of_block, stratified_sample
from ._source import as_text, changed_while_read, open_source, shown

if TYPE_CHECKING:  # imported where it is used: scikit-learn comes with it
    from .._stats import ClassStatistics

POSITIONS = "position among the data rows, from 0 (pandas' index)"
# Parsed blocks held after pass 1 at most (bytes): below it, pass 2 reads them, not
# the file. A text cell counts its characters' bytes and TEXT_CELL_BYTES more (a
# Python string in an array).
KEEP_BYTES = 256 * 2**20
TEXT_CELL_BYTES = 64


@dataclass
class Table:
    """What the report needs of a file.

    ``X``, ``y`` are all usable rows, or a uniform sample of them when the file
    holds more than ``sample_rows``; ``statistics`` are the class statistics of
    all usable rows; ``y`` holds class indices into ``class_names``; ``row_ids``
    names each row of X in the file's terms, as ``rows_named_by`` says: an
    identifier column's value, else its 0-based position among the data rows.
    ``left_out`` lists the identifier columns left out, with their rules.
    """

    X: np.ndarray
    y: np.ndarray
    row_ids: np.ndarray
    class_names: list
    feature_names: list
    statistics: ClassStatistics
    n_rows_read: int
    n_rows_used: int
    rows_named_by: str = POSITIONS
    left_out: list = field(default_factory=list)
    missing_filled: int = 0
    rows_dropped: int = 0
    notes: list = field(default_factory=list)

    @property
    def sampled(self):
        return self.X.shape[0] < self.n_rows_used


@dataclass
class _Block:
    """One record batch, parsed: feature values (NaN where missing), label codes
    into the block's label ``names``, the text columns, the rows' ids (or None),
    and the position of its first row among the file's data rows."""

    values: np.ndarray
    codes: np.ndarray
    names: list
    texts: list
    ids: np.ndarray
    first: int
    text_bytes: int = 0


def read_table(
    path,
    target,
    *,
    drop=(),
    keep=(),
    missing=None,
    positive=None,
    sample_rows=200_000,
    seed=0,
    decimal=".",
    keep_index=False,
    max_decompressed=MAX_DECOMPRESSED,
    keep_bytes=KEEP_BYTES,
    log=None,
    progress=None,
    ready=None,
):
    """Read a labelled table for the report (see the module docstring).

    Parameters
    ----------
    path : str
        A CSV file with a header row (plain, or compressed by gzip, bzip2, xz or
        zip, recognised by its first bytes), or a Parquet file (``.parquet``,
        ``.pq``); a pipe or FIFO is read once. A directory or a glob: its files
        (all CSV or all Parquet, of the same columns), read in name order as one
        table.
    target : str
        The class column.
    drop : sequence of str, default=()
        Columns to leave out (never parsed).
    keep : sequence of str, default=()
        Columns to keep as features though an identifier rule matches them.
    missing : {None, "drop", "mean"}, default=None
        None refuses a table with missing cells (``""``, ``?``, ``NA``, ...),
        counting them per column; "drop" leaves out their rows; "mean" fills a
        feature with its column mean (rows without a class are left out).
    positive : str, default=None
        Report this class against the rest.
    sample_rows : int, default=200_000
        Rows at most of the sample the rows' sections use.
    seed : int, default=0
        Seeds the sample.
    decimal : {".", ","}, default="."
        The decimal mark of the CSV's numbers.
    keep_index : bool, default=False
        Keep a saved pandas index (an unnamed first CSV column or ``Unnamed: 0``,
        Parquet's pandas index columns) as a feature.
    max_decompressed : int, default=8 GiB
        Bytes at most of the temporary copy of an xz or zip file, or of a pipe.
    keep_bytes : int, default=256 MiB
        Parsed blocks held after pass 1 at most; a larger file is read twice.
    log : callable, default=None
        Receives progress messages (for stderr).
    progress : callable, default=None
        ``progress(pass, bytes)``: how much of the file (compressed, if it is) the
        pass (1 or 2) has read; CSV only.
    ready : callable, default=None
        Called before the class statistics are made (they import scikit-learn):
        waits for the statistics' modules where another thread imports them
        meanwhile.

    Returns
    -------
    table : Table
    """
    log = log or (lambda message: None)
    with open_source(path, decimal, max_bytes=max_decompressed,
                     on_bytes=progress) as source:  # fmt: skip
        layout = plan_columns(source, target, drop, keep, keep_index)
        scan = _scan(source, layout, missing, keep_bytes, log)
        source.check_unchanged()
        left_out = _apply_identifier_rules(layout, scan)
        class_names, class_of = table_classes(scan, layout, missing, positive)
        chosen = None
        if scan.n_rows > sample_rows:
            chosen = _announce_sample(scan, class_of, sample_rows, seed, log)
        blocks = _blocks(source, layout) if scan.kept is None else iter(scan.kept)
        if ready is not None:
            ready()
        rows = _collect(blocks, layout, scan.means, class_of, missing, chosen)
        source.check_unchanged()
    _say_unnamed_features(source.header, layout, log)
    return _table(layout, scan, class_names, rows, left_out)


def _blocks(source, layout):
    """Every block of a pass, parsed (:class:`_Block`)."""
    import pyarrow as pa

    first = 0
    try:
        texts = layout.text_columns
        for batch in source.batches([*layout.columns, *texts], [layout.target, *texts]):
            yield _parse(batch, layout, first)
            first += batch.num_rows
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise source.error(error) from None
    except READ_ERRORS as error:
        raise TableError(f"Cannot read {source.path}: {error}.") from None


def _parse(batch, layout, first):
    codes, names = label_codes(batch.column(0))
    p = len(layout.features)
    values = np.empty((batch.num_rows, p))
    for column, name in enumerate(layout.feature_names):
        values[:, column] = _floats(batch.column(column + 1), name, layout.path)
    infinite = np.isinf(values)
    if infinite.any():
        i, column = np.argwhere(infinite)[0]
        raise TableError(
            f"{layout.path}: column {shown(layout.feature_names[column])}, data row "
            f"{first + i}: an infinite value (or one beyond float64's range); fix or "
            "drop it."
        )
    columns = [batch.column(k) for k in range(p + 1, batch.num_columns)]
    text_bytes = sum(c.nbytes + TEXT_CELL_BYTES * len(c) for c in columns)
    return _Block(values, codes, names, [_strings(column) for column in columns], None,
                  first, text_bytes)  # fmt: skip


def _strings(column):
    return as_text(column).to_numpy(zero_copy_only=False)


@dataclass
class _Scan:
    """Pass 1's findings: usable rows per label, missing cells per column (the
    features, then the target), column means, rows read, the blocks themselves
    while they hold at most ``keep_bytes``, and the identifier watch."""

    layout: object
    missing: str
    keep_bytes: int
    kept_bytes: int = 0
    labels_seen: dict = field(default_factory=dict)
    n_rows: int = 0
    kept: list = field(default_factory=list)

    def __post_init__(self):
        p = len(self.layout.features)
        self.missing_cells = np.zeros(p + 1, dtype=np.int64)
        self.sums, self.counts = np.zeros(p), np.zeros(p)
        self.watch = IdentifierWatch(self.layout)

    def add(self, block):
        values, codes = block.values, block.codes
        self.n_rows += len(codes)
        # The block's values are finite or NaN (_parse refuses infinities): a
        # column's sum is NaN where a cell is missing (or where it overflowed both
        # ways, which the count then finds none of). Only then are the NaN counted
        # and zeroed (a copy of a block with its NaN zeroed, beside the parse
        # thread's allocations, took 6.8 ms a block of a 1e6 x 10 CSV's read).
        sums = values.sum(axis=0)
        missing = np.zeros(len(sums), dtype=np.int64)
        if np.isnan(sums).any():
            nan = np.isnan(values)
            missing = nan.sum(axis=0)
            sums = np.where(nan, 0.0, values).sum(axis=0)
        self.missing_cells[:-1] += missing
        self.missing_cells[-1] += np.count_nonzero(codes < 0)
        self.sums += sums
        self.counts += len(codes) - missing
        usable = usable_rows(values, codes, self.missing)
        per_label = np.bincount(codes[usable], minlength=len(block.names))
        for name, count in zip(block.names, per_label, strict=True):
            if count:
                self.labels_seen[name] = self.labels_seen.get(name, 0) + int(count)
        self.watch.update(values, block.texts)
        if self.kept is not None:
            self.kept.append(block)
            self.kept_bytes += block.values.nbytes + block.text_bytes
            if self.kept_bytes > self.keep_bytes:
                self.kept = None

    @property
    def means(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.sums / self.counts

    def without(self, positions):
        """Leave out the feature columns at ``positions`` (identifiers)."""
        if not len(positions):  # the held blocks stay as they are, uncopied
            return
        keep = np.ones(len(self.sums), dtype=bool)
        keep[positions] = False
        self.sums, self.counts = self.sums[keep], self.counts[keep]
        self.missing_cells = self.missing_cells[np.r_[keep, True]]
        for block in self.kept or ():
            block.values = block.values[:, keep]


def _scan(source, layout, missing, keep_bytes, log):
    """Pass 1 (see :class:`_Scan`)."""
    size = source.n_bytes
    if size > 100 * 2**20:
        log(f"reading {source.path} ({size / 2**30:.2f} GB)")
    scan = _Scan(layout, missing, keep_bytes)
    for block in _blocks(source, layout):
        scan.add(block)
    if scan.n_rows == 0:
        raise TableError(f"{source.path} has a header but no rows.")
    return scan


def _apply_identifier_rules(layout, scan):
    """Apply the identifier rules to what pass 1 saw: the columns left out, as
    ``[(name, rule)]``; the layout and the kept blocks without them; and the
    column that names the rows (the saved index first, else the first that is
    unique and complete), read as text in pass 2."""
    watch = scan.watch
    rules = {**layout.identifiers, **watch.decide()}
    naming = [j for j in sorted(rules, key=lambda j: (rules[j] != SAVED_INDEX, j))
              if watch.names_rows(j)]  # fmt: skip
    layout.row_ids = naming[0] if naming else None
    layout.numeric_ids = layout.row_ids in layout.features
    for block in scan.kept or ():
        block.ids = _id_cells(block, layout)
        block.texts = []
    scan.without([k for k, j in enumerate(layout.features) if j in rules])
    layout.features = [j for j in layout.features if j not in rules]
    layout.texts = []
    layout.ids = [] if layout.row_ids is None else [layout.row_ids]
    if not layout.features:
        raise TableError(
            f"{layout.path} has no feature column left besides the target and the "
            "identifiers (--keep COL keeps one)."
        )
    return [(layout.name(j), rule) for j, rule in sorted(rules.items())]


def _id_cells(block, layout):
    """The naming column's cells in a block of pass 1 (None: no such column)."""
    j = layout.row_ids
    if j is None:
        return None
    if j in layout.features:
        return block.values[:, layout.features.index(j)]
    return block.texts[layout.text_columns.index(j)]


def _announce_sample(scan, class_of, sample_rows, seed, log):
    """The rows of each class to keep in pass 2 (their ordinals in the class)."""
    counts = class_counts(scan.labels_seen, class_of)
    how = "reading it again, for" if scan.kept is None else "held in memory, for"
    chosen = stratified_sample(counts, sample_rows, seed)
    log(
        f"{scan.layout.path}: {scan.n_rows} rows, more than --sample-rows "
        f"{sample_rows}: {how} the class statistics of all rows and a sample of "
        f"{sum(map(len, chosen))} rows."
    )
    return chosen


@dataclass
class _Rows:
    """Pass 2's result: the class statistics of every usable row, the rows kept
    in memory with their ids (None: their positions), and what was dropped or
    filled."""

    statistics: ClassStatistics = None
    X: list = field(default_factory=list)
    y: list = field(default_factory=list)
    positions: list = field(default_factory=list)
    ids: list = field(default_factory=list)
    dropped: int = 0
    filled: int = 0


def _collect(blocks, layout, means, class_of, missing, chosen):
    """Pass 2 (or the kept blocks of pass 1): statistics and the sample."""
    # scikit-learn's import: after the reading. The blocks' values are checked
    # floats and y their class indices: class_statistics takes them as they are
    # (ClassStatistics.from_data's validation again: 0.1 s of 0.28 at 1e6 x 10).
    from .._stats import class_statistics

    n_classes = max(class_of.values()) + 1
    rows = _Rows()
    seen = np.zeros(n_classes, dtype=np.int64)  # usable rows of each class so far
    for block in blocks:
        usable = usable_rows(block.values, block.codes, missing)
        values = block.values
        if missing == "mean":
            nan = np.isnan(values)
            rows.filled += int(nan[usable].sum())
            values = np.where(nan, means, values)
        rows.dropped += int(np.sum(~usable))
        lookup = np.array(
            [class_of.get(name, -1) for name in block.names], dtype=np.intp
        )
        y = lookup[block.codes[usable]]
        if np.any(y < 0):  # a label pass 1 did not see: the passes disagree
            raise changed_while_read(
                layout.path, "a class its first reading did not have"
            )
        if not len(y):
            continue
        values = values[usable]
        part = class_statistics(values, y, n_classes, per_class=n_classes > 2)
        rows.statistics = (
            part if rows.statistics is None else rows.statistics.merge(part)
        )
        keep = slice(None) if chosen is None else kept_of_block(y, seen, chosen)
        rows.X.append(values[keep])
        rows.y.append(y[keep])
        rows.positions.append((block.first + np.flatnonzero(usable))[keep])
        ids = block.texts[0] if block.ids is None and layout.ids else block.ids
        if ids is not None:
            rows.ids.append(ids[usable][keep])
    return rows


def _table(layout, scan, class_names, rows, left_out):
    n_used = int(round(rows.statistics.n_samples))
    named_by = POSITIONS
    start, step = layout.positions
    row_ids = start + step * np.concatenate(rows.positions)
    if rows.ids:
        row_ids = plain_ids(np.concatenate(rows.ids), layout.numeric_ids)
        named_by = f"column {shown(layout.name(layout.row_ids))}"
    table = Table(
        X=np.vstack(rows.X),
        y=np.concatenate(rows.y),
        row_ids=row_ids,
        class_names=class_names,
        feature_names=layout.feature_names,
        statistics=rows.statistics,
        n_rows_read=scan.n_rows,
        n_rows_used=n_used,
        rows_named_by=named_by,
        left_out=left_out,
        missing_filled=rows.filled,
        rows_dropped=rows.dropped,
    )
    table.notes = _notes(table)
    return table


def _notes(table):
    notes = []
    for name, rule in table.left_out:
        option = "--keep-index" if rule == SAVED_INDEX else f"--keep {name}"
        notes.append(f"column {shown(name)} left out: {rule} ({option} keeps it)")
    if table.rows_dropped:
        notes.append(f"{table.rows_dropped} row(s) with missing cells left out")
    if table.missing_filled:
        notes.append(
            f"{table.missing_filled} missing cell(s) filled with the column mean"
        )
    if (twins := case_note(table.class_names)) is not None:
        notes.append(twins)
    if table.sampled:
        notes.append(
            f"the angle, the distance, the standardization and Cover's probability "
            f"use all {table.n_rows_used} rows; the exact test, the complexity "
            f"measures, cross-validation and the plot a sample of {len(table.y)} "
            "(uniform within each class, every class kept)"
        )
    return notes


def plain_ids(ids, numeric):
    """Row ids as JSON takes them: a numeric identifier's as integers (its rule
    made them integers, exact in float64; pass 2 reads them as text); a text
    one's as text, or as integers where every cell is an integer written plainly
    (``1042``; ``0007`` stays text)."""
    values = np.asarray(ids, dtype=object)
    if numeric:  # a comma in a cell read as a number is its decimal mark
        return np.array([int(float(str(value).replace(",", "."))) for value in values],
                        dtype=np.int64)  # fmt: skip
    texts = [str(value).strip() for value in values]
    if all(re.fullmatch(r"-?(0|[1-9]\d{0,17})", text) for text in texts):
        return np.array([int(text) for text in texts], dtype=np.int64)
    return np.array(texts, dtype=object)


def _say_unnamed_features(raw_header, layout, log):
    for j in layout.features:
        if not str(raw_header[j]).strip():
            name = layout.name(j)
            log(f"note: column {j + 1} has no name; it is the feature {name!r} "
                f"(--drop {name} to leave it out)")  # fmt: skip


def _floats(column, name, path):
    """A feature column as float64 with NaN for nulls (Parquet's integer, float
    and numeric-text columns; anything else is not a feature)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not (pa.types.is_floating(column.type) or pa.types.is_integer(column.type)):
        if pa.types.is_boolean(column.type):
            column = column.cast(pa.int8())
        else:
            try:
                column = pc.cast(pc.utf8_trim_whitespace(column.cast(pa.string())),
                                 pa.float64())  # fmt: skip
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                sample = next((v for v in column.to_pylist() if v is not None), "")
                cell = str(sample)[:40]
                raise TableError(
                    f"{path}: non-numeric feature column {shown(name)} (e.g. "
                    f"{cell!r}). Drop it with --drop or encode it as numbers."
                ) from None
    # Integers beyond 2**53 (ids, nanosecond times) round, as the CSV reader's do.
    values = pc.cast(column, pa.float64(), safe=False)
    if values.null_count:
        values = values.fill_null(np.nan)
    return values.to_numpy(zero_copy_only=False)
