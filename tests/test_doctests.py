"""The ``>>>`` examples in the docstrings of the public APIs run and print what they say.

Examples that need a model endpoint or minutes carry ``# doctest: +SKIP``."""

import doctest
import importlib
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(str(resources.files("icml25")))
MODULES = sorted(
    ".".join(("icml25", *path.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__")
    for path in ROOT.rglob("*.py")
    if ">>>" in path.read_text(encoding="utf-8")
)


def test_the_examples_are_found():
    assert len(MODULES) > 30


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=flags)
    tests = [t for t in finder.find(module, name) if t.examples]
    assert tests, f"{name} has '>>>' but no example doctest finds"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed"
