"""Bad input to the dimensions, closed forms, simulation and probes is refused, naming it."""

import numpy as np
import pytest

from icml25.w2s_intrinsic import (
    intrinsic_dimension,
    principal_subspace,
    sample_subspace,
    simulate_w2s,
    subspace_pair,
    w2s_linear_probe,
    w2s_risks,
)

RNG = np.random.default_rng(0)
F = RNG.standard_normal((30, 5))
FW, FS, Y = RNG.standard_normal((60, 3)), RNG.standard_normal((60, 4)), RNG.standard_normal(60)


def probe(**changes):
    kwargs = dict(features_w=FW, features_s=FS, targets=Y, n=10, N=10, trials=3) | changes
    return lambda: w2s_linear_probe(**kwargs)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: intrinsic_dimension(F.astype(str)), "features must be a numeric array"),
        (lambda: intrinsic_dimension([[1.0, 2.0], [3.0]]), "features must be a numeric array"),
        (lambda: principal_subspace(np.zeros((4, 3)), 2), "features must not be all zero"),
        (lambda: sample_subspace(np.zeros((4, 3)), 2), "features must not be all zero"),
        (lambda: w2s_risks(20, 40, 8, np.inf, 400), "n must be an integer"),
        (lambda: w2s_risks(20, 40, 8, 100, np.inf), "N must be an integer"),
        (lambda: w2s_risks(20, 40, 8, 100, [[400, 500], [600]]), "N must be .* ragged"),
        (lambda: w2s_risks(20, 40, 8, [100, 200], [400, 500, 600]), "n and N must broadcast"),
        (lambda: subspace_pair(10**12, 3, 4, 2), "ambient_dim is too large"),
        (lambda: simulate_w2s(3, 4, 2, 10**12, 10, trials=3), r"n \+ max\(N\) is too large"),
        (lambda: simulate_w2s(3, 4, 2, 10, 10, trials=10**12), "trials is too large"),
        (lambda: simulate_w2s(3, 4, 2, 10, 10, ambient_dim=10**12), "ambient_dim is too large"),
        (lambda: simulate_w2s(3, 4, 2, 10, [[10], [20, 30]]), "N must be an integer or a 1-d"),
        (probe(features_w=FW.astype(str)), "features_w must be a numeric array"),
        (probe(features_s=np.zeros((60, 4))), "features_s must not be all zero"),
        (probe(targets=Y.astype(str)), "targets must be a numeric array"),
        (probe(train_targets=np.full((3, 60, 1), np.nan)), "train_targets must be finite"),
        (probe(train_targets=np.zeros((1, 3, 60, 1))), "train_targets must have the shape"),
        (probe(N=[[10], [20, 30]]), "N must be an int or a 1-d sequence"),
        (probe(trials=10**12), "trials is too large"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
