"""Which columns of a table are the target, the features, and the identifiers.

A column other than the target is an identifier, left out with a note that names it
and the rule that matched (``--keep COL`` keeps it):

* a saved pandas index: an unnamed first CSV column, or one named ``Unnamed: N`` as
  pandas reads an unnamed one back (anywhere: a file saved twice), of unique
  integers or of text; Parquet's pandas index columns (``--keep-index`` keeps them);
* a name that says so: ``id`` or ``index`` (any case), or ending in ``_id``;
* values that say so: integers or text, all distinct and strictly monotone in row
  order over 10 rows or more (a row counter); text all distinct in the first column,
  no cell a number (what pandas' ``to_csv`` writes for a named index of sample
  names).

An identifier names the rows in the report where it is unique and complete (and,
for numbers, exact in float64): the saved index first, else the first such column;
otherwise rows are named by their position.
"""

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ._errors import TableError
from ._source import columns_listed, is_missing, is_text_type, shown

# Saved by pandas with its index: ``to_csv()`` leaves the index column unnamed (read
# back, pandas calls it "Unnamed: 0", "Unnamed: 3", "Unnamed: 0.1" for a second
# one); ``to_parquet()`` names it "__index_level_0__".
_UNNAMED = re.compile(r"Unnamed: \d+(\.\d+)*")
_IDENTIFIER_NAME = re.compile(r"(?i)(id|index|.*_id)")
SAVED_INDEX = "a saved index (pandas)"
NAMED = "named as an identifier"
COUNTER = "values all distinct and strictly monotone in row order"
FIRST_TEXT = "text, all distinct, in the first column (a saved index)"
# Rows from which a monotone column counts as a counter: 10 distinct values in
# random order are monotone once in 1.8 million, 3 once in 3.
_MONOTONE_FROM = 10
_EXACT = 2.0**53  # integers beyond it are not one float64 each


@dataclass
class Layout:
    """The columns a pass reads, by index into ``header``: ``target``, numeric
    ``features`` (float64), and as strings ``texts`` (identifiers to be, or
    errors) and ``ids`` (identifiers by name, read for the rows' names).
    ``identifiers`` maps a column left out to its rule; ``candidates`` maps a
    feature or text column to the rule its values must meet in pass 1 to be one;
    ``row_ids`` is the column that names the rows (None: their positions)."""

    path: str
    header: list
    target: int
    features: list
    texts: list = field(default_factory=list)
    ids: list = field(default_factory=list)
    identifiers: dict = field(default_factory=dict)
    candidates: dict = field(default_factory=dict)
    row_ids: int = None
    numeric_ids: bool = False
    positions: tuple = (0, 1)  # a row's name from its position: start + step * it

    @property
    def columns(self):
        """The columns read as float64, in the order of the batches' values."""
        return [self.target, *self.features]

    @property
    def text_columns(self):
        """The columns read as strings, after the target and the features."""
        return [*self.texts, *self.ids]

    @property
    def feature_names(self):
        return [self.header[j] for j in self.features]

    def name(self, column):
        return self.header[column]


def resolve_names(values, header):
    """``--drop``/``--keep`` values as column names: a value that is a column's
    name as it is (``size,mm``), else its comma-separated parts."""
    names = []
    for value in values:
        if value in header:
            names.append(value)
        else:
            names += [part.strip() for part in value.split(",") if part.strip()]
    return names


def column_names(header, path):
    """Column names, stripped, an unnamed one called ``unnamed_<position>``; a
    repeated name is an error."""
    names = [str(name).strip() or f"unnamed_{j + 1}" for j, name in enumerate(header)]
    repeated = sorted(name for name, count in Counter(names).items() if count > 1)
    if repeated:
        raise TableError(
            f"{path}: repeated column name(s): {', '.join(map(shown, repeated))}; "
            "rename them so that --target and --drop are unambiguous."
        )
    return names


def did_you_mean(name, names):
    """`` Did you mean 'x'?`` for the closest column name, or ``""``."""
    lowered = {str(other).lower(): other for other in names}
    match = lowered.get(str(name).lower())
    if match is None:
        close = difflib.get_close_matches(str(name), [str(n) for n in names], n=1)
        match = close[0] if close else None
    return f" Did you mean {shown(match)}?" if match is not None else ""


