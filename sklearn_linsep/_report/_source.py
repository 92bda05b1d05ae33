"""The file behind a report: opened once, its bytes handed to pyarrow a block at a
time, and every problem said in one line that names the file.

What is not a regular file, and an xz or zip file, is read from a temporary copy
(:mod:`._copies`). A regular file that changes between the passes (its size or
modification time) is refused. A directory or a glob names a table in several
files of the same columns (:func:`open_source`, :class:`Sources`).
"""

import codecs
import csv
import glob
import io
import itertools
import os
import queue
import re
import stat
import tempfile
import threading

from ._copies import (
    MAX_DECOMPRESSED,
    READ_ERRORS,
    TemporaryFiles,
    WriteError,
    binary_stream,
    byte_size,
    capped_copy,
    compression,
)
from ._errors import TableError
from ._layout import escaped

MISSING_TOKENS = frozenset({"", "?", "na", "nan", "n/a", "null", "none", "-"})


def is_missing(cell):
    """Whether a cell's text is a missing-value token (any case, any spaces)."""
    return cell.strip().lower() in MISSING_TOKENS


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
# pyarrow's CSV block. A row must fit in a block: the block grows with the longest
# line of the start. At 1e6 x 10, 4 MB blocks against 1 MB: the report 2.65 s
# against 2.80 (a quarter of the calls a block makes), its peak 0.47 GB against
# 0.40 GB (pyarrow's own read-ahead).
BLOCK_BYTES = 4 << 20
START_BYTES = 4 << 20  # read after the header for its longest line
CHUNK_ROWS = 50_000  # Parquet rows at a time
# CSV blocks parsed ahead of their reader, by a thread of their own (pyarrow parses
# without the GIL): the parse (0.5 s a pass at 1e6 x 10) runs beside the checks and
# statistics of the blocks before it, or beside the report's imports. 4 or 16 ahead:
# the same time and peak.
BLOCKS_AHEAD = 4


def parsed_ahead(reader, position):
    """``(batch, position())`` of each batch of ``reader``, parsed in a thread up to
    ``BLOCKS_AHEAD`` batches ahead of the caller; the thread's error is raised here,
    and it stops when the caller does (closing this generator)."""
    ready, stop = queue.Queue(BLOCKS_AHEAD), threading.Event()
    done = object()

    def parse():
        try:
            for batch in reader:
                if stop.is_set():
                    return
                ready.put((batch, position()))
            ready.put(done)
        except BaseException as error:  # noqa: BLE001 - raised by the caller
            ready.put(error)

    worker = threading.Thread(target=parse, daemon=True, name="linsep-csv")
    worker.start()
    try:
        while (item := ready.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while worker.is_alive():  # free a put waiting for room, then let it end
            try:
                ready.get(timeout=0.01)
            except queue.Empty:
                pass
        worker.join()


def changed_while_read(path, seen):
    """The error of a file whose passes disagree (``seen``: how it showed)."""
    return TableError(
        f"{path} changed while it was being read ({seen}); read it when nothing "
        "writes to it, or a copy."
    )


def shown(name):
    """:func:`escaped`, in quotes."""
    return f"'{escaped(name)}'"


def columns_listed(header):
    return ", ".join(map(shown, header))


def is_text_type(kind):
    """Whether an Arrow type holds text."""
    import pyarrow as pa

    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def as_text(column):
    """An Arrow column as text (cast where it holds something else)."""
    import pyarrow as pa

    return column if is_text_type(column.type) else column.cast(pa.string())


# What a directory's table files are called (a directory's other files are not read).
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq", ".gz", ".bz2", ".xz",
                  ".zip")  # fmt: skip
GLOB_CHARACTERS = frozenset("*?[")


def is_glob(path):
    """Whether PATH is a pattern of file names (and no file of that name exists)."""
    return not os.path.lexists(path) and bool(GLOB_CHARACTERS & set(str(path)))


