"""The 1F1B cost model on hand-computed schedules and its data-parallel step."""

import numpy as np
import pytest

from icml25.omnibal import data_parallel_steps, one_f_one_b


def test_two_stages_four_micro_batches_by_hand():
    # f = 1, b = 2 on both stages: stage 1 runs F0 B0 F1 B1 ..., stage 0 F0 F1 B0 F2 B1 F3 B2 B3;
    # stage 0's last backward B3 runs [13, 15]: (M + P - 1)(f + b) = 5 * 3
    assert one_f_one_b([1, 1], [2, 2], 4).time == 15
    # f = (1, 2), b = (2, 4): stage 1 F0 [1, 3] B0 [3, 7] F1 [7, 9] B1 [9, 13] F2 [13, 15]
    # B2 [15, 19] F3 [19, 21] B3 [21, 25]; stage 0 B0 [7, 9] B1 [13, 15] B2 [19, 21] B3 [25, 27]
    s = one_f_one_b([1, 2], [2, 4], 4)
    assert s.time == 27
    ops = {(int(p), int(k), int(m)): (a, b) for p, k, m, a, b in s.ops}
    assert ops[(1, 0, 2)] == (13, 15) and ops[(0, 1, 3)] == (25, 27)


@pytest.mark.parametrize("P, M", [(1, 3), (2, 1), (3, 8), (4, 8), (4, 2)])
def test_equal_stages_follow_the_closed_form(P, M):
    s = one_f_one_b(np.full(P, 1.5), np.full(P, 3.0), M)
    assert s.time == pytest.approx((M + P - 1) * 4.5)
    assert s.bubble_fraction() == pytest.approx((P - 1) / (M + P - 1))


def test_ops_respect_dependencies_and_stages_never_overlap():
    rng = np.random.default_rng(0)
    s = one_f_one_b(rng.uniform(1, 3, 4), rng.uniform(2, 6, 4), 6, p2p=0.3)
    ops = {(int(p), int(k), int(m)): (a, b) for p, k, m, a, b in s.ops}
    for (p, k, m), (start, _) in ops.items():
        if k == 0 and p > 0:
            assert start >= ops[(p - 1, 0, m)][1] + 0.3 - 1e-12
        if k == 1 and p < 3:
            assert start >= ops[(p + 1, 1, m)][1] + 0.3 - 1e-12
    for p in range(4):
        spans = sorted(v for key, v in ops.items() if key[0] == p)
        assert all(a[1] <= b[0] + 1e-12 for a, b in zip(spans, spans[1:], strict=False))


def test_data_parallel_step_is_the_slowest_rank():
    out = data_parallel_steps([[1.0, 3.0], [2.0, 2.0]], allreduce=0.5)
    np.testing.assert_allclose(out["step_time"], [3.5, 2.5])
    np.testing.assert_allclose(out["idle"], [[2.0, 0.0], [0.0, 0.0]])


def test_bad_inputs():
    with pytest.raises(ValueError, match="forward and backward"):
        one_f_one_b([1, 2], [1], 4)
    with pytest.raises(ValueError, match="n_micro"):
        one_f_one_b([1], [1], 0)
    with pytest.raises(ValueError, match="compute"):
        data_parallel_steps([1.0, 2.0])
