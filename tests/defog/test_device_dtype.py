"""A trained DeFoG moves with ``.to(device, dtype)``: RRWP features, the denoiser and the
sampler build every tensor on the input's device and in its dtype."""

import copy

import numpy as np
import pytest
import torch

from icml25.defog import DeFoG, DeFoGConfig, rrwp, tree_graphs


@pytest.fixture(scope="module")
def trained():
    return DeFoG(DeFoGConfig(train_steps=5)).fit(tree_graphs(8, 6, seed=0))


def test_rrwp_keeps_the_adjacencys_dtype_and_values():
    a = (torch.rand(3, 7, 7, generator=torch.Generator().manual_seed(0)) < 0.4).float()
    a = torch.triu(a, 1) + torch.triu(a, 1).transpose(1, 2)  # (3, 7, 7)
    r32, r64 = rrwp(a, 5), rrwp(a.double(), 5)  # (3, 7, 7, 5)
    assert r64.dtype == torch.float64
    np.testing.assert_allclose(r64.numpy(), r32.numpy(), atol=1e-6)


def test_the_denoiser_runs_on_another_device_without_creating_cpu_tensors(trained):
    """On the ``meta`` device any tensor made on the CPU inside ``forward`` is an error."""
    model = copy.deepcopy(trained.model).to("meta")
    B, n, Sx, Se = 2, 6, len(model.p0_x), len(model.p0_e)
    X = torch.zeros(B, n, Sx, device="meta")
    E = torch.zeros(B, n, n, Se, device="meta")
    mask = torch.ones(B, n, dtype=torch.bool, device="meta")
    logits_x, logits_e = model(X, E, torch.zeros(B, device="meta"), mask)
    assert logits_x.device.type == logits_e.device.type == "meta"
    assert logits_e.shape == (B, n, n, len(model.edge_classes))


def test_a_float64_model_samples_in_float64_and_agrees_with_float32(trained):
    wide = copy.deepcopy(trained).to(torch.float64)
    assert all(p.dtype == torch.float64 for p in wide.model.parameters())
    X = torch.nn.functional.one_hot(torch.zeros(2, 6, dtype=torch.long), len(wide.model.p0_x))
    E = torch.nn.functional.one_hot(torch.zeros(2, 6, 6, dtype=torch.long), len(wide.model.p0_e))
    mask, t = torch.ones(2, 6, dtype=torch.bool), torch.full((2,), 0.5)
    with torch.no_grad():
        lx64, _ = wide.model(X.double(), E.double(), t.double(), mask)
        lx32, _ = trained.model(X.float(), E.float(), t, mask)
    assert lx64.dtype == torch.float64
    np.testing.assert_allclose(lx64.numpy(), lx32.numpy(), atol=1e-4)
    graphs = wide.sample(4, steps=5, seed=0)
    assert [g.number_of_nodes() for g in graphs] == [6] * 4
