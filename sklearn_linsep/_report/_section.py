"""A section of the report: one object with a key (its JSON key, and the key of
its errors), a compute step, its lines of text and its help.

To add a section: a module in ``sections/`` with a :class:`Section` subclass, and
its registration in ``sections/__init__.py``'s ``SECTIONS``.
"""

import textwrap

HELP_WIDTH = 80


class Section:
    """Subclasses set ``key``, ``title``, ``help`` (the entries of "How to read
    this": ``(word, text)`` pairs) and define :meth:`compute` and
    :meth:`section_lines` (and :meth:`heading` where the title depends on the
    report)."""

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
