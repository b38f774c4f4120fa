import numpy as np
import pytest
import torch
from sklearn.datasets import make_moons

from icml25.fhbi import ParticleEnsemble, fit, fit_deep_ensemble, fit_mc_dropout
from icml25.fhbi.baselines import mc_dropout_member_proba
from icml25.fhbi.ensemble import batch_indices


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))


X, y = make_moons(80, noise=0.1, random_state=0)


def test_predict_proba_averages_particles_and_rows_sum_to_one():
    ens = fit(mlp, X, y, particles=5, rho=0.05, lr=1.0, steps=30, seed=0)
    P = ens.predict_proba(X)
    assert P.shape == (80, 2)
    assert np.allclose(P.sum(1), 1.0)
    assert np.allclose(P, ens.member_proba(X).mean(0))


def test_training_lowers_the_loss_and_is_deterministic():
    a = fit(mlp, X, y, particles=4, rho=0.05, lr=1.0, steps=200, seed=3, record_every=50)
    b = fit(mlp, X, y, particles=4, rho=0.05, lr=1.0, steps=200, seed=3)
    assert torch.equal(a.theta, b.theta)
    start = ParticleEnsemble(mlp, particles=4, seed=3)
    Xt, yt = torch.tensor(X, dtype=torch.float32), torch.tensor(y)
    assert a.train_losses(Xt, yt).mean() < 0.7 * start.train_losses(Xt, yt).mean()
    assert [s for s, _ in a.history] == [50, 100, 150, 200]


def test_svgd_and_fhbi_share_initial_particles_and_batches():
    a = ParticleEnsemble(mlp, particles=3, seed=5)
    b = ParticleEnsemble(mlp, particles=3, seed=5)
    assert torch.equal(a.theta, b.theta)
    assert not torch.equal(a.theta[0], a.theta[1])
    first = [i.tolist() for i in batch_indices(10, 4, 6, seed=1)]
    assert first == [i.tolist() for i in batch_indices(10, 4, 6, seed=1)]
    assert sorted(first[0] + first[1]) == sorted(set(first[0] + first[1]))  # one epoch, no repeats


def test_baselines_run_and_give_probabilities():
    de = fit_deep_ensemble(mlp, X, y, members=3, lr=0.1, steps=20, rho=0.05, seed=0)
    assert np.allclose(de.predict_proba(X).sum(1), 1)
    model = fit_mc_dropout(X, y, hidden=8, classes=2, p=0.1, lr=0.1, steps=20, seed=0)
    P = mc_dropout_member_proba(model, X, p=0.1, samples=4, seed=0)
    assert P.shape == (4, 80, 2) and np.allclose(P.sum(-1), 1)
    assert not np.allclose(P[0], P[1])  # the masks differ


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="particles"):
        fit(mlp, X, y, particles=0, rho=0.1, lr=0.1, steps=2)
    with pytest.raises(ValueError, match="rho"):
        fit(mlp, X, y, particles=2, rho=-0.01, lr=0.1, steps=2)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        fit(mlp, bad, y, particles=2, rho=0.1, lr=0.1, steps=2)
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="X"):
        fit(mlp, bad, y, particles=2, rho=0.1, lr=0.1, steps=2)
    with pytest.raises(ValueError, match="y"):
        fit(mlp, X, y[:-1], particles=2, rho=0.1, lr=0.1, steps=2)
    with pytest.raises(ValueError, match="steps"):
        fit(mlp, X, y, particles=2, rho=0.1, lr=0.1, steps=0)
    with pytest.raises(ValueError, match="schedule"):
        fit(mlp, X, y, particles=2, rho=0.1, lr=0.1, steps=2, schedule="step")
