"""The one error of reading a table (:class:`TableError`): a module of its own,
so that every module that reads (:mod:`._source`, :mod:`._copies`,
:mod:`._columns`, :mod:`._labels`, :mod:`._read`) can raise it without
importing another."""


class TableError(ValueError):
    """A problem with the input table, said in one line for the command line."""
