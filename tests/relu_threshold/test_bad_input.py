"""Bad input to the data, the network functions and ReLUNet is refused, naming the argument."""

import numpy as np
import pytest
import torch

from icml25.relu_threshold import (
    ReLUNet,
    balanced_init,
    direction_concentration,
    forward,
    linear_data,
    loss_and_gradients,
    record_schedule,
    train,
)

W, A = balanced_init(2, 5, 4, 1e-3, generator=torch.Generator().manual_seed(0))
X, Y = linear_data(8, 2, generator=torch.Generator().manual_seed(0))
XN = np.linspace(-1, 1, 12).reshape(6, 2)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: linear_data(8, 1, beta=[np.nan, 1.0]), "beta must be finite"),
        (lambda: linear_data(8, 1, beta=[]), "beta must not be empty"),
        (lambda: linear_data(8, 1, beta=[[1.0, 2.0], [3.0, 4.0]]), "beta must have 1 dimensions"),
        (lambda: linear_data(10**12, 1), r"runs \* n \* len\(beta\) is too large"),
        (lambda: balanced_init(10**6, 10**6, 2, 1e-3), r"runs \* m \* d is too large"),
        (
            lambda: train(W, A, X, Y, lr=0.1, steps=3, record_at=["1"]),
            "record_at must be a numeric",
        ),
        (lambda: train(W, A, X, Y, lr=0.1, steps=3, record_at=[-1]), "record_at must be >= 0"),
        (
            lambda: train(W, A, X, Y, lr=0.1, steps=3, record_at=[1.5]),
            "record_at must hold integers",
        ),
        (lambda: record_schedule(100, 0), "points must be an integer >= 1"),
        (lambda: record_schedule(100, 10**12), "points is too large"),
        (lambda: direction_concentration(torch.zeros_like(W), A), "W and a must have some output"),
        (
            lambda: direction_concentration(torch.ones(1, 10**5, 2), torch.ones(1, 10**5)),
            r"runs \* m \* m .* is too large",
        ),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: forward(W, A, X.to(torch.complex128)), "X must be an array of real numbers"),
        (lambda: forward(W, A, np.array([[[None]]])), "X must be an array of real numbers"),
        (lambda: forward(W, A, None), "X must be an array, got None"),
        (lambda: loss_and_gradients(W, A, X, None), "y must be an array, got None"),
        (lambda: ReLUNet(steps=1).fit(XN.astype(str), XN[:, 0]), "X must be an array of real"),
        (lambda: linear_data(8, 1, generator=0), "generator must be a torch.Generator"),
        (lambda: balanced_init(1, 3, 2, 1e-3, generator=0), "generator must be a torch.Generator"),
    ],
)
def test_wrong_types_are_refused_by_name(call, message):
    with pytest.raises(TypeError, match=message):
        call()
