"""The task prior's feature kinds and class cuts, as the official ``discretize``."""

import torch

from icml25.apt_tabular.prior import (
    CATEGORICAL,
    INTEGER,
    NUMERIC,
    DataMaker,
    gaussian_cut_levels,
    synthetic_task,
)


def _makers(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [DataMaker(g) for _ in range(n)], g


def test_integer_and_categorical_columns_take_their_levels():
    makers, g = _makers(200)
    seen = {INTEGER: 0, CATEGORICAL: 0}
    for m in makers:
        x, _ = m.sample(200, g)
        for j, kind in enumerate(m.column_kinds.tolist()):
            if kind == NUMERIC:
                continue
            seen[kind] += 1
            values = x[:, j].detach()
            assert torch.equal(values, values.round())
            assert values.min() >= 0 and values.max() < int(m.column_levels[j])
    assert seen[INTEGER] > 0 and seen[CATEGORICAL] > 0
    share = sum(seen.values()) / sum(m.n_features for m in makers)
    assert 0.01 < share < 0.2  # at most 10% + 20% of a maker's columns, each kind at p = 0.65


def test_gaussian_cuts_count_the_thresholds_exceeded():
    values = torch.tensor([[-2.0], [0.0], [2.0]])  # mean 0, std 2
    cuts = torch.tensor([[-0.5, 0.5, float("inf")]])  # thresholds -1, 1, none
    assert gaussian_cut_levels(values, cuts)[:, 0].tolist() == [0, 1, 2]


def test_prior_classes_are_imbalanced_and_held_out_tasks_balanced():
    makers, g = _makers(100, seed=1)
    top = []
    for m in makers:
        _, y = m.sample(400, g)
        top.append(torch.bincount(y, minlength=m.n_classes).max().item() / 400 * m.n_classes)
    assert sum(top) / len(top) > 1.5  # the largest class is on average > 1.5x its balanced share
    _, y = synthetic_task(seed=3, n_classes=8, n_rows=400)
    assert torch.bincount(y).tolist() == [50] * 8


def test_a_discretised_column_passes_a_hundredth_of_the_gradient():
    makers, g = _makers(300, seed=2)
    m = next(m for m in makers if bool((m.column_kinds != NUMERIC).any()))
    j = int(torch.nonzero(m.column_kinds != NUMERIC)[0])
    x, _ = m.sample(50, g)
    x[:, j].sum().backward()
    grads = [p.grad for p in m.parameters() if p.grad is not None]
    assert grads and any(float(gr.abs().sum()) > 0 for gr in grads)
