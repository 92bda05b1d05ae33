"""The report as aligned terminal text: the headline, the data, each section,
what failed, and (with ``explain``) how to read it."""

from ._headline import headline_lines
from ._layout import columns, count
from .sections import SECTIONS


def format_report(report, title=None, explain=True):
    """The report dict as plain text (one string)."""
    title = title or report.get("source") or "data"
    lines = headline_lines(report, title) + [""] + _data_lines(report)
    for section in SECTIONS:
        if section.key in report:
            lines += [""] + section.lines(report)
    if report.get("errors"):
        lines += ["", "Not available:"] + _error_lines(report["errors"])
    if explain:
        lines += ["", "How to read this:"]
        for section in SECTIONS:
            if section.key in report:
                lines += section.help_lines(report)
    return "\n".join(lines) + "\n"


def _data_lines(report):
    data = report["data"]
    lines = [f"Data: {count(data['n_samples'])} rows, {data['n_features']} features"]
    lines += columns(
        ["class", "count"],
        [[name, n] for name, n in zip(data["classes"], data["counts"], strict=True)],
    )
    for note in report.get("notes", []):
        lines.append(f"  note: {note}")
    lines.append(f"  rows are named by {data['rows_named_by']}")
    if report["settings"]["standardize"]:
        lines.append("  the angle on features standardized to unit variance")
    return lines


def _error_lines(errors):
    lines = []
    for key, reason in errors.items():
        if isinstance(reason, dict):
            lines += [f"  {key} {part}: {text}" for part, text in reason.items()]
        else:
            lines.append(f"  {key}: {reason}")
    return lines
