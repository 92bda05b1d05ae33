"""Which columns of a table are the target, the features, and the identifiers.

A column other than the target is an identifier, left out with a note that names it
and the rule that matched (``--keep COL`` keeps it):

* a saved pandas index: an unnamed first CSV column (or ``Unnamed: 0``) of unique
  integers or of text, Parquet's pandas index columns (``--keep-index`` keeps them);
* a name that says so: ``id`` or ``index`` (any case), or ending in ``_id``;
* values that say so: integers or text, all distinct and strictly monotone in row
  order over 10 rows or more (a row counter); text all distinct in the first column
  (what pandas' ``to_csv`` writes for a named index of sample names).

Identifiers name the rows in the report (the first one found, in that order).
"""

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ._source import MISSING_TOKENS, TableError, shown

# Saved by pandas with its index: ``to_csv()`` leaves the index column unnamed (read
# back, pandas calls it "Unnamed: 0"); ``to_parquet()`` names it as below.
INDEX_NAMES = ("", "Unnamed: 0", "__index_level_0__")
_IDENTIFIER_NAME = re.compile(r"(?i)(id|index|.*_id)")
SAVED_INDEX = "a saved index (pandas)"
NAMED = "named as an identifier"
COUNTER = "values all distinct and strictly monotone in row order"
FIRST_TEXT = "text, all distinct, in the first column (a saved index)"
# Rows from which a monotone column counts as a counter: 10 distinct values in
# random order are monotone once in 1.8 million, 3 once in 3.
_MONOTONE_FROM = 10


@dataclass
class Layout:
    """The columns a pass reads: ``target``, numeric ``features`` (float64) and
    ``texts`` (strings: identifiers to be, or errors), by index into ``header``;
    ``identifiers`` maps a column left out to its rule; ``candidates`` maps a
    feature or text column to the rule its values must meet in pass 1 to be one."""

    path: str
    header: list
    target: int
    features: list
    texts: list = field(default_factory=list)
    identifiers: dict = field(default_factory=dict)
    candidates: dict = field(default_factory=dict)
    row_ids: int = None  # the column that names the rows, read as text

    @property
    def columns(self):
        """The columns read as float64, in the order of the batches' values."""
        return [self.target, *self.features]

    @property
    def text_columns(self):
        """The columns read as strings, after the target and the features."""
        return [*self.texts, *([] if self.row_ids is None else [self.row_ids])]

    @property
    def feature_names(self):
        return [self.header[j] for j in self.features]

    def name(self, column):
        return self.header[column]


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


def columns_listed(header):
    return ", ".join(map(shown, header))


def plan_columns(source, target, drop=(), keep=(), keep_index=False):
    """The :class:`Layout` of pass 1 from the header (and, for a CSV, its first
    data row, which tells text columns from numbers)."""
    header = column_names(source.header, source.path)
    _check_named(header, target, drop, keep, source.path)
    texts = _text_columns(source)
    layout = Layout(source.path, header, header.index(target), features=[])
    for j, name in enumerate(header):
        if j == layout.target or name in drop:
            continue
        saved = _saved_index(source, j)
        kept = name in keep or (saved and keep_index)
        rule = None if kept else SAVED_INDEX if saved else _named_rule(name)
        if rule is not None and (rule == NAMED or j in texts or source.parquet):
            layout.identifiers[j] = rule  # known before reading: never parsed
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
    layout.row_ids = next(iter(layout.identifiers), None)
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
    return j == 0 and raw in INDEX_NAMES


def _named_rule(name):
    return NAMED if _IDENTIFIER_NAME.fullmatch(name) else None


def _text_columns(source):
    """Columns that hold text: by the Parquet schema, or the CSV's first data
    row (a cell neither a number nor a missing-value token)."""
    if source.parquet:
        import pyarrow as pa

        strings = (pa.types.is_string, pa.types.is_large_string)
        types = enumerate(source.types)
        return {j for j, kind in types if any(test(kind) for test in strings)}
    return {j for j, cell in enumerate(source.first_row) if _is_text(cell)}


