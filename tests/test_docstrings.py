"""numpydoc validation of every public name, as skglm's test_docstring_parameters.

Every name of ``__all__`` has a docstring with a runnable Examples section (run by
``--doctest-modules``) and documents exactly its parameters; every public method and
property of a public class has a docstring that documents exactly its parameters. A
dataclass documents its fields as Attributes.
"""

import dataclasses
import inspect

import pytest
from numpydoc.validate import validate as numpydoc_validate

import sklearn_linsep

# GL08: no docstring; PR01: a parameter not documented; PR02: a documented parameter
# that does not exist; EX01: no Examples section.
TOP_LEVEL = {"GL08", "PR01", "PR02", "EX01"}
MEMBERS = {"GL08", "PR01", "PR02"}


def _public_names():
    for name in sorted(sklearn_linsep.__all__):
        obj = getattr(sklearn_linsep, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue  # an instance (separability_scorer): its class is private
        yield f"sklearn_linsep.{name}", obj, TOP_LEVEL
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for member, value in _own_members(obj):
                if inspect.isfunction(value) or isinstance(
                    value, (property, classmethod, staticmethod)
                ):
                    yield f"sklearn_linsep.{name}.{member}", value, MEMBERS
    # The public module of complexity measures, whose functions stay in it.
    from sklearn_linsep import complexity

    for name in sorted(set(complexity.__all__) - set(sklearn_linsep.__all__)):
        yield f"sklearn_linsep.complexity.{name}", getattr(complexity, name), TOP_LEVEL


def _own_members(klass):
    """The public members a class defines or inherits from this package's own
    classes (scikit-learn's are validated by scikit-learn)."""
    seen = set()
    for base in klass.__mro__:
        if not base.__module__.startswith("sklearn_linsep"):
            continue
        for member, value in vars(base).items():
            if not member.startswith("_") and member not in seen:
                seen.add(member)
                yield member, value


NAMES = list(_public_names())


@pytest.mark.parametrize("path, obj, checked", NAMES, ids=[n[0] for n in NAMES])
def test_docstring_follows_numpydoc(path, obj, checked):
    errors = [
        (code, message)
        for code, message in numpydoc_validate(path)["errors"]
        if code in checked
    ]
    if dataclasses.is_dataclass(obj):
        # Fields are attributes: each is documented (under Attributes or
        # Parameters, alone or in a group such as ``a, b : float``).
        errors = [(code, message) for code, message in errors if code != "PR01"]
        missing = {field.name for field in dataclasses.fields(obj)}
        missing -= _documented_names(inspect.getdoc(obj))
        assert not missing, f"{path}: fields not documented: {sorted(missing)}"
    assert not errors, f"{path}: {errors}"


def _documented_names(docstring):
    """The names of the entries of a docstring's Parameters and Attributes."""
    names = set()
    for line in docstring.splitlines():
        if " : " in line and not line.startswith(" "):
            names.update(name.strip() for name in line.split(" : ")[0].split(","))
    return names
