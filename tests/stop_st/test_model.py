"""STOP's networks: shapes, centralised messaging (no node-to-node messages), perturbation."""

import pytest
import torch

from icml25.stop_st import (
    GCN,
    STOP,
    BackboneForecaster,
    ContextUnits,
    MessagePerturbation,
    ModelConfig,
    SeriesDecomp,
    normalized_adjacency,
    robust_loss,
)

CFG = ModelConfig(input_len=8, horizon=4, steps_per_day=6, model_dim=8, tod_dim=4, hid_dim=16)


def _inputs(B=3, N=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(B, CFG.input_len, N, generator=g)
    tod = torch.randint(0, CFG.steps_per_day, (B,), generator=g)
    adj = torch.rand(N, N, generator=g)
    return x, tod, (adj + adj.T) / 2 * (1 - torch.eye(N))


@pytest.mark.parametrize("cls", [STOP, GCN, BackboneForecaster])
def test_every_model_maps_windows_to_forecasts_on_any_node_count(cls):
    torch.manual_seed(0)
    model = cls(CFG).eval()
    for N in (5, 11):
        x, tod, adj = _inputs(N=N)
        assert model(x, tod, adjacency=adj).shape == (3, CFG.horizon, N)


def test_series_decomposition_adds_up_and_keeps_constants_in_the_trend():
    x = torch.randn(2, 9, 3)
    seasonal, trend = SeriesDecomp(3)(x)
    torch.testing.assert_close(seasonal + trend, x)
    const = torch.full((1, 9, 2), 4.0)
    torch.testing.assert_close(SeriesDecomp(5)(const)[1], const)
    with pytest.raises(ValueError, match="kernel_size"):
        SeriesDecomp(4)


def test_context_units_equal_an_explicit_loop_over_cores():
    torch.manual_seed(1)
    cau = ContextUnits(dim=12, cores=3, heads=2, dropout=0.0).eval()
    z = torch.randn(2, 5, 12)
    a = cau.affinity(z)  # (B, h, C, N)
    v = z.view(2, 5, 2, 6)
    back = torch.zeros(2, 5, 2, 6)
    for h in range(2):
        for k in range(3):
            w_in = torch.softmax(a[:, h, k], -1)  # (B, N): node -> core k
            core = (w_in[..., None] * v[:, :, h]).sum(1)  # (B, d)
            w_out = torch.softmax(a[:, h], -2)[:, k]  # (B, N): core k -> node
            back[:, :, h] += w_out[..., None] * core[:, None]
    back = back.reshape(2, 5, 12)
    expected = cau.norm((cau.ffn(torch.cat([z - back, back], -1)) + z).reshape(10, 12))
    torch.testing.assert_close(cau(z), expected.view(2, 5, 12))


def test_the_official_reshape_mixes_heads_across_samples_and_ours_does_not():
    torch.manual_seed(2)
    ours = ContextUnits(dim=12, cores=3, heads=2, dropout=0.0).eval()
    mixed = ContextUnits(dim=12, cores=3, heads=2, dropout=0.0, mix_heads_across_batch=True)
    mixed.load_state_dict(ours.state_dict())
    mixed.eval()
    z = torch.randn(2, 5, 12)
    # one sample alone: the two reshapes read the same numbers
    torch.testing.assert_close(mixed(z[:1]), ours(z[:1]))
    # two samples: changing sample 1 changes sample 0's output only with the official reshape
    other = z.clone()
    other[1] += 1.0
    torch.testing.assert_close(ours(other)[0], ours(z)[0])
    assert not torch.allclose(mixed(other)[0], mixed(z)[0])


def test_stop_has_no_node_to_node_messages_only_through_the_cores():
    """Node j's input reaches node i's forecast only through the cores: the Jacobian of node i's
    forecast with respect to node j's window equals the path through the core summaries, and
    with one core whose node-to-core weight for j is cut (perturbation) it is exactly zero."""
    torch.manual_seed(2)
    model = STOP(CFG).eval()
    x, tod, _ = _inputs(B=1, N=6)

    def forecast_of_node0(xj):
        xx = x.clone()
        xx[0, :, 3] = xj
        return model(xx, tod)[0, :, 0]

    jac = torch.autograd.functional.jacobian(forecast_of_node0, x[0, :, 3])
    assert jac.abs().max() > 0  # coupled, through the cores
    drop = torch.zeros(1, 6, dtype=torch.bool)
    drop[0, 3] = True  # node 3 sends nothing to the cores

    def forecast_dropped(xj):
        xx = x.clone()
        xx[0, :, 3] = xj
        return model(xx, tod, drop=drop)[0, 0, :, 0]

    jac_cut = torch.autograd.functional.jacobian(forecast_dropped, x[0, :, 3])
    torch.testing.assert_close(jac_cut, torch.zeros_like(jac_cut))


def test_stop_is_permutation_equivariant_so_there_is_no_node_identity():
    torch.manual_seed(3)
    model = STOP(CFG).eval()
    x, tod, _ = _inputs(N=7)
    perm = torch.randperm(7)
    torch.testing.assert_close(model(x[..., perm], tod), model(x, tod)[..., perm])


def test_backbone_forecasts_each_node_alone_and_gcn_mixes_only_along_edges():
    torch.manual_seed(4)
    x, tod, adj = _inputs(B=1, N=4)
    backbone = BackboneForecaster(CFG).eval()
    x2 = x.clone()
    x2[0, :, 1] += 5.0
    torch.testing.assert_close(backbone(x2, tod)[..., 0], backbone(x, tod)[..., 0])
    gcn = GCN(CFG).eval()
    cut = adj.clone()
    cut[0, :] = cut[:, 0] = 0.0  # node 0 isolated
    torch.testing.assert_close(
        gcn(x2, tod, adjacency=cut)[..., 0], gcn(x, tod, adjacency=cut)[..., 0]
    )
    assert not torch.allclose(
        gcn(x2, tod, adjacency=adj)[..., 0], gcn(x, tod, adjacency=adj)[..., 0]
    )
    with pytest.raises(ValueError, match="adjacency"):
        gcn(x, tod)


def test_normalized_adjacency_is_symmetric_with_unit_spectral_radius():
    adj = torch.tensor([[0.0, 1.0, 0.5], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
    a = normalized_adjacency(adj)
    torch.testing.assert_close(a, a.T)
    assert abs(torch.linalg.eigvalsh(a).abs().max().item() - 1.0) < 1e-6


def test_environments_run_the_backbone_once_and_match_single_runs():
    torch.manual_seed(5)
    model = STOP(CFG).eval()
    x, tod, _ = _inputs(B=2, N=6)
    drop = torch.rand(3, 6, generator=torch.Generator().manual_seed(0)) < 0.3
    out = model(x, tod, drop=drop)  # (K, B, H, N)
    assert out.shape == (3, 2, CFG.horizon, 6)
    for k in range(3):
        single = model(x, tod, drop=drop[k : k + 1])[0]
        torch.testing.assert_close(out[k], single)
    torch.testing.assert_close(model(x, tod, drop=torch.zeros(1, 6, dtype=bool))[0], model(x, tod))


def test_robust_loss_is_mean_plus_beta_variance():
    losses = torch.tensor([1.0, 2.0, 4.0])
    var, mean = torch.var_mean(losses)
    torch.testing.assert_close(robust_loss(losses, 0.5), mean + 0.5 * var)
    torch.testing.assert_close(robust_loss(losses[:1], 0.5), losses[0])


def test_perturbation_drops_at_the_rate_and_the_adversary_seeks_hard_nodes():
    masks = MessagePerturbation(200, 0.2, adversarial=True)
    drop = masks.sample(50, torch.Generator().manual_seed(0))
    assert abs(drop.float().mean().item() - 0.2) < 0.02
    assert not drop.all(1).any()
    # a node whose drop raises the loss: REINFORCE raises its drop probability
    opt = torch.optim.Adam([masks.phi], lr=0.1)
    gen = torch.Generator().manual_seed(1)
    for _ in range(100):
        d = masks.sample(8, gen)
        losses = 1.0 + d[:, 0].float()
        opt.zero_grad()
        masks.adversary_loss(d, losses, penalty=10.0).backward()
        opt.step()
    p = torch.sigmoid(masks.phi.detach())
    assert p[0] > 0.9 and p[0] == p.max()
    assert abs(p[1:].median().item() - 0.2) < 0.05
    with pytest.raises(ValueError, match="drop_rate"):
        MessagePerturbation(5, 1.5, adversarial=False)


def test_cost_of_context_units_is_linear_in_nodes():
    """Training STOP saves no (N, N) tensor: the largest tensor autograd keeps for the backward
    grows in proportion to N (the core attention holds (B, heads, cores, N) affinities)."""
    torch.manual_seed(0)
    model = STOP(CFG).train()
    largest = {}
    for N in (200, 2000):
        x, tod, _ = _inputs(B=1, N=N)
        sizes = []
        with torch.autograd.graph.saved_tensors_hooks(
            lambda t, sizes=sizes: sizes.append(t.numel()) or t, lambda t: t
        ):
            model(x, tod).sum().backward()
        largest[N] = max(sizes)
    assert largest[2000] <= 10 * largest[200] * 1.01  # linear; an (N, N) tensor would be 100x


def test_transductive_gcn_of_the_explanation_gives_new_nodes_the_mean_embedding():
    from icml25.stop_st.explain import TransductiveGCN

    torch.manual_seed(6)
    model = TransductiveGCN(CFG, n_train=4).eval()
    x, tod, _ = _inputs(B=1, N=3)
    model.index = torch.tensor([2, 0, -1])
    out = model(x, tod, adjacency=torch.zeros(3, 3))  # A_hat = I: no mixing
    emb = torch.stack([model.node_emb[2], model.node_emb[0], model.node_emb.mean(0)])
    h = model.embed(x, tod) + emb
    for layer in model.layers:
        h = h + layer.fc(h)
    torch.testing.assert_close(out, model.regression(h).transpose(1, 2))
