"""A section of the report: one object with a key (its JSON key, and the key of
its errors), a compute step, its lines of text, its part of the headline and its
help.

To add a section: a module in ``sections/`` with a :class:`Section` subclass, and
its registration in ``sections/__init__.py``'s ``SECTIONS``. Nothing else: the
JSON, the text, the headline (:meth:`Section.headline`) and "How to read this"
take every registered section.
"""

import textwrap
from dataclasses import dataclass

HELP_WIDTH = 80


@dataclass(frozen=True)
class HeadlineParts:
    """What one section says in the report's first lines (:mod:`._headline`),
    each part optional. The texts have no final period: the line has one.

    Attributes
    ----------
    verdict : str
        A clause of the "Verdict:" line; the sections' clauses are joined by
        ``"; "`` in the order of ``SECTIONS`` (the joint verdict leads the
        pairs').
    how_well : str
        A "How well:" line; of all the sections', the one of the highest
        ``precedence`` is said (the first of them, in the order of ``SECTIONS``).
    precedence : int
        Where a figure makes another moot: Cover's probability near 1 (2) says
        more than the distance between the means (1).
    estimate : bool
        ``how_well`` is an idealised figure, which the ``measured`` ones follow.
    measured : str
        A measured figure, said after ``how_well`` where that is an estimate.
    next_steps : tuple of str
        Steps of the "Next:" line, in the order of ``SECTIONS``.
    """

    verdict: str = ""
    how_well: str = ""
    precedence: int = 0
    estimate: bool = False
    measured: str = ""
    next_steps: tuple = ()


class Section:
    """Subclasses set ``key``, ``title``, ``help`` (the entries of "How to read
    this": ``(word, text)`` pairs) and define :meth:`compute` and
    :meth:`section_lines` (and :meth:`heading` where the title depends on the
    report, :meth:`headline` where the section says something in the report's
    first lines)."""

    key = None
    title = None
    help = ()

    def applies(self, data):
        """Whether the section is part of this report (e.g. cross-validation
        only with ``cv``)."""
        return True

    def compute(self, data, errors):
        """Plain values (JSON as it is) from :class:`~._context.ReportData`;
        a part that fails is said under ``errors`` with :meth:`guarded`."""
        raise NotImplementedError

    def heading(self, report):
        """The section's first line."""
        return self.title

    def lines(self, report):
        """The section as text lines, from the report dict alone: its own, or
        its heading and why it is missing."""
        if report.get(self.key) is None:
            return [self.heading(report), "  " + self.error(report)]
        return self.section_lines(report)

    def section_lines(self, report):
        """The lines of a section that was computed."""
        raise NotImplementedError

    def headline(self, report):
        """What the section says in the report's first lines, from the report
        dict alone: nothing by default. Asked of every registered section,
        whether the report holds it or not (one left out, or failed, may still
        say what to do next, as cross-validation's ``--cv``)."""
        return HeadlineParts()

    def help_entries(self, report):
        """The entries of "How to read this" this report needs."""
        return list(self.help)

    def help_lines(self, report):
        """:meth:`help_entries` as text: the word, then its text wrapped under
        it."""
        lines = []
        for word, text in self.help_entries(report):
            lines += textwrap.wrap(
                text,
                HELP_WIDTH,
                initial_indent=f"  {word:<10}",
                subsequent_indent=" " * 12,
                break_on_hyphens=False,
            )
        return lines

    def run(self, data, errors):
        """:meth:`compute`, or None with the reason under ``errors[key]``: a
        section that fails never costs the others."""
        return self.guarded(errors, lambda: self.compute(data, errors))

    def guarded(self, errors, compute, part=None, failed=None):
        """``compute()``, or ``failed`` with the reason under ``errors[key]``
        (``errors[key][part]`` for a part of the section: a pair, a model)."""
        try:
            return compute()
        except Exception as error:  # noqa: BLE001 - any failure, said in the report
            reason = f"{type(error).__name__}: {error}"
            if part is None:
                errors[self.key] = reason
            else:
                errors.setdefault(self.key, {})[part] = reason
            return failed

    @classmethod
    def error(cls, report, part=None, width=60):
        """``not available: <reason>`` of the section (or of one part), cut to
        ``width`` characters; the whole reason is under "Not available"."""
        reason = report["errors"].get(cls.key, "failed")
        if isinstance(reason, dict):
            reason = reason.get(part, "failed")
        if len(reason) > width:
            reason = reason[: width - 3].rstrip() + "..."
        return f"not available: {reason}"