def plan_columns(source, target, drop=(), keep=(), keep_index=False):
    """The :class:`Layout` of pass 1 from the header (and, for a CSV, its first
    data row, which tells text columns from numbers)."""
    header = column_names(source.header, source.path)
    drop, keep = resolve_names(drop, header), resolve_names(keep, header)
    _check_named(header, target, drop, keep, source.path)
    texts = _text_columns(source)
    layout = Layout(source.path, header, header.index(target), features=[],
                    positions=source.positions)  # fmt: skip
    for j, name in enumerate(header):
        if j == layout.target or name in drop:
            continue
        saved = _saved_index(source, j)
        kept = name in keep or (saved and keep_index)
        rule = None if kept else SAVED_INDEX if saved else _named_rule(name)
        if rule is not None and (rule == NAMED or j in texts or source.parquet):
            layout.identifiers[j] = rule  # known before reading: read as text only
            layout.ids.append(j)
        elif j in texts:
            layout.texts.append(j)
            if not kept:
                layout.candidates[j] = rule or (FIRST_TEXT if j == 0 else COUNTER)
        else:
            layout.features.append(j)
            if not kept:  # an unnamed first column: unique integers, else a counter?
                layout.candidates[j] = rule or COUNTER
    if not layout.features and not layout.texts:
        raise TableError(
            f"{source.path} has no feature column left besides the target."
        )
    return layout


def _check_named(header, target, drop, keep, path):
    if target is None:
        raise TableError(
            "Name the class column with --target COLUMN; the columns of "
            f"{path} are: {columns_listed(header)}."
        )
    for option, names in (("--drop", drop), ("--keep", keep)):
        unknown = [name for name in names if name not in header]
        if unknown:
            hints = "".join(did_you_mean(name, header) for name in unknown)
            raise TableError(
                f"{option} names columns not in {path}: {columns_listed(unknown)}."
                f"{hints}"
            )
    if target not in header:
        raise TableError(
            f"No column {shown(target)} in {path}.{did_you_mean(target, header)} "
            f"Its columns are: {columns_listed(header)}."
        )
    if target in drop:
        raise TableError(f"--drop names the target column {shown(target)}.")
    both = sorted(set(drop) & set(keep))
    if both:
        raise TableError(f"--drop and --keep both name {columns_listed(both)}.")


def _saved_index(source, j):
    """Whether column ``j`` is where pandas saves an index."""
    raw = str(source.header[j]).strip()
    if source.parquet:
        return raw in source.index_columns or raw == "__index_level_0__"
    return (j == 0 and raw == "") or bool(_UNNAMED.fullmatch(raw))


def _named_rule(name):
    return NAMED if _IDENTIFIER_NAME.fullmatch(name) else None


def _text_columns(source):
    """Columns that hold text: by the Parquet schema, or the CSV's first data
    row (a cell neither a number nor a missing-value token)."""
    if source.parquet:
        return {j for j, kind in enumerate(source.types) if is_text_type(kind)}
    return {j for j, cell in enumerate(source.first_row) if _is_text(cell)}


def _is_text(cell):
    """Whether a cell holds text: neither a number nor a missing-value token."""
    # "1,5" is a number (a decimal comma, or a thousands separator)
    return not is_missing(cell) and not _is_number(cell.replace(",", "."))


class _TextWatch:
    """One text column over pass 1: its cells' hashes (8 bytes a row: whether
    they are all distinct is told at the end, without holding the text), whether
    one is missing or a number, whether the column rises or falls throughout,
    and its first cell."""

    def __init__(self, check_numbers=False):
        self.check_numbers = check_numbers
        self.hashes = []
        self.missing = self.has_number = False
        self.rising = self.falling = True
        self.last = []
        self.example = None

    def update(self, column):
        cells = [cell for cell in column if cell is not None]
        self.missing |= len(cells) < len(column)
        if self.example is None and cells:
            self.example = cells[0]
        if self.check_numbers and not self.has_number:
            self.has_number = any(map(_is_number, cells))
        self.hashes.append(np.fromiter(map(hash, cells), np.int64, len(cells)))
        ordered = [*self.last, *cells]
        pairs = list(zip(ordered, ordered[1:]))
        self.rising = self.rising and all(a < b for a, b in pairs)
        self.falling = self.falling and all(a > b for a, b in pairs)
        self.last = ordered[-1:]

    @property
    def unique(self):
        """Complete and all distinct (equal hashes count as equal: a collision,
        one in 2**64 per pair, costs a column its identifier status only)."""
        hashes = np.concatenate(self.hashes) if self.hashes else np.zeros(0, np.int64)
        return not self.missing and np.unique(hashes).size == hashes.size


