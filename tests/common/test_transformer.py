"""The shared small transformer: masking, attention weights, seeding, bad input."""

import pytest
import torch

from icml25.common.transformer import Transformer, TransformerConfig

CONFIG = TransformerConfig(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=16)


def tokens(seed: int, B: int = 3, T: int = 8) -> torch.Tensor:
    return torch.randint(0, 11, (B, T), generator=torch.Generator().manual_seed(seed))


def test_causal_logits_ignore_the_future_and_bidirectional_do_not():
    idx, changed = tokens(0), tokens(0).clone()
    changed[:, 5:] = (changed[:, 5:] + 1) % 11
    causal = Transformer(CONFIG, seed=0).eval()
    assert torch.allclose(causal(idx)[:, :5], causal(changed)[:, :5], atol=1e-6)
    assert not torch.allclose(causal(idx)[:, 5:], causal(changed)[:, 5:], atol=1e-3)
    both = TransformerConfig(**{**CONFIG.__dict__, "causal": False})
    full = Transformer(both, seed=0).eval()
    assert not torch.allclose(full(idx)[:, :5], full(changed)[:, :5], atol=1e-3)


@pytest.mark.parametrize("causal", [True, False])
def test_attention_weights_are_row_stochastic_and_the_fused_path_agrees(causal):
    model = Transformer(TransformerConfig(**{**CONFIG.__dict__, "causal": causal}), seed=1).eval()
    idx = tokens(1)
    logits, maps = model(idx, return_attention=True)
    assert maps.shape == (2, 3, 2, 8, 8)
    torch.testing.assert_close(maps.sum(-1), torch.ones(2, 3, 2, 8), atol=1e-6, rtol=0)
    above = torch.ones(8, 8, dtype=torch.bool).triu(1)
    assert (maps[..., above] == 0).all() == causal
    torch.testing.assert_close(model(idx), logits, atol=1e-5, rtol=1e-5)


def test_the_seed_alone_decides_the_parameters_and_global_state_is_untouched():
    torch.manual_seed(123)
    before = torch.random.get_rng_state()
    a, b, c = (Transformer(CONFIG, seed=s) for s in (7, 7, 8))
    assert torch.equal(torch.random.get_rng_state(), before)
    pa, pb, pc = (torch.cat([p.flatten() for p in m.parameters()]) for m in (a, b, c))
    assert torch.equal(pa, pb) and not torch.equal(pa, pc)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="n_embd"):
        TransformerConfig(vocab_size=5, block_size=4, n_head=3, n_embd=16)
    with pytest.raises(ValueError, match="vocab_size"):
        TransformerConfig(vocab_size=0, block_size=4)
    model = Transformer(CONFIG)
    with pytest.raises(ValueError, match="idx"):
        model(tokens(0, T=8).float())
    with pytest.raises(ValueError, match="idx"):
        model(torch.zeros(1, 9, dtype=torch.long))
