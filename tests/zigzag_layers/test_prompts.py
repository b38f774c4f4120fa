import importlib.util
import inspect
import json
import math
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from icml25.zigzag_layers import FAMILIES, build_prompts, prompts


def test_families_are_deterministic_distinct_and_labelled():
    texts, labels = build_prompts(FAMILIES, 50)
    again, _ = build_prompts(FAMILIES, 50)
    assert texts == again
    assert len(set(texts)) == len(texts) == 50 * len(FAMILIES)
    assert np.bincount(labels).tolist() == [50] * len(FAMILIES)
    assert all(len(t) >= 20 for t in texts)


def test_enough_prompts_for_the_larger_runs():
    texts, _ = build_prompts(FAMILIES[:4], 250)  # 1000 prompts, the benchmark's largest
    assert len(set(texts)) == 1000


def test_bad_arguments():
    with pytest.raises(ValueError, match="family"):
        build_prompts(("docstring", "poetry"), 10)
    with pytest.raises(ValueError, match="per_family"):
        build_prompts(("docstring",), 0)
    with pytest.raises(ValueError, match="per_family"):
        build_prompts(("sport",), 10**6)
    with pytest.raises(ValueError, match="families"):
        build_prompts("sport", 10)


def test_paper_scale_has_enough_prompts():
    texts, labels = build_prompts(FAMILIES, 1000)  # --scale paper: sensitivity at 1000
    for f in range(len(FAMILIES)):
        assert len(set(np.array(texts)[labels == f])) == 1000


def _pools():
    return prompts._docstring_candidates(), prompts._code_candidates()


def test_pools_ignore_what_other_libraries_patch_into_the_stdlib(monkeypatch):
    before = _pools()
    assert "Return true if the object is a generator." in before[0]

    def wrapper(obj):  # as `import ray` does to inspect.isgenerator: no docstring
        return False

    def added():
        """A helper some library added to a standard-library module."""

    monkeypatch.setattr(inspect, "isgenerator", wrapper)
    monkeypatch.setattr(textwrap, "added_by_a_library", added, raising=False)
    monkeypatch.delattr(textwrap, "dedent")
    monkeypatch.setattr(math, "sqrt", wrapper)  # a module written in C
    monkeypatch.setattr(math, "added_by_a_library", added, raising=False)
    monkeypatch.setattr(time, "perf_counter", added)  # e.g. a fake clock
    after = _pools()
    assert after == before
    assert "A helper some library added to a standard-library module." not in after[0]
    assert math.sqrt.__doc__ is None  # the live module is still patched; the pool reads none


def test_source_files_and_modules_written_in_c():
    assert prompts._source_path("inspect").endswith("inspect.py")
    assert prompts._source_path("os").endswith("os.py")  # frozen in 3.11+, its source still read
    assert prompts._source_path("os.path").endswith(("posixpath.py", "ntpath.py"))
    assert prompts._source_path("math") is None
    c_lines = {d.split("\n")[0] for d in prompts._c_docstrings("math") if d}
    assert "Return the square root of x." in c_lines
    assert "Return the square root of x." in prompts._docstring_candidates()


_POOL_DIGEST = """
import hashlib, json, sys
if sys.argv[1] == "ray":
    import ray  # noqa: F401  (patches inspect.isgenerator, among others)
import inspect
from icml25.zigzag_layers import FAMILIES, build_prompts, prompts
texts, _ = build_prompts(FAMILIES[:2], 250)
pools = [prompts._docstring_candidates(), prompts._code_candidates(), texts]
digest = hashlib.sha256(json.dumps(pools).encode()).hexdigest()
print(json.dumps([digest, len(pools[0]), inspect.isgenerator.__doc__ is None]))
"""


@pytest.mark.slow
def test_pools_are_the_same_after_import_ray():
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed")
    runs = {}
    for first in ("ray", "nothing"):
        done = subprocess.run(
            [sys.executable, "-c", _POOL_DIGEST, first],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        runs[first] = json.loads(done.stdout.strip().splitlines()[-1])
    assert runs["ray"][:2] == runs["nothing"][:2], runs  # [2]: whether ray patched inspect