class IdentifierWatch:
    """Pass 1's look at the candidate columns, a block at a time: which numeric
    ones are integers strictly rising or falling (or, for a saved index, unique),
    which text ones never repeat."""

    def __init__(self, layout):
        self.layout = layout
        p = len(layout.features)
        self.integral = np.ones(p, dtype=bool)
        self.rising = np.ones(p, dtype=bool)
        self.falling = np.ones(p, dtype=bool)
        self.largest = np.zeros(p)
        self.last = None
        self.n_rows = 0
        self.texts = {
            j: _TextWatch(check_numbers=layout.candidates.get(j) == FIRST_TEXT)
            for j in layout.text_columns
        }
        self.saved = {position: [] for position, j in enumerate(layout.features)
                      if layout.candidates.get(j) == SAVED_INDEX}  # fmt: skip
        # Feature columns a rule may yet take, and which of them need to be monotone.
        self.live = np.array([position for position, j in enumerate(layout.features)
                              if j in layout.candidates], dtype=np.intp)  # fmt: skip
        self.counter = np.array([layout.candidates.get(j) != SAVED_INDEX
                                 for j in layout.features], dtype=bool)  # fmt: skip

    def update(self, values, texts):
        if not len(values):
            return
        live = self.live
        if live.size:  # the columns that may still meet their rule, only
            self._update_numbers(values[:, live], live)
        self.last = values[-1:]
        self.n_rows += len(values)
        for position, parts in self.saved.items():
            parts.append(values[:, position])
        for watch, column in zip(self.texts.values(), texts, strict=True):
            watch.update(column)

    def _update_numbers(self, values, live):
        self.integral[live] &= np.all(values == np.round(values), axis=0)  # NaN: no
        with np.errstate(invalid="ignore"):
            largest = np.max(np.abs(values), axis=0)
        self.largest[live] = np.fmax(self.largest[live], largest)
        last = None if self.last is None else self.last[:, live]
        steps = np.diff(values if last is None else np.vstack([last, values]), axis=0)
        self.rising[live] &= np.all(steps > 0, axis=0)
        self.falling[live] &= np.all(steps < 0, axis=0)
        # A column of a fraction, or a counter's that went both ways, is out for
        # good: later blocks skip it (at 1e6 x 10, 0.12 s of a 0.7 s read).
        counter = self.counter[live]
        monotone = self.rising[live] | self.falling[live]
        self.live = live[self.integral[live] & (~counter | monotone)]

    def decide(self):
        """``{column: rule}`` of the candidates that met their rule; a text column
        that did not is refused (text is no feature)."""
        rules = {j: rule for j, rule in self.layout.candidates.items()
                 if self._meets(j, rule)}  # fmt: skip
        for j in self.layout.texts:
            if j not in rules:
                example = str(self.texts[j].example or "")[:40]
                raise TableError(
                    f"{self.layout.path}: non-numeric feature column "
                    f"{shown(self.layout.name(j))} (e.g. {example!r}). Drop it with "
                    "--drop or encode it as numbers."
                )
        return rules

    def _meets(self, j, rule):
        enough = self.n_rows >= _MONOTONE_FROM
        if j in self.texts:
            watch = self.texts[j]
            if rule == FIRST_TEXT:
                return watch.unique and not watch.has_number
            return watch.unique and (watch.rising or watch.falling) and enough
        position = self.layout.features.index(j)
        if rule == SAVED_INDEX:
            return self._unique_integers(position)
        monotone = self.rising[position] or self.falling[position]
        return bool(self.integral[position] and monotone and enough)

    def _unique_integers(self, position):
        """A saved index need not be sorted (a filtered or shuffled frame)."""
        values = np.concatenate(self.saved[position])
        return bool(self.integral[position]) and np.unique(values).size == values.size

    def names_rows(self, j):
        """Whether identifier ``j`` can name the rows: unique, complete, and for
        numbers exact in float64."""
        if j in self.texts:
            return self.texts[j].unique
        # A numeric identifier is unique integers by its rule (a saved index, a
        # counter): what is left to ask is whether float64 held them exactly.
        return bool(self.largest[self.layout.features.index(j)] <= _EXACT)


def _is_number(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True
