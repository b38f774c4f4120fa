import math

import pytest
import torch
from torch import nn

from icml25.common.dropout import UniformDropout


def test_kept_entries_are_scaled_and_the_keep_rate_is_one_minus_p():
    p, n = 0.3, 200_000
    torch.manual_seed(0)
    y = UniformDropout(p).train()(torch.ones(n))
    kept = y != 0
    torch.testing.assert_close(y[kept], torch.full((int(kept.sum()),), 1 / (1 - p)))
    # the keep rate's binomial standard error at n draws is sqrt(p (1 - p) / n) = 0.001
    assert abs(kept.double().mean().item() - (1 - p)) < 5 * math.sqrt(p * (1 - p) / n)


def test_unbiased_and_the_same_law_as_nn_dropout():
    p, n = 0.15, 100_000
    x = torch.randn(n)
    torch.manual_seed(1)
    ours = UniformDropout(p).train()(x)
    torch.manual_seed(1)
    theirs = nn.Dropout(p).train()(x)
    for y in (ours, theirs):  # E[y] = x: the mean of y - x is within 5 standard errors of 0
        se = (x.pow(2).mean() * p / (1 - p) / n).sqrt()
        assert abs((y - x).mean()) < 5 * se
    assert abs((ours == 0).double().mean() - (theirs == 0).double().mean()) < 0.01


def test_gradient_is_the_mask_over_one_minus_p():
    p = 0.4
    x = torch.randn(64, 32, dtype=torch.float64, requires_grad=True)
    torch.manual_seed(2)
    y = UniformDropout(p).train()(x)
    y.sum().backward()
    assert y.dtype == torch.float64
    torch.testing.assert_close(x.grad, (y != 0).double() / (1 - p))


def test_seeded_global_generator_gives_the_same_mask():
    x = torch.randn(10, 10)
    masks = []
    for _ in range(2):
        torch.manual_seed(3)
        masks.append(UniformDropout(0.5).train()(x) != 0)
    assert torch.equal(*masks)


@pytest.mark.parametrize("p", [0.0, 0.5])
def test_identity_in_eval_mode_and_at_p_zero(p):
    x = torch.randn(5, 7)
    module = UniformDropout(p).eval()
    assert module(x) is x
    assert UniformDropout(0.0).train()(x) is x


def test_p_one_zeroes_everything_and_p_is_checked():
    assert torch.equal(UniformDropout(1.0).train()(torch.randn(4, 4)), torch.zeros(4, 4))
    assert isinstance(UniformDropout(0.2), nn.Dropout)
    with pytest.raises(ValueError, match="dropout probability"):
        UniformDropout(1.5)
