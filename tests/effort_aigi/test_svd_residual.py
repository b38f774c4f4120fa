"""Effort's SVD residual layer: exact at initialisation, its parameter count, only the residual
trains, any model and input shape, the regularisers, LoRA, bad input."""

import pytest
import torch
from torch import nn

from icml25.effort_aigi import (
    LoRALinear,
    SVDResidualLinear,
    TinyViT,
    apply_effort,
    apply_lora,
    count_trainable,
    effort_layers,
    effort_regularizer,
    select_linears,
)


def linear(n_in, n_out, seed=0):
    torch.manual_seed(seed)
    return nn.Linear(n_in, n_out)


@pytest.mark.parametrize(("n_in", "n_out", "rank"), [(16, 16, 1), (12, 20, 3), (20, 7, 7)])
def test_exact_at_init_and_parameter_count(n_in, n_out, rank):
    lin = linear(n_in, n_out)
    layer = SVDResidualLinear(lin, rank)
    x = torch.randn(5, 3, n_in, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(layer(x), lin(x), atol=1e-5, rtol=0)
    torch.testing.assert_close(layer.weight(), lin.weight.detach(), atol=1e-6, rtol=0)
    residual = sum(p.numel() for p in layer.residual_parameters())
    assert residual == rank * (n_in + n_out + 1)
    # the frozen part is the top n - rank directions: its rank and the residual's singular values
    n = min(n_in, n_out)
    assert torch.linalg.matrix_rank(layer.weight_main, atol=1e-5) == n - rank
    S = torch.linalg.svdvals(lin.weight.detach().double())
    torch.testing.assert_close(layer.S_residual.detach().double(), S[n - rank :], atol=1e-6, rtol=0)


def test_regularisers_vanish_at_init_and_grow_when_broken():
    layer = SVDResidualLinear(linear(10, 6), rank=2)
    assert layer.orthogonality_loss().item() < 1e-5
    assert layer.keep_norm_loss().item() < 1e-4
    with torch.no_grad():
        layer.S_residual.mul_(3.0)
    W = layer.weight().detach()
    expected = abs(W.norm() ** 2 - layer.weight_norm**2)
    torch.testing.assert_close(layer.keep_norm_loss().detach(), expected)
    assert layer.orthogonality_loss().item() < 1e-5  # scaling S keeps the bases orthonormal
    with torch.no_grad():
        layer.U_residual.add_(layer.U_main[:, :1])  # tilt the residual into the principal space
    assert layer.orthogonality_loss().item() > 0.5


def test_apply_effort_on_a_vit_trains_only_the_residuals():
    model = TinyViT(dim=16, depth=2, heads=2, seed=0)
    x = torch.randn(6, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    before = model(x).detach()
    state = {k: v.clone() for k, v in model.state_dict().items()}
    apply_effort(model)
    assert len(effort_layers(model)) == 2 * 4  # q, k, v, proj in each block
    torch.testing.assert_close(model(x), before, atol=1e-5, rtol=0)
    trainable = {n.rpartition(".")[2] for n, p in model.named_parameters() if p.requires_grad}
    assert trainable == {"U_residual", "S_residual", "V_residual"}
    assert count_trainable(model) == 8 * (16 + 16 + 1)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    loss = model(x).square().mean() + 0.1 * effort_regularizer(model)
    loss.backward()
    opt.step()
    after = model.state_dict()
    for name, value in state.items():
        if ".attn." not in name or name.endswith("bias"):
            torch.testing.assert_close(after[name], value, atol=0, rtol=0)
    assert not torch.allclose(model(x), before, atol=1e-4)  # the residuals did move


class UserNet(nn.Module):
    """A differently shaped user model: 3-channel 12 x 20 images, non-square attention maps."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.conv = nn.Conv2d(3, 12, 4, 4)  # (B, 12, 3, 5) -> 15 tokens of 12
        self.self_attention = nn.ModuleDict(
            {"query": nn.Linear(12, 20), "key": nn.Linear(12, 20), "value": nn.Linear(12, 8)}
        )
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True)
        self.out = nn.Linear(8, 3)

    def forward(self, x):
        h = self.conv(x).flatten(2).transpose(1, 2)  # (B, 15, 12)
        a = self.self_attention
        w = torch.softmax(a["query"](h) @ a["key"](h).transpose(1, 2) / 20**0.5, -1)
        v = w @ a["value"](h)  # (B, 15, 8)
        return self.out(self.mha(v, v, v)[0].mean(1))  # (B, 3)


def test_apply_effort_on_a_user_model_with_another_input_shape():
    model = UserNet()
    x = torch.randn(4, 3, 12, 20, generator=torch.Generator().manual_seed(2))
    before = model(x).detach()
    names = select_linears(model)
    assert names == ["self_attention.query", "self_attention.key", "self_attention.value"]
    apply_effort(model, rank=2)
    torch.testing.assert_close(model(x), before, atol=1e-5, rtol=0)
    assert count_trainable(model) == 2 * ((12 + 20 + 1) * 2 + (12 + 8 + 1))
    model(x).sum().backward()
    assert all(m.S_residual.grad is not None for m in effort_layers(model))
    # a callable or a list of names picks other layers
    other = UserNet()
    apply_effort(other, target=lambda name, m: m.out_features == 3)
    assert [type(other.out).__name__, count_trainable(other)] == ["SVDResidualLinear", 3 + 8 + 1]
    third = apply_effort(UserNet(), target=["query", "out"])
    assert len(effort_layers(third)) == 2


def test_lora_is_exact_at_init_with_its_parameter_count():
    model = UserNet()
    x = torch.randn(2, 3, 12, 20)
    before = model(x).detach()
    apply_lora(model, rank=1, seed=0)
    torch.testing.assert_close(model(x), before, atol=1e-6, rtol=0)
    assert count_trainable(model) == 2 * (12 + 20) + (12 + 8)
    assert isinstance(model.self_attention["query"], LoRALinear)


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="rank must be at most"):
        SVDResidualLinear(linear(4, 6), rank=5)
    with pytest.raises(ValueError, match="rank"):
        SVDResidualLinear(linear(4, 6), rank=0)
    with pytest.raises(ValueError, match="rank must be at most .* 'self_attention.value'"):
        apply_effort(UserNet(), rank=9)  # value is 12 -> 8
    model = UserNet()
    with pytest.raises(ValueError, match="rank"):
        apply_effort(model, rank=9)
    assert count_trainable(model) > 0 and not effort_layers(model)  # left unchanged
    with pytest.raises(ValueError, match="selects no nn.Linear"):
        apply_effort(UserNet(), target="nothing")
    with pytest.raises(TypeError, match="target"):
        apply_effort(UserNet(), target=3)
    with pytest.raises(TypeError, match="model"):
        apply_effort("a model")
    with pytest.raises(TypeError, match="linear"):
        SVDResidualLinear(nn.Conv2d(2, 2, 1))
    with pytest.raises(ValueError, match="rank"):
        LoRALinear(linear(3, 2), rank=3)
    with pytest.raises(ValueError, match="SVDResidualLinear"):
        effort_regularizer(UserNet())
