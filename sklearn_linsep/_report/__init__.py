"""``linsep report``: read a table (:mod:`._read`, with :mod:`._source` for the
file and :mod:`._columns` for its columns), compute the report's sections
(:mod:`.sections`, on :class:`._context.ReportData`), lay them out as text
(:mod:`._headline`, :mod:`._text`) or JSON, draw the figure (:mod:`._plot`).
:mod:`sklearn_linsep.cli` parses the command line and calls
:func:`._command.report_command`."""

from ._compute import separability_report
from ._text import format_report

__all__ = ["format_report", "separability_report"]
