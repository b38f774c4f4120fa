import numpy as np
import pytest
import torch
from torch.func import hessian

from icml25.fhbi import ParticleEnsemble, diversity, ece, nll, top_hessian_eigenvalue


def test_power_iteration_matches_the_full_hessian_spectrum():
    torch.manual_seed(0)
    mlp = lambda: torch.nn.Sequential(  # noqa: E731
        torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2)
    ).double()
    ens = ParticleEnsemble(mlp, particles=3, seed=0)
    gen = torch.Generator().manual_seed(1)
    X = torch.randn(30, 2, generator=gen, dtype=torch.float64)
    y = torch.randint(0, 2, (30,), generator=gen)
    loss = ens.loss_fn(X, y)
    res = top_hessian_eigenvalue(loss, ens.theta, tol=1e-10, max_iter=5000)
    assert res.converged
    for i in range(3):
        ev = torch.linalg.eigvalsh(hessian(loss)(ens.theta[i]))
        top = ev[ev.abs().argmax()]
        assert abs(float(res.values[i]) - float(top)) < 1e-6 * abs(float(top))


def test_power_iteration_reports_non_convergence():
    theta = torch.zeros(1, 2, dtype=torch.float64)
    loss = lambda t: t[0] ** 2 - t[1] ** 2  # noqa: E731  eigenvalues +2 and -2: no dominant one
    res = top_hessian_eigenvalue(loss, theta, tol=1e-9, max_iter=20)
    assert not res.converged and res.iterations == 20
    with pytest.raises(ValueError, match="tol"):
        top_hessian_eigenvalue(loss, theta, tol=0.0)


def test_metrics_against_direct_computations():
    proba = np.array([[0.9, 0.1], [0.4, 0.6], [0.2, 0.8], [0.7, 0.3]])
    y = np.array([0, 0, 1, 1])
    assert np.isclose(nll(proba, y), -np.mean(np.log([0.9, 0.4, 0.8, 0.3])))
    # bins of width 1/15: {0.6}: acc 0 conf .6; {0.7}: acc 0 conf .7; {0.8}: 1, .8; {0.9}: 1, .9
    assert np.isclose(ece(proba, y), (0.6 + 0.7 + 0.2 + 0.1) / 4)
    members = np.stack([proba, proba[:, ::-1]])  # TV between p and its mirror: |p0 - p1|
    assert np.isclose(diversity(members), np.mean(np.abs(proba[:, 0] - proba[:, 1])))
    assert diversity(np.stack([proba, proba, proba])) == pytest.approx(0.0, abs=1e-15)
