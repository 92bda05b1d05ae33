"""Plain-text layout shared by the report's sections: aligned columns, numbers,
wrapped lists."""

# More classes than this: the pairwise tables give way to lists of the pairs,
# least separable first (ten classes made tables ~170 characters wide).
COMPACT_ABOVE = 6
LISTED_PAIRS = 10
# A certificate's entries shown in text, the heaviest; --json keeps every one.
CERTIFICATE_SHOWN = 12


def columns(headers, rows, indent="  "):
    """Rows of cells as aligned text: the first column to the left, numbers
    (the others) to the right."""
    cells = [headers] + [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[j]) for row in cells) for j in range(len(headers))]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])]
        parts += [
            cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append(indent + "   ".join(parts).rstrip())
    return lines


def number(value, digits=4):
    """A figure as text: ``n/a`` for None, 3 significant digits when very small
    or large, else ``digits`` decimals."""
    if value is None:
        return "n/a"
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e6):
        return f"{value:.3g}"
    return f"{value:.{digits}f}"


def count(value):
    """``300 000``: a count of rows with thin groups."""
    return f"{int(value):,}".replace(",", " ")


def wrapped(items, indent="    ", width=88):
    """Items joined by ``, ``, in lines of at most ``width`` characters, the first
    after ``indent`` and the others aligned under it."""
    lines, line, start = [], indent, indent
    for item in items:
        if len(line) > len(start) and len(line) + len(item) + 2 > width:
            lines.append(line.rstrip())
            start = line = " " * len(indent)
        line += item + ", "
    if len(line) > len(start):
        lines.append(line.rstrip().rstrip(","))
    return lines


def certificate_lines(header, entries, classes):
    """A certificate's entries under ``header``, by the rows' class: each row as
    the data name it, the other class of its pair where it has one (K classes)
    and its weight to 3 significant digits. Past :data:`CERTIFICATE_SHOWN`
    entries, the heaviest are shown and the rest counted."""
    shown = sorted(range(len(entries)), key=lambda j: -entries[j]["weight"])
    shown = sorted(shown[:CERTIFICATE_SHOWN])
    lines = [header]
    for name in classes:
        items = [_certificate_item(entries[j]) for j in shown
                 if entries[j]["class"] == name]  # fmt: skip
        if items:
            lines += wrapped(items, indent=f"    {name}: ")
    if len(entries) > len(shown):
        unit = "pairs" if "other_class" in entries[0] else "rows"
        lines.append(f"    and {len(entries) - len(shown)} more {unit} of smaller "
                     "weight (--json lists them all)")  # fmt: skip
    return lines


def _certificate_item(entry):
    other = f"vs {entry['other_class']}, " if "other_class" in entry else ""
    return f"{entry['row']} ({other}{entry['weight']:.3g})"


def pair_name(pair):
    """``a vs b`` of a verdict or any dict with ``classes``."""
    first, second = pair["classes"]
    return f"{first} vs {second}"


def plain(value):
    """A value as JSON and dict keys take it: numpy scalars (no ``int``, no
    ``str`` to ``json``) as Python's."""
    return value.item() if hasattr(value, "item") else value


def escaped(name):
    """A column name as it can be read in a message: control characters (a NUL,
    a tab) escaped, so that two names that print alike can be told apart."""
    text = str(name)
    return text if text.isprintable() else text.encode("unicode_escape").decode()


def probability(value):
    """A probability as text, ``< 1e-300`` where it underflows."""
    return "< 1e-300" if value == 0.0 else number(value)


def of_rows(shown, total):
    """``5 000 of 300 000 rows`` where a figure covers part of the rows, else
    ``300 000 rows``."""
    if shown >= total:
        return f"{count(total)} rows"
    return f"{count(shown)} of {count(total)} rows"
