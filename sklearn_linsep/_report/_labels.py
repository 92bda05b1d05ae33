"""The classes of a table: its labels as read (canonical, one code per distinct
label of a block), the rows that count under the missing-value policy, and what
is refused before the classes are reported on (missing cells not handled, a
column with no value, a single class, a continuous target)."""

from decimal import Decimal

import numpy as np

from ._columns import did_you_mean
from ._errors import TableError
from ._layout import escaped
from ._source import as_text, is_missing, shown


def table_classes(scan, layout, missing, positive):
    """``(class names, code of each label)``, once pass 1's scan (``_read``) says
    the table can be reported on."""
    if scan.missing_cells.any() and missing is None:
        raise TableError(_missing_message(layout, scan.missing_cells))
    if missing == "mean" and np.isnan(scan.means).any():
        names = np.array(layout.feature_names, dtype=object)
        empty = list(names[np.isnan(scan.means)])
        raise TableError(
            f"{layout.path}: column(s) with no value at all: "
            f"{', '.join(map(shown, empty))}; drop them with --drop."
        )
    labels_seen = scan.labels_seen
    if not labels_seen:
        condition = (
            "no missing cell (--missing drop)" if missing == "drop" else "values"
        )
        raise TableError(
            f"No row of {layout.path} is left with a class and {condition}."
        )
    if len(labels_seen) < 2:
        raise TableError(
            f"{layout.path}: the column {shown(layout.name(layout.target))} holds one "
            f"class only ({', '.join(labels_seen)}) in the usable rows: separability "
            "compares two classes or more."
        )
    _refuse_a_continuous_target(labels_seen, layout)
    return _class_codes(labels_seen, positive)


def _missing_message(layout, missing):
    names = layout.feature_names + [layout.name(layout.target)]
    counted = ", ".join(
        f"{escaped(name)}: {count}"
        for name, count in zip(names, missing, strict=True)
        if count
    )
    return (
        f"{layout.path} has {int(missing.sum())} missing cell(s) ({counted}). Choose "
        "what to do with --missing drop (leave out their rows) or --missing mean "
        "(fill a feature with its column mean; rows without a class are left out)."
    )


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
            f"{layout.path}: the column {shown(layout.name(layout.target))} holds "
            f"{len(labels_seen)} distinct values"
            + (", some with fractions" if fractional else "")
            + ": it looks continuous (a regression target?). The report compares "
            "classes; give the class column with --target."
        )


def class_counts(labels_seen, class_of):
    """The usable rows of each class, from those of each label (``--positive``
    makes several labels one class)."""
    counts = np.zeros(max(class_of.values()) + 1, dtype=np.int64)
    for label, count in labels_seen.items():
        counts[class_of[label]] += count
    return counts


def _class_codes(labels_seen, positive):
    """``(names, code of each label)``: sorted labels, or ``[rest, positive]``."""
    labels = sorted(labels_seen, key=_label_order)
    if positive is None:
        return labels, {label: k for k, label in enumerate(labels)}
    positive = canonical_label(positive)
    if positive not in labels_seen:
        raise TableError(
            f"--positive {positive!r} is not a class; the classes are: "
            f"{', '.join(labels)}.{did_you_mean(positive, labels)}"
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


def case_note(class_names):
    """The note on classes whose labels differ only in case (``No`` and ``no``),
    which the report keeps apart (found by review: a yes/no column written both
    ways was four classes, said nowhere); None where there are none."""
    groups = {}
    for name in class_names:
        groups.setdefault(name.casefold(), []).append(name)
    twins = [" and ".join(map(repr, names)) for names in groups.values()
             if len(names) > 1]  # fmt: skip
    if not twins:
        return None
    return (f"classes {'; '.join(twins)} differ only in case: they are reported "
            "apart (recode the column where they are one)")  # fmt: skip


def canonical_label(text):
    """A class label as read: stripped, and a number written in its shortest form
    (``1``, ``1.0`` and ``01`` are one class). Integers keep every digit (two ids
    beyond 2**53 are two classes), and ``1_000`` is text, not 1000 (found by
    review: float() took both)."""
    text = str(text).strip()
    if "_" in text:
        return text
    try:
        value = float(text)
    except ValueError:
        return text
    if not np.isfinite(value):
        return text
    if not value.is_integer():
        return repr(value)
    exact = Decimal(text)
    return str(int(exact) if exact == exact.to_integral_value() else int(value))


def label_codes(column):
    """``(codes, names)``: each row's index into ``names`` (the block's distinct
    labels, canonical), -1 where the label is missing. Distinct values are
    canonicalised once each, not once per row."""
    encoded = as_text(column).dictionary_encode()
    distinct = encoded.dictionary.to_pylist()
    names, lookup = [], {}
    mapping = np.empty(len(distinct) + 1, dtype=np.intp)
    mapping[-1] = -1  # null
    for k, text in enumerate(distinct):
        if is_missing(text):
            mapping[k] = -1
            continue
        label = canonical_label(text)
        mapping[k] = lookup.setdefault(label, len(names))
        if mapping[k] == len(names):
            names.append(label)
    indices = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    return mapping[indices], names


def usable_rows(values, codes, missing):
    """Rows that count under the missing-value policy: a class, and with "drop"
    no missing cell."""
    usable = codes >= 0
    if missing == "drop":
        usable &= ~np.isnan(values).any(axis=1)
    return usable
