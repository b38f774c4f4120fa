"""Optional dependencies: a missing module's ImportError names the extra that installs it."""

import pytest

from icml25.common.optional import require


def test_require_imports_an_installed_module():
    assert require("math", "dev").sqrt(4.0) == 2.0


def test_a_missing_module_names_its_extra():
    with pytest.raises(ImportError, match=r"icml25\[topology\]"):
        require("no_such_module_for_icml25", "topology")
