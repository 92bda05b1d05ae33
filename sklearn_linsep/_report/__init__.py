"""``linsep report``: read a table (:mod:`._read`, :mod:`._source`,
:mod:`._columns`), compute the report's sections, lay them out as text or JSON,
draw the plot; :mod:`sklearn_linsep.cli` parses the command line and calls
:func:`._command.report_command`."""