def table_files(path):
    """The files PATH names, in name order: itself (a file, a pipe); a directory's
    table files (``TABLE_SUFFIXES``, hidden ones left out); a glob's files. A
    TableError where a directory or a glob names none."""
    path = str(path)
    if os.path.isdir(path):
        files = sorted(entry.path for entry in os.scandir(path)
                       if entry.is_file() and not entry.name.startswith(".")
                       and entry.name.lower().endswith(TABLE_SUFFIXES))  # fmt: skip
        if not files:
            raise TableError(
                f"{path} is a directory with no CSV or Parquet file in it (named "
                f"*.csv, *.parquet, ...); give a file, or a glob such as "
                f"{os.path.join(path, '*.csv')}."
            )
        return files
    if is_glob(path):
        files = sorted(name for name in glob.glob(path, recursive=True)
                       if os.path.isfile(name))  # fmt: skip
        if not files:
            raise TableError(f"No file matches {path}.")
        return files
    return [path]


def open_source(path, decimal=".", *, max_bytes=MAX_DECOMPRESSED, on_bytes=None):
    """The :class:`Source` of a file, or the :class:`Sources` of a directory's or a
    glob's files (more than one)."""
    files = table_files(path)
    if len(files) == 1:
        return Source(files[0], decimal, max_bytes=max_bytes, on_bytes=on_bytes)
    return Sources(path, files, decimal, max_bytes=max_bytes)


def _starts(path, magic):
    with open(path, "rb") as handle:
        return handle.read(len(magic)) == magic


