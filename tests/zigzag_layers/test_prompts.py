import numpy as np
import pytest

from icml25.zigzag_layers import FAMILIES, build_prompts


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
