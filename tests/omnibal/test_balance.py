"""ISF grouping: every sample placed once, budgets held, the vectorised fill equal to the
sample-by-sample greedy fill, the metrics on hand-computed cases, bad input."""

import numpy as np
import pytest

from icml25.omnibal import (
    balance_metrics,
    first_fit_decreasing,
    full_groups,
    greedy_fill,
    group_loads,
    isf,
    random_batches,
    search_arguments,
    step_imbalance,
    synthetic_lengths,
)


def _loop_fill(v, t, vit_max, llm_max):
    """The official fill, one sample at a time: group starts."""
    starts, sv, st = [0], 0, 0
    for i, (a, b) in enumerate(zip(v, t, strict=True)):
        if sv + a > vit_max or st + b > llm_max:
            starts.append(i)
            sv, st = 0, 0
        sv, st = sv + a, st + b
    return np.array(starts)


@pytest.mark.parametrize("seed", range(5))
def test_vectorised_fill_equals_the_sample_by_sample_fill(seed):
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 6, 300)
    t = rng.integers(1, 900, 300)
    np.testing.assert_array_equal(greedy_fill(v, t, 12, 2000), _loop_fill(v, t, 12, 2000))


@pytest.mark.parametrize("n, iterations", [(1, 5), (7, 1), (2000, 10), (20000, 50)])
def test_every_sample_placed_exactly_once_and_budgets_hold(n, iterations):
    v, t = synthetic_lengths(n, np.random.default_rng(n))
    b = isf(v, t, 13, 4416, iterations=iterations, n_ranks=8, seed=1)
    np.testing.assert_array_equal(np.sort(b.members), np.arange(n))
    vis, used, computed = group_loads(b, v, t)
    assert vis.max() <= 13 and used.max() <= 4416
    np.testing.assert_array_equal(used, computed)  # packed: no padding
    groups = b.steps[b.steps >= 0]
    np.testing.assert_array_equal(np.sort(groups), np.arange(b.n_groups))  # each group one step
    assert (b.steps[:-1] >= 0).all()  # only the last step may have an idle rank


def test_one_iteration_is_one_greedy_fill_of_the_shuffled_samples():
    v, t = synthetic_lengths(500, np.random.default_rng(0))
    b = isf(v, t, 13, 4416, iterations=1, seed=3)
    order = np.random.default_rng(3).permutation(500)
    np.testing.assert_array_equal(b.members, order)
    np.testing.assert_array_equal(b.offsets[:-1], greedy_fill(v[order], t[order], 13, 4416))


def test_keep_rule_is_the_official_equality_on_images():
    # official iter_random_groups: vit_num == vit_thresh or llm_num >= llm_thresh
    vis, tok = np.array([3, 2, 1, 1]), np.array([0, 0, 0, 10])
    np.testing.assert_array_equal(full_groups(vis, tok, 2, 10), [False, True, False, True])
    # a ">=" reading would keep the group of 3 images too: the two differ below vit_max only
    assert not full_groups(3, 0, 2, 10)
    # at vit_thresh = vit_max (the default) they agree: no group holds more than vit_max
    np.testing.assert_array_equal(full_groups(vis, tok, 3, 10), (vis >= 3) | (tok >= 10))


@pytest.mark.parametrize("seed", range(3))
def test_isf_fills_again_a_group_with_more_images_than_vit_thresh(seed):
    # 7 samples of 1 image and 1 token, V_max = 3: the first fill gives groups of 3, 3 and 1
    # images. With vit_thresh = 2 none is kept (3 != 2, tokens far below llm_thresh), so the
    # second and last fill starts from a new shuffle of all 7; with vit_thresh = V_max = 3 the
    # two groups of 3 are kept from the first shuffle and only the last sample is filled again.
    ones = np.ones(7, int)
    rng = np.random.default_rng(seed)
    first = rng.permutation(7)
    second = rng.permutation(first)
    below = isf(ones, ones, 3, 100, vit_thresh=2, llm_thresh=100, iterations=2, seed=seed)
    np.testing.assert_array_equal(below.members, second)
    at_max = isf(ones, ones, 3, 100, vit_thresh=3, llm_thresh=100, iterations=2, seed=seed)
    np.testing.assert_array_equal(at_max.members, first)
    for b in (below, at_max):
        np.testing.assert_array_equal(np.sort(np.diff(b.offsets)), [1, 3, 3])


def test_random_batches_and_ffd_place_every_sample_once():
    v, t = synthetic_lengths(1001, np.random.default_rng(1))
    r = random_batches(1001, 4, 8, seed=0)
    np.testing.assert_array_equal(np.sort(r.members), np.arange(1001))
    assert np.diff(r.offsets).max() == 4
    f = first_fit_decreasing(v, t, 13, 4416)
    np.testing.assert_array_equal(np.sort(f.members), np.arange(1001))
    vis, used, _ = group_loads(f, v, t)
    assert vis.max() <= 13 and used.max() <= 4416


def test_imbalance_and_pad_ratio_by_hand():
    # two ranks with loads 4 and 2: (0 + 2) / (2 * 4); an idle rank counts as load 0
    np.testing.assert_allclose(step_imbalance(np.array([4, 2]), np.array([[0, 1], [1, -1]])),
                               [0.25, 0.5])  # fmt: skip
    # one padded batch of texts 3 and 1 tokens: padding 2 of 6 computed tokens
    r = random_batches(2, 2, 1, seed=0)
    m = balance_metrics(r, np.array([0, 0]), np.array([3, 1]))
    assert m["pad_ratio"] == pytest.approx(2 / 6)


def test_isf_balances_better_than_random_batches():
    v, t = synthetic_lengths(20000, np.random.default_rng(0))
    ours = balance_metrics(isf(v, t, 13, 4416, iterations=50), v, t, llm_max=4416)
    rand = balance_metrics(random_batches(20000, 4, 8), v, t)
    assert ours["vision_imbalance"] < rand["vision_imbalance"] / 3
    assert ours["language_imbalance"] < rand["language_imbalance"] / 3


def test_search_keeps_the_mean_batch_in_the_window():
    v, t = synthetic_lengths(5000, np.random.default_rng(0))
    best, tried = search_arguments(v, t, micro_batch=4, iterations=5)
    assert 4 <= best.mean_batch <= 5
    in_window = [a for a in tried if 4 <= a.mean_batch <= 5]
    assert best.objective == min(a.objective for a in in_window)


def test_bad_inputs_name_the_argument():
    v, t = synthetic_lengths(100, np.random.default_rng(0))
    with pytest.raises(ValueError, match="vit_max"):
        isf(v, t, int(v.max()) - 1, 10**6)
    with pytest.raises(ValueError, match="llm_max"):
        isf(v, t, 100, int(t.max()) - 1)
    with pytest.raises(ValueError, match="same length"):
        isf(v, t[:-1], 100, 10**6)
    with pytest.raises(ValueError, match="vision"):
        isf(v.astype(float), t, 100, 10**6)
    with pytest.raises(ValueError, match="text"):
        isf(v, -t, 100, 10**6)
    with pytest.raises(ValueError, match="iterations"):
        isf(v, t, 100, 10**6, iterations=0)
    with pytest.raises(ValueError, match="micro_batch"):
        random_batches(10, 0)
