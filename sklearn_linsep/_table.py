"""Reading a labelled table (CSV, possibly compressed, or Parquet) for the report,
in blocks, with pyarrow's readers (C++): only the target and the feature columns
are parsed, the features straight to float64.

Two passes over the file, each a block at a time, so a file larger than memory
never is in memory:

1. a scan: the header, the target column, the missing cells per column, the
   column means, the labels and their counts;
2. the statistics: every usable row goes into the class statistics (exact, any
   size), and a uniform random sample of at most ``sample_rows`` rows is kept for
   what needs the rows themselves (the exact separability test, cross-validation,
   the plot). A file of at most ``sample_rows`` rows is kept whole after the first
   pass, and not read again.
"""

import bz2
import csv
import difflib
import gzip
import io
import itertools
import lzma
import os
import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ._stats import ClassStatistics

MISSING_TOKENS = frozenset({"", "?", "na", "nan", "n/a", "null", "none", "-"})


def _spellings(token):
    """Every casing of ``token``, bare and with a space before, after or both:
    pyarrow matches null tokens exactly, where the old reader stripped and
    lower-cased (``1, NA,0`` and ``nA`` were missing cells there)."""
    casings = {
        "".join(letters)
        for letters in itertools.product(*({c.lower(), c.upper()} for c in token))
    }
    return {f"{before}{word}{after}" for word in casings
            for before in ("", " ") for after in ("", " ")}  # fmt: skip


NULL_VALUES = sorted(set().union(*map(_spellings, MISSING_TOKENS)))
# pyarrow builds a matcher of the null tokens per column: with all those spellings it
# costs about 100 KB and 0.25 ms per column (2.2 GB and 5 s at 20 000 columns). Wide
# tables get the usual spellings only (a cell such as " nA " is then refused, with
# the column named, rather than read as missing).
COMMON_NULL_VALUES = sorted(
    {spelling for token in MISSING_TOKENS
     for spelling in (token, token.upper(), token.capitalize())}
    | {"NaN", "N/A"}
)  # fmt: skip
MANY_COLUMNS = 1000
# pyarrow's CSV block. Its streaming reader keeps a few dozen blocks in flight:
# at 1e6 x 10 its peak was 35 MB with 1 MB blocks, 140 MB with 4 MB, at one speed.
# A row must fit in a block: the block grows with the longest line of the start.
BLOCK_BYTES = 1 << 20
CHUNK_ROWS = 50_000  # Parquet rows at a time
# Saved by pandas with its index: ``to_csv()`` leaves the index column unnamed (read
# back, pandas calls it "Unnamed: 0"); ``to_parquet()`` names it as below.
INDEX_NAMES = ("", "Unnamed: 0", "__index_level_0__")
# Compressed CSV by its first bytes (or its suffix).
_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
    b"PK\x03\x04": "zip",
}
_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip"}


class TableError(ValueError):
    """A problem with the input table, said in one line for the command line."""


@dataclass
class Table:
    """What the report needs of a file.

    ``X``, ``y`` are all usable rows, or a uniform sample of them when the file
    holds more than ``sample_rows``; ``statistics`` are the class statistics of
    all usable rows; ``y`` holds class indices into ``class_names``;
    ``row_numbers`` the data row of the file (1 for the row after the header) of
    each row of X.
    """

    X: np.ndarray
    y: np.ndarray
    row_numbers: np.ndarray
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


def escaped(name):
    """A column name as it can be read in a message: control characters (a NUL,
    a tab) escaped, so that two names that print alike can be told apart."""
    text = str(name)
    return text if text.isprintable() else text.encode("unicode_escape").decode()


def shown(name):
    """:func:`escaped`, in quotes."""
    return f"'{escaped(name)}'"


def _compression(path):
    """``None``, ``"gzip"``, ``"bz2"``, ``"xz"`` or ``"zip"``, by the first bytes,
    else by the suffix."""
    with open(path, "rb") as handle:
        head = handle.read(8)
    for magic, kind in _MAGIC.items():
        if head.startswith(magic):
            return kind
    return _SUFFIXES.get(os.path.splitext(str(path))[1].lower())


