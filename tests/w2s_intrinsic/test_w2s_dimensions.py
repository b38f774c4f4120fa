"""Intrinsic and correlation dimensions on constructed features."""

import numpy as np
import pytest

from icml25.w2s_intrinsic import (
    correlation_dimension,
    feature_dimensions,
    intrinsic_dimension,
    match_feature_dim,
    principal_subspace,
    sample_subspace,
    subspace_pair,
)


def features_with_spectrum(singular_values, m=200, D=30, seed=0):
    """An (m, D) matrix with exactly the given singular values and random singular vectors."""
    rng = np.random.default_rng(seed)
    k = len(singular_values)
    U, _ = np.linalg.qr(rng.standard_normal((m, k)))
    V, _ = np.linalg.qr(rng.standard_normal((D, k)))
    return U @ np.diag(singular_values) @ V.T, V


def test_intrinsic_dimension_counts_the_energy_fraction():
    F, _ = features_with_spectrum([3.0] * 5 + [0.1] * 10)  # energy 45 + 0.1
    assert intrinsic_dimension(F, 0.9) == 5
    assert intrinsic_dimension(F, 0.5) == 3  # 3 * 9 = 27 >= 22.55, 2 * 9 = 18 < 22.55
    assert intrinsic_dimension(F, 1.0) == 15
    G, _ = features_with_spectrum([1.0] * 10)  # equal values: 9 of 10 hold exactly 0.9
    assert intrinsic_dimension(G, 0.9) == 9


def test_principal_subspace_recovers_the_feature_span():
    F, V = features_with_spectrum([5.0, 4.0, 3.0, 0.01, 0.01], seed=2)
    P = principal_subspace(F, 3)  # (30, 3)
    assert P.shape == (30, 3)
    assert correlation_dimension(P, V[:, :3]) == pytest.approx(3.0, abs=1e-6)


@pytest.mark.parametrize("d_sw", [0, 1, 4])
def test_correlation_dimension_of_constructed_subspaces(d_sw):
    Vs, Vw, _ = subspace_pair(25, 4, 7, d_sw, seed=d_sw)
    assert correlation_dimension(Vs, Vw) == pytest.approx(d_sw, abs=1e-10)
    assert correlation_dimension(Vw, Vs) == pytest.approx(d_sw, abs=1e-10)


def test_correlation_dimension_is_the_sum_of_squared_cosines():
    # two planes in R^3 at principal angles 0 and theta: d_sw = 1 + cos(theta)^2
    theta = 0.7
    Vs = np.array([[1.0, 0], [0, 1], [0, 0]])
    Vw = np.array([[1.0, 0], [0, np.cos(theta)], [0, np.sin(theta)]])
    assert correlation_dimension(Vs, Vw) == pytest.approx(1 + np.cos(theta) ** 2)


def test_feature_dimensions_on_features_of_a_shared_latent():
    rng = np.random.default_rng(5)
    m, D = 2000, 40
    latent = rng.standard_normal((m, D))
    Vs, Vw, _ = subspace_pair(D, 4, 6, 2, seed=6)
    Fs = latent @ Vs @ Vs.T + 1e-3 * rng.standard_normal((m, D))  # strong features, rank ~4
    Fw = latent @ Vw @ Vw.T + 1e-3 * rng.standard_normal((m, D))
    d_s, d_w, d_sw = feature_dimensions(Fs, Fw, fraction=0.99)
    assert (d_s, d_w) == (4, 6)
    # in sample space (R^2000) the estimate of ||V_s^T V_w||_F^2 moves by O(d_s d_w / m)
    assert d_sw == pytest.approx(2.0, abs=0.01)


def gaussian_features_of_unequal_widths(d_sw=2, m=4000, seed=7):
    """Features X V_s Q_s^T (width 50) and X V_w Q_w^T (width 13) of subspaces sharing d_sw
    directions: the widths differ and the feature coordinates are unrelated (random isometries
    Q), as between two real models; (d_s, d_w) = (4, 6) in the Gaussian model.
    """
    rng = np.random.default_rng(seed)
    D = 30
    Vs, Vw, _ = subspace_pair(D, 4, 6, d_sw, seed=rng)
    X = rng.standard_normal((m, D))
    Qs, _ = np.linalg.qr(rng.standard_normal((50, 4)))  # (50, 4) orthonormal: flat spectrum
    Qw, _ = np.linalg.qr(rng.standard_normal((13, 6)))  # (13, 6)
    return X @ Vs @ Qs.T, X @ Vw @ Qw.T  # (m, 50), (m, 13)


@pytest.mark.parametrize("shared", [0, 2, 4])
def test_feature_dimensions_is_coordinate_free_with_unequal_widths(shared):
    Fs, Fw = gaussian_features_of_unequal_widths(shared)
    d_s, d_w, d_sw = feature_dimensions(Fs, Fw, fraction=0.999)
    assert (d_s, d_w) == (4, 6)
    # sample-space estimate of ||V_s^T V_w||_F^2; its bias and spread are O(d_s d_w / m) = 0.6%
    assert d_sw == pytest.approx(shared, abs=0.05)
    # any orthogonal map of either model's features leaves every number unchanged
    rng = np.random.default_rng(8)
    Rs, _ = np.linalg.qr(rng.standard_normal((50, 50)))
    Rw, _ = np.linalg.qr(rng.standard_normal((13, 13)))
    d_s2, d_w2, d_sw2 = feature_dimensions(Fs @ Rs, Fw @ Rw, fraction=0.999)
    assert (d_s2, d_w2) == (d_s, d_w)
    assert d_sw2 == pytest.approx(d_sw, abs=1e-9)


