"""UCLClassifier and the ERM baselines: the learned rule, scikit-learn conventions, bad input."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import (
    check_estimator,
    check_get_params_invariance,
    check_no_attributes_set_in_init,
    check_parameters_default_constructible,
    check_set_params,
)

from icml25.selective_iv import (
    ERMClassifier,
    UCLClassifier,
    WeakInstrumentWarning,
    fit_conditional_mean,
    level_moments,
    point_moments,
    simulate,
)

FAST = HistGradientBoostingRegressor(max_iter=20, early_stopping=False)


@pytest.fixture(scope="module")
def data():
    d = simulate(900, "nucem", 0.3, 0.3, seed=0)
    y = d.Y.astype(float)
    y[d.D == 0] = np.nan  # unlabelled units
    return d, y


def test_cost_sensitive_learner_follows_the_weights():
    # the cheapest class is given by the sign of x_0: the surrogate must learn that rule
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 2))
    W = np.where(X[:, :1] > 0, [[1.0, 0.0]], [[0.0, 1.0]])  # (n, 2)
    from icml25.selective_iv import scores, train_scores

    A, c = train_scores(X, cost=W, n_classes=2, lr=0.05, epochs=300, seed=0, output_relu=False)
    pred = scores(X, A, c, output_relu=False).argmax(axis=1)
    assert np.mean(pred == (X[:, 0] > 0)) > 0.95


@pytest.mark.parametrize("identification", ["point", "partial"])
def test_ucl_fits_predicts_and_is_deterministic(data, identification):
    d, y = data
    kw = {"nuisance": FAST, "n_folds": 3, "epochs": 50, "random_state": 0}
    m1 = UCLClassifier(identification, **kw).fit(d.X, y, d.D, d.Z)
    m2 = UCLClassifier(identification, **kw).fit(d.X, y, d.D, d.Z)
    np.testing.assert_array_equal(m1.coef_, m2.coef_)
    assert m1.weights_.shape == (900, 3) and np.all(m1.weights_ >= 0)
    assert np.all(np.isfinite(m1.weights_))
    np.testing.assert_array_equal(m1.classes_, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(m1.levels_, [1, 2, 3, 4, 5])
    proba = m1.predict_proba(d.X[:10])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(m1.predict(d.X)) <= {0.0, 1.0, 2.0}
    assert m1.decision_function(d.X[:10]).shape == (10, 3)
    if identification == "partial":  # [max U - L]_+ with 0 <= L and U <= 1 + 1 (estimates)
        assert m1.weights_.max() <= 2.0


def test_ucl_weights_use_only_other_folds(data):
    # cross-fitting: changing the labels of one unit does not change its own weights
    d, y = data
    kw = {"nuisance": FAST, "n_folds": 3, "epochs": 1, "random_state": 0}
    i = int(np.flatnonzero(d.D == 1)[0])
    y2 = y.copy()
    y2[i] = (y[i] + 1) % 3
    w1 = UCLClassifier("partial", **kw).fit(d.X, y, d.D, d.Z).weights_
    w2 = UCLClassifier("partial", **kw).fit(d.X, y2, d.D, d.Z).weights_
    np.testing.assert_array_equal(w1[i], w2[i])
    assert not np.array_equal(w1, w2)


def instrument_data(slope: float, n: int = 3000, seed: int = 0):
    """X ~ N(0, I_3), Y = 1{x_0 > 0} flipped with probability 0.2, Z uniform on 1..5 and
    P(D = 1 | x, z) = 0.2 + slope (z - 1): the first stage is ``slope`` at every x."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    Y = ((X[:, 0] > 0) ^ (rng.random(n) < 0.2)).astype(int)
    Z = rng.integers(1, 6, size=n)
    D = (rng.random(n) < 0.2 + slope * (Z - 1)).astype(int)
    return X, np.where(D == 1, Y, -1), D, Z


