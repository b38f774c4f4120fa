import numpy as np
import pytest
import torch

from icml25.apt_tabular import (
    APT,
    DataMaker,
    ModelConfig,
    PretrainConfig,
    make_batch,
    pretrain,
    quantile_classes,
)
from icml25.apt_tabular.model import HEAD_CLASSES

TINY = ModelConfig(n_blocks=1, d_model=16, n_heads=2, d_ff=32)


@pytest.mark.parametrize("K", [2, 7, 31])
@pytest.mark.parametrize("training", [False, True])
def test_mixture_outputs_are_probability_vectors_for_any_class_count(K, training):
    model = APT(TINY, seed=1).train(training)
    g = torch.Generator().manual_seed(K)
    x = torch.randn(3, 3 * K + 9, 5, generator=g)  # (B, n, F)
    y = torch.arange(3 * K).repeat(3, 1) % K  # (B, n_train): every class present
    P = model(x, y, generator=g)
    assert P.shape == (3, 9, K)
    assert (P >= 0).all()
    torch.testing.assert_close(P.sum(-1), torch.ones(3, 9), atol=1e-5, rtol=0)


def test_fixed_head_outputs_ten_classes():
    model = APT(ModelConfig(n_blocks=1, d_model=16, d_ff=32, readout="head")).eval()
    P = model(torch.randn(2, 30, 4), torch.arange(20).repeat(2, 1) % 4)
    assert P.shape == (2, 10, HEAD_CLASSES)
    torch.testing.assert_close(P.sum(-1), torch.ones(2, 10))


def test_test_rows_do_not_interact():
    model = APT(TINY).eval()
    x = torch.randn(1, 40, 6)
    y = torch.arange(30)[None] % 3
    full = model(x, y)
    alone = model(torch.cat([x[:, :30], x[:, 35:36]], 1), y)
    torch.testing.assert_close(full[:, 5], alone[:, 0], atol=1e-6, rtol=0)


def test_quantile_classes_balanced():
    y = quantile_classes(torch.randn(100, generator=torch.Generator().manual_seed(0)), 7)
    counts = torch.bincount(y, minlength=7)
    assert counts.min() >= 14 and counts.max() <= 15


def test_data_maker_batch_shapes_and_gradient():
    g = torch.Generator().manual_seed(0)
    makers = [DataMaker(g, max_features=6, n_classes=4) for _ in range(3)]
    x, y = make_batch(makers, 50, 40, g)
    assert x.shape == (3, 50, max(m.n_features for m in makers)) and y.shape == (3, 50)
    assert set(y.unique().tolist()) <= {0, 1, 2, 3}
    x.sum().backward()  # the adversary's weights receive gradients through x
    assert makers[0].weights[0].grad is not None


def test_pretrain_adversarial_and_plain_are_seeded():
    c = PretrainConfig(model=TINY, steps=4, batch_size=3, n_adversarial=1, n_rows=40, seed=3)
    a, b = pretrain(c), pretrain(c)
    np.testing.assert_array_equal(a["losses"], b["losses"])
    assert np.isfinite(a["losses"]).all()
    plain = pretrain(PretrainConfig(model=TINY, steps=4, batch_size=3, n_adversarial=0, n_rows=40))
    assert np.isfinite(plain["losses"]).all()
    with pytest.raises(ValueError, match="n_adversarial"):
        PretrainConfig(batch_size=2, n_adversarial=3)