def test_the_official_random_projection_misses_the_shared_directions():
    # why feature_dimensions does not use it: a Gaussian map of the 50 strong features to 13
    # coordinates puts them in a frame unrelated to the weak model's 13 coordinates
    # orthogonal subspaces (d_sw = 0) look like random ones: E d_sw = 4 * 6 / 13 = 1.85
    Fs, Fw = gaussian_features_of_unequal_widths(0)
    Ps, Pw = match_feature_dim(Fs, Fw, seed=0)
    assert Ps.shape == Pw.shape == (4000, 13)
    d_sw_official = correlation_dimension(principal_subspace(Ps, 4), principal_subspace(Pw, 6))
    assert d_sw_official > 0.5
    assert feature_dimensions(Fs, Fw, fraction=0.999)[2] < 0.05


def test_sample_subspace_spans_the_features():
    Fs, _ = gaussian_features_of_unequal_widths(m=300)
    U = sample_subspace(Fs, 4)  # (300, 4)
    assert np.allclose(U.T @ U, np.eye(4))
    residual = Fs - U @ (U.T @ Fs)  # the rank-4 features lie in span(U)
    assert np.linalg.norm(residual) < 1e-8 * np.linalg.norm(Fs)
    with pytest.raises(ValueError, match="dim"):
        sample_subspace(Fs, 51)


def test_bad_arguments():
    F, _ = features_with_spectrum([1.0, 1.0])
    with pytest.raises(ValueError, match="fraction"):
        intrinsic_dimension(F, 0.0)
    with pytest.raises(ValueError, match="features"):
        intrinsic_dimension(np.ones(5))
    with pytest.raises(ValueError, match="features"):
        intrinsic_dimension(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="dim"):
        principal_subspace(F, 31)
    with pytest.raises(ValueError, match="Vw"):
        correlation_dimension(np.eye(4)[:, :2], 2 * np.eye(4)[:, :2])
    with pytest.raises(ValueError, match="Vs and Vw"):
        correlation_dimension(np.eye(4)[:, :2], np.eye(5)[:, :2])
    with pytest.raises(ValueError, match="features_s and features_w"):
        feature_dimensions(np.ones((5, 3)), np.ones((6, 3)))


def _svd_reference(F, fraction, dim):
    """The SVD route the Gram route replaced: intrinsic dimension and top-``dim`` projector."""
    U, s, Vt = np.linalg.svd(F, full_matrices=False)
    energy = np.cumsum(s**2)
    d = int(np.searchsorted(energy, fraction * energy[-1] * (1 - 1e-12)) + 1)
    return d, Vt[:dim].T @ Vt[:dim], s


@pytest.mark.parametrize(
    "spectrum",
    [None, np.logspace(0, -4, 30)],  # Gaussian 896 x 64 (as the digits features); s_1/s_30 = 1e4
    ids=["gaussian-896x64", "ill-conditioned-500x30"],
)
def test_gram_route_matches_the_svd(spectrum):
    # for m >= D both functions use the eigendecomposition of F^T F; it must give the SVD's
    # answer: the same intrinsic dimension at every fraction, and a top-d subspace within the
    # Gram route's error bound eps s_1^2 / (s_d^2 - s_{d+1}^2) (times 100) of the SVD's
    if spectrum is None:
        F = np.random.default_rng(11).standard_normal((896, 64))
    else:
        F, _ = features_with_spectrum(spectrum, m=500, D=30, seed=12)
    eps = np.finfo(float).eps
    for fraction in (0.5, 0.9, 0.99, 0.999, 1.0):
        d, _, _ = _svd_reference(F, fraction, 1)
        assert intrinsic_dimension(F, fraction) == d
    s = np.linalg.svd(F, compute_uv=False)
    for dim in (1, 5, 20, len(s) - 1):
        _, P_svd, _ = _svd_reference(F, 0.9, dim)
        V = principal_subspace(F, dim)
        assert np.allclose(V.T @ V, np.eye(dim), atol=1e-12)
        bound = eps * s[0] ** 2 / (s[dim - 1] ** 2 - s[dim] ** 2)
        assert np.linalg.norm(V @ V.T - P_svd, 2) <= max(100 * bound, 1e-13)


def test_wide_features_keep_the_svd():
    # m < D: the (D, D) Gram matrix would be rank-deficient and larger; the SVD route is kept
    F = np.random.default_rng(13).standard_normal((20, 90))
    for fraction in (0.5, 0.9, 0.99):
        assert intrinsic_dimension(F, fraction) == intrinsic_dimension(F.T, fraction)
        assert intrinsic_dimension(F, fraction) == _svd_reference(F, fraction, 1)[0]
    _, P_svd, _ = _svd_reference(F, 0.9, 7)
    V = principal_subspace(F, 7)
    assert np.linalg.norm(V @ V.T - P_svd, 2) < 1e-12
