import numpy as np
import pytest
import torch

from icml25.relu_threshold import ReLUNet, balanced_init, forward, linear_data, ols, train


def test_numpy_inputs_give_the_same_training_as_tensors():
    g = torch.Generator().manual_seed(0)
    X, y = linear_data(40, 2, generator=g)
    W, a = balanced_init(2, 10, 4, 0.1, generator=g)
    on_tensors = train(W, a, X, y, lr=0.05, steps=50, record_at=[50])
    on_numpy = train(W.numpy(), a.numpy(), X.numpy(), y.numpy(), lr=0.05, steps=50, record_at=[50])
    torch.testing.assert_close(on_numpy.W, on_tensors.W, rtol=0, atol=0)
    np.testing.assert_array_equal(on_numpy.loss, on_tensors.loss)
    torch.testing.assert_close(ols(X.numpy(), y.numpy().tolist()), ols(X, y))


def test_relunet_fits_like_ols_above_the_threshold_and_predicts_numpy():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (256, 3))  # (n, p)
    y = X @ np.array([0.5, -0.3, 0.2]) + 1.5 + 0.5 * rng.standard_normal(256)
    net = ReLUNet(width=50, steps=3000, seed=1).fit(X, y)
    ones = np.c_[X, np.ones(256)]
    beta, *_ = np.linalg.lstsq(ones, y, rcond=None)
    ols_loss = 0.5 * np.mean((ones @ beta - y) ** 2)
    prediction = net.predict(X)
    assert isinstance(prediction, np.ndarray) and prediction.shape == (256,)
    assert 0.5 * np.mean((prediction - y) ** 2) == pytest.approx(ols_loss, rel=0.02)
    assert net.loss_[-1] == pytest.approx(0.5 * np.mean((prediction - y) ** 2), rel=1e-9)
    assert net.concentration_[-1] > 0.95  # the mass sits on at most two directions
    # the same seed gives the same network; predict agrees with the batched forward
    again = ReLUNet(width=50, steps=3000, seed=1).fit(torch.from_numpy(X), y.tolist())
    np.testing.assert_array_equal(again.predict(X), prediction)
    batched = forward(net.W_[None], net.a_[None], torch.from_numpy(ones)[None])[0]
    np.testing.assert_allclose(prediction, batched.numpy(), rtol=0, atol=0)


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: ols(np.ones((5, 4)), np.ones((1, 5))), "X must be a 3-D array"),
        (lambda: ols(np.ones((1, 5, 4)), np.ones((1, 6))), "y must have shape"),
        (lambda: ols(np.ones((1, 5, 4)), np.full((1, 5), np.nan)), "y must be finite"),
        (lambda: ols([["a"]], np.ones((1, 5))), "X must be an array of real numbers"),
        (lambda: forward(np.ones((1, 3, 4)), np.ones((1, 2)), np.ones((1, 5, 4))), "a must"),
        (lambda: forward(np.ones((1, 3, 4)), np.ones((1, 3)), np.ones((1, 5, 3))), "X must"),
        (lambda: forward(np.ones((1, 3, 4)), np.ones((1, 3)), np.ones((2, 5, 4))), "X must"),
        (
            lambda: train(
                np.ones((1, 3, 4)), np.ones((1, 3)), np.ones((1, 5, 4)), np.ones(5), lr=0.1, steps=1
            ),
            "y must be a 2-D array",
        ),
        (lambda: ReLUNet().fit(np.ones(5), np.ones(5)), "X must be a 2-D array"),
        (lambda: ReLUNet().fit(np.ones((5, 2)), np.ones(4)), "y must have shape"),
        (lambda: ReLUNet(width=0), "width must"),
        (lambda: ReLUNet(scale=-1.0), "scale must"),
        (lambda: ReLUNet(bias=1), "bias must"),
        (lambda: ReLUNet(steps=1).fit(np.ones((5, 2)), np.ones(5)).predict(np.ones((3, 3))), "X"),
    ],
)
def test_bad_input_names_the_argument(call, word):
    with pytest.raises((ValueError, TypeError), match=f"^{word}"):
        call()


def test_predict_before_fit_says_so():
    with pytest.raises(RuntimeError, match="fit first"):
        ReLUNet().predict(np.ones((3, 2)))