def _binary_stream(path):
    """The file's bytes, decompressed (a zip archive: its one CSV member)."""
    kind = _compression(path)
    if kind is None:
        return open(path, "rb")
    if kind == "gzip":
        return gzip.open(path, "rb")
    if kind == "bz2":
        return bz2.open(path, "rb")
    if kind == "xz":
        return lzma.open(path, "rb")
    return _zip_member(zipfile.ZipFile(path), path)


def _zip_member(archive, path):
    """The one file of a zip archive, open for reading."""
    members = [info for info in archive.infolist() if not info.is_dir()]
    if len(members) != 1:
        raise TableError(
            f"{path} is a zip archive of {len(members)} files; the report reads one "
            "CSV: unzip it and give the file."
        )
    return archive.open(members[0])


def _arrow_source(path, kind):
    """``(what pyarrow reads, the raw file)`` of a file compressed by ``kind``
    (None, "gzip" or "bz2"): decompressed by pyarrow's own codecs over its own
    file, whose position (compressed bytes) says how far a pass has read.

    Never a Python stream: pyarrow reading ahead from one on its I/O threads could
    abort the process at exit when an error ended the run ("terminate called
    without an active exception", 1 run in 24 under load). So xz and zip, for which
    pyarrow has no codec, are decompressed into a temporary file first (the
    caller's ``_decompressed_copy``)."""
    import pyarrow as pa

    raw = pa.OSFile(str(path), mode="rb")
    if kind in ("gzip", "bz2"):
        return pa.CompressedInputStream(raw, kind), raw
    return raw, raw


def _remove(path):
    if os.path.exists(path):
        os.remove(path)


def _decompressed_copy(path):
    """The file, decompressed into a temporary file (removed by
    :meth:`_Source.close` when the reading ends, or at exit)."""
    import atexit
    import shutil
    import tempfile

    handle, copy = tempfile.mkstemp(suffix=".csv", prefix="linsep-")
    atexit.register(_remove, copy)
    with _binary_stream(path) as source, os.fdopen(handle, "wb") as target:
        shutil.copyfileobj(source, target, 1 << 22)
    return copy


def _header_line(path):
    """The header (its fields) and the delimiter: ``,`` unless the first line has
    none and has ``;`` or a tab (the usual alternatives)."""
    try:
        with _binary_stream(path) as handle:
            first = handle.readline(1 << 20)
            start = handle.read(4 * BLOCK_BYTES)
    except (OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError) as error:
        raise TableError(f"Cannot read {path}: {error}.") from None
    try:
        text = first.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TableError(
            f"{path} is not UTF-8 text (in its header); save it as UTF-8 (e.g. "
            "iconv -f latin1 -t utf-8)."
        ) from None
    if not text.strip():
        raise TableError(f"{path} is empty.")
    delimiter = ","
    if "," not in text:
        delimiter = next((d for d in (";", "\t") if d in text), ",")
    header = next(csv.reader(io.StringIO(text), delimiter=delimiter))
    longest = max(map(len, start.split(b"\n")), default=0)
    return header, delimiter, max(longest, len(first)), _first_cell(start, delimiter)


def _first_cell(start, delimiter):
    """The first cell of the first data row (``""`` if there is none)."""
    line = start.split(b"\n", 1)[0].decode("utf-8", errors="replace")
    return next(csv.reader(io.StringIO(line), delimiter=delimiter), [""])[0].strip()


def _is_text(cell):
    """Whether a cell holds text: neither a number nor a missing-value token."""
    if cell in NULL_VALUES or not cell:
        return False
    try:
        float(cell.replace(",", "."))
    except ValueError:
        return True
    return False