def test_weak_first_stage_warns_with_a_per_unit_diagnostic():
    kw = {"nuisance": FAST, "n_folds": 3, "epochs": 5, "random_state": 0}
    with pytest.warns(WeakInstrumentWarning, match="weak first stage"):
        weak = UCLClassifier("point", **kw).fit(*instrument_data(0.0))
    assert weak.first_stage_.shape == weak.weak_first_stage_.shape == (3000,)
    assert weak.weak_first_stage_.mean() > 0.5
    assert weak.wald_denominator_.shape == (3000,)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeakInstrumentWarning)
        strong = UCLClassifier("point", **kw).fit(*instrument_data(0.15))
        partial = UCLClassifier("partial", **kw).fit(*instrument_data(0.0))  # never warns
    # P(D = 1 | x, z) moves by 0.15 per level at every x: the diagnostic recovers it
    assert abs(np.median(strong.first_stage_) - 0.15) < 0.03
    assert strong.weak_first_stage_.mean() < 0.1
    assert partial.weak_first_stage_.mean() > 0.5 and not hasattr(partial, "wald_denominator_")


def test_string_labels_and_unlabelled_placeholders(data):
    d, _ = data
    y = np.array(["a", "b", "c"])[d.Y]
    y[d.D == 0] = "?"  # whatever sits where D = 0 is ignored
    kw = {"nuisance": FAST, "n_folds": 3, "epochs": 5, "random_state": 0}
    m = UCLClassifier("point", **kw).fit(d.X, y, d.D, d.Z)
    np.testing.assert_array_equal(m.classes_, ["a", "b", "c"])
    assert set(m.predict(d.X)) <= {"a", "b", "c"}


def test_nuisance_classifier_reads_conditional_mean():
    # predict_proba @ classes_ is E[target | x]: on a constant x it is the sample mean
    X = np.zeros((200, 1))
    t = np.r_[np.zeros(50), np.full(100, 2.0), np.full(50, 5.0)]
    clf = HistGradientBoostingClassifier(max_iter=5)
    mean = fit_conditional_mean(clf, X, t)(X[:3])
    np.testing.assert_allclose(mean, t.mean(), atol=1e-6)
    np.testing.assert_allclose(fit_conditional_mean(FAST, X, np.ones(200))(X[:2]), 1.0)


def test_moment_shapes(data):
    d, _ = data
    dy = (d.Y[:, None] == np.arange(3)) * d.D[:, None]
    m = point_moments(FAST, d.X, d.D, d.Z, dy, d.X[:7])
    assert m["m_d"].shape == (7,) and m["m_dzy"].shape == (7, 3)
    m_dy_z, p_d0 = level_moments(FAST, d.X, d.D, d.Z, dy, d.X[:7], np.arange(1, 6))
    assert m_dy_z.shape == (7, 5, 3) and p_d0.shape == (7, 5)
    assert np.all((p_d0 >= 0) & (p_d0 <= 1))


def test_erm_baselines(data):
    d, y = data
    sel = ERMClassifier(random_state=0, epochs=20).fit(d.X, y, d.D)
    full = ERMClassifier(random_state=0, epochs=20).fit(d.X, d.Y)
    ipw = ERMClassifier("ipw", propensity=FAST, n_folds=3, random_state=0, epochs=20)
    ipw.fit(d.X, y, d.D)
    for m in (sel, full, ipw):
        assert m.predict(d.X).shape == (900,)
    assert not np.array_equal(sel.coef_, full.coef_)


