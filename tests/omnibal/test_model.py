"""The small VLM and ``profile``."""

import numpy as np
import pytest
import torch

from icml25.omnibal import TinyVLM, VLMConfig, make_batch, profile

SMALL = VLMConfig(image=32, vit_width=32, vit_layers=2, llm_width=32, llm_layers=2, heads=2)


def test_packed_and_padded_batches_give_the_same_loss():
    model = TinyVLM(SMALL)
    losses = []
    for packed in (True, False):
        batch = make_batch(SMALL, [1, 3, 4], [9, 2, 5], packed=packed, seed=0)
        losses.append(model.loss(batch).item())
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)


def test_same_seed_same_model_and_no_global_draw():
    state = torch.random.get_rng_state()
    a, b = TinyVLM(SMALL), TinyVLM(SMALL)
    assert torch.equal(torch.random.get_rng_state(), state)
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(p, q)


def test_profile_covers_every_layer():
    model = TinyVLM(SMALL)
    batch = make_batch(SMALL, [1, 3], [6, 4], packed=True, seed=0)
    layers = model.chain(batch)
    prof = profile(layers, batch.pixels, repeats=1)
    assert len(prof.forward_seconds) == len(layers)
    assert prof.params.sum() == sum(p.numel() for p in model.parameters())
    assert (prof.forward_seconds > 0).all() and (prof.backward_seconds > 0).all()
    blocks = slice(1, 1 + SMALL.vit_layers)
    assert (prof.forward_flops[blocks] > 0).all() and (prof.act_bytes[blocks] > 0).all()
    again = profile(model.chain(batch), batch.pixels, repeats=1)
    np.testing.assert_array_equal(prof.forward_flops, again.forward_flops)
    with pytest.raises(ValueError, match="clock"):
        prof.costs("cycles")
    with pytest.raises(TypeError, match="x"):
        profile(layers, [1.0])