class _Source:
    """One table file: its header, and its blocks as pyarrow record batches with
    the columns ``[target, *features]`` (a layout's ``columns``), nothing else
    parsed."""

    def __init__(self, path, decimal, on_bytes=None):
        if not os.path.exists(path):
            raise TableError(f"No such file: {path}")
        if os.path.isdir(path):
            raise TableError(f"{path} is a directory, not a data file.")
        self.path = path
        self.decimal = decimal
        self.on_bytes = on_bytes or (lambda number, count: None)
        self.passes = 0
        self._copy = None  # xz and zip, decompressed once for both passes
        self.parquet = str(path).lower().endswith((".parquet", ".pq"))
        self.index_columns = ()
        if self.parquet:
            import pyarrow.parquet as pq

            try:
                schema = pq.ParquetFile(path).schema_arrow
            except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid too
                raise TableError(f"Cannot read {path} as Parquet: {error}") from None
            self.header = list(schema.names)
            metadata = schema.pandas_metadata or {}
            self.index_columns = tuple(
                name
                for name in metadata.get("index_columns", [])
                if isinstance(name, str)  # a RangeIndex is metadata, not a column
            )
        else:
            self.header, self.delimiter, longest, self.first_cell = _header_line(path)
            # Wide tables get blocks of many rows: each block costs a pass over
            # its columns in Python, which must not come once per few rows.
            self.block_bytes = max(
                BLOCK_BYTES, min(64 * longest, 64 << 20), 4 * longest
            )

    def batches(self, columns, text_columns=()):
        """Record batches of the columns (indices into the header), features as
        float64 and the ``text_columns`` as strings."""
        if self.parquet:
            yield from self._parquet_batches(columns)
        else:
            yield from self._csv_batches(columns, text_columns)

    def _parquet_batches(self, columns):
        import pyarrow.parquet as pq

        names = [self.header[j] for j in columns]
        yield from pq.ParquetFile(self.path).iter_batches(
            batch_size=CHUNK_ROWS, columns=names
        )

    def _csv_batches(self, columns, text_columns):
        import pyarrow as pa
        import pyarrow.csv as pacsv

        internal = [f"c{j}" for j in range(len(self.header))]
        types = {internal[j]: pa.float64() for j in columns}
        types.update({internal[j]: pa.string() for j in text_columns})
        progress, size = self._progress(), os.path.getsize(self.path)
        kind, path, scale = _compression(self.path), self.path, 1.0
        if kind in ("xz", "zip"):  # pyarrow has no codec for them: a plain copy
            if self._copy is None:
                self._copy = _decompressed_copy(self.path)
            path, kind = self._copy, None
            scale = size / max(os.path.getsize(self._copy), 1)  # bytes of the file
        source, raw = _arrow_source(path, kind)
        reader = pacsv.open_csv(
            source,
            read_options=pacsv.ReadOptions(
                column_names=internal,
                skip_rows=1,
                block_size=self.block_bytes,
                use_threads=False,  # as fast for one stream, measured; no pool
            ),
            # Quoted cells may hold line breaks (pandas writes them so).
            parse_options=pacsv.ParseOptions(
                delimiter=self.delimiter, newlines_in_values=True
            ),
            convert_options=pacsv.ConvertOptions(
                include_columns=[internal[j] for j in columns],
                column_types=types,
                null_values=NULL_VALUES
                if len(columns) <= MANY_COLUMNS
                else COMMON_NULL_VALUES,
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
                decimal_point=self.decimal,
            ),
        )
        try:
            for batch in reader:
                progress(min(int(raw.tell() * scale), size))
                yield batch
        finally:
            reader.close()
            raw.close()

    def close(self):
        """Remove the decompressed copy of an xz or zip file, if one was made."""
        if self._copy is not None:
            _remove(self._copy)
            self._copy = None

    def _progress(self):
        """The byte counter of the next pass: ``on_bytes(pass, bytes read)``."""
        self.passes += 1
        current = self.passes
        return lambda count: self.on_bytes(current, count)

    def error(self, error, layout):
        """A TableError for pyarrow's error while reading."""
        message = str(error)
        conversion = re.match(
            r"In CSV column #(\d+): (?:Row #(\d+): )?CSV conversion error to (\w+): "
            r"(.*)",
            message,
        )
        if conversion:
            column, row, kind, detail = conversion.groups()
            name = shown(self.header[int(column)])
            if kind == "string":
                return TableError(
                    f"{self.path} is not UTF-8 text (column {name}); save it as "
                    "UTF-8 (e.g. iconv -f latin1 -t utf-8)."
                )
            value = re.search(r"invalid value '(.*)'", detail)
            cell = value.group(1) if value else detail
            cell = cell[:40] + ("..." if len(cell) > 40 else "")
            hint = " Drop it with --drop or encode it as numbers."
            if (
                re.fullmatch(r"\s*[-+]?\d+,\d+\s*", cell)
                and self.decimal == "."
                and self.delimiter != ","  # there "1,200" is a thousands separator
            ):
                hint = (
                    " The cells look like decimal commas: if they are (not thousands "
                    "separators), try --decimal ,"
                )
            if re.fullmatch(r"\s*[-+]?\d*\.\d+\s*", cell) and self.decimal == ",":
                hint = " The cells use a decimal point: leave out --decimal ,"
            # pyarrow counts the header as row 1
            where = f", data row {int(row) - 1}" if row else ""
            return TableError(
                f"Non-numeric feature column {name} (e.g. {cell!r}{where}).{hint}"
            )
        if "Expected" in message and "columns" in message:
            return self._ragged()
        if "straddling" in message:
            return TableError(
                f"{self.path} has a row longer than {self.block_bytes >> 20} MB "
                "beyond its first lines; the report reads rows up to four times the "
                "longest of its first 4 MB."
            )
        return TableError(f"Cannot read {self.path}: {message}")

    def _ragged(self):
        """The error for a row of the wrong length, with its line (pyarrow does not
        say which: found again here, on the error path only)."""
        with io.TextIOWrapper(
            _binary_stream(self.path), encoding="utf-8-sig", errors="replace"
        ) as handle:
            reader = csv.reader(handle, delimiter=self.delimiter)
            for row in reader:
                if row and len(row) != len(self.header):
                    return TableError(
                        f"{self.path}, line {reader.line_num}: {len(row)} fields, "
                        f"but the header has {len(self.header)}."
                    )
        return TableError(f"{self.path}: a row with the wrong number of fields.")


