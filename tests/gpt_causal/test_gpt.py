import numpy as np
import pytest
import torch

from icml25.common.transformer import TransformerConfig
from icml25.gpt_causal.gpt import START, VOCAB, prefix_readouts, tokens_of, train_gpt
from icml25.gpt_causal.othello import play_games


def test_tokens_shift_moves_after_start():
    moves = np.array([[8, 14, -1, -1]])
    x, y = tokens_of(moves)
    assert x.tolist() == [[START, 8, 14, START]]
    assert y.tolist() == [[8, 14, -100, -100]]


def test_prefix_readouts_equal_running_the_prefix_alone():
    rng = np.random.default_rng(0)
    moves, _ = play_games(6, rng, "random")
    net = TransformerConfig(vocab_size=VOCAB, block_size=32, n_layer=2, n_head=2, n_embd=16)
    model, curves = train_gpt(moves, moves, net, steps=3, batch_size=4, lr=1e-3, seed=0)
    assert len(curves["val_loss"]) == 1 and np.isfinite(curves["val_loss"]).all()
    lengths = np.array([1, 5, 9, 12, 20, 30])
    out = prefix_readouts(model, moves, lengths)
    x, _ = tokens_of(moves)
    for g, t in enumerate(lengths):
        with torch.no_grad():
            logits, att = model(x[g : g + 1, : t + 1], return_attention=True)
        assert np.allclose(out["attention"][g], att[-1, 0].mean(0).numpy(), atol=1e-6)
        assert out["prediction"][g] == int(logits[0, -1, :START].argmax())
    assert (out["top_probability"] > 0).all() and (out["attention_entropy"] >= 0).all()


def test_bad_inputs():
    with pytest.raises(ValueError, match="moves"):
        tokens_of(np.array([[40]]))
    moves, _ = play_games(2, np.random.default_rng(0), "random")
    net = TransformerConfig(vocab_size=VOCAB, block_size=32, n_layer=1, n_head=1, n_embd=8)
    with pytest.raises(ValueError, match="steps"):
        train_gpt(moves, moves, net, steps=0, batch_size=2, lr=1e-3, seed=0)
    model, _ = train_gpt(moves, moves, net, steps=1, batch_size=2, lr=1e-3, seed=0)
    with pytest.raises(ValueError, match="lengths"):
        prefix_readouts(model, moves, np.array([0, 3]))
