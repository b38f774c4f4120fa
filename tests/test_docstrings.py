"""Every name a paper's package exports (its ``__all__``) has a numpydoc docstring: a summary,
every parameter documented, and a Returns section for a function that returns; checked by
numpydoc's own validator. The entry point a card names is one of them."""

import importlib

import pytest

from icml25.lab import catalog

validate = pytest.importorskip("numpydoc.validate").validate

# GL08 no docstring, SS01 no summary, PR01 a parameter not documented, PR02 a documented
# parameter the signature lacks, PR06/PR08 a malformed type or description, RT01 no Returns
REQUIRED = ("GL08", "SS01", "PR01", "PR02", "PR06", "PR08", "RT01")


def exported_callables(slug: str) -> dict[str, object]:
    """The callables of the package's ``__all__`` (every public name when it has none)."""
    package = importlib.import_module(f"icml25.{slug}")
    names = getattr(package, "__all__", None) or [n for n in dir(package) if n[0] != "_"]
    return {n: getattr(package, n) for n in names if callable(getattr(package, n))}


def docstring_errors(thing: object) -> list[tuple[str, str]]:
    found = validate(f"{thing.__module__}.{thing.__qualname__}")["errors"]
    return [e for e in found if e[0] in REQUIRED]


@pytest.mark.parametrize("slug", catalog.implemented())
def test_the_entry_point_is_exported(slug):
    assert catalog.card(slug).entry in exported_callables(slug)


@pytest.mark.parametrize("slug", catalog.implemented())
def test_every_exported_name_has_a_numpydoc_docstring(slug):
    problems = {
        name: errors
        for name, thing in exported_callables(slug).items()
        if (errors := docstring_errors(thing))
    }
    assert not problems, problems