def _is_text(cell):
    """Whether a cell holds text: neither a number nor a missing-value token."""
    if cell.lower() in MISSING_TOKENS:
        return False
    try:  # "1,5" is a number (a decimal comma, or a thousands separator)
        float(cell.replace(",", "."))
    except ValueError:
        return True
    return False


class IdentifierWatch:
    """Pass 1's look at the candidate columns, a block at a time: which numeric
    ones are integers strictly rising or falling, which text ones never repeat."""

    def __init__(self, layout):
        self.layout = layout
        p = len(layout.features)
        self.integral = np.ones(p, dtype=bool)
        self.rising = np.ones(p, dtype=bool)
        self.falling = np.ones(p, dtype=bool)
        self.last = None
        self.n_rows = 0
        self.seen = [set() for _ in layout.texts]
        self.repeated = np.zeros(len(layout.texts), dtype=bool)
        self.example = [None] * len(layout.texts)
        self.text_rising = np.ones(len(layout.texts), dtype=bool)
        self.text_falling = np.ones(len(layout.texts), dtype=bool)
        self.last_text = [[] for _ in layout.texts]
        self.saved = {position: [] for position, j in enumerate(layout.features)
                      if layout.candidates.get(j) == SAVED_INDEX}  # fmt: skip

    def update(self, values, texts):
        if not len(values):
            return
        self.integral &= np.all(values == np.round(values), axis=0)  # NaN: False
        steps = np.diff(values if self.last is None else np.vstack([self.last, values]),
                        axis=0)  # fmt: skip
        self.rising &= np.all(steps > 0, axis=0)
        self.falling &= np.all(steps < 0, axis=0)
        self.last = values[-1:]
        self.n_rows += len(values)
        for position, parts in self.saved.items():
            parts.append(values[:, position])
        for k, column in enumerate(texts):
            self._update_text(k, column)

    def _update_text(self, k, column):
        if self.example[k] is None:
            self.example[k] = next((v for v in column if v), None)
        if self.repeated[k]:
            return
        distinct = set(column)
        self.repeated[k] = (
            None in distinct
            or len(distinct) < len(column)
            or not self.seen[k].isdisjoint(distinct)
        )
        self.seen[k] = set() if self.repeated[k] else self.seen[k] | distinct
        if not self.repeated[k]:
            values = [*self.last_text[k], *column]
            self.text_rising[k] &= all(a < b for a, b in zip(values, values[1:]))
            self.text_falling[k] &= all(a > b for a, b in zip(values, values[1:]))
            self.last_text[k] = values[-1:]

    def decide(self):
        """``{column: rule}`` of the candidates that met their rule; a text column
        that did not is refused (text is no feature)."""
        layout, rules = self.layout, {}
        counters = self.integral & (self.rising | self.falling)
        for position, j in enumerate(layout.features):
            rule = layout.candidates.get(j)
            if rule == SAVED_INDEX and self._unique_integers(position):
                rules[j] = rule
            elif (
                rule == COUNTER and counters[position] and self.n_rows >= _MONOTONE_FROM
            ):
                rules[j] = rule
        text_counters = ~self.repeated & (self.text_rising | self.text_falling)
        for k, j in enumerate(layout.texts):
            rule = layout.candidates.get(j)
            if (
                rule == SAVED_INDEX
                or (rule == FIRST_TEXT and not self.repeated[k])
                or (
                    rule == COUNTER
                    and text_counters[k]
                    and self.n_rows >= _MONOTONE_FROM
                )
            ):
                rules[j] = rule
            else:
                example = str(self.example[k] or "")[:40]
                raise TableError(
                    f"{layout.path}: non-numeric feature column "
                    f"{shown(layout.name(j))} (e.g. {example!r}). Drop it with --drop "
                    "or encode it as numbers."
                )
        return rules

    def _unique_integers(self, position):
        """A saved index need not be sorted (a filtered or shuffled frame)."""
        values = np.concatenate(self.saved[position])
        return bool(self.integral[position]) and np.unique(values).size == values.size
