import pytest

pytest.importorskip("dionysus")
pytest.importorskip("gudhi")
pytest.importorskip("sklearn")
