"""Linear-probe W2S on features: the Gaussian model as a known case, the digits zoo, bad input."""

import numpy as np
import pytest

from icml25.w2s_intrinsic import predicted_pgr, subspace_pair, w2s_linear_probe, w2s_risks
from icml25.w2s_intrinsic.digits import digits_split, model_features, parse_model

D_S, D_W, D_SW, SIGMA, n, Ns = 3, 6, 2, 0.7, 30, [40, 120]


def gaussian_problem(m=400, trials=400, seed=0):
    """Features of the paper's Gaussian model with unequal widths, a target in both spans."""
    rng = np.random.default_rng(seed)
    Vs, Vw, _ = subspace_pair(12, D_S, D_W, D_SW, seed=rng)
    X = rng.standard_normal((m, 12))
    beta = Vs[:, 0] + Vw[:, 0]
    beta = Vs @ Vs.T @ Vw @ Vw.T @ beta  # in the intersection: both models well specified
    beta /= np.linalg.norm(beta)
    A = rng.standard_normal((D_S, 10))  # strong features of width 10, rank 3
    clean = X @ beta  # (m,)
    noisy = clean + SIGMA * rng.standard_normal((trials, m))  # fresh label noise per split
    return X @ Vw, X @ Vs @ A, clean, noisy[..., None]


def test_probe_on_gaussian_features_matches_the_closed_form():
    # in the Gaussian model the probe's heads are the OLS fits of the closed form: the principal
    # coordinates span the same columns; the test risk against f* estimates the excess risk
    Fw, Fs, clean, noisy = gaussian_problem()
    probe = w2s_linear_probe(
        Fw, Fs, clean, n, Ns, train_targets=noisy, fraction=1.0, trials=400, seed=1
    )
    assert (probe.d_s, probe.d_w) == (D_S, D_W)
    assert probe.d_sw == pytest.approx(D_SW, abs=0.15)  # sample-space estimate, m = 400
    th = w2s_risks(D_S, D_W, D_SW, n, np.array(Ns), SIGMA)
    for name in ("weak", "strong", "w2s", "ceiling"):
        expected = getattr(th, name)[: probe.mean(name).size]  # weak, strong: one value
        z = np.abs(probe.mean(name) - expected) / probe.se(name)
        assert np.all(z < 4), (name, probe.mean(name), expected, z)
    assert np.all(np.diff(probe.mean("w2s")) < 0)


def test_predicted_pgr_uses_the_measured_dimensions():
    Fw, Fs, clean, noisy = gaussian_problem(trials=20)
    probe = w2s_linear_probe(
        Fw, Fs, clean, n, Ns, train_targets=noisy, fraction=1.0, trials=20, seed=1
    )
    expected = w2s_risks(probe.d_s, probe.d_w, probe.d_sw, n, np.array(Ns), form="asymptotic")
    assert np.allclose(predicted_pgr(probe), expected.pgr)
    assert predicted_pgr(probe, "exact").shape == (2,)


def test_digits_zoo_is_deterministic_and_has_the_right_shapes():
    X_pre, y_pre, X_task, y_task = digits_split()
    assert X_pre.shape[1] == X_task.shape[1] == 64
    assert set(y_pre) == set(y_task) == {0, 1, 2, 3, 4}
    F1, acc = model_features("mlp:8:0", X_pre, y_pre, X_task, max_iter=50)
    F2, _ = model_features("mlp:8:0", X_pre, y_pre, X_task, max_iter=50)
    assert F1.shape == (len(y_task), 8) and np.array_equal(F1, F2) and 0 < acc <= 1
    assert model_features("random:16:1", X_pre, y_pre, X_task)[0].shape == (len(y_task), 16)
    assert parse_model("mlp:128x128:1") == ("mlp", (128, 128), 1)


def test_bad_arguments():
    Fw, Fs, clean, noisy = gaussian_problem(trials=5)
    with pytest.raises(ValueError, match="features_w and features_s"):
        w2s_linear_probe(Fw[:-1], Fs, clean, n, Ns)
    with pytest.raises(ValueError, match="targets"):
        w2s_linear_probe(Fw, Fs, clean[:-1], n, Ns)
    with pytest.raises(ValueError, match="train_targets"):
        w2s_linear_probe(Fw, Fs, clean, n, Ns, train_targets=noisy, trials=4)
    with pytest.raises(ValueError, match="n must be"):
        w2s_linear_probe(Fw, Fs, clean, 5, Ns, fraction=1.0)
    with pytest.raises(ValueError, match="N must be"):
        w2s_linear_probe(Fw, Fs, clean, n, [120, 40], fraction=1.0)
    with pytest.raises(ValueError, match="N must be"):
        w2s_linear_probe(Fw, Fs, clean, n, [40, 380], fraction=1.0)
    with pytest.raises(ValueError, match="model"):
        parse_model("resnet:18:0")