@dataclass
class _Layout:
    header: list
    target: int
    features: list  # column indices
    index: int = None  # a column that may be a saved index, among the features

    @property
    def columns(self):
        """The columns read, in the order of the batches."""
        return [self.target, *self.features]

    @property
    def feature_names(self):
        return [self.header[j] for j in self.features]


def _names(header, log, index):
    """Column names, stripped; an unnamed column gets a name (said on stderr,
    unless it is the saved ``index``); a repeated name is an error."""
    names = []
    for j, name in enumerate(header):
        name = str(name).strip()
        if not name:
            name = f"unnamed_{j + 1}"
            if j != index:
                log(f"note: column {j + 1} has no name; it is the feature {name!r} "
                    f"(--drop {name} to leave it out)")  # fmt: skip
        names.append(name)
    repeated = sorted(name for name, count in Counter(names).items() if count > 1)
    if repeated:
        raise TableError(
            f"Repeated column name(s): {', '.join(map(shown, repeated))}; rename "
            "them so that --target and --drop are unambiguous."
        )
    return names


def _did_you_mean(name, names):
    """`` Did you mean 'x'?`` for the closest column name, or ``""``."""
    lowered = {str(other).lower(): other for other in names}
    match = lowered.get(str(name).lower())
    if match is None:
        close = difflib.get_close_matches(str(name), [str(n) for n in names], n=1)
        match = close[0] if close else None
    return f" Did you mean {shown(match)}?" if match is not None else ""


def _columns_listed(header):
    return ", ".join(map(shown, header))


def _layout(header, target, drop, path, index):
    if target is None:
        raise TableError(
            "Name the class column with --target COLUMN; the columns of "
            f"{path} are: {_columns_listed(header)}."
        )
    if target not in header:
        raise TableError(
            f"No column {shown(target)} in {path}.{_did_you_mean(target, header)} "
            f"Its columns are: {_columns_listed(header)}."
        )
    unknown = [name for name in drop if name not in header]
    if unknown:
        hints = "".join(_did_you_mean(name, header) for name in unknown)
        raise TableError(
            f"--drop names columns not in {path}: {_columns_listed(unknown)}.{hints}"
        )
    if target in drop:
        raise TableError(f"--drop names the target column {shown(target)}.")
    dropped = set(drop) | {target}
    features = [j for j, name in enumerate(header) if name not in dropped]
    if index is not None and index not in features:
        index = None
    if not features or features == [index]:
        raise TableError(f"{path} has no feature column left besides the target.")
    return _Layout(header, header.index(target), features, index)


