import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine
from sklearn.utils.estimator_checks import check_estimator

from icml25.apt_tabular import APTClassifier, ModelConfig, PretrainConfig, pretrain
from icml25.apt_tabular.ship import iris_numbers

# iris split 0 with the shipped weights, as printed by `python -m icml25.apt_tabular.ship` and
# quoted in the README
IRIS_AUC = 0.9930666667
IRIS_SETOSA_MASS = 24.8506278799


@pytest.fixture(scope="module")
def tiny():
    model = ModelConfig(n_blocks=1, d_model=16, n_heads=2, d_ff=32)
    return pretrain(PretrainConfig(model=model, steps=5, batch_size=4, n_adversarial=1, seed=0))


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    return X[order[:120]], y[order[:120]], X[order[120:]]


def test_shipped_weights_give_readme_numbers_on_iris():
    auc, mass = iris_numbers()
    assert auc == pytest.approx(IRIS_AUC, abs=1e-6)
    assert mass == pytest.approx(IRIS_SETOSA_MASS, abs=1e-6)
    assert auc > 0.9  # and the model is useful zero-shot


def test_permuting_training_rows_does_not_change_predictions(wine):
    X, y, X_test = wine
    P = APTClassifier().fit(X, y).predict_proba(X_test)
    perm = np.random.default_rng(1).permutation(len(y))
    Q = APTClassifier().fit(X[perm], y[perm]).predict_proba(X_test)
    np.testing.assert_allclose(P, Q, atol=1e-5)
    np.testing.assert_allclose(P.sum(1), 1.0, atol=1e-9)


def test_relabelling_classes_permutes_probabilities(wine):
    X, y, X_test = wine
    P = APTClassifier().fit(X, y).predict_proba(X_test)
    relabel = np.array([2, 0, 1])  # class c becomes relabel[c]
    Q = APTClassifier().fit(X, relabel[y]).predict_proba(X_test)
    np.testing.assert_allclose(Q[:, relabel], P, atol=1e-5)


def test_string_labels_and_many_classes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.array([f"c{k}" for k in range(15)])[np.arange(300) % 15]
    clf = APTClassifier().fit(X, y)
    assert clf.predict_proba(X[:5]).shape == (5, 15)
    assert set(clf.predict(X)) <= set(y)


def test_missing_values_are_mean_imputed(wine):
    X, y, X_test = wine
    Xn, Tn = X.copy(), X_test.copy()
    Xn[::7, 2] = np.nan
    Tn[::3, 4] = np.nan
    P = APTClassifier().fit(Xn, y).predict_proba(Tn)
    Xf, Tf = Xn.copy(), Tn.copy()
    Xf[::7, 2] = np.nanmean(Xn[:, 2])
    Tf[::3, 4] = X[:, 4].mean()
    np.testing.assert_allclose(P, APTClassifier().fit(Xf, y).predict_proba(Tf), atol=1e-6)


def test_categorical_columns_are_ordinal_encoded():
    rng = np.random.default_rng(0)
    cat = rng.choice([10.0, 20.0, 50.0], size=200)
    X = np.column_stack([rng.normal(size=200), cat])
    y = (cat > 15).astype(int)
    clf = APTClassifier(categorical_features=[1]).fit(X, y)
    codes = np.column_stack([X[:, 0], np.searchsorted([10.0, 20.0, 50.0], cat)])
    ref = APTClassifier().fit(codes, y)
    np.testing.assert_allclose(clf.predict_proba(X[:20]), ref.predict_proba(codes[:20]))
    unseen = clf.predict_proba(np.array([[0.0, 99.0]]))  # unseen category -> missing -> mean
    mean_code = codes[:, 1].mean()
    np.testing.assert_allclose(unseen, ref.predict_proba(np.array([[0.0, mean_code]])))


def test_wide_inputs_are_projected():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 150))
    y = (X[:, 0] > 0).astype(int)
    clf = APTClassifier().fit(X, y)
    assert clf.projection_.shape == (150, 100)
    assert clf.predict_proba(X[:4]).shape == (4, 2)


def test_bad_inputs(tiny):
    X, y = load_iris(return_X_y=True)
    clf = APTClassifier(weights=tiny).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="NaN"):
        APTClassifier(weights=tiny).fit(X, np.where(np.arange(150) == 3, np.nan, y))
    with pytest.raises(ValueError, match="at least 2 classes"):
        APTClassifier(weights=tiny).fit(X, np.zeros(150))
    with pytest.raises(ValueError, match="max_context=100"):
        APTClassifier(weights=tiny, max_context=100).fit(X, y)
    sub = APTClassifier(weights=tiny, max_context=100, subsample=True).fit(X, y)
    assert sub.X_context_.shape == (100, 4)
    with pytest.raises(ValueError, match="weights"):
        APTClassifier(weights={"state": {}}).fit(X, y)
    with pytest.raises(ValueError, match="categorical_features"):
        APTClassifier(weights=tiny, categorical_features=[7]).fit(X, y)


def test_head_weights_refuse_more_than_ten_classes():
    head = pretrain(
        PretrainConfig(model=ModelConfig(n_blocks=1, d_model=16, d_ff=32, readout="head"), steps=2)
    )
    X = np.random.default_rng(0).normal(size=(60, 2))
    with pytest.raises(ValueError, match="10-class head"):
        APTClassifier(weights=head).fit(X, np.arange(60) % 12)


def test_clone_and_params():
    clf = APTClassifier(max_context=300, random_state=4)
    assert clone(clf).get_params() == clf.get_params()
    assert clf.set_params(batch_size=7).batch_size == 7


def test_sklearn_estimator_checks():
    # see the README: no check needs to be skipped with the shipped weights
    results = check_estimator(APTClassifier(), on_fail=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert failed == []
