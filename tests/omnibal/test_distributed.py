"""The gloo data-parallel job with 2 CPU processes on localhost."""

import numpy as np
import pytest

from icml25.omnibal import Layout, VLMConfig, idle_at_allreduce, run_data_parallel

SMALL = VLMConfig(image=32, vit_width=32, vit_layers=1, llm_width=32, llm_layers=1, heads=2)


def test_two_gloo_processes_record_every_step():
    images = np.array([1, 3, 5, 1, 1, 4, 3, 1])
    text = np.array([5, 9, 3, 12, 4, 4, 7, 2])
    heavy = Layout(
        "uneven", [[np.arange(0, 1), np.arange(1, 4)], [np.arange(4, 6), np.arange(6, 8)]], False
    )
    out = run_data_parallel(SMALL, [heavy], images, text, world=2, repeats=2, clock="flops")
    for r in range(2):
        rows = out[f"uneven/{r}"]
        assert rows["t0"].shape == (2, 2)
        assert (rows["t1"] >= rows["t0"]).all() and (rows["t2"] >= rows["t1"]).all()
        idle = idle_at_allreduce(rows["work"])
        assert (idle >= 0).all() and (idle.min(axis=1) == 0).all()
        # rank 0's first mini-batch (1 image) does less work than rank 1's (12 images)
        assert idle[0, 0] > 0
    np.testing.assert_array_equal(out["uneven/0"]["work"], out["uneven/1"]["work"])
    assert out["comm"].shape[1] == 2


def test_bad_inputs():
    lay = Layout("x", [[np.arange(1)]], False)
    with pytest.raises(ValueError, match="world"):
        run_data_parallel(SMALL, [lay], np.ones(1, int), np.ones(1, int), world=1)
    with pytest.raises(ValueError, match="2 mini-batches"):
        run_data_parallel(SMALL, [lay], np.ones(1, int), np.ones(1, int), world=2)
    with pytest.raises(ValueError, match="clock"):
        run_data_parallel(SMALL, [lay], np.ones(1, int), np.ones(1, int), clock="x")