def canonical_label(text):
    """A class label as read: stripped, and a number written in its shortest form
    (``1``, ``1.0`` and ``01`` are one class)."""
    text = str(text).strip()
    try:
        value = float(text)
    except ValueError:
        return text
    if not np.isfinite(value):
        return text
    return str(int(value)) if value.is_integer() else repr(value)


def _is_missing(text):
    return text.strip().lower() in MISSING_TOKENS


def _labels(column):
    """``(codes, names)``: each row's index into ``names`` (the block's distinct
    labels, canonical), -1 where the label is missing. Distinct values are
    canonicalised once each, not once per row."""
    import pyarrow as pa

    if not pa.types.is_string(column.type) and not pa.types.is_large_string(
        column.type
    ):
        column = column.cast(pa.string())
    encoded = column.dictionary_encode()
    distinct = encoded.dictionary.to_pylist()
    names, lookup = [], {}
    mapping = np.empty(len(distinct) + 1, dtype=np.intp)
    mapping[-1] = -1  # null
    for k, text in enumerate(distinct):
        if _is_missing(text):
            mapping[k] = -1
            continue
        label = canonical_label(text)
        mapping[k] = lookup.setdefault(label, len(names))
        if mapping[k] == len(names):
            names.append(label)
    indices = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    return mapping[indices], names


def _floats(column, name):
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
                    f"Non-numeric feature column {shown(name)} (e.g. {cell!r}). "
                    "Drop it with --drop or encode it as numbers."
                ) from None
    values = column.cast(pa.float64())
    if values.null_count:
        values = values.fill_null(np.nan)
    return values.to_numpy(zero_copy_only=False)


def _parse(batch, layout, first_line):
    """``(values with NaN for missing cells, label codes, label names)`` of a
    record batch with the columns ``layout.columns``."""
    codes, names = _labels(batch.column(0))
    values = np.empty((batch.num_rows, len(layout.features)))
    for column, name in enumerate(layout.feature_names):
        values[:, column] = _floats(batch.column(column + 1), name)
    infinite = np.isinf(values)
    if infinite.any():
        i, column = np.argwhere(infinite)[0]
        raise TableError(
            f"Column {shown(layout.feature_names[column])}, data row "
            f"{first_line + i}: an infinite value (or one beyond float64's range); "
            "fix or drop it."
        )
    return values, codes, names


def _blocks(source, layout):
    """``(values, codes, names, first data row)`` of every block: pass 1 or 2."""
    import pyarrow as pa

    first = 1
    try:
        for batch in source.batches(layout.columns, text_columns=[layout.target]):
            values, codes, names = _parse(batch, layout, first)
            yield values, codes, names, first
            first += batch.num_rows
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise source.error(error, layout) from None
    except (OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError) as error:
        raise TableError(f"Cannot read {source.path}: {error}.") from None


def _usable(values, codes, missing):
    """Rows that count under the missing-value policy: a class, and with "drop"
    no missing cell."""
    usable = codes >= 0
    if missing == "drop":
        usable &= ~np.isnan(values).any(axis=1)
    return usable


def _scan(source, layout, missing, keep_rows, log):
    """Pass 1. Returns the counts of the usable rows per label, per-column missing
    counts and means, the number of rows, the parsed blocks themselves if there
    are at most ``keep_rows`` rows, and the values of the candidate index column."""
    size = os.path.getsize(source.path)
    if size > 100 * 2**20:
        log(f"reading {source.path} ({size / 2**30:.2f} GB)")
    p = len(layout.features)
    missing_cells = np.zeros(p + 1, dtype=np.int64)  # the features, then the target
    sums, counts = np.zeros(p), np.zeros(p)
    labels_seen = {}
    n_rows = 0
    kept = []
    index = None if layout.index is None else layout.features.index(layout.index)
    index_values = []
    for values, codes, names, first in _blocks(source, layout):
        n_rows += len(codes)
        nan = np.isnan(values)
        missing_cells[:p] += nan.sum(axis=0)
        missing_cells[p] += np.count_nonzero(codes < 0)
        sums += np.where(nan, 0.0, values).sum(axis=0)
        counts += (~nan).sum(axis=0)
        usable = _usable(values, codes, missing)
        per_label = np.bincount(codes[usable], minlength=len(names))
        for name, count in zip(names, per_label, strict=True):
            if count:
                labels_seen[name] = labels_seen.get(name, 0) + int(count)
        if index is not None:
            index_values.append(values[:, index])
        if kept is not None:
            kept.append((values, codes, names, first))
            if n_rows > keep_rows:
                kept = None
    if n_rows == 0:
        raise TableError(f"{source.path} has a header but no rows.")
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    index_values = np.concatenate(index_values) if index is not None else None
    return labels_seen, missing_cells, means, n_rows, kept, index_values


