import numpy as np
import pytest
import torch

from icml25.timebridge import (
    CointegratedAttention,
    DLinear,
    IntegratedAttention,
    TimeBridge,
    TimeBridgeConfig,
    frequency_term,
    period_norm,
    time_frequency_loss,
)

SMALL = dict(input_len=48, horizon=12, patch_len=8, d_model=16, n_heads=2, d_ff=16)


def test_shapes_of_timebridge_its_ablations_and_dlinear():
    x = torch.randn(3, 48, 5)
    for extra in ({}, {"ca_layers": 0}, {"period_norm": False}, {"ps_layers": 0}):
        model = TimeBridge(TimeBridgeConfig(n_series=5, **SMALL, **extra), seed=1)
        assert model(x).shape == (3, 12, 5)
    assert DLinear(48, 12, kernel=5)(x).shape == (3, 12, 5)


def test_weights_depend_on_the_seed_alone():
    a = TimeBridge(TimeBridgeConfig(n_series=3, **SMALL), seed=4)
    torch.rand(10)  # whatever the global state
    b = TimeBridge(TimeBridgeConfig(n_series=3, **SMALL), seed=4)
    c = TimeBridge(TimeBridgeConfig(n_series=3, **SMALL), seed=5)
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(p, q)
    assert not torch.equal(a.embed.weight, c.embed.weight)


def test_window_normalisation_makes_forecasts_equivariant_to_scale_and_shift():
    # per-series z-normalisation of the input, undone on the output: y^(a x + b) = a y^(x) + b
    model = TimeBridge(TimeBridgeConfig(n_series=4, **SMALL), seed=0).double()
    x = torch.randn(2, 48, 4, dtype=torch.float64)
    a = torch.tensor([2.0, 0.5, 3.0, 1.0], dtype=torch.float64)
    b = torch.tensor([10.0, -3.0, 0.0, 100.0], dtype=torch.float64)
    with torch.no_grad():
        left, right = model(x * a + b), model(x) * a + b
    # the 1e-5 added to sigma breaks exactness by ~1e-5 relative
    assert torch.allclose(left, right, rtol=1e-4, atol=1e-3)


def test_period_norm_subtracts_the_causal_moving_average():
    z = torch.randn(4, 7, 32)
    S = 6
    out = period_norm(z, S)
    for j in (S - 1, 10, 31):
        assert torch.allclose(
            out[..., j], z[..., j] - z[..., j - S + 1 : j + 1].mean(-1), atol=1e-6
        )
    # the first S - 1 positions use the first full window's mean (replicate padding)
    first = z[..., :S].mean(-1, keepdim=True)
    assert torch.allclose(out[..., : S - 1], z[..., : S - 1] - first, atol=1e-6)
    # a constant token is mapped to zero: the level is removed
    assert torch.allclose(period_norm(torch.full((2, 3, 16), 5.0), S), torch.zeros(2, 3, 16))


def test_integrated_attention_normalises_queries_keys_not_values():
    torch.manual_seed(0)
    c = TimeBridgeConfig(n_series=2, **SMALL, stable_len=16)
    layer = IntegratedAttention(c)
    x = torch.randn(1, 2, 6, 16)
    # stable_len = d: the moving average is the token's mean; adding a per-token constant shifts
    # V (hence the output) but leaves Q and K, hence the attention weights, unchanged.
    shift = torch.randn(1, 2, 6, 1)
    with torch.no_grad():
        qk = period_norm(x.reshape(2, 6, 16), 16)
        qk_shifted = period_norm((x + shift).reshape(2, 6, 16), 16)
        assert torch.allclose(qk, qk_shifted, atol=1e-5)
        assert not torch.allclose(layer(x), layer(x + shift), atol=1e-3)


def test_cointegrated_attention_mixes_series_and_its_ablation_does_not():
    c = TimeBridgeConfig(n_series=3, **SMALL)
    x = torch.randn(1, 48, 3)
    x2 = x.clone()
    x2[..., 2] = torch.randn(48)  # change series 2 only
    with_ca = TimeBridge(c, seed=0)
    without = TimeBridge(TimeBridgeConfig(n_series=3, **SMALL, ca_layers=0), seed=0)
    with torch.no_grad():
        assert not torch.allclose(with_ca(x)[..., 0], with_ca(x2)[..., 0])
        assert torch.allclose(without(x)[..., 0], without(x2)[..., 0], atol=1e-6)
    layer = CointegratedAttention(c)
    tokens = torch.randn(2, 3, 6, 16)
    perm = torch.tensor([2, 0, 1])
    with torch.no_grad():  # attention across series is permutation-equivariant
        assert torch.allclose(layer(tokens)[:, perm], layer(tokens[:, perm]), atol=1e-5)


def test_frequency_term_on_a_pure_sinusoid():
    # rfft of A sin(2 pi k t / H) has one nonzero bin, of modulus A H / 2
    H, k, A = 96, 4, 1.5
    t = torch.arange(H, dtype=torch.float64)
    target = (A * torch.sin(2 * np.pi * k * t / H)).reshape(1, H, 1)
    zero = torch.zeros_like(target)
    bins = H // 2 + 1
    assert frequency_term(zero, target).item() == pytest.approx(A * H / 2 / bins, rel=1e-9)
    assert frequency_term(target, target).item() == 0.0
    # a phase-shifted copy has the same time MAE as a sign flip would not: its spectrum error
    # is |1 - e^{i phi}| A H / 2 in the one bin
    shifted = (A * torch.sin(2 * np.pi * k * t / H + 0.3)).reshape(1, H, 1)
    expect = abs(1 - np.exp(1j * 0.3)) * A * H / 2 / bins
    assert frequency_term(shifted, target).item() == pytest.approx(expect, rel=1e-9)


def test_time_frequency_loss_mixes_the_two_terms():
    pred, target = torch.randn(2, 24, 3), torch.randn(2, 24, 3)
    mae = (pred - target).abs().mean()
    freq = frequency_term(pred, target)
    assert torch.allclose(time_frequency_loss(pred, target, 0.35), 0.65 * mae + 0.35 * freq)
    assert torch.allclose(time_frequency_loss(pred, target, 0.0), mae)


def test_bad_sizes_and_inputs_are_named():
    with pytest.raises(ValueError, match="input_len"):
        TimeBridgeConfig(n_series=2, input_len=50, patch_len=24)
    with pytest.raises(ValueError, match="d_model"):
        TimeBridgeConfig(n_series=2, d_model=30, n_heads=4)
    with pytest.raises(ValueError, match="horizon"):
        TimeBridgeConfig(n_series=2, horizon=0)
    model = TimeBridge(TimeBridgeConfig(n_series=2, **SMALL))
    with pytest.raises(ValueError, match="x must have shape"):
        model(torch.randn(1, 40, 2))
    with pytest.raises(ValueError, match="alpha"):
        time_frequency_loss(torch.zeros(1, 4, 1), torch.zeros(1, 4, 1), alpha=2.0)
    with pytest.raises(ValueError, match="kernel"):
        DLinear(48, 12, kernel=4)
