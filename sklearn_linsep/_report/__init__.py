"""``linsep report``: read a table (:mod:`._read`, with :mod:`._source` for the
file and :mod:`._columns` for its columns), compute the report's sections
(:mod:`.sections`, on :class:`._context.ReportData`), lay them out as text
(:mod:`._headline`, :mod:`._text`) or JSON, draw the figure (:mod:`._plot`).
:mod:`sklearn_linsep.cli` parses the command line and calls
:func:`._command.report_command`.

``separability_report`` and ``format_report`` load on first use: reading a file
(:mod:`._source`) needs neither scikit-learn nor the compiled kernels.
"""

from .._compat import lazy_attributes

_MODULE_OF = {"separability_report": "._compute", "format_report": "._text"}

__all__ = sorted(_MODULE_OF)

__getattr__, __dir__ = lazy_attributes(__name__, _MODULE_OF)