def _is_saved_index(values):
    """Unique integers with no missing cell: what ``to_csv()`` writes for an index
    (0…n-1, or any subset of one after filtering or shuffling)."""
    return bool(
        not np.isnan(values).any()
        and np.all(values == np.round(values))
        and np.unique(values).size == values.size
    )


def _without_column(layout, position):
    """The layout with feature ``position`` left out."""
    features = [j for k, j in enumerate(layout.features) if k != position]
    return _Layout(layout.header, layout.target, features)


def _missing_message(layout, missing, path):
    names = layout.feature_names + [layout.header[layout.target]]
    counted = ", ".join(
        f"{escaped(name)}: {count}"
        for name, count in zip(names, missing, strict=True)
        if count
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
    decimal=".",
    keep_index=False,
    log=None,
    progress=None,
):
    """Read a labelled table for the report (see the module docstring).

    Parameters
    ----------
    path : str
        A CSV file with a header row (plain, or compressed by gzip, bzip2, xz or
        zip, recognised by its first bytes), or a Parquet file (``.parquet``,
        ``.pq``).
    target : str
        The class column.
    drop : sequence of str, default=()
        Columns to leave out (never parsed).
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
    decimal : {".", ","}, default="."
        The decimal mark of the CSV's numbers.
    keep_index : bool, default=False
        Keep a saved pandas index as a feature. By default an unnamed first CSV
        column (or ``Unnamed: 0``) of unique integers, and Parquet's pandas index
        columns, are left out with a note: an index is no feature, and on data
        sorted by class it gives the label away.
    log : callable, default=None
        Receives progress messages (for stderr).
    progress : callable, default=None
        ``progress(pass, bytes)``: how much of the file (compressed, if it is) the
        pass (1 or 2) has read; CSV only.

    Returns
    -------
    table : Table
    """
    log = log or (lambda message: None)
    source = _Source(path, decimal, progress)
    try:
        notes = []
        drop = list(drop)
        candidate = None
        if not keep_index:
            saved = [name for name in source.header
                     if (name in source.index_columns or name == "__index_level_0__")
                     and name != target]  # an index named as the target is meant  # fmt: skip
            if saved:
                drop += [name for name in saved if name not in drop]
                notes.append(
                    f"the pandas index column(s) {_columns_listed(saved)} of the Parquet "
                    "file left out (--keep-index keeps them as features)"
                )
            elif not source.parquet and source.header[0].strip() in INDEX_NAMES:
                candidate = 0
        header = _names(source.header, log, candidate)
        if candidate == 0 and _is_text(source.first_cell) and header[0] != target:
            # pandas' to_csv of a frame indexed by text (sample IDs): no feature.
            notes.append(
                f"column 1 ({shown(source.header[0])}) has no name and holds text "
                f"({source.first_cell[:20]!r}, ...): a saved index (pandas to_csv), "
                "left out (--keep-index keeps it)"
            )
            drop.append(header[0])
            candidate = None
        layout = _layout(header, target, drop, path, candidate)
        labels_seen, missing_cells, means, n_rows, kept, index_values = _scan(
            source, layout, missing, sample_rows, log
        )
        if layout.index is not None:
            position = layout.features.index(layout.index)
            if _is_saved_index(index_values):
                notes.append(
                    f"column 1 ({shown(source.header[0])}) holds unique integers: a "
                    "saved index (pandas to_csv), left out (--keep-index keeps it)"
                )
                layout = _without_column(layout, position)
                keep = np.arange(len(means)) != position
                means = means[keep]
                missing_cells = missing_cells[np.r_[keep, True]]
                if kept is not None:
                    kept = [(block[0][:, keep], *block[1:]) for block in kept]
            else:
                log(f"note: column 1 has no name; it is the feature "
                    f"{header[0]!r} (--drop {header[0]} to leave it out)")  # fmt: skip
        if missing_cells.any() and missing is None:
            raise TableError(_missing_message(layout, missing_cells, path))
        if missing == "mean" and np.isnan(means).any():
            empty = [name for name, mean in zip(layout.feature_names, means, strict=True)
                     if np.isnan(mean)]  # fmt: skip
            raise TableError(
                f"Column(s) with no value at all: {_columns_listed(empty)}; drop them "
                "with --drop."
            )
        if not labels_seen:
            raise TableError(
                f"No row of {path} is left with a class and "
                + (
                    "no missing cell (--missing drop)."
                    if missing == "drop"
                    else "values."
                )
            )
        if len(labels_seen) < 2:
            found = ", ".join(labels_seen)
            raise TableError(
                f"The column {shown(layout.header[layout.target])} holds one class only "
                f"({found}) in the usable rows: separability compares two classes or "
                "more."
            )
        _refuse_a_continuous_target(labels_seen, layout)
        class_names, class_of = _class_codes(labels_seen, positive)
        n_classes = len(class_names)
        class_counts = np.zeros(n_classes, dtype=np.int64)
        for label, count in labels_seen.items():
            class_counts[class_of[label]] += count
        n_used = int(class_counts.sum())
        chosen = None
        if kept is None:
            log(
                f"{path}: {n_rows} rows, more than --sample-rows {sample_rows}: reading "
                "it again, for the class statistics of all rows and a sample of about "
                f"{min(sample_rows, n_used)} rows."
            )
            chosen = stratified_sample(class_counts, sample_rows, seed)
            pieces = _blocks(source, layout)
        else:
            pieces = iter(kept)
        statistics, X_parts, y_parts, row_parts = None, [], [], []
        seen = np.zeros(n_classes, dtype=np.int64)  # usable rows of each class so far
        dropped, filled = 0, 0
        for values, codes, names, first in pieces:
            usable = _usable(values, codes, missing)
            row_numbers = first + np.flatnonzero(usable)
            if missing == "mean":
                nan = np.isnan(values)
                filled += int(nan[usable].sum())
                values = np.where(nan, means, values)
            dropped += int(np.sum(~usable))
            values = values[usable]
            lookup = np.array([class_of.get(name, -1) for name in names], dtype=np.intp)
            y = lookup[codes[usable]]
            if not len(y):
                continue
            part = ClassStatistics.from_data(
                values, y, np.arange(n_classes), per_class=n_classes > 2
            )
            statistics = part if statistics is None else statistics.merge(part)
            if chosen is None:
                X_parts.append(values)
                y_parts.append(y)
                row_parts.append(row_numbers)
            else:
                # Each row's ordinal within its class, against the chosen ordinals.
                keep = np.zeros(len(y), dtype=bool)
                for k in range(n_classes):
                    rows = np.flatnonzero(y == k)
                    keep[rows] = np.isin(seen[k] + np.arange(rows.size), chosen[k])
                    seen[k] += rows.size
                X_parts.append(values[keep])
                y_parts.append(y[keep])
                row_parts.append(row_numbers[keep])
        table = Table(
            X=np.vstack(X_parts),
            y=np.concatenate(y_parts),
            row_numbers=np.concatenate(row_parts),
            class_names=class_names,
            feature_names=layout.feature_names,
            statistics=statistics,
            n_rows_read=n_rows,
            n_rows_used=n_used,
            missing_filled=filled,
            rows_dropped=dropped,
            notes=notes,
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
    finally:
        source.close()  # an xz or zip file's copy goes now


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
            f"The column {shown(layout.header[layout.target])} holds {len(labels_seen)} "
            "distinct values"
            + (", some with fractions" if fractional else "")
            + ": it looks continuous (a regression target?). The report compares "
            "classes; give the class column with --target."
        )