class Source:
    """One table file: its header, its first data row, and its blocks as pyarrow
    record batches of the columns asked for, nothing else parsed.

    Parameters
    ----------
    path : str
        CSV (plain, gzip, bzip2, xz, zip) or Parquet (``.parquet``, ``.pq``); a
        pipe or FIFO too.
    decimal : {".", ","}
        The CSV's decimal mark.
    max_bytes : int
        Bytes of a temporary copy at most.
    on_bytes : callable, default=None
        ``on_bytes(pass, bytes read)`` as a pass goes (CSV only).
    """

    def __init__(self, path, decimal=".", *, max_bytes=MAX_DECOMPRESSED, on_bytes=None):
        self.path = str(path)
        self.decimal = decimal
        self.on_bytes = on_bytes or (lambda number, count: None)
        self.passes = 0
        self._copies = []
        self.index_columns = ()
        self.positions = (0, 1)  # Parquet's saved RangeIndex: (start, step)
        try:
            self._open_and_read_header(max_bytes)
        except BaseException:
            self.close()  # a copy made before the header failed goes now
            raise

    def _open_and_read_header(self, max_bytes):
        self.signature, self.readable = self._open(max_bytes)
        self.parquet = self.path.lower().endswith((".parquet", ".pq")) or _starts(
            self.readable, b"PAR1"
        )
        self.kind = None if self.parquet else compression(self.readable)
        self.compressed_as = self.kind  # (kind: None once decompressed to a copy)
        if self.kind in ("xz", "zip"):
            readable, kind = self.readable, self.kind
            self.readable = self._copy(
                lambda: binary_stream(readable, kind),
                max_bytes,
                f"{self.path} decompresses to more than {byte_size(max_bytes)} "
                "(--max-decompressed): raise the cap, or decompress it yourself.",
            )
            self.kind = None
        if self.parquet:
            self._parquet_header()
        else:
            self._csv_header()

    def _open(self, max_bytes):
        """``(signature, the file the passes read)``: the path itself, or a copy of
        what is not a regular file (read once)."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            raise TableError(f"No such file: {self.path}") from None
        except OSError as error:
            raise TableError(f"Cannot read {self.path}: {error.strerror}.") from None
        if stat.S_ISDIR(info.st_mode):
            raise TableError(f"{self.path} is a directory, not a data file.")
        if stat.S_ISREG(info.st_mode):
            return _signature(info), self.path
        copy = self._copy(
            lambda: open(self.path, "rb"),
            max_bytes,
            f"{self.path} is not a regular file (a pipe?) and holds more than "
            f"{byte_size(max_bytes)} (--max-decompressed): save it to a file.",
        )
        return None, copy

    def _copy(self, opener, max_bytes, too_large):
        """A temporary copy of what ``opener()`` opens (see :func:`capped_copy`)."""
        # TMPDIR first: tempfile's first call writes and removes a probe file there.
        # After the open, a pipe's writer no longer waits and may see that probe;
        # a SIGTERM sent on seeing it killed the report with the probe left (CI).
        tempfile.gettempdir()
        try:
            copy = capped_copy(opener(), max_bytes, too_large)
        except WriteError as error:
            raise TableError(
                f"Cannot copy {self.path} into a temporary file in "
                f"{tempfile.gettempdir()}: {error} (set TMPDIR to a roomier place)."
            ) from None
        except RuntimeError as error:  # zipfile: an encrypted member
            reason = "an encrypted zip" if "encrypted" in str(error) else str(error)
            raise TableError(
                f"Cannot read {self.path}: {reason}; unzip it and give the file."
            ) from None
        except READ_ERRORS as error:
            raise TableError(f"Cannot read {self.path}: {error}.") from None
        self._copies.append(copy)
        return copy

    def _parquet_header(self):
        import pyarrow.parquet as pq

        try:
            schema = pq.ParquetFile(self.readable).schema_arrow
        except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid too
            raise TableError(f"Cannot read {self.path} as Parquet: {error}") from None
        self.header = list(schema.names)
        self.types = list(schema.types)
        indexes = (schema.pandas_metadata or {}).get("index_columns", [])
        self.index_columns = tuple(name for name in indexes if isinstance(name, str))
        ranges = [
            index
            for index in indexes
            if isinstance(index, dict) and index.get("kind") == "range"
        ]
        if len(ranges) == 1:  # a RangeIndex is metadata, not a column
            self.positions = (int(ranges[0]["start"]), int(ranges[0]["step"]))
        self.first_row = None

    def _csv_header(self):
        header = _header_line(self)
        self.header, self.delimiter, self.header_lines, longest, self.first_row = header
        self.types = None
        # Wide tables get blocks of many rows: each block costs a pass over its
        # columns in Python, which must not come once per few rows.
        self.block_bytes = max(BLOCK_BYTES, min(64 * longest, 64 << 20), 4 * longest)

    @property
    def n_bytes(self):
        """The size of what the passes read (decompressed where copied)."""
        return os.path.getsize(self.readable)

    def stream(self):
        """The passes' bytes, decompressed, as a Python file object."""
        return binary_stream(self.readable, self.kind)

    def check_unchanged(self):
        """Refuse a file whose size or modification time moved since it was
        opened: its passes would not agree."""
        if self.signature is None:
            return
        try:
            now = _signature(os.stat(self.path))
        except OSError:
            now = None
        if now != self.signature:
            raise changed_while_read(self.path, "its size or modification time")

    def batches(self, columns, text_columns=()):
        """Record batches of the ``columns`` (indices into the header, in this
        order): the ``text_columns`` among them as strings, the others as
        float64."""
        if self.parquet:
            import pyarrow.parquet as pq

            names = [self.header[j] for j in columns]
            yield from pq.ParquetFile(self.readable).iter_batches(
                batch_size=CHUNK_ROWS, columns=names
            )
        else:
            yield from self._csv_batches(columns, text_columns)

    def _csv_batches(self, columns, text_columns):
        import pyarrow as pa
        import pyarrow.csv as pacsv

        internal = [f"c{j}" for j in range(len(self.header))]
        types = {internal[j]: pa.float64() for j in columns}
        types.update({internal[j]: pa.string() for j in text_columns})
        progress = self._progress()
        size = os.path.getsize(self.path) if self.signature else None
        size = size or os.path.getsize(self.readable)
        scale = size / max(os.path.getsize(self.readable), 1)
        raw = pa.OSFile(self.readable, mode="rb")
        source = pa.CompressedInputStream(raw, self.kind) if self.kind else raw
        reader = pacsv.open_csv(
            source,
            read_options=pacsv.ReadOptions(
                column_names=internal,
                skip_rows=self.header_lines,
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
        ahead = parsed_ahead(reader, raw.tell)
        try:
            for batch, read in ahead:
                progress(min(int(read * scale), size))
                yield batch
        finally:
            ahead.close()  # its thread ends before the reader closes
            reader.close()
            raw.close()

    def close(self):
        """Remove the temporary copies, if any were made."""
        for copy in self._copies:
            TemporaryFiles.remove(copy)
        self._copies = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _progress(self):
        """The byte counter of the next pass: ``on_bytes(pass, bytes read)``."""
        self.passes += 1
        current = self.passes
        return lambda count: self.on_bytes(current, count)

    def error(self, error):
        """A TableError for pyarrow's (or the decompressor's) error in a pass."""
        message = str(error)
        conversion = re.match(
            r"In CSV column #(\d+): (?:Row #(\d+): )?CSV conversion error to (\w+): "
            r"(.*)",
            message,
        )
        if conversion:
            return self._conversion_error(*conversion.groups())
        if "Expected" in message and "columns" in message:
            return self._ragged()
        if "straddling" in message:
            return TableError(
                f"{self.path} has a row longer than {self.block_bytes >> 20} MB "
                "beyond its first lines; the report reads rows up to four times the "
                "longest of its first 4 MB."
            )
        return TableError(f"Cannot read {self.path}: {message}")

    def _conversion_error(self, column, row, kind, detail):
        name = shown(self.header[int(column)])
        if kind == "string":
            return TableError(
                f"{self.path} is not UTF-8 text (column {name}); save it as UTF-8 "
                "(e.g. iconv -f latin1 -t utf-8)."
            )
        value = re.search(r"invalid value '(.*)'", detail)
        cell = value.group(1) if value else detail
        cell = cell[:40] + ("..." if len(cell) > 40 else "")
        # pyarrow counts the lines skipped before the data from 1; data rows from 0
        where = f", data row {int(row) - 1 - self.header_lines}" if row else ""
        return TableError(
            f"{self.path}: non-numeric feature column {name} (e.g. {cell!r}{where})."
            + self._decimal_hint(cell)
        )

    def _decimal_hint(self, cell):
        if (
            re.fullmatch(r"\s*[-+]?\d+,\d+\s*", cell)
            and self.decimal == "."
            and self.delimiter != ","  # there "1,200" is a thousands separator
        ):
            return (
                " The cells look like decimal commas: if they are (not thousands "
                "separators), try --decimal ,"
            )
        if re.fullmatch(r"\s*[-+]?\d*\.\d+\s*", cell) and self.decimal == ",":
            return " The cells use a decimal point: leave out --decimal ,"
        return " Drop it with --drop or encode it as numbers."

    def _ragged(self):
        """The error for a row of the wrong length, with its line (pyarrow does not
        say which: found again here, on the error path only)."""
        try:
            with io.TextIOWrapper(
                self.stream(), encoding="utf-8-sig", errors="replace"
            ) as handle:
                reader = csv.reader(handle, delimiter=self.delimiter)
                for row in reader:
                    if row and len(row) != len(self.header):
                        return TableError(
                            f"{self.path}, line {reader.line_num}: {len(row)} "
                            f"fields, but the header has {len(self.header)}."
                        )
        except csv.Error as error:
            return TableError(f"Cannot read {self.path} as CSV: {error}.")
        return TableError(f"{self.path}: a row with the wrong number of fields.")


class Sources:
    """A table in several files (a directory's, or a glob's), read one after
    another as one :class:`Source`: every file of the same columns, all CSV or all
    Parquet. Rows are named by their position among all the files' data rows, in
    the files' (name) order; a problem names its file.

    Parameters
    ----------
    path : str
        The directory or glob, as the user gave it.
    files : list of str
        Its files (:func:`table_files`), two or more.
    decimal, max_bytes
        As :class:`Source`'s, for every file.
    """

    def __init__(self, path, files, decimal=".", *, max_bytes=MAX_DECOMPRESSED):
        self.path, self.parts = str(path), []
        try:
            for name in files:
                self.parts.append(Source(name, decimal, max_bytes=max_bytes))
            self._check_alike()
        except BaseException:
            self.close()
            raise
        first = self.current = self.parts[0]
        self.header, self.types = first.header, first.types
        self.first_row = first.first_row
        self.parquet, self.index_columns = first.parquet, first.index_columns
        self.delimiter = getattr(first, "delimiter", None)  # a CSV's
        self.positions = (0, 1)  # a file's saved RangeIndex names its rows only

    def _check_alike(self):
        first = self.parts[0]
        for part in self.parts[1:]:
            if part.parquet != first.parquet:
                raise TableError(
                    f"{self.path} mixes CSV and Parquet files ({first.path}, "
                    f"{part.path}): give the files of one kind (a glob such as "
                    f"{os.path.join(self.path, '*.parquet')})."
                )
            if part.header != first.header:
                order = " (in another order)" if sorted(part.header) == sorted(
                    first.header
                ) else ""
                raise TableError(
                    f"{self.path}: the files have different columns{order}: "
                    f"{first.path} has {columns_listed(first.header)}, {part.path} "
                    f"has {columns_listed(part.header)}."
                )

    @property
    def n_bytes(self):
        return sum(part.n_bytes for part in self.parts)

    def batches(self, columns, text_columns=()):
        """Every file's batches (:meth:`Source.batches`), file after file."""
        for part in self.parts:
            self.current = part
            yield from part.batches(columns, text_columns)

    def error(self, error):
        """The TableError of the file being read (:meth:`Source.error`)."""
        return self.current.error(error)

    def check_unchanged(self):
        for part in self.parts:
            part.check_unchanged()

    def close(self):
        for part in self.parts:
            part.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _signature(info):
    """What tells a file from another, or from itself rewritten: the device and
    inode (a file replaced by ``mv``), the size and the modification time."""
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


HEADER_BYTES = 64 << 20  # the longest header line read


def _header_lines(handle, path):
    """``(header bytes, raw lines it took)``: blank lines before it are skipped
    (pandas skips them too), and a quoted name may span lines."""
    consumed, header = 0, b""
    while True:
        line = handle.readline(HEADER_BYTES)
        if len(line) >= HEADER_BYTES and not line.endswith(b"\n"):
            raise TableError(f"{path}: the header line is longer than 64 MiB.")
        consumed += 1 if line else 0
        if header or line.strip():
            header += line
        if not line or (header and header.count(b'"') % 2 == 0):
            return header, consumed


BINARY_PROBE = 4096  # bytes after the header looked at for binary data
# Control bytes no text file holds (tab, line feed, carriage return, form feed
# and escape are left out): a PNG's signature has 0x1a, most binary files 0x00.
_BINARY_BYTES = bytes(range(0, 9)) + bytes(range(14, 27)) + bytes(range(28, 32))


def _binary(head):
    """Whether the first bytes of a file are binary data, not text: control
    bytes no text holds, in bytes that are not UTF-8 either (a column name may
    hold a NUL; a UTF-16 file, with its byte-order mark, is text in another
    encoding, which the UTF-8 advice covers)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if not any(byte in _BINARY_BYTES for byte in head):
        return False
    try:  # a multi-byte character cut by the probe's end is still UTF-8
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return True
    return False


def _header_line(source):
    """``(header fields, delimiter, raw lines the header took, longest line of
    the start, first data row's cells)``: the delimiter is ``,`` unless the
    header has none and has ``;`` or a tab (the usual alternatives)."""
    path = source.path
    try:
        with source.stream() as handle:
            first, consumed = _header_lines(handle, path)
            start = handle.read(START_BYTES)
    except READ_ERRORS as error:
        raise TableError(f"Cannot read {path}: {error}.") from None
    if _binary(first + start[:BINARY_PROBE]):
        raise TableError(
            f"{path} is not a CSV or Parquet file: it holds binary data (an image, "
            "a spreadsheet, an archive?). Give a CSV file (plain, or gzip, bzip2, "
            "xz or zip compressed) or a Parquet file."
        )
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
    lines = start.split(b"\n")
    line = next((row for row in lines if row.strip()), b"").decode("utf-8", "replace")
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=delimiter))
        first_row = next(csv.reader(io.StringIO(line), delimiter=delimiter), [])
    except csv.Error as error:
        raise TableError(f"Cannot read {path} as CSV: {error}.") from None
    longest = max(max(map(len, lines), default=0), len(first))
    return header, delimiter, consumed, longest, [c.strip() for c in first_row]