def test_erm_passes_check_estimator_with_its_defaults():
    """Every scikit-learn check passes with the defaults (linear scores, lr 0.01, 200 epochs);
    two are skipped (no pandas, no array API). With the official ReLU on the scores,
    ``check_classifiers_train`` (training accuracy > 0.83 on blobs) fails: dead units tie all
    scores at 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(ERMClassifier(random_state=0), on_fail=None)
        relu = check_estimator(ERMClassifier(random_state=0, output_relu=True), on_fail=None)
    assert [r["check_name"] for r in results if r["status"] == "failed"] == []
    assert "check_classifiers_train" in [r["check_name"] for r in relu if r["status"] == "failed"]


def test_the_default_scores_separate_three_blobs():
    X, y = make_blobs(300, centers=3, random_state=0)
    assert ERMClassifier(random_state=0).fit(X, y).score(X, y) > 0.9
    assert UCLClassifier().get_params()["output_relu"] is False  # the same score model


def test_ucl_passes_the_checks_that_do_not_call_fit_x_y():
    name = "UCLClassifier"
    for est in (UCLClassifier(), UCLClassifier("partial", random_state=0)):
        check_parameters_default_constructible(name, est)
        check_no_attributes_set_in_init(name, est)
        check_get_params_invariance(name, est)
        check_set_params(name, est)
    with pytest.raises(NotFittedError):
        UCLClassifier().predict(np.zeros((2, 3)))


def test_ucl_fit_conventions_with_extra_arrays(data):
    """The conventions of check_estimators_fit_returns_self, check_fit_idempotent,
    check_estimators_pickle and check_n_features_in, with fit(X, y, decision, instrument)."""
    d, y = data
    est = UCLClassifier("partial", nuisance=FAST, n_folds=3, epochs=5, random_state=0)
    params = est.get_params()
    assert est.fit(d.X, y, d.D, d.Z) is est
    assert est.get_params() == params  # fit does not overwrite parameters
    assert est.n_features_in_ == 6
    first = est.predict_proba(d.X)
    np.testing.assert_array_equal(est.fit(d.X, y, d.D, d.Z).predict_proba(d.X), first)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict_proba(d.X), first)
    np.testing.assert_array_equal(clone(est).fit(d.X, y, d.D, d.Z).predict_proba(d.X), first)
    with pytest.raises(ValueError, match="features"):
        est.predict(d.X[:, :5])


def test_bad_arguments(data):
    d, y = data
    X, D, Z = d.X[:60], d.D[:60], d.Z[:60]
    y = y[:60]
    fit = lambda **kw: UCLClassifier(**kw).fit  # noqa: E731
    with pytest.raises(ValueError, match="identification"):
        fit(identification="exact")(X, y, D, Z)
    with pytest.raises(ValueError, match="n_folds"):
        fit(n_folds=1)(X, y, D, Z)
    with pytest.raises(ValueError, match="n_folds"):
        fit(n_folds=100)(X, y, D, Z)
    with pytest.raises(ValueError, match="lr"):
        fit(lr=0.0)(X, y, D, Z)
    with pytest.raises(ValueError, match="epochs"):
        fit(epochs=0)(X, y, D, Z)
    with pytest.raises(ValueError, match="clip_quantile"):
        fit(clip_quantile=2.0)(X, y, D, Z)
    with pytest.raises(ValueError, match="weak_first_stage"):
        fit(weak_first_stage=-0.1)(X, y, D, Z)
    with pytest.raises(ValueError, match="decision"):
        fit()(X, y, D[:-1], Z)
    with pytest.raises(ValueError, match="decision"):
        fit()(X, y, np.full(60, 2), Z)
    with pytest.raises(ValueError, match="decision"):
        fit()(X, y, np.zeros(60, dtype=int), Z)
    with pytest.raises(ValueError, match="y must"):
        fit()(X, y[:-1], D, Z)
    with pytest.raises(ValueError, match="requires y"):
        fit()(X, None, D, Z)
    with pytest.raises(ValueError, match="one class"):
        fit()(X, np.zeros(60), D, Z)
    with pytest.raises(ValueError, match="instrument"):
        fit()(X, y, D, Z[:-1])
    with pytest.raises(ValueError, match="instrument"):
        fit()(X, y, D, np.array(["a"] * 60))
    with pytest.raises(ValueError, match="instrument"):
        fit()(X, y, D, np.ones(60))
    with pytest.raises(ValueError, match="a must"):
        fit(identification="partial", nuisance=FAST, n_folds=2, a=-1.0)(X, y, D, Z)
    with pytest.raises(ValueError, match="weighting"):
        ERMClassifier("aipw").fit(X, y, D)
    with pytest.raises(ValueError, match="n_folds"):
        ERMClassifier("ipw", n_folds=1).fit(X, y, D)
